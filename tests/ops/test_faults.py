"""Faults under a running ladder: real workers, PostgreSQL, Redis and Docker.

Each test queues matches, starts two worker processes, injects one fault
mid-run, lets the platform recover, and checks the promises:

- every queued match is played to the end exactly once (all finished, one
  ranked row per seat);
- no rating is applied twice and none is lost (one rating row per seat, the
  rating sequence has no gap, Elo equals a recompute from the results);
- no bot container of these matches is left on the engine.

Faults: Redis restarted (without persistence: its messages are gone),
PostgreSQL restarted, a worker SIGKILLed, and one worker's Docker engine
unreachable for a while (its DOCKER_HOST is a proxy socket this test cuts:
the shared daemon itself is never touched).

They restart the machine's Redis and PostgreSQL: run them where that is
allowed (CI, a development machine), e.g.
`.venv/bin/pytest tests/ops/test_faults.py -m "postgres and redis and docker"`.
"""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.db import connection

from ladder import tasks
from ladder.bots import add_version, install_builtin
from ladder.leaderboard import recompute_elo
from ladder.matches import create_match
from ladder.models import Match, MatchSeat, RatingHistory, WorkerHeartbeat
from tests.ladder.conftest import paced_random_bot, wait_for
from tests.ops.conftest import named_workers

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.docker,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
]

# about 160 decisions at 10 ms: a match lasts 2-3 s, so faults land mid-match
STEADY_BOT = paced_random_bot(0.01)
MATCHES = 12
WORKER_ENV = {
    "SANDBOX_BACKEND": "docker",
    "WORKER_HEARTBEAT_SECONDS": "2",
    "MATCH_STALE_SECONDS": "30",
    "LOG_LEVEL": "INFO",
}


def queue_matches(count: int = MATCHES) -> list[int]:
    bots = [install_builtin("splendor-duel", "random", bot_name=f"f-{i}") for i in range(4)]
    versions = [add_version(b, "steady.py", STEADY_BOT, validate=False) for b in bots]
    ids = []
    for n in range(count):
        a, b = versions[n % 4], versions[(n + 1 + n // 4) % 4]
        if a == b:
            b = versions[(n + 2) % 4]
        ids.append(create_match("splendor-duel", [a, b]).pk)
    return ids


def db_retrying(fn, timeout_s: float = 60):
    """Queries from the test itself while PostgreSQL may be restarting."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return fn()
        except Exception:
            drop_connection()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def drop_connection() -> None:
    """Forget the test's own database connection, even a half-broken one."""
    try:
        connection.close()
    except Exception:
        connection.connection = None


def finished_count(ids: list[int]) -> int:
    return db_retrying(
        lambda: Match.objects.filter(pk__in=ids, status=Match.Status.FINISHED).count()
    )


def wait_finished(ids: list[int], timeout_s: float, tick=None) -> None:
    """Wait for all matches, calling tick() (a beat stand-in) every few seconds."""
    deadline = time.monotonic() + timeout_s
    last_tick = 0.0
    while time.monotonic() < deadline:
        if finished_count(ids) == len(ids):
            return
        if tick and time.monotonic() - last_tick > 3:
            last_tick = time.monotonic()
            db_retrying(tick)
        time.sleep(0.5)
    states = db_retrying(
        lambda: list(Match.objects.filter(pk__in=ids).values_list("status", "attempts", "error"))
    )
    raise AssertionError(f"not all {len(ids)} matches finished in {timeout_s} s: {states}")


def our_containers(ids: list[int], since: float) -> list[str]:
    import docker

    api = docker.APIClient(timeout=30)
    tags = {str(i) for i in ids}
    found = []
    for info in api.containers(all=True, filters={"label": ["gemarena.sandbox=1"]}):
        labels = info.get("Labels") or {}
        if (
            labels.get("gemarena.match") in tags
            and float(labels.get("gemarena.sandbox.created", 0)) >= since
        ):
            found.append((info.get("Names") or ["?"])[0])
    return found


def self_test_leftovers(media: Path) -> list[str]:
    """Self-test containers of our workers (their echo bot lived under `media`)."""
    import docker

    api = docker.APIClient(timeout=30)
    found = []
    for info in api.containers(all=True, filters={"label": ["gemarena.selftest=1"]}):
        if any(str(m.get("Source", "")).startswith(str(media)) for m in info.get("Mounts") or []):
            found.append((info.get("Names") or ["?"])[0])
    return found


def assert_promises(ids: list[int], since: float) -> None:
    n = len(ids)
    assert Match.objects.filter(pk__in=ids, status=Match.Status.FINISHED).count() == n
    assert MatchSeat.objects.filter(match_id__in=ids, rank__isnull=False).count() == 2 * n
    assert RatingHistory.objects.filter(match_id__in=ids).count() == 2 * n
    seqs = sorted(Match.objects.filter(pk__in=ids).values_list("rating_seq", flat=True))
    assert seqs == list(range(seqs[0], seqs[0] + n)), seqs
    assert recompute_elo("splendor-duel", write=False).differences == []
    # containers: the workers remove leftovers on their next heartbeat
    wait_for(lambda: not our_containers(ids, since), 30, "no container of these matches left")
    attempts = sorted(Match.objects.filter(pk__in=ids).values_list("attempts", flat=True))
    workers = sorted(set(Match.objects.filter(pk__in=ids).values_list("worker", flat=True)))
    print(
        f"\n  result: {n}/{n} finished once, {2 * n} rating rows, rating_seq "
        f"{seqs[0]}..{seqs[-1]} without gaps, Elo = recompute, 0 containers left; "
        f"attempts {attempts}; played by {workers}"
    )


def stale_tick() -> None:
    """What beat's reap-stale-matches does, without reaping other runs' containers by age."""
    tasks.reap_stale_matches.run(older_than_s=10**9)


# --- Redis --------------------------------------------------------------------------


def redis_port() -> int | None:
    """The port of REDIS_URL when it is this machine's Redis, else None."""
    parts = urlsplit(os.environ.get("REDIS_URL", ""))
    if parts.scheme != "redis" or parts.hostname not in ("127.0.0.1", "localhost"):
        return None
    return parts.port or 6379


def restart_redis(port: int) -> float:
    """Stop the local Redis (no save: its messages are lost) and start it
    again the way .ci/run starts it."""
    t0 = time.monotonic()
    subprocess.run(["redis-cli", "-p", str(port), "shutdown", "nosave"], check=False, timeout=10)
    subprocess.run(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--daemonize",
            "yes",
            "--save",
            "",
            "--appendonly",
            "no",
        ],
        check=True,
        timeout=10,
    )
    for _ in range(50):
        ping = subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True)
        if ping.stdout.strip() == b"PONG":
            break
        time.sleep(0.1)
    return time.monotonic() - t0


