"""Scale test: real Celery workers, PostgreSQL, Redis and Docker on this machine.

    DATABASE_URL=postgres://... REDIS_URL=redis://... \\
        python -m ladder.loadtest --workers 1,2,4 --matches 300 [--web-clients 50]

For each worker count it starts that many worker processes (their own
queue, a fresh database `<name>_loadtest` made next to DATABASE_URL's),
keeps the queue as deep as the scheduler would (QUEUE_DEPTH_PER_WORKER per
worker) with ladder matches between random bots until `--matches` were
queued, waits for all of them, and prints matches per minute and the time
from queued to finished (median, p95). Then it checks what must hold under
load: every match finished exactly once, one rating row per seat, rating
sequence without gaps, Elo equal to a recompute, no bot container left.

With --web-clients N it also runs gunicorn on 127.0.0.1 and a loopback
load generator (N threads for --web-seconds) against the leaderboard, bot,
match and replay pages while matches are played, and prints the status
counts and the p50/p99 latency. Every phase is bounded by --timeout-s.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent


# --- set-up (before Django) ----------------------------------------------------


def loadtest_database(admin_url: str, suffix: str = "_loadtest") -> str:
    """Drop and create a database next to admin_url's; return its URL."""
    import psycopg

    parts = urlsplit(admin_url)
    name = parts.path.lstrip("/") + suffix
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return urlunsplit(parts._replace(path="/" + name))


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))
    return ordered[int(rank) - 1]


@dataclass
class Phase:
    workers: int
    matches: int
    seconds: float = 0.0
    per_minute: float = 0.0
    q2f_median_s: float = 0.0
    q2f_p95_s: float = 0.0
    play_median_s: float = 0.0
    errored: int = 0
    retried: int = 0
    load_before: float = 0.0
    load_after: float = 0.0
    problems: list[str] = field(default_factory=list)


# --- the workers -----------------------------------------------------------------


