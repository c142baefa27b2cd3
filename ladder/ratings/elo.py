"""Classic incremental Elo, the number users expect to move after every match.

Per bot and game: everyone starts at 1500; K is 32 for a bot's first 30 rated
matches and 16 afterwards. A match with n seats is scored as the n(n−1)/2
pairwise games of its finishing order (ahead = 1, tie = ½, behind = 0), each
with K/(n−1), so one match moves a rating by at most K:

    Δ_i = Σ_{j≠i} K_i/(n−1) · (S_ij − E_ij),   E_ij = 1 / (1 + 10^((R_j − R_i)/400))

Rounding: every change is rounded to `decimals` (2) places with Python's
`round`, and the new rating is `round(old + change, decimals)`. The rounded
values are the state the next match reads, so replaying the stored matches in
order (`replay_elo`) reproduces the incremental path (`apply_elo`) bit for bit,
and a `DecimalField(decimal_places=2)` or a float column round-trips them.

This Elo is for display only; the leaderboard order comes from `fit.py`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .results import BotId, MatchResult, check_result, expected_score, pair_score


@dataclass(frozen=True)
class EloConfig:
    initial: float = 1500.0
    k_new: float = 32.0
    k_established: float = 16.0
    #: matches a bot plays with k_new (its 1st … 30th rated match).
    new_matches: int = 30
    decimals: int = 2


ELO = EloConfig()


@dataclass(frozen=True)
class EloRating:
    """A bot's incremental Elo and the number of rated matches behind it."""

    rating: float = ELO.initial
    games: int = 0


@dataclass(frozen=True)
class EloUpdate:
    """What one match did to every seat (seat order), for the rating history."""

    bot_ids: tuple[BotId, ...]
    before: tuple[EloRating, ...]
    after: tuple[EloRating, ...]
    changes: tuple[float, ...]

    def as_state(self) -> dict[BotId, EloRating]:
        """The new ratings of the seated bots, ready to merge into a state."""
        return dict(zip(self.bot_ids, self.after, strict=True))


def k_factor(games: int, config: EloConfig = ELO) -> float:
    """K for a bot that has `games` rated matches behind it (before this one)."""
    return config.k_new if games < config.new_matches else config.k_established


def elo_changes(
    ratings: Sequence[float],
    games: Sequence[int],
    ranks: Sequence[int],
    config: EloConfig = ELO,
) -> tuple[float, ...]:
    """Rounded rating change of every seat, given the seats' ratings and games before the match."""
    n = len(ranks)
    if not (len(ratings) == len(games) == n) or n < 2:
        raise ValueError("ratings, games and ranks need one entry per seat (at least 2)")
    ks = [k_factor(g, config) / (n - 1) for g in games]
    raw = [0.0] * n
    for i in range(n):
        for j in range(i + 1, n):
            # One float d per pair, added to i and subtracted from j: with equal K
            # the two contributions are exact negatives (2 seats: exactly zero-sum).
            d = pair_score(ranks[i], ranks[j]) - expected_score(ratings[i], ratings[j])
            raw[i] += ks[i] * d
            raw[j] -= ks[j] * d
    return tuple(round(x, config.decimals) + 0.0 for x in raw)  # + 0.0: no "-0.0"


def apply_elo(
    state: Mapping[BotId, EloRating], match: MatchResult, config: EloConfig = ELO
) -> EloUpdate:
    """Rate one match against the current state (bots missing from it start fresh).

    Pure: the state is not modified; merge `update.as_state()` into it.
    """
    check_result(match.bot_ids, match.ranks)
    fresh = EloRating(config.initial, 0)
    before = tuple(state.get(bot, fresh) for bot in match.bot_ids)
    changes = elo_changes(
        [r.rating for r in before], [r.games for r in before], match.ranks, config
    )
    after = tuple(
        EloRating(round(r.rating + c, config.decimals) + 0.0, r.games + 1)
        for r, c in zip(before, changes, strict=True)
    )
    return EloUpdate(match.bot_ids, before, after, changes)


def replay_elo(
    matches: Iterable[MatchResult],
    config: EloConfig = ELO,
    state: Mapping[BotId, EloRating] | None = None,
) -> tuple[dict[BotId, EloRating], list[EloUpdate]]:
    """Recompute from scratch (or from `state`): final ratings and one update per match, in order."""
    current: dict[BotId, EloRating] = dict(state or {})
    updates = []
    for match in matches:
        update = apply_elo(current, match, config)
        current.update(update.as_state())
        updates.append(update)
    return current, updates
