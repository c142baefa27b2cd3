"""Fixtures for the ladder: a private media folder, users, bots, worker processes."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests.conftest import TEST_QUEUE, WORKER_MARK

ROOT = Path(__file__).resolve().parents[2]

RANDOM_BOT = (ROOT / "bots" / "random" / "main.py").read_bytes()
CRASH_BOT = b"import sys\nsys.stderr.write('about to fail\\n')\nraise SystemExit(3)\n"


def paced_random_bot(delay_s: float, slow_replies: int | None = None) -> bytes:
    """A protocol-level random bot that waits `delay_s` before every reply,
    or before its first `slow_replies` replies in each run, so a match lasts
    long enough for a test to interfere mid-match (and a replayed match
    need not crawl to its end)."""
    return f"""
import json, random, sys, time
slow = {slow_replies if slow_replies is not None else "float('inf')"}
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "start":
        print(json.dumps("ready"), flush=True)
    elif msg.get("type") == "request":
        if slow > 0:
            time.sleep({delay_s})
            slow -= 1
        print(json.dumps(random.choice(msg["legal"])), flush=True)
    elif msg.get("type") == "end":
        break
""".encode()


FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.failed:
        item.stash[FAILED] = True
    return report


@pytest.fixture(autouse=True)
def media_dir(settings, request) -> Iterator[Path]:
    # Not under pytest's tmp_path: that is private to root (0700), and the
    # sandboxes run bots as an unprivileged user who must read the code.
    folder = Path(tempfile.mkdtemp(prefix="gemarena-media-"))
    folder.chmod(0o755)
    settings.MEDIA_ROOT = folder
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        remove_worker_logs(folder, keep=request.node.stash.get(FAILED, False))


def remove_worker_logs(media: Path, keep: bool) -> None:
    """The logs of `named_workers` sit next to the media folder. A failed
    test keeps them (their paths go to the test's teardown output); a passed
    one leaves nothing behind in /tmp."""
    for log in sorted(media.parent.glob(f"{media.name}-*.log")):
        if keep:
            print(f"worker log kept: {log}")
        else:
            log.unlink(missing_ok=True)


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
def named_workers(
    names: list[str],
    media: Path,
    env_by_name: dict[str, dict[str, str]] | None = None,
    pool: str = "solo",
    housekeepers: tuple[str, ...] = (),
) -> Iterator[dict[str, subprocess.Popen]]:
    """Real Celery workers `<name>-<pid>@host` on the test database and the test
    queue, each with its own extra environment; killed at exit. Their output
    goes to <media>-<name>.log next to the media folder. The names in
    `housekeepers` start `python -m ladder.housekeeper` instead."""
    from ladder.matches import worker_queues

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
                **(env_by_name or {}).get(name, {}),
            }
            log = open(media.parent / f"{media.name}-{name}.log", "wb")  # noqa: SIM115
            quiet = ["--without-heartbeat", "--without-gossip", "--without-mingle"]
            hostname = f"{name}{WORKER_MARK}%h"
            if name in housekeepers:
                command = ["ladder.housekeeper", *quiet, "-n", hostname]
            else:
                command = [
                    "celery",
                    "-A",
                    "config",
                    "worker",
                    "--pool",
                    pool,
                    "--concurrency",
                    "1",
                    *quiet,
                    "-Q",
                    ",".join(worker_queues()),
                    "-n",
                    hostname,
                    "--loglevel",
                    "INFO",
                ]
            procs[name] = subprocess.Popen(
                [sys.executable, "-m", *command],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            log.close()  # the child keeps its own descriptor
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
        remove_self_test_containers()


def remove_self_test_containers() -> None:
    """A worker killed during one of its self-tests (every heartbeat) leaves
    that echo bot's container; a later self-test of the same platform would
    remove it, but the test's platform ends with the test. Only this test
    database's instance is touched: the engine is shared."""
    from arena.sandboxes import instance_label
    from ladder.models import LadderSettings
    from sandbox.reaper import reap
    from tests.conftest import docker_problem

    if docker_problem() is None:  # else the workers made no container
        labels = {"gemarena.selftest": "1", **instance_label(LadderSettings.instance_id())}
        reap(0, extra_labels=labels)


@contextmanager
def worker_processes(
    count: int, media: Path, extra_env: dict[str, str] | None = None, pool: str = "solo"
) -> Iterator[list[subprocess.Popen]]:
    """`count` identical workers (see named_workers)."""
    names = [f"test{n}" for n in range(count)]
    with named_workers(names, media, {n: extra_env or {} for n in names}, pool) as procs:
        yield [procs[n] for n in names]


def wait_for(predicate, timeout_s: float, what: str, interval_s: float = 0.25) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(interval_s)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


@contextmanager
def migrating():
    """`to(target)` moves the test database to `target` (a list of (app,
    migration)) and gives the models as of then; the newest state comes back
    at the end, whatever happened."""
    executor = MigrationExecutor(connection)

    def to(target):
        executor.loader.build_graph()
        executor.migrate(target)
        return executor.loader.project_state(target).apps

    try:
        yield to
    finally:
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())