def start_workers(
    count: int, env: dict[str, str], args, extra: list[str] | None = None
) -> list[subprocess.Popen]:
    """`count` Celery workers (pool and concurrency of `args`), `extra` added
    to each command line; each logs to a file next to the media folder."""
    from ladder.matches import worker_queues

    procs = []
    for n in range(count):
        cmd = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--pool",
            args.pool,
            "--concurrency",
            str(args.concurrency),
            "--without-heartbeat",
            "--without-gossip",
            "--without-mingle",
            "-Q",
            ",".join(worker_queues()),
            "-n",
            f"load{n}-{os.getpid()}@%h",
            "--loglevel",
            "WARNING",
            *(extra or []),
        ]
        log = open(Path(env["GEMARENA_MEDIA_DIR"]).parent / f"worker-{count}-{n}.log", "wb")
        procs.append(
            subprocess.Popen(
                cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        )
    return procs


def stop_workers(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
    deadline = time.monotonic() + 30
    for p in procs:
        try:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def wait_ready(names_prefix: str, count: int, timeout_s: float) -> None:
    from ladder.models import WorkerHeartbeat

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        ready = WorkerHeartbeat.objects.filter(
            hostname__startswith=names_prefix, self_test_ok=True
        ).count()
        if ready >= count:
            return
        time.sleep(0.2)
    raise SystemExit(f"only some of {count} workers passed their self-test in {timeout_s} s")


# --- one phase ---------------------------------------------------------------------


def feed_and_wait(phase: Phase, versions: list, depth: int, timeout_s: float, rng) -> list[int]:
    """Keep `depth` matches queued until phase.matches were created; wait for all."""
    from ladder.matches import create_match
    from ladder.models import Match

    created: list[int] = []
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if len(created) < phase.matches:
            queued = Match.objects.filter(pk__in=created, status=Match.Status.QUEUED).count()
            for _ in range(min(depth - queued, phase.matches - len(created))):
                a, b = rng.sample(versions, 2)
                created.append(create_match("splendor-duel", [a, b]).pk)
        elif not Match.objects.filter(
            pk__in=created, status__in=[Match.Status.QUEUED, Match.Status.RUNNING]
        ).exists():
            return created
        time.sleep(0.05)
    phase.problems.append(f"timed out after {timeout_s} s")
    return created


def measure(phase: Phase, ids: list[int]) -> None:
    from ladder.models import Match

    rows = list(
        Match.objects.filter(pk__in=ids).values(
            "status", "created_at", "started_at", "finished_at", "attempts"
        )
    )
    done = [r for r in rows if r["status"] == Match.Status.FINISHED]
    phase.errored = sum(r["status"] == Match.Status.ERRORED for r in rows)
    phase.retried = sum(r["attempts"] > 1 for r in rows)
    if not done:
        phase.problems.append("no match finished")
        return
    first = min(r["created_at"] for r in rows)
    last = max(r["finished_at"] for r in done)
    phase.seconds = (last - first).total_seconds()
    phase.per_minute = len(done) / phase.seconds * 60
    q2f = [(r["finished_at"] - r["created_at"]).total_seconds() for r in done]
    phase.q2f_median_s = statistics.median(q2f)
    phase.q2f_p95_s = percentile(q2f, 95)
    phase.play_median_s = statistics.median(
        (r["finished_at"] - r["started_at"]).total_seconds() for r in done
    )


def check_invariants(phase: Phase, ids: list[int], run_started: float) -> None:
    """What must hold after any run: exactly once, rated once, nothing left."""
    from ladder.leaderboard import recompute_elo
    from ladder.models import Match, MatchSeat, RatingHistory

    finished = Match.objects.filter(pk__in=ids, status=Match.Status.FINISHED)
    n = finished.count()
    if n != len(ids):
        phase.problems.append(f"{len(ids) - n} of {len(ids)} matches did not finish")
    history = RatingHistory.objects.filter(match_id__in=ids).count()
    if history != 2 * n:
        phase.problems.append(f"{history} rating rows for {n} two-seat matches")
    seats = MatchSeat.objects.filter(match_id__in=ids, rank__isnull=False).count()
    if seats != 2 * n:
        phase.problems.append(f"{seats} ranked seats for {n} matches")
    seqs = sorted(Match.objects.exclude(rating_seq=None).values_list("rating_seq", flat=True))
    if seqs and seqs != list(range(seqs[0], seqs[0] + len(seqs))):
        phase.problems.append("gaps or repeats in the rating sequence")
    report = recompute_elo("splendor-duel", write=False)
    if report.differences:
        phase.problems.append(f"Elo differs from a recompute: {report.differences[:3]}")
    left = leftover_containers(set(map(str, ids)), run_started)
    if left:
        phase.problems.append(f"containers left behind: {left[:5]}")


def leftover_containers(match_tags: set[str], since: float) -> list[str]:
    """Our bot containers still present (labels of our matches, made by this run)."""
    import docker

    api = docker.APIClient(timeout=30)
    found = []
    for info in api.containers(all=True, filters={"label": ["gemarena.sandbox=1"]}):
        labels = info.get("Labels") or {}
        created = float(labels.get("gemarena.sandbox.created") or info["Created"])
        if labels.get("gemarena.match") in match_tags and created >= since:
            found.append((info.get("Names") or ["?"])[0])
    return found


# --- web load ------------------------------------------------------------------------


@dataclass
class WebResult:
    requests: int = 0
    statuses: dict[int, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    latencies_ms: list[float] = field(default_factory=list)
    by_page_ms: dict[str, list[float]] = field(default_factory=dict)
    odd: dict[str, int] = field(default_factory=dict)  # non-200 answers by path
    matches_played: int = 0  # matches finished while the load ran


def web_load(port: int, pages: list[tuple[str, str]], clients: int, seconds: float) -> WebResult:
    """`clients` threads, each with a keep-alive connection, request random
    pages for `seconds` (and at most 10 000 requests each)."""
    import http.client

    result = WebResult()
    lock = threading.Lock()
    stop_at = time.monotonic() + seconds

    def client(seed: int) -> None:
        rng = random.Random(seed)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        for _ in range(10_000):
            if time.monotonic() >= stop_at:
                break
            kind, path = rng.choice(pages)
            t0 = time.monotonic()
            try:
                conn.request("GET", path, headers={"Accept-Encoding": "gzip"})
                response = conn.getresponse()
                response.read()
                status, error = response.status, ""
                if response.getheader("Connection", "").lower() == "close":
                    conn.close()
            except (OSError, http.client.HTTPException) as exc:
                status, error = 0, type(exc).__name__
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            ms = (time.monotonic() - t0) * 1000
            with lock:
                result.requests += 1
                if error:
                    result.errors[error] = result.errors.get(error, 0) + 1
                else:
                    result.statuses[status] = result.statuses.get(status, 0) + 1
                    result.latencies_ms.append(ms)
                    result.by_page_ms.setdefault(kind, []).append(ms)
                    if status != 200:
                        key = f"{status} {path}"
                        result.odd[key] = result.odd.get(key, 0) + 1
        conn.close()

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=seconds + 60)
    return result


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_web(env: dict[str, str], port: int) -> subprocess.Popen:
    gunicorn = Path(sys.executable).with_name("gunicorn")
    cmd = [str(gunicorn), "config.wsgi", "--bind", f"127.0.0.1:{port}"]
    cmd += ["--workers", "2", "--threads", "4", "--log-level", "warning"]
    log = open(Path(env["GEMARENA_MEDIA_DIR"]).parent / "web.log", "wb")
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc
        except OSError:
            time.sleep(0.2)
    stop_workers([proc])
    raise SystemExit("gunicorn did not start (see web.log)")


def web_pages(limit: int = 50) -> list[tuple[str, str]]:
    from ladder.models import Bot, Match

    bots = list(Bot.objects.filter(is_builtin=True).values_list("pk", flat=True)[:limit])
    matches = list(
        Match.objects.filter(status=Match.Status.FINISHED)
        .order_by("-pk")
        .values_list("pk", flat=True)[:limit]
    )
    pages = [("leaderboard", "/games/splendor-duel/")]
    pages += [("bot", f"/bots/{b}/") for b in bots]
    pages += [("match", f"/matches/{m}/") for m in matches]
    pages += [("replay", f"/matches/{m}/replay.json.gz") for m in matches]
    return pages


# --- main ------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ladder.loadtest",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--workers", default="1,2,4", help="worker counts, one phase each")
    parser.add_argument("--matches", type=int, default=300, help="matches per phase")
    parser.add_argument("--bots", type=int, default=8, help="random bots in the pool")
    parser.add_argument(
        "--pool",
        default="solo",
        choices=["solo", "prefork", "threads"],
        help="Celery pool (default solo)",
    )
    parser.add_argument("--concurrency", type=int, default=1, help="per worker process")
    parser.add_argument(
        "--depth", type=int, default=4, help="queued matches per worker (QUEUE_DEPTH_PER_WORKER)"
    )
    parser.add_argument("--timeout-s", type=float, default=900, help="per phase")
    parser.add_argument(
        "--web-clients",
        type=int,
        default=0,
        help="threads requesting pages (default 0: no web phase)",
    )
    parser.add_argument("--web-seconds", type=float, default=60, help="length of the web phase")
    parser.add_argument(
        "--web-workers", type=int, default=2, help="match workers during the web phase (default 2)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the database and media")
    args = parser.parse_args(argv)

    admin_url = os.environ.get("DATABASE_URL", "")
    if not admin_url.startswith(("postgres://", "postgresql://")):
        parser.error("DATABASE_URL must point at PostgreSQL")
    if not os.environ.get("REDIS_URL", "").startswith("redis"):
        parser.error("REDIS_URL must point at Redis")
    counts = [int(c) for c in args.workers.split(",") if c.strip()]

    db_url = loadtest_database(admin_url)
    work = Path(tempfile.mkdtemp(prefix="gemarena-loadtest-"))
    work.chmod(0o755)
    media = work / "media"
    media.mkdir(mode=0o755)
    queue = f"gemarena-loadtest-{os.getpid()}"
    os.environ.update(
        GEMARENA_QUEUE=queue,
        DATABASE_URL=db_url,
        GEMARENA_MEDIA_DIR=str(media),
        SANDBOX_BACKEND="docker",
        LOG_LEVEL="WARNING",
    )
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    from config.celery import app

    settings.CELERY_TASK_DEFAULT_QUEUE = queue
    app.conf.task_default_queue = queue
    call_command("migrate", verbosity=0)
    from ladder.bots import install_builtin

    versions = [
        install_builtin("splendor-duel", "random", bot_name=f"load-{i}").active_version
        for i in range(args.bots)
    ]
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "DEBUG": "0"}
    rng = random.Random(20241130)
    phases: list[Phase] = []
    web: WebResult | None = None
    run_started = time.time()
    print(
        f"load test: {args.matches} Splendor Duel matches per phase between {args.bots} random "
        f"bots, Docker sandbox, pool {args.pool} x{args.concurrency}, "
        f"{os.cpu_count()} CPUs",
        flush=True,
    )
    try:
        for count in counts:
            phase = Phase(count, args.matches, load_before=os.getloadavg()[0])
            procs = start_workers(count, env, args)
            try:
                wait_ready("load", count, 120)
                # as deep as the scheduler keeps it: per live worker, not per pool slot
                ids = feed_and_wait(phase, versions, args.depth * count, args.timeout_s, rng)
            finally:
                stop_workers(procs)
                from ladder.models import WorkerHeartbeat

                WorkerHeartbeat.objects.all().delete()
            phase.load_after = os.getloadavg()[0]
            measure(phase, ids)
            check_invariants(phase, ids, run_started)
            phases.append(phase)
            print(row(phase), flush=True)
        if args.web_clients:
            web = run_web_phase(args, env, versions, rng)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print_report(phases, web, args)
    bad = [p for p in phases if p.problems] or (web and (web_server_errors(web)))
    return 1 if bad else 0


def run_web_phase(args, env, versions, rng) -> WebResult:
    port = free_port()
    web_env = {**env, "ALLOWED_HOSTS": "127.0.0.1,localhost"}
    procs = start_workers(args.web_workers, env, args)
    server = start_web(web_env, port)
    stop = threading.Event()
    feeder = Phase(args.web_workers, 10_000)

    def feed() -> None:
        from django.db import connection

        from ladder.matches import create_match
        from ladder.models import Match

        try:
            created = 0
            while not stop.is_set() and created < 2_000:
                if Match.objects.filter(status=Match.Status.QUEUED).count() < 8:
                    a, b = rng.sample(versions, 2)
                    create_match("splendor-duel", [a, b])
                    created += 1
                else:
                    time.sleep(0.05)
            feeder.matches = created
        finally:
            connection.close()

    thread = threading.Thread(target=feed, daemon=True)
    from ladder.models import Match

    try:
        wait_ready("load", args.web_workers, 120)
        thread.start()
        pages = web_pages()
        before = Match.objects.filter(status=Match.Status.FINISHED).count()
        result = web_load(port, pages, args.web_clients, args.web_seconds)
        result.matches_played = Match.objects.filter(status=Match.Status.FINISHED).count() - before
    finally:
        stop.set()
        thread.join(timeout=30)
        stop_workers([server, *procs])
    return result


def web_server_errors(web: WebResult) -> int:
    return sum(n for status, n in web.statuses.items() if status >= 500) + sum(web.errors.values())


def row(p: Phase) -> str:
    return (
        f"| {p.workers} | {p.matches} | {p.seconds:.0f} | {p.per_minute:.1f} | "
        f"{p.q2f_median_s:.2f} | {p.q2f_p95_s:.2f} | {p.play_median_s:.2f} | "
        f"{p.errored} | {p.retried} | {p.load_before:.1f} / {p.load_after:.1f} | "
        f"{'ok' if not p.problems else '; '.join(p.problems)} |"
    )


def print_report(phases: list[Phase], web: WebResult | None, args) -> None:
    print()
    print(
        "| workers | matches | seconds | matches/min | queued→finished median s | p95 s "
        "| play median s | errored | retried | load avg before / after | checks |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for p in phases:
        print(row(p))
    if web is not None:
        lat = web.latencies_ms
        print()
        print(
            f"web: {args.web_clients} clients for {args.web_seconds:.0f} s with "
            f"{args.web_workers} workers playing ({web.matches_played} matches finished "
            f"meanwhile): {web.requests} requests, statuses "
            f"{dict(sorted(web.statuses.items()))}, connection errors {web.errors or 0}, "
            f"server errors {web_server_errors(web)}"
        )
        if lat:
            print(
                f"web latency ms: p50 {percentile(lat, 50):.0f}, p95 {percentile(lat, 95):.0f}, "
                f"p99 {percentile(lat, 99):.0f}, max {max(lat):.0f}"
            )
            if web.odd:
                print(f"  non-200 answers: {dict(sorted(web.odd.items())[:10])}")
            for kind, values in sorted(web.by_page_ms.items()):
                print(
                    f"  {kind}: {len(values)} requests, p50 {percentile(values, 50):.0f} ms, "
                    f"p99 {percentile(values, 99):.0f} ms"
                )


if __name__ == "__main__":
    sys.exit(main())
