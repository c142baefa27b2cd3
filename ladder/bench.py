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
from pathlib import Path

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

USER_PREFIX = "bench-"
GAMES = {"splendor-duel": 0.6, "edel-stein-reich": 0.4}


class BenchError(RuntimeError):
    """The benchmark cannot run here; the message says why."""


def log(text: str) -> None:
    print(text, flush=True)


# -- real replays -------------------------------------------------------------------


def play_replays(per_game: int, sandbox: str) -> dict[str, list[bytes]]:
    """Real matches of the example bots; their replay bytes per game."""
    from arena import BotSpec, MatchRequest, builtin_bot_dir, play_match, replay_to_bytes

    seats = {"splendor-duel": 2, "edel-stein-reich": 4}
    found: dict[str, list[bytes]] = {}
    for game, count in seats.items():
        greedy = builtin_bot_dir(game, "greedy")
        found[game] = []
        for seed in range(1, per_game + 1):
            bots = [BotSpec(label=f"greedy-{i}", path=str(greedy)) for i in range(count)]
            result = play_match(MatchRequest(game=game, bots=bots, seed=seed, sandbox=sandbox))
            found[game].append(replay_to_bytes(result.replay))
    return found


# -- filling ------------------------------------------------------------------------


def copy_rows(table: str, columns: list[str], rows) -> int:
    from django.db import connection

    n = 0
    with connection.cursor() as cursor:
        sql = f"COPY {table} ({', '.join(columns)}) FROM STDIN"
        with cursor.cursor.copy(sql) as copy:
            for row in rows:
                copy.write_row(row)
                n += 1
    return n


def reset_sequences(tables: list[str]) -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                f"COALESCE((SELECT MAX(id) FROM {table}), 1))"
            )


