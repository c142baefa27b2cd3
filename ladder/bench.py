"""Page benchmark: fill a PostgreSQL database with a big synthetic ladder and
time the pages with Django's test client.

    DATABASE_URL=postgres://gemarena:gemarena@127.0.0.1/gemarena_bench \\
        python -m ladder.bench --bots 10000 --matches 1000000

It fills the ladder in two steps (a tenth of the size first, then the rest)
and measures at both sizes, so one can see that the query count of a page
does not grow with the data. Rows are written with COPY (bulk); the replays
the matches point to are real ones, played here with the example bots of
both games, and their compressed sizes are reported too.

Refuses to touch a database that holds bots not made by this benchmark.
Figures and the command: docs/web.md.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import django

from ladder.bench_fill import USER_PREFIX, Filler, play_replays
from ladder.bench_tournaments import TOURNAMENTS, add_tournaments

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


class BenchError(RuntimeError):
    """The benchmark cannot run here; the message says why."""


def log(text: str) -> None:
    print(text, flush=True)


# -- measuring ----------------------------------------------------------------------


def measure(
    url: str, repeats: int, user=None, before: Callable[[], object] | None = None
) -> tuple[float, float, int, int, int]:
    """(median wall ms, median CPU ms of this process, queries, status, bytes) of
    GET url, signed in as `user` if given; the first request warms up. CPU time
    leaves out the database's own work and is steadier than wall time on a
    busy machine. `before` runs before each request, untimed."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(HTTP_HOST="127.0.0.1")
    if user is not None:
        client.force_login(user)
    response = client.get(url)
    times, cpu, queries = [], [], 0
    for _ in range(repeats):
        if before is not None:
            before()
        with CaptureQueriesContext(connection) as ctx:
            start, start_cpu = time.perf_counter(), time.process_time()
            response = client.get(url)
            times.append((time.perf_counter() - start) * 1000)
            cpu.append((time.process_time() - start_cpu) * 1000)
        queries = len(ctx.captured_queries)
    size = len(response.content) if not response.streaming else -1
    return statistics.median(times), statistics.median(cpu), queries, response.status_code, size


