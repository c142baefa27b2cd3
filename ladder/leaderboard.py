"""The leaderboard's numbers: the batch fit over all rated matches, and recompute.

`refit(game)` fits the maximum-likelihood Elo over every rated, finished
match of one game and stores it on the bots' Rating rows; `rated_pair_games`
counts who has met whom in those matches, for the pairing. `recompute_elo`
replays the incremental Elo from the stored results in the order they were
first applied (Match.rating_seq) and reports any difference.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass

from django.db import connection, transaction
from django.db.models import Count
from django.utils import timezone

from ladder.models import (
    Bot,
    BotVersion,
    Counter,
    GameFit,
    Match,
    MatchSeat,
    Rating,
    RatingHistory,
)
from ladder.ratings.elo import EloRating, replay_elo
from ladder.ratings.fit import fit_ratings
from ladder.ratings.results import MatchResult


def rated_results(game: str, mover_first: bool = False) -> tuple[list[int], list[MatchResult]]:
    """Match ids and results of every rated, finished match, in rating order.

    Each result lists the bots in seat order; with `mover_first` it starts
    at the seat that moved first (`Match.first_mover`, turned like a table),
    which is what the fit's first-move term is credited to. Splendor Duel's
    seed draws who moves first, so seat 0 is not that seat in half the
    matches."""
    rows = (
        MatchSeat.objects.filter(match__game=game, match__rating_seq__isnull=False)
        .order_by("match__rating_seq", "seat")
        .values_list("match_id", "version__bot_id", "rank", "match__first_mover")
    )
    order: list[int] = []
    seats: dict[int, list[tuple[int, int]]] = defaultdict(list)
    first: dict[int, int] = {}
    for match_id, bot_id, rank, mover in rows.iterator(chunk_size=20000):
        if match_id not in seats:
            order.append(match_id)
            first[match_id] = mover if mover_first and mover is not None else 0
        seats[match_id].append((bot_id, rank))
    results = []
    for m in order:
        turned = seats[m][first[m] :] + seats[m][: first[m]]
        results.append(MatchResult(tuple(b for b, _ in turned), tuple(r for _, r in turned)))
    return order, results


def rated_pair_games(game: str) -> dict[tuple[int, int], int]:
    """For every pair of bots that sat at one table of a rated, finished match
    of `game`: how many such matches, keyed (bot at the lower seat, bot at the
    higher seat). The pairing's `pair_games`; one SQL aggregate instead of
    reading every result like `rated_results`."""
    seat, version, match = (m._meta.db_table for m in (MatchSeat, BotVersion, Match))
    sql = f"""
        SELECT va.bot_id, vb.bot_id, COUNT(*)
        FROM {seat} sa
        JOIN {seat} sb ON sb.match_id = sa.match_id AND sb.seat > sa.seat
        JOIN {match} m ON m.id = sa.match_id
        JOIN {version} va ON va.id = sa.version_id
        JOIN {version} vb ON vb.id = sb.version_id
        WHERE m.game = %s AND m.rating_seq IS NOT NULL
        GROUP BY va.bot_id, vb.bot_id
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, [game])
        return {(a, b): n for a, b, n in cursor.fetchall()}


def refit(game: str) -> int:
    """Refit the leaderboard of one game; returns the number of matches used."""
    started = time.monotonic()
    _, results = rated_results(game, mover_first=True)
    fit = fit_ratings(results)
    rows = fit.by_bot()
    now = timezone.now()
    with transaction.atomic():
        ratings = list(Rating.objects.select_for_update().filter(bot__game=game).order_by("bot_id"))
        rank_of = {row.bot_id: i + 1 for i, row in enumerate(fit.leaderboard)}
        for rating in ratings:
            row = rows.get(rating.bot_id)
            if row is None:
                rating.fitted = rating.fitted_low = rating.fitted_high = None
                rating.fitted_rank = None
                rating.provisional = True
            else:
                rating.fitted, rating.fitted_low, rating.fitted_high = row.rating, row.low, row.high
                rating.provisional = row.provisional
                rating.fitted_rank = rank_of[rating.bot_id]
            rating.fitted_at = now
        Rating.objects.bulk_update(
            ratings,
            ["fitted", "fitted_low", "fitted_high", "provisional", "fitted_rank", "fitted_at"],
            batch_size=1000,
        )
        GameFit.objects.update_or_create(
            game=game,
            defaults={
                "matches": fit.matches,
                "first_seat_advantage": fit.first_seat_advantage,
                "first_seat_advantage_half_width": fit.first_seat_advantage_half_width,
                "fitted_at": now,
                "seconds": round(time.monotonic() - started, 3),
            },
        )
    return fit.matches