class Filler:
    """Adds bots and matches in bulk; keeps every bot's Elo so history is consistent."""

    def __init__(self, replays: dict[str, list[str]], rng: random.Random) -> None:
        from django.db.models import Max

        from ladder.models import Bot, Match

        self.rng = rng
        self.replays = replays  # game → media-relative replay paths
        self.now = time.time()
        self.bots: dict[str, list[tuple[int, int]]] = {g: [] for g in GAMES}  # (bot, version)
        self.elo: dict[int, float] = {}
        self.games: dict[int, int] = {}
        self.wins: dict[int, int] = {}
        for bot in Bot.objects.filter(owner__username__startswith=USER_PREFIX).select_related(
            "rating"
        ):
            self.bots[bot.game].append((bot.pk, bot.active_version_id))
            self.elo[bot.pk] = bot.rating.elo
            self.games[bot.pk] = bot.rating.elo_games
            self.wins[bot.pk] = bot.rating.wins
        self.strength = {b: rng.gauss(0, 200) for b in self.elo}
        self.next_match = (Match.objects.aggregate(m=Max("id"))["m"] or 0) + 1
        self.next_seq = (Match.objects.aggregate(m=Max("rating_seq"))["m"] or 0) + 1

    @property
    def bot_count(self) -> int:
        return sum(len(v) for v in self.bots.values())

    def add_bots(self, count: int) -> None:
        from django.contrib.auth import get_user_model
        from django.db import transaction

        from ladder.models import Bot, BotVersion, Rating

        User = get_user_model()
        start = self.bot_count
        with transaction.atomic():
            users = User.objects.bulk_create(
                User(username=f"{USER_PREFIX}{start + i:06d}", password="!")
                for i in range(0, count, 5)
            )
            bots = Bot.objects.bulk_create(
                Bot(
                    owner=users[i // 5],
                    game=self.rng.choices(list(GAMES), weights=list(GAMES.values()))[0],
                    name=f"b{start + i:06d}",
                )
                for i in range(count)
            )
            versions = BotVersion.objects.bulk_create(
                BotVersion(
                    bot=b,
                    number=1,
                    upload=f"bench/{b.pk}/main.py",
                    original_name="main.py",
                    sha256="0" * 64,
                    size_bytes=1000,
                    status=BotVersion.Status.READY,
                )
                for b in bots
            )
            for b, v in zip(bots, versions, strict=True):
                b.active_version = v
            Bot.objects.bulk_update(bots, ["active_version"], batch_size=2000)
            Rating.objects.bulk_create(Rating(bot=b) for b in bots)
        for b, v in zip(bots, versions, strict=True):
            self.bots[b.game].append((b.pk, v.pk))
            self.elo[b.pk], self.games[b.pk], self.wins[b.pk] = 1500.0, 0, 0
            self.strength[b.pk] = self.rng.gauss(0, 200)

    def add_matches(self, count: int, deadline: float) -> int:
        """Up to `count` finished rated matches; stops at the deadline. Returns how many."""
        from django.db import transaction

        games = list(GAMES)
        weights = list(GAMES.values())
        match_rows, seat_rows, history_rows = [], [], []
        done = 0
        span_s = 30 * 24 * 3600  # spread over the last 30 days, in order
        for i in range(count):
            if i % 20000 == 0 and time.monotonic() > deadline:
                break
            game = self.rng.choices(games, weights=weights)[0]
            pool = self.bots[game]
            seats = 2 if game == "splendor-duel" else self.rng.choice((3, 4, 5))
            lineup = self.rng.sample(pool, seats)
            order = sorted(
                range(seats),
                key=lambda s: -(self.strength[lineup[s][0]] + self.rng.gauss(0, 200)),
            )
            ranks = [0] * seats
            for place, s in enumerate(order):
                ranks[s] = place + 1
            mid, seq = self.next_match, self.next_seq
            self.next_match += 1
            self.next_seq += 1
            finished = self.now - span_s * (1 - (i + 1) / count) - 60
            stamp = time.strftime("%Y-%m-%d %H:%M:%S+00", time.gmtime(finished))
            replay = self.rng.choice(self.replays[game])
            match_rows.append(
                (
                    mid,
                    game,
                    seats,
                    self.rng.getrandbits(62),
                    "{}",
                    "1.0",
                    "ladder",
                    "finished",
                    True,
                    1,
                    stamp,
                    stamp,
                    stamp,
                    replay,
                    "the game ended",
                    "",
                    150,
                    seq,
                    "bench",
                )
            )
            # two-seat Elo per pair (K=16 split), enough to make realistic history rows
            deltas = [0.0] * seats
            for a in range(seats):
                for b in range(a + 1, seats):
                    ea = 1 / (1 + 10 ** ((self.elo[lineup[b][0]] - self.elo[lineup[a][0]]) / 400))
                    sa = 1.0 if ranks[a] < ranks[b] else 0.0
                    d = 16 * (sa - ea) / (seats - 1)
                    deltas[a] += d
                    deltas[b] -= d
            for s, (bot_id, version_id) in enumerate(lineup):
                before = self.elo[bot_id]
                after = before + deltas[s]
                self.elo[bot_id] = after
                self.games[bot_id] += 1
                if ranks[s] == 1:
                    self.wins[bot_id] += 1
                seat_rows.append(
                    (
                        mid,
                        s,
                        version_id,
                        ranks[s],
                        float(seats - ranks[s]),
                        "",
                        "",
                        500,
                        "",
                        before,
                        deltas[s],
                    )
                )
                history_rows.append(
                    (
                        bot_id,
                        mid,
                        version_id,
                        seq,
                        before,
                        after,
                        after,
                        after - 80,
                        after + 80,
                        stamp,
                    )
                )
            done += 1
        with transaction.atomic():  # a batch lands whole or not at all
            self._copy_batch(match_rows, seat_rows, history_rows)
        return done

    def _copy_batch(self, match_rows: list, seat_rows: list, history_rows: list) -> None:
        from ladder.models import Match

        copy_rows(
            Match._meta.db_table,
            [
                "id",
                "game",
                "seat_count",
                "seed",
                "options",
                "rules_version",
                "kind",
                "status",
                "rated",
                "attempts",
                "created_at",
                "started_at",
                "finished_at",
                "replay",
                "reason",
                "error",
                "steps",
                "rating_seq",
                "worker",
            ],
            match_rows,
        )
        copy_rows(
            "ladder_matchseat",
            [
                "match_id",
                "seat",
                "version_id",
                "rank",
                "score",
                "fault",
                "fault_detail",
                "think_ms",
                "stderr_tail",
                "elo_before",
                "elo_change",
            ],
            seat_rows,
        )
        copy_rows(
            "ladder_ratinghistory",
            [
                "bot_id",
                "match_id",
                "version_id",
                "seq",
                "elo_before",
                "elo_after",
                "fitted",
                "fitted_low",
                "fitted_high",
                "created_at",
            ],
            history_rows,
        )

    def write_ratings(self) -> None:
        """Current Elo, and a leaderboard fit drawn around each bot's true strength."""
        from django.db import connection, transaction

        from ladder.models import Counter, GameFit, Rating

        rows = []
        for pool in self.bots.values():
            fitted = {}
            for bot_id, _ in pool:
                n = self.games[bot_id]
                fitted[bot_id] = (1500 + self.strength[bot_id] if n else None, 800 / (n + 4) ** 0.5)
            ranked = sorted(
                (b for b in fitted if fitted[b][0] is not None), key=lambda b: -fitted[b][0]
            )
            rank = {b: i + 1 for i, b in enumerate(ranked)}
            for bot_id, (value, half) in fitted.items():
                rows.append(
                    (
                        bot_id,
                        self.elo[bot_id],
                        self.games[bot_id],
                        self.wins[bot_id],
                        value,
                        None if value is None else value - half,
                        None if value is None else value + half,
                        half > 100 or self.games[bot_id] < 20,
                        rank.get(bot_id),
                    )
                )
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "CREATE TEMP TABLE bench_rating (bot_id bigint, elo float, games int, wins int, "
                "fitted float, low float, high float, provisional bool, rank int) ON COMMIT DROP"
            )
            copy_rows(
                "bench_rating",
                ["bot_id", "elo", "games", "wins", "fitted", "low", "high", "provisional", "rank"],
                rows,
            )
            cursor.execute(
                f"UPDATE {Rating._meta.db_table} r SET elo=t.elo, elo_games=t.games, wins=t.wins, "
                "fitted=t.fitted, fitted_low=t.low, fitted_high=t.high, provisional=t.provisional, "
                "fitted_rank=t.rank, fitted_at=now() FROM bench_rating t WHERE r.bot_id=t.bot_id"
            )
            cursor.execute(
                "UPDATE ladder_bot b SET last_played_at=m.last FROM (SELECT v.bot_id, "
                "MAX(h.created_at) AS last FROM ladder_ratinghistory h JOIN ladder_botversion v "
                "ON v.id=h.version_id GROUP BY v.bot_id) m WHERE b.id=m.bot_id"
            )
            Counter.objects.update_or_create(name="rating", defaults={"value": self.next_seq - 1})
            for game in GAMES:
                GameFit.objects.update_or_create(game=game, defaults={"matches": 0})
        reset_sequences(["ladder_match", "ladder_matchseat", "ladder_ratinghistory"])
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")


