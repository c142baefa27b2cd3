"""Filling a PostgreSQL database with a synthetic ladder for `ladder.bench`.

Rows go in with COPY, one transaction per batch; every bot's Elo is carried
along so the rating history is consistent with the matches.
"""

from __future__ import annotations

import random
import time

USER_PREFIX = "bench-"
GAMES = {"splendor-duel": 0.6, "edel-stein-reich": 0.4}


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


# The Match columns every filler writes, in the order of its rows; a filler
# appends the columns of its own kind of match (rating_seq, tournament_id).
MATCH_COLUMNS = (
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
    "worker",
)


def copy_matches(match_rows: list, seat_rows: list, extra_columns: list[str]) -> None:
    """Matches (MATCH_COLUMNS + extra_columns) and their seats."""
    from ladder.models import Match
    from ladder.results import SEAT_RESULT_FIELDS

    copy_rows(Match._meta.db_table, [*MATCH_COLUMNS, *extra_columns], match_rows)
    copy_rows(
        "ladder_matchseat", ["match_id", "seat", "version_id", *SEAT_RESULT_FIELDS], seat_rows
    )


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
                    # 3 of every 5 bots play Splendor Duel, so each game has bots from the start
                    game="splendor-duel" if (start + i) % 5 < 3 else "edel-stein-reich",
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
            seats = min(seats, len(pool))
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
                    "bench",
                    seq,
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
        copy_matches(match_rows, seat_rows, ["rating_seq"])
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
