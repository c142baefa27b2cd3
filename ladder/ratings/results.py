"""Plain-data match results, the input of both rating paths.

A result names the bots in turn order, the one that moved first first (the
fit's first-move term is credited to it; the ladder turns each match's seats
so that its first mover leads), and each one's finishing rank: 1 is best,
equal ranks are a tie, only the order of the ranks matters (1, 1, 3 and
1, 1, 2 mean the same). Forfeits are the caller's business: a forfeiting seat
simply gets the worst rank.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

BotId = Hashable

#: Elo points per natural-log unit of strength: R = θ · 400 / ln 10.
ELO_PER_NAT = 400.0 / math.log(10.0)

#: Two-sided 95 % normal quantile.
Z95 = 1.959963984540054


@dataclass(frozen=True)
class MatchResult:
    """One rated match: bots in turn order (first mover first) and their finishing ranks."""

    bot_ids: tuple[BotId, ...]
    ranks: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "bot_ids", tuple(self.bot_ids))
        object.__setattr__(self, "ranks", tuple(self.ranks))
        check_result(self.bot_ids, self.ranks)

    @property
    def seats(self) -> int:
        return len(self.bot_ids)


def check_result(bot_ids: Sequence[BotId], ranks: Sequence[int]) -> None:
    """Raise ValueError unless this is a usable result (≥ 2 distinct bots, one rank each)."""
    if len(bot_ids) < 2:
        raise ValueError(f"a rated match needs at least 2 seats, got {len(bot_ids)}")
    if len(ranks) != len(bot_ids):
        raise ValueError(f"{len(bot_ids)} seats but {len(ranks)} ranks")
    if len(set(bot_ids)) != len(bot_ids):
        raise ValueError(f"a bot may hold only one seat in a match: {list(bot_ids)}")
    for rank in ranks:
        if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
            raise ValueError(f"ranks are integers >= 1, got {rank!r}")


def pair_score(rank_a: int, rank_b: int) -> float:
    """Score of seat a against seat b: 1 if a finished ahead, ½ if tied, 0 if behind."""
    if rank_a < rank_b:
        return 1.0
    if rank_a > rank_b:
        return 0.0
    return 0.5


def expected_score(rating_a: float, rating_b: float) -> float:
    """Elo expectation of a against b: 1 / (1 + 10^((R_b − R_a)/400))."""
    return 1.0 / (1.0 + 10.0 ** ((rating_b - rating_a) / 400.0))
