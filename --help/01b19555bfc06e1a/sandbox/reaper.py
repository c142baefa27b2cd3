"""Remove bot containers left behind by a crashed worker.

Only containers carrying the label `gemarena.sandbox=1` are considered (the
Docker filter selects them and the labels are checked again here), and only
those older than the longest match.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from typing import Any

from sandbox.base import SandboxError
from sandbox.docker_backend import LABEL, LABEL_CREATED, DockerBackend, _api_errors

REAP_AFTER_ENV = "SANDBOX_REAP_AFTER_S"
DEFAULT_REAP_AFTER_S = 3 * 3600  # longer than any match, start-up included


def default_older_than_s() -> float:
    """SANDBOX_REAP_AFTER_S, or 3 h; SandboxError naming it when it is not a
    number of seconds above zero (zero would remove running bots)."""
    raw = os.environ.get(REAP_AFTER_ENV, "").strip()
    if not raw:
        return float(DEFAULT_REAP_AFTER_S)
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not value > 0 or math.isinf(value):
        raise SandboxError(f"{REAP_AFTER_ENV}={raw!r}: expected a number of seconds above 0")
    return value


def reap(
    older_than_s: float,
    *,
    api: Any = None,
    extra_labels: dict[str, str] | None = None,
    spare: Callable[[dict[str, str]], bool] | None = None,
    dry_run: bool = False,
    now: float | None = None,
) -> list[str]:
    """Force-remove our containers created more than `older_than_s` ago;
    returns the names of those removed (or already gone); one the engine
    would not remove is left out, for the next run. `extra_labels` narrows
    the selection further; a container whose labels `spare` approves stays
    (a match still being played, say)."""
    api = api or DockerBackend().api()
    now = time.time() if now is None else now
    wanted = {LABEL: "1", **(extra_labels or {})}
    filters = {"label": [f"{key}={value}" for key, value in wanted.items()]}
    removed = []
    for info in api.containers(all=True, filters=filters):
        labels = info.get("Labels") or {}
        if any(labels.get(key) != value for key, value in wanted.items()):
            continue  # never touch what we did not label
        try:
            created = float(labels.get(LABEL_CREATED) or info["Created"])
        except (TypeError, ValueError):
            created = float(info["Created"])
        if now - created < older_than_s or (spare is not None and spare(labels)):
            continue
        name = (info.get("Names") or [info["Id"][:12]])[0].lstrip("/")
        if not dry_run:
            try:
                api.remove_container(info["Id"], force=True, v=True)
            except _api_errors() as exc:
                if getattr(exc, "status_code", None) != 404:  # gone already: fine
                    continue
        removed.append(name)
    return removed