# -- measuring ----------------------------------------------------------------------


def measure(url: str, repeats: int) -> tuple[float, float, int, int, int]:
    """(median wall ms, median CPU ms of this process, queries, status, bytes) of
    GET url; the first request warms up. CPU time leaves out the database's own
    work and is steadier than wall time on a busy machine."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(HTTP_HOST="127.0.0.1")
    response = client.get(url)
    times, cpu, queries = [], [], 0
    for _ in range(repeats):
        with CaptureQueriesContext(connection) as ctx:
            start, start_cpu = time.perf_counter(), time.process_time()
            response = client.get(url)
            times.append((time.perf_counter() - start) * 1000)
            cpu.append((time.process_time() - start_cpu) * 1000)
        queries = len(ctx.captured_queries)
    size = len(response.content) if not response.streaming else -1
    return statistics.median(times), statistics.median(cpu), queries, response.status_code, size


def pages_to_measure() -> list[tuple[str, str]]:
    from django.db.models import Max

    from ladder.models import Bot, Match, Rating

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
    return [
        ("home", "/"),
        ("leaderboard", "/games/splendor-duel/"),
        (
            "leaderboard, by win rate, last page",
            f"/games/splendor-duel/?sort=winrate&page={last_page}",
        ),
        ("leaderboard (5-seat game)", "/games/edel-stein-reich/"),
        ("bot page (median bot)", f"/bots/{median_bot}/"),
        ("bot page (busiest bot)", f"/bots/{busiest}/"),
        ("match page (Splendor Duel)", f"/matches/{sd_match}/"),
        ("match page (Edel, Stein & Reich)", f"/matches/{esr_match}/"),
        ("replay download", f"/matches/{esr_match}/replay.json.gz"),
        ("queue", "/queue/"),
    ]


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
    for name, url in pages_to_measure():
        ms, cpu_ms, queries, status, size = measure(url, repeats)
        rows.append((name, ms, queries))
        log(f"| {name} | {ms:.1f} | {cpu_ms:.1f} | {queries} | {status} | {size:,} |")
    return rows


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
        prog="python -m ladder.bench", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--bots", type=int, default=10_000)
    parser.add_argument("--matches", type=int, default=1_000_000)
    parser.add_argument("--max-fill-seconds", type=float, default=900, help="bound on filling")
    parser.add_argument("--repeats", type=int, default=5, help="timed requests per page")
    parser.add_argument("--replays", type=int, default=3, help="real matches played per game")
    parser.add_argument("--sandbox", default="process", choices=("auto", "docker", "process"))
    parser.add_argument(
        "--measure-only", action="store_true", help="time the pages on the data already there"
    )
    args = parser.parse_args(argv)
    if not (10 <= args.bots <= 100_000 and 100 <= args.matches <= 5_000_000):
        parser.error("--bots must be 10..100000 and --matches 100..5000000")
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
        filler.write_ratings()
        report(label, args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
