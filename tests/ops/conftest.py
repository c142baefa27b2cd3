"""The ladder's fixtures (private media folder) and named worker processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.conftest import TEST_QUEUE
from tests.ladder.conftest import ROOT, database_url, media_dir  # noqa: F401 - autouse fixture


@contextmanager
def named_workers(
    names: list[str], media: Path, env_by_name: dict[str, dict[str, str]]
) -> Iterator[dict[str, subprocess.Popen]]:
    """Celery workers `<name>-<pid>@host` on the test database and queue, each
    with its own extra environment; their output goes to <media>/../<name>.log."""
    procs: dict[str, subprocess.Popen] = {}
    try:
        for name in names:
            env = {
                **os.environ,
                "DATABASE_URL": database_url(),
                "GEMARENA_MEDIA_DIR": str(media),
                "PYTHONUNBUFFERED": "1",
                # matches a worker sends back (retries, refusals) stay on the test queue
                "GEMARENA_QUEUE": TEST_QUEUE,
                **env_by_name.get(name, {}),
            }
            log = open(media.parent / f"{media.name}-{name}.log", "wb")
            procs[name] = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "config",
                    "worker",
                    "--pool",
                    "solo",
                    "--without-heartbeat",
                    "--without-gossip",
                    "--without-mingle",
                    "-Q",
                    TEST_QUEUE,
                    "-n",
                    f"{name}-{os.getpid()}@%h",
                    "--loglevel",
                    "INFO",
                ],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        yield procs
    finally:
        for p in procs.values():
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        deadline = time.monotonic() + 30
        for p in procs.values():
            try:
                p.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