def pages_to_measure() -> list[tuple[str, str, object]]:
    """(what, url, the user signed in or None) of each page timed."""
    from django.db.models import Max

    from ladder.models import Bot, Match, MatchSeat, Rating, Tournament

    typical = (
        Rating.objects.filter(bot__game="splendor-duel", elo_games__gt=0)
        .order_by("fitted_rank")
        .values_list("bot_id", flat=True)
    )
    count = typical.count()
    median_bot = typical[count // 2] if count else Bot.objects.values_list("pk", flat=True).first()
    busiest = Rating.objects.order_by("-elo_games").values_list("bot_id", flat=True).first()
    esr_match = Match.objects.filter(game="edel-stein-reich").aggregate(m=Max("id"))["m"]
    sd_match = Match.objects.filter(game="splendor-duel").aggregate(m=Max("id"))["m"]
    last_page = max(1, -(-Bot.objects.filter(game="splendor-duel").count() // 50))
    newest = Match.objects.aggregate(m=Max("finished_at"))["m"] or datetime.now(UTC)

    def stamp(days: float) -> str:
        return (newest - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")

    day_ago, days_back = stamp(1), (stamp(20), stamp(19))
    # a deep page of the busiest bot's matches: the cursor 3/4 down its list
    # (found here with OFFSET, once; the page itself walks from the cursor)
    seats = (
        MatchSeat.objects.filter(version__bot_id=busiest)
        .exclude(match__kind=Match.Kind.VALIDATION)
        .order_by("-match_id")
        .values_list("match_id", flat=True)
    )
    deep = seats[max(0, seats.count() * 3 // 4 // 20 * 20 - 1) :].first()
    # the challenge form lists every playing bot of the game, four times for 5 seats
    challenger = (
        Bot.objects.filter(game="edel-stein-reich", active_version__isnull=False, enabled=True)
        .select_related("owner")
        .first()
    )
    pages = [
        ("home", "/"),
        ("leaderboard", "/games/splendor-duel/"),
        (
            "leaderboard, by win rate, last page",
            f"/games/splendor-duel/?sort=winrate&page={last_page}",
        ),
        ("leaderboard (5-seat game)", "/games/edel-stein-reich/"),
        ("bot page (median bot)", f"/bots/{median_bot}/"),
        ("bot page (busiest bot)", f"/bots/{busiest}/"),
        ("bot page (busiest bot), 3/4 down its matches", f"/bots/{busiest}/?before={deep or 0}"),
        ("match page (Splendor Duel)", f"/matches/{sd_match}/"),
        ("match page (Edel, Stein & Reich)", f"/matches/{esr_match}/"),
        ("replay download", f"/matches/{esr_match}/replay.json.gz"),
        ("queue", "/queue/"),
        # GET /api/matches counts what its filters select on every request
        ("API match list", "/api/matches"),
        ("API match list, busiest bot", f"/api/matches?bot={busiest}"),
        ("API match list, median bot, ladder", f"/api/matches?bot={median_bot}&kind=ladder"),
        ("API match list, finished in the last day", f"/api/matches?finished_after={day_ago}"),
        (
            "API match list, busiest bot, finished in a day 20 days back",
            f"/api/matches?bot={busiest}&finished_after={days_back[0]}"
            f"&finished_before={days_back[1]}",
        ),
    ]
    finished, running = (
        Tournament.objects.filter(name=name).values_list("pk", flat=True).first()
        for name, _, _ in TOURNAMENTS
    )
    if finished and running:
        pages += [
            ("tournament list", "/tournaments/"),
            ("tournament page (finished, 3,800 matches)", f"/tournaments/{finished}/"),
            ("tournament page (running, 2,000 of 3,800 played)", f"/tournaments/{running}/"),
            ("API tournament (finished)", f"/api/tournaments/{finished}"),
            ("API tournament (running)", f"/api/tournaments/{running}"),
        ]
    rows: list[tuple[str, str, object]] = [(name, url, None) for name, url in pages]
    if challenger is not None:
        url = f"/bots/{challenger.pk}/challenge/"
        rows.append(("challenge form (5-seat game), its owner", url, challenger.owner))
    return rows


def report(label: str, repeats: int) -> list[tuple[str, float, int]]:
    from ladder.models import Bot, Match, RatingHistory

    bots, matches = Bot.objects.count(), Match.objects.count()
    history = RatingHistory.objects.count()
    load = os.getloadavg()[0]
    log(
        f"\n## {bots:,} bots, {matches:,} matches ({history:,} rating-history rows) — {label}"
        f" (load average {load:.1f} on {os.cpu_count()} CPUs)\n"
    )
    log("| page | server time, median ms | of it CPU in Django, ms | queries | status | bytes |")
    log("| --- | ---: | ---: | ---: | ---: | ---: |")
    rows = []
    for name, url, user in pages_to_measure():
        ms, cpu_ms, queries, status, size = measure(url, repeats, user)
        rows.append((name, ms, queries))
        log(f"| {name} | {ms:.1f} | {cpu_ms:.1f} | {queries} | {status} | {size:,} |")
    report_counts(repeats)
    report_fits(repeats)
    return rows


def report_fits(repeats: int) -> None:
    """What a tournament page would pay without the stored or cached table:
    the standings' fit alone (`ladder.tournament_table.fitted`), median ms."""
    from ladder.models import Tournament
    from ladder.tournament_table import fitted

    log("\n| tournament | standings fit alone, ms | finished matches |")
    log("| --- | ---: | ---: |")
    for name, _, _ in TOURNAMENTS:
        tournament = Tournament.objects.filter(name=name).first()
        if tournament is None:
            continue
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            lines = fitted(tournament)
            times.append((time.perf_counter() - start) * 1000)
        played = sum(line["games"] for line in lines) // tournament.players
        log(f"| {name} | {statistics.median(times):.1f} | {played:,} |")


def report_counts(repeats: int) -> None:
    """The match list's count, exact (as it was) and bounded (as it is), for
    the filters of the API rows above: median ms of `repeats` runs each."""
    from urllib.parse import parse_qsl, urlsplit

    from ladder.api.matches import COUNT_AHEAD, MatchFilters, matches_queryset, selected

    log(f"\n| GET /api/matches count | exact, ms | up to {COUNT_AHEAD:,}, ms | matches |")
    log("| --- | ---: | ---: | ---: |")
    for name, url, _ in pages_to_measure():
        if not url.startswith("/api/matches?") and url != "/api/matches":
            continue
        query = dict(parse_qsl(urlsplit(url).query))
        matches = selected(MatchFilters(**query), matches_queryset()).order_by().values("pk")
        figures, found = [], []
        for counted in (matches, matches[: COUNT_AHEAD + 1]):
            times = []
            for _ in range(repeats):
                start = time.perf_counter()
                n = counted.count()
                times.append((time.perf_counter() - start) * 1000)
            figures.append(statistics.median(times))
            found.append(n)
        log(f"| {name} | {figures[0]:.1f} | {figures[1]:.1f} | {found[0]:,} |")


# -- main ---------------------------------------------------------------------------


def check_database() -> None:
    from django.db import connection

    from ladder.models import Bot

    if connection.vendor != "postgresql":
        raise BenchError(
            "the page benchmark needs PostgreSQL: set DATABASE_URL to an empty database "
            "(e.g. postgres://gemarena:gemarena@127.0.0.1/gemarena_bench)"
        )
    others = Bot.objects.exclude(owner__username__startswith=USER_PREFIX).count()
    if others:
        raise BenchError(
            f"the database holds {others} bots that this benchmark did not make; "
            "point DATABASE_URL at an empty database of its own"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ladder.bench", description=" ".join(__doc__.split("\n\n")[0].split())
    )
    parser.add_argument("--bots", type=int, default=10_000, help="100 to 100000 (default 10000)")
    parser.add_argument(
        "--matches", type=int, default=1_000_000, help="1000 to 5000000 (default 1000000)"
    )
    parser.add_argument("--max-fill-seconds", type=float, default=900, help="bound on filling")
    parser.add_argument("--repeats", type=int, default=5, help="timed requests per page")
    parser.add_argument("--replays", type=int, default=3, help="real matches played per game")
    parser.add_argument(
        "--sandbox",
        default="process",
        choices=("auto", "docker", "process"),
        help="where the real matches run (default process)",
    )
    parser.add_argument(
        "--measure-only", action="store_true", help="time the pages on the data already there"
    )
    args = parser.parse_args(argv)
    if not (100 <= args.bots <= 100_000 and 1000 <= args.matches <= 5_000_000):
        parser.error("--bots must be 100..100000 and --matches 1000..5000000")
    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    try:
        call_command("migrate", verbosity=0)
        check_database()
    except BenchError as exc:
        print(f"ladder.bench: {exc}", file=sys.stderr)
        return 2
    settings.DEBUG = False
    if args.measure_only:
        report("as found", args.repeats)
        return 0

    log(f"playing {args.replays} real matches per game with the greedy example bots …")
    replays = play_replays(args.replays, args.sandbox)
    paths: dict[str, list[str]] = {}
    log("\n| game | replay sizes, gzip bytes | steps |")
    log("| --- | --- | --- |")
    from arena import replay_from_bytes

    for game, blobs in replays.items():
        paths[game] = []
        for i, data in enumerate(blobs):
            rel = f"bench/replays/{game}-{i}.json.gz"
            target = Path(settings.MEDIA_ROOT) / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            paths[game].append(rel)
        steps = [len(replay_from_bytes(b)["steps"]) for b in blobs]
        log(
            f"| {game} | {', '.join(f'{len(b):,}' for b in blobs)} | {', '.join(map(str, steps))} |"
        )

    filler = Filler(paths, random.Random(20240601))
    deadline = time.monotonic() + args.max_fill_seconds

    for label, fraction in (("a tenth of the size", 0.1), ("full size", 1.0)):
        want_bots = int(args.bots * fraction)
        want_matches = int(args.matches * fraction)
        from ladder.models import Match

        have = Match.objects.count()
        if fraction < 1 and have > want_matches:
            log(f"skipping the {label} step: the database holds {have:,} matches already")
            continue
        if filler.bot_count < want_bots:
            log(f"adding {want_bots - filler.bot_count:,} bots …")
            filler.add_bots(want_bots - filler.bot_count)
        start = time.monotonic()
        while have < want_matches and time.monotonic() < deadline:
            batch = min(100_000, want_matches - have)
            have += filler.add_matches(batch, deadline)
            rate = have / max(1e-9, time.monotonic() - start)
            log(f"  {have:,} / {want_matches:,} matches ({rate:,.0f}/s incl. earlier)")
        if have < want_matches:
            log(f"stopped filling at {have:,} matches: --max-fill-seconds reached")
        add_tournaments(filler)
        filler.write_ratings()
        report(label, args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
