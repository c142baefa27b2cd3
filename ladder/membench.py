"""Memory of one long-lived match worker: does it grow with the matches it plays?

    python -m ladder.membench --matches 2000 --every 100 [--pool prefork] [--sandbox process]

Starts one real Celery worker (`celery worker`, the queues and task code of
production: claim, play through the sandbox, live steps, record the result
and the ratings), keeps two ladder matches queued between random Splendor
Duel bots until `--matches` were played, and every `--every` finished
matches prints the resident memory (VmRSS) of the process that plays them:
the pool process (prefork, as in production; it lives as long as the worker
unless `--max-tasks-per-child` says otherwise) or the worker itself (solo).
At the end it prints the growth per 1000 matches: the least-squares slope of
the samples after the first (the first includes the imports and caches of
the first matches).

Uses what the environment names: a fresh database `<name>_membench` next
to DATABASE_URL's when it is PostgreSQL, else SQLite in a temporary folder;
REDIS_URL's Redis (a queue of its own) when set, else the filesystem broker.
Bounded by --timeout-s; the temporary folder is removed at the end.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path


def rss_kib(pid: int) -> int:
    """The resident memory of a process (VmRSS), in KiB; 0 if it is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def children(pid: int) -> list[int]:
    """The direct children of a process (Linux /proc)."""
    found: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as kids:
                found += [int(k) for k in kids.read().split()]
    except OSError:
        pass
    return found


def slope_per_1000(samples: list[tuple[int, int]]) -> float:
    """Least-squares growth, in KiB per 1000 matches, of (matches, KiB) samples."""
    if len(samples) < 2:
        return 0.0
    n = len(samples)
    mx = sum(m for m, _ in samples) / n
    my = sum(k for _, k in samples) / n
    var = sum((m - mx) ** 2 for m, _ in samples)
    if not var:
        return 0.0
    return sum((m - mx) * (k - my) for m, k in samples) / var * 1000


def setup_environment(work: Path, sandbox: str) -> None:
    """Database, broker, queue and media of this run, before Django starts."""
    from ladder.loadtest import loadtest_database

    admin_url = os.environ.get("DATABASE_URL", "")
    if admin_url.startswith(("postgres://", "postgresql://")):
        os.environ["DATABASE_URL"] = loadtest_database(admin_url, "_membench")
    else:
        os.environ.pop("DATABASE_URL", None)  # SQLite under the temporary var folder
    media = work / "media"
    media.mkdir(mode=0o755)
    os.environ.update(
        GEMARENA_VAR_DIR=str(work / "var"),
        GEMARENA_MEDIA_DIR=str(media),
        GEMARENA_QUEUE=f"gemarena-membench-{os.getpid()}",
        SANDBOX_BACKEND=sandbox,
        LOG_LEVEL="WARNING",
        DEBUG="0",
    )
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


def played(ids: list[int]) -> int:
    from ladder.models import Match

    done = (Match.Status.FINISHED, Match.Status.ERRORED)
    return Match.objects.filter(pk__in=ids, status__in=done).count()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ladder.membench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--matches", type=int, default=2000, help="matches to play (2000)")
    parser.add_argument("--every", type=int, default=100, help="print the memory every K (100)")
    parser.add_argument("--bots", type=int, default=6, help="random bots in the pool (6)")
    parser.add_argument(
        "--pool", default="prefork", choices=["prefork", "solo"], help="Celery pool (prefork)"
    )
    parser.add_argument(
        "--sandbox", default="process", choices=["process", "docker"], help="(process: quicker)"
    )
    parser.add_argument(
        "--max-tasks-per-child",
        type=int,
        default=0,
        help="passed to the worker (prefork; default 0: as production, never replaced)",
    )
    parser.add_argument("--timeout-s", type=float, default=600, help="whole run (600)")
    args = parser.parse_args(argv)
    if args.matches < 1 or args.every < 1 or args.bots < 2:
        parser.error("--matches and --every must be at least 1, --bots at least 2")

    work = Path(tempfile.mkdtemp(prefix="gemarena-membench-"))
    work.chmod(0o755)
    setup_environment(work, args.sandbox)
    import django

    django.setup()
    from django.core.management import call_command

    from ladder.bots import install_builtin
    from ladder.loadtest import start_workers, stop_workers, wait_ready
    from ladder.matches import create_match
    from ladder.models import Match, WorkerHeartbeat

    call_command("migrate", verbosity=0)
    versions = [
        install_builtin("splendor-duel", "random", bot_name=f"mem-{i}").active_version
        for i in range(args.bots)
    ]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    worker_args = argparse.Namespace(pool=args.pool, concurrency=1)
    extra = (
        ["--max-tasks-per-child", str(args.max_tasks_per_child)] if args.max_tasks_per_child else []
    )
    rng = random.Random(20261202)
    print(
        f"membench: {args.matches} Splendor Duel matches between {args.bots} random bots, "
        f"{args.sandbox} sandbox, one worker (pool {args.pool}), "
        f"{'PostgreSQL' if 'DATABASE_URL' in os.environ else 'SQLite'}, "
        f"{'Redis' if os.environ.get('REDIS_URL') else 'filesystem broker'}, "
        f"{os.cpu_count()} CPUs",
        flush=True,
    )
    print("| matches | playing process | RSS MiB | worker RSS MiB | seconds |")
    print("| --- | --- | --- | --- | --- |")
    samples: list[tuple[int, int]] = []
    pids: set[int] = set()
    started = time.monotonic()
    deadline = started + args.timeout_s
    procs = start_workers(1, env, worker_args, extra)
    created: list[int] = []
    problems: list[str] = []
    try:
        wait_ready("load", 1, 120)
        worker = procs[0].pid
        next_sample = args.every
        done = 0
        while done < args.matches:
            if time.monotonic() > deadline:
                problems.append(f"timed out after {args.timeout_s:.0f} s at {done} matches")
                break
            if procs[0].poll() is not None:
                problems.append(f"the worker exited ({procs[0].returncode})")
                break
            queued = Match.objects.filter(pk__in=created[-4:], status=Match.Status.QUEUED).count()
            for _ in range(min(2 - queued, args.matches - len(created))):
                created.append(create_match("splendor-duel", rng.sample(versions, 2)).pk)
            done = played(created)
            if done >= next_sample:
                kids = children(worker) if args.pool == "prefork" else [worker]
                playing = kids[0] if kids else worker
                pids.add(playing)
                kib = rss_kib(playing)
                samples.append((done, kib))
                print(
                    f"| {done} | {playing} | {kib / 1024:.1f} | {rss_kib(worker) / 1024:.1f} | "
                    f"{time.monotonic() - started:.0f} |",
                    flush=True,
                )
                next_sample = done - done % args.every + args.every
            time.sleep(0.05)
    finally:
        stop_workers(procs)
        WorkerHeartbeat.objects.all().delete()
        errored = Match.objects.filter(pk__in=created, status=Match.Status.ERRORED).count()
        shutil.rmtree(work, ignore_errors=True)
    if errored:
        problems.append(f"{errored} match(es) errored")
    if len(pids) > 1:
        problems.append(f"the playing process was replaced ({len(pids)} pids)")
    later = samples[1:]
    print()
    if later:
        print(
            f"growth: {slope_per_1000(later) / 1024:+.2f} MiB per 1000 matches (least squares "
            f"over {later[0][0]}..{later[-1][0]}); first sample {samples[0][1] / 1024:.1f} MiB, "
            f"last {samples[-1][1] / 1024:.1f} MiB"
        )
    for problem in problems:
        print(f"problem: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