def postgres_cluster() -> tuple[str, str] | None:
    """(version, name) of the local cluster DATABASE_URL points at, if any."""
    parts = urlsplit(os.environ.get("DATABASE_URL", ""))
    if (
        parts.hostname not in ("127.0.0.1", "localhost")
        or not Path("/usr/bin/pg_lsclusters").exists()
    ):
        return None
    listing = subprocess.run(["pg_lsclusters", "-h"], capture_output=True, text=True).stdout
    for line in listing.splitlines():
        version, name, port = line.split()[:3]
        if int(port) == (parts.port or 5432):
            return version, name
    return None


def test_redis_restart_loses_no_match(media_dir) -> None:
    port = redis_port()
    if port is None:
        pytest.skip("restarts a local Redis only (REDIS_URL on 127.0.0.1)")
    since = time.time()
    ids = queue_matches()
    assert tasks.broker_forgot_messages() in (True, False)  # sets the marker
    with named_workers(["a", "b"], media_dir, {"a": WORKER_ENV, "b": WORKER_ENV}):
        wait_for(lambda: finished_count(ids) >= 3, 120, "3 matches to finish")
        down_s = restart_redis(port)
        lost = Match.objects.filter(pk__in=ids, status=Match.Status.QUEUED).count()
        print(
            f"\n  redis restarted without persistence in {down_s:.2f} s; {lost} queued matches lost their message"
        )
        wait_finished(ids, 240, tick=stale_tick)
    assert_promises(ids, since)
    # workers stopped with SIGTERM finish their self-test before exiting
    assert self_test_leftovers(media_dir) == []


# --- PostgreSQL ----------------------------------------------------------------------


def test_postgres_restart_loses_no_result(media_dir) -> None:
    cluster = postgres_cluster()
    if cluster is None:
        pytest.skip(
            "restarts a local PostgreSQL cluster only (pg_ctlcluster, DATABASE_URL on 127.0.0.1)"
        )
    since = time.time()
    ids = queue_matches()
    with named_workers(["a", "b"], media_dir, {"a": WORKER_ENV, "b": WORKER_ENV}):
        wait_for(lambda: finished_count(ids) >= 3, 120, "3 matches to finish")
        t0 = time.monotonic()
        subprocess.run(["pg_ctlcluster", *cluster, "restart", "-m", "fast"], check=True, timeout=60)
        print(f"\n  postgres restarted in {time.monotonic() - t0:.2f} s")
        drop_connection()
        wait_finished(ids, 240, tick=stale_tick)
    db_retrying(connection.ensure_connection)
    assert_promises(ids, since)
    # nothing was counted as the bots' fault or errored
    assert not Match.objects.filter(pk__in=ids, seats__fault__gt="").exists()


# --- a worker killed ------------------------------------------------------------------


