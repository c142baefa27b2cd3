"""Test bots for the runner and helpers to set them up in temporary dirs."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _base() -> Path:
    # pytest's tmp dirs are private (0700): a sandbox running bots as another
    # user could not reach them. This one is traversable and removed at exit.
    base = Path(tempfile.mkdtemp(prefix="gemarena-test-bots-"))
    base.chmod(0o755)
    atexit.register(shutil.rmtree, base, ignore_errors=True)
    return base


BASE = _base()


def bot_dir(name: str, **config: object) -> Path:
    """A copy of test bot `name` in a fresh directory readable by the
    sandbox user, with `config` written to config.json."""
    parent = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=BASE))
    parent.chmod(0o755)
    target = parent / "bot"
    shutil.copytree(HERE / name, target)
    (target / "config.json").write_text(json.dumps(config))
    for path in [target, *target.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return target


def processes_mentioning(text: str) -> list[str]:
    """Command lines of live processes whose arguments contain `text`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if text in cmdline:
            found.append(f"{entry}: {cmdline[:200]}")
    return found


def containers_labelled(match_id: str) -> list[str]:
    from sandbox.docker_backend import DockerBackend

    api = DockerBackend().api()
    found = api.containers(all=True, filters={"label": f"gemarena.match={match_id}"})
    return [(c.get("Names") or [c["Id"]])[0] for c in found]