@dataclass
class RecomputeReport:
    matches: int
    bots: int
    differences: list[str]


def recompute_elo(game: str, write: bool = True) -> RecomputeReport:
    """Replay the incremental Elo from stored results and compare with what is stored.

    With `write`, it holds the rating counter's lock throughout, as recording a
    result does first: no result can be applied between reading and writing
    back, so none is undone."""
    if not write:
        return _recompute_elo(game, write)
    with transaction.atomic():
        Counter.lock("rating")
        return _recompute_elo(game, write)


def _recompute_elo(game: str, write: bool) -> RecomputeReport:
    order, results = rated_results(game)
    final, updates = replay_elo(results)
    differences: list[str] = []
    history = {
        (h.match_id, h.bot_id): h
        for h in RatingHistory.objects.filter(match__game=game).only(
            "match_id", "bot_id", "elo_before", "elo_after"
        )
    }
    changed_history = []
    for match_id, update in zip(order, updates, strict=True):
        for bot_id, before, after in zip(update.bot_ids, update.before, update.after, strict=True):
            row = history.get((match_id, bot_id))
            if row is None:
                differences.append(f"match {match_id} bot {bot_id}: no history row")
                continue
            if (row.elo_before, row.elo_after) != (before.rating, after.rating):
                differences.append(
                    f"match {match_id} bot {bot_id}: stored {row.elo_before}→{row.elo_after}, "
                    f"recomputed {before.rating}→{after.rating}"
                )
                row.elo_before, row.elo_after = before.rating, after.rating
                changed_history.append(row)
    missing = list(Bot.objects.filter(game=game, rating__isnull=True).values_list("pk", flat=True))
    differences += [f"bot {bot_id}: no rating row" for bot_id in missing]
    if write and missing:
        Rating.objects.bulk_create([Rating(bot_id=bot_id) for bot_id in missing])
    wins = dict(
        MatchSeat.objects.filter(
            match__game=game, match__rating_seq__isnull=False, rank=1, fault=""
        )
        .values("version__bot_id")
        .annotate(n=Count("pk"))
        .values_list("version__bot_id", "n")
    )
    ratings = list(Rating.objects.filter(bot__game=game))
    for rating in ratings:
        expected = final.get(rating.bot_id, EloRating())
        expected_wins = wins.get(rating.bot_id, 0)
        if (rating.elo, rating.elo_games, rating.wins) != (
            expected.rating,
            expected.games,
            expected_wins,
        ):
            differences.append(
                f"bot {rating.bot_id}: stored {rating.elo} after {rating.elo_games} games "
                f"({rating.wins} won), recomputed {expected.rating} after {expected.games} "
                f"({expected_wins} won)"
            )
            rating.elo, rating.elo_games, rating.wins = (
                expected.rating,
                expected.games,
                expected_wins,
            )
    if write and differences:
        Rating.objects.bulk_update(ratings, ["elo", "elo_games", "wins"], batch_size=1000)
        RatingHistory.objects.bulk_update(
            changed_history, ["elo_before", "elo_after"], batch_size=1000
        )
    return RecomputeReport(len(order), len(final), differences)


def rated_match_count(game: str) -> int:
    return Match.objects.filter(game=game, rating_seq__isnull=False).count()
