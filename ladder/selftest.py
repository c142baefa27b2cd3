"""The worker self-test: an echo bot through this worker's sandbox.

A worker runs it when it starts (worker_ready), again with every heartbeat,
and right after a match failed with a system fault. The result is stored on
the worker's WorkerHeartbeat row (self_test_ok / self_test_detail), which is
what `run_match` consults before claiming a match: a worker whose sandbox
is broken hands its matches to the others instead of burning their
attempts.

Each worker also keeps its own heartbeat thread: the beat-scheduled
`heartbeat` task lands on whichever worker takes it first, so with several
workers one of them could go without a heartbeat for longer than
WORKER_STALE_SECONDS and be shown as gone.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

from django.conf import settings
from django.db import DatabaseError, close_old_connections, connection

from arena import remove_match_sandboxes, sandbox_self_test, sandbox_status
from ladder.models import LadderSettings, WorkerHeartbeat

log = logging.getLogger(__name__)


def work_dir() -> Path:
    """Where the echo bot is written: under the media dir, because the Docker
    engine bind-mounts it from the worker host's filesystem exactly as it
    does with uploaded bots."""
    return Path(settings.MEDIA_ROOT) / "selftest"


def run_self_test(hostname: str) -> tuple[bool, str]:
    """Run the self-test and record it with a heartbeat; returns (ok, detail)
    even when the database cannot take the record right now."""
    remove_leftovers()
    try:
        instance = LadderSettings.instance_id()
    except DatabaseError:  # labels without it; stale self-tests wait for the next run
        instance = ""
        connection.close()
    ok, detail = sandbox_self_test(settings.SANDBOX_BACKEND, work_dir(), instance=instance)
    status = sandbox_status(settings.SANDBOX_BACKEND)
    try:
        WorkerHeartbeat.beat(hostname, status.backend, status.problem)
        WorkerHeartbeat.objects.filter(hostname=hostname).update(
            self_test_ok=ok, self_test_detail=detail[:2000]
        )
    except DatabaseError as exc:
        log.warning("self-test of %s not recorded: %s", hostname, exc)
        connection.close()
    if ok:
        log.info("self-test passed on %s: %s", hostname, detail)
    else:
        log.error("self-test FAILED on %s, refusing matches: %s", hostname, detail)
    return ok, detail


#: (match label, unix time) of sandboxes this process could not remove yet
_leftovers: list[tuple[str, float]] = []


def discard_match_sandboxes(match_tag: str) -> None:
    """After a failed match: remove its sandboxes now if the engine (and the
    database, for this platform's instance label) answer, else remember them
    for the next self-test of this process."""
    if settings.SANDBOX_BACKEND == "process":
        return  # no containers; and match labels are only unique per deployment
    item = (match_tag, time.time())
    if not _remove_match(*item):
        _leftovers.append(item)


def remove_leftovers() -> None:
    for item in list(_leftovers):
        if _remove_match(*item):
            _leftovers.remove(item)


def _remove_match(match_tag: str, created_before: float) -> bool:
    """True when done. Never without the instance: a bare match label could
    name another platform's containers on a shared engine."""
    try:
        instance = LadderSettings.instance_id()
    except DatabaseError as exc:
        log.info("sandboxes of match %s kept for later: %s", match_tag, exc)
        connection.close()
        return False
    removed = remove_match_sandboxes(match_tag, created_before, instance)
    if removed:
        log.info("removed sandboxes of match %s: %s", match_tag, ", ".join(removed))
    return removed is not None


def refuses_matches(hostname: str) -> str:
    """Why this worker must not claim matches now ("" when it may)."""
    row = (
        WorkerHeartbeat.objects.filter(hostname=hostname, self_test_ok=False)
        .values_list("self_test_detail", flat=True)
        .first()
    )
    return "" if row is None else (row or "self-test failed")


class HeartbeatThread(threading.Thread):
    """Writes this worker's heartbeat and self-test every WORKER_HEARTBEAT_SECONDS,
    then calls `on_beat` (the worker's own periodic chores)."""

    def __init__(
        self,
        hostname: str,
        every_s: float | None = None,
        on_beat: Callable[[], object] | None = None,
    ) -> None:
        super().__init__(name=f"heartbeat-{hostname}", daemon=True)
        self.hostname = hostname
        self.every_s = every_s or settings.WORKER_HEARTBEAT_SECONDS
        self.on_beat = on_beat
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(self.every_s):
            try:
                close_old_connections()
                run_self_test(self.hostname)
                if self.on_beat is not None:
                    self.on_beat()
            except Exception:  # the database may be down for a while: try again later
                log.exception("heartbeat of %s failed", self.hostname)
                connection.close()


_threads: dict[str, HeartbeatThread] = {}


def stop_starting_self_tests() -> None:
    """As soon as the worker is told to stop: no new self-test (a process
    manager such as honcho kills the worker a few seconds later, and a test
    cut off then leaves its container). One in progress runs to its end."""
    for thread in list(_threads.values()):
        thread.stopped.set()


def stop_heartbeat_threads(timeout_s: float = 30.0) -> None:
    """At worker shutdown: let a self-test in progress finish (and remove its
    container) instead of dying with the process mid-test."""
    for thread in list(_threads.values()):
        thread.stopped.set()
    for thread in list(_threads.values()):
        thread.join(timeout=timeout_s)
    _threads.clear()


def start_heartbeat_thread(
    hostname: str, on_beat: Callable[[], object] | None = None
) -> HeartbeatThread:
    """Start (once per worker name) the thread that keeps this worker's row fresh."""
    thread = _threads.get(hostname)
    if thread is None or not thread.is_alive():
        thread = _threads[hostname] = HeartbeatThread(hostname, on_beat=on_beat)
        thread.start()
    return thread
