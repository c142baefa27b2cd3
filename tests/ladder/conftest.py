"""Fixtures for the ladder: a private media folder, users, bots, worker processes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.db import connection

from tests.conftest import TEST_QUEUE

ROOT = Path(__file__).resolve().parents[2]

RANDOM_BOT = (ROOT / "bots" / "random" / "main.py").read_bytes()
CRASH_BOT = b"import sys\nsys.stderr.write('about to fail\\n')\nraise SystemExit(3)\n"


@pytest.fixture(autouse=True)
def media_dir(settings) -> Iterator[Path]:
    # Not under pytest's tmp_path: that is private to root (0700), and the
    # sandboxes run bots as an unprivileged user who must read the code.
    folder = Path(tempfile.mkdtemp(prefix="gemarena-media-"))
    folder.chmod(0o755)
    settings.MEDIA_ROOT = folder
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user("alice", "alice@example.org", "alice-pass-123")


@pytest.fixture
def bob(django_user_model):
    return django_user_model.objects.create_user("bob", "bob@example.org", "bob-pass-123")


def database_url() -> str:
    """A URL for the test database itself, for worker processes."""
    s = connection.settings_dict
    return f"postgres://{s['USER']}:{s['PASSWORD']}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


@contextmanager
def worker_processes(
    count: int, media: Path, extra_env: dict[str, str] | None = None
) -> Iterator[list[subprocess.Popen]]:
    """Real Celery workers on the test database and the test queue; killed at exit."""
    env = dict(os.environ)
    env.update(
        DATABASE_URL=database_url(),
        GEMARENA_MEDIA_DIR=str(media),
        PYTHONUNBUFFERED="1",
        **(extra_env or {}),
    )
    procs = []
    try:
        for n in range(count):
            procs.append(
                subprocess.Popen(
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
                        f"test{n}-{os.getpid()}@%h",
                        "--loglevel",
                        "WARNING",
                    ],
                    cwd=ROOT,
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    start_new_session=True,
                )
            )
        yield procs
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
        deadline = time.monotonic() + 20
        for p in procs:
            try:
                p.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def wait_for(predicate, timeout_s: float, what: str, interval_s: float = 0.25) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(interval_s)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")