def test_killed_worker_loses_no_match(media_dir, settings) -> None:
    settings.MATCH_STALE_SECONDS = 30
    since = time.time()
    ids = queue_matches()
    env = {"victim": WORKER_ENV, "survivor": WORKER_ENV}
    with named_workers(["victim", "survivor"], media_dir, env) as procs:
        victim = procs["victim"]
        wait_for(
            lambda: Match.objects.filter(
                pk__in=ids, status=Match.Status.RUNNING, worker__startswith="victim"
            ).exists(),
            120,
            "the first worker to be mid-match",
        )
        time.sleep(1)
        running = Match.objects.filter(
            pk__in=ids, status=Match.Status.RUNNING, worker__startswith="victim"
        )
        print(
            f"\n  SIGKILL to worker 'victim' while it plays match {list(running.values_list('pk', flat=True))}"
        )
        os.killpg(victim.pid, signal.SIGKILL)
        victim.wait(timeout=10)
        # the survivor plays the rest; the reaper returns the victim's match after 30 s
        wait_finished(ids, 300, tick=stale_tick)
    assert_promises(ids, since)
    assert Match.objects.filter(pk__in=ids, attempts=2).count() >= 1


# --- one worker's Docker engine unreachable ---------------------------------------------


class CuttableDockerSocket:
    """A unix socket that forwards to the Docker engine until cut: then it
    refuses new connections and drops open ones (as a daemon restart does)."""

    def __init__(self, path: Path, target: str = "/var/run/docker.sock") -> None:
        self.path = path
        self.target = target
        self.conns: list[socket.socket] = []
        self.lock = threading.Lock()
        self.listener: socket.socket | None = None
        self.stopped = threading.Event()
        self.restore()

    def restore(self) -> None:
        self.path.unlink(missing_ok=True)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(self.path))
        listener.listen(64)
        self.listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        listener, self.listener = self.listener, None
        if listener:
            listener.close()
        self.path.unlink(missing_ok=True)
        with self.lock:
            for conn in self.conns:
                try:
                    conn.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                conn.close()
            self.conns.clear()

    def close(self) -> None:
        self.stopped.set()
        self.cut()

    def _accept(self, listener: socket.socket) -> None:
        while not self.stopped.is_set():
            try:
                client, _ = listener.accept()
            except OSError:
                return
            upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            upstream.connect(self.target)
            with self.lock:
                self.conns += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        peers = {a: b, b: a}
        try:
            while not self.stopped.is_set():
                ready, _, _ = select.select([a, b], [], [], 1.0)
                for sock in ready:
                    data = sock.recv(65536)
                    if not data:
                        return
                    peers[sock].sendall(data)
        except (OSError, ValueError):
            return
        finally:
            for sock in (a, b):
                try:
                    sock.close()
                except OSError:
                    pass


def test_unreachable_docker_engine_on_one_worker(media_dir) -> None:
    since = time.time()
    ids = queue_matches()
    proxy = CuttableDockerSocket(Path(f"/tmp/gemarena-test-docker-{os.getpid()}.sock"))
    seen_failing = []
    try:
        env = {"cut": {**WORKER_ENV, "DOCKER_HOST": f"unix://{proxy.path}"}, "direct": WORKER_ENV}
        with named_workers(["cut", "direct"], media_dir, env):
            wait_for(lambda: finished_count(ids) >= 2, 120, "2 matches to finish")
            wait_for(
                lambda: Match.objects.filter(
                    pk__in=ids, status=Match.Status.RUNNING, worker__startswith="cut"
                ).exists(),
                60,
                "the proxied worker to be mid-match",
            )
            proxy.cut()
            print(
                "\n  docker socket of worker 'cut' cut for 12 s (new connections refused, open ones dropped)"
            )
            deadline = time.monotonic() + 12
            while time.monotonic() < deadline:
                failing = db_retrying(
                    lambda: list(
                        WorkerHeartbeat.objects.filter(self_test_ok=False).values_list(
                            "hostname", flat=True
                        )
                    )
                )
                seen_failing += failing
                time.sleep(0.5)
            proxy.restore()
            wait_finished(ids, 240, tick=stale_tick)
            # the proxied worker passes its self-test again and takes matches
            wait_for(
                lambda: WorkerHeartbeat.objects.filter(
                    hostname__startswith="cut", self_test_ok=True
                ).exists(),
                30,
                "the proxied worker's self-test to pass again",
            )
            assert_promises(ids, since)
    finally:
        proxy.close()
    assert self_test_leftovers(media_dir) == []
    assert any(h.startswith("cut") for h in seen_failing), (
        "the cut worker never reported its failing self-test"
    )
    # the interrupted match was not the bots' fault: nobody faulted, nothing errored
    assert not MatchSeat.objects.filter(match_id__in=ids).exclude(fault="").exists()
