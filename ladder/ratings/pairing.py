"""Which bots play next: pure, seeded, plain data in and out.

Policy (docs/ratings.md has the reasoning):

* Groups: every planned table is played as a group with one engine seed and
  seats rotated, so seat advantage and deal luck cancel: 2 seats → the mirrored
  pair (A, B), (B, A); n seats → the n cyclic rotations of the table.
* Seed bot: groups are numbered by the caller (`first_group`, a ladder-wide
  counter). Every `fairness_every`-th group (number divisible by it) is seeded
  with the bot that has waited longest (never played first); the others with
  the most uncertain bot: the one with the most expected misorderings against
  the others, Σ_j Φ(−|R_i − R_j| / √(σ_i² + σ_j²)) (`seed_by="interval"`:
  simply the widest interval; unrated bots count as σ = 350 Elo). A seated
  bot becomes the most recently played, so each fairness group lowers the
  number of bots that have waited longer than any given bot: every bot is
  seated at least once in any `fairness_every` × (number of bots) consecutive
  groups, whatever the ratings say (provided the caller numbers groups
  consecutively and passes back `last_played`).
* Opponents: each further seat is, with probability `random_fraction` (0.2),
  a uniformly random bot not yet at the table (keeps the comparison graph
  connected and guards against model misfit); otherwise the bot c maximising
  Σ_{j at table} (σ_j² + σ_c²) · p_jc (1 − p_jc) — the expected variance
  reduction of a game between j and c, largest for uncertain bots whose
  outcome is closest to a coin flip.
* Within one plan, each seated bot's variance shrinks by the Fisher
  information of the games just planned, and it counts as just played, so a
  batch spreads over the pool instead of seating one bot in every group.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .results import ELO_PER_NAT, Z95, BotId, expected_score


@dataclass(frozen=True)
class PairingBot:
    bot_id: BotId
    #: fitted rating and 95 % half-width (Elo); None for a bot without rated matches.
    rating: float | None = None
    half_width: float | None = None
    games: int = 0
    #: any increasing clock (timestamp, match id); None = never played.
    last_played: float | None = None


@dataclass(frozen=True)
class PairingConfig:
    random_fraction: float = 0.2
    fairness_every: int = 2
    #: rating SD assumed for a bot without a fit (wider than any fitted bot).
    unrated_sd: float = 350.0
    #: "rank": expected misorderings (see _rank_uncertainty); "interval": widest interval.
    seed_by: str = "rank"


PAIRING = PairingConfig()


@dataclass(frozen=True)
class PlannedMatch:
    seats: tuple[BotId, ...]  # seat 0 first
    seed: int  # the engine seed, shared by the group
    group: int  # matches of one mirrored/rotated set share it
    #: bots of this table chosen uniformly at random rather than by information.
    random_picks: tuple[BotId, ...] = ()


@dataclass
class _Entry:
    index: int
    bot_id: BotId
    rating: float
    var: float  # Elo²
    games: int
    wait_key: tuple[int, float]  # smaller = has waited longer


def plan_matches(
    bots: Sequence[PairingBot],
    seats: int,
    groups: int,
    rng: random.Random,
    first_group: int = 0,
    config: PairingConfig = PAIRING,
) -> list[PlannedMatch]:
    """Plan `groups` groups (seats · groups matches) among `bots` (the enabled ones).

    Returns [] when there are fewer bots than seats. Deterministic for the same
    input order and generator state.
    """
    if seats < 2:
        raise ValueError("a match needs at least 2 seats")
    if len({b.bot_id for b in bots}) != len(bots):
        raise ValueError("bot ids must be unique")
    if len(bots) < seats:
        return []
    entries = _entries(bots, config)
    ranks = _RankUncertainty(entries) if config.seed_by == "rank" else None
    planned: list[PlannedMatch] = []
    for offset in range(groups):
        group = first_group + offset
        # Shuffle once per group so that exact ties are broken at random.
        pool = entries[:]
        rng.shuffle(pool)
        if group % config.fairness_every == 0:
            seed_bot = min(pool, key=lambda e: (e.wait_key, -e.var, e.games))
        else:
            score = ranks.score if ranks is not None else [e.var for e in entries]
            seed_bot = max(pool, key=lambda e: (score[e.index], _waited(e), -e.games))
        table = [seed_bot]
        random_picks = []
        while len(table) < seats:
            candidates = [e for e in pool if all(e is not t for t in table)]
            if rng.random() < config.random_fraction:
                pick = rng.choice(candidates)
                random_picks.append(pick.bot_id)
            else:
                pick = max(candidates, key=lambda c: _information(table, c))
            table.append(pick)
        rng.shuffle(table)
        seed = rng.getrandbits(63)
        for r in range(seats):
            order = table[r:] + table[:r]
            planned.append(
                PlannedMatch(tuple(e.bot_id for e in order), seed, group, tuple(random_picks))
            )
        _played(table, offset, seats)
        if ranks is not None:
            for e in table:
                ranks.update(e.index, e.var)
    return planned


def _entries(bots: Sequence[PairingBot], config: PairingConfig) -> list[_Entry]:
    rated = [b.rating for b in bots if b.rating is not None]
    mean = sum(rated) / len(rated) if rated else 1500.0
    entries = []
    for b in bots:
        if b.rating is None or b.half_width is None:
            var = config.unrated_sd**2
        else:
            var = (b.half_width / Z95) ** 2
        rating = mean if b.rating is None else b.rating
        wait = (0, -math.inf) if b.last_played is None else (1, float(b.last_played))
        entries.append(_Entry(len(entries), b.bot_id, rating, var, b.games, wait))
    return entries


class _RankUncertainty:
    """For every bot, the expected number of bots it is ordered wrongly against:
    Σ_j Φ(−|R_i − R_j| / √(σ_i² + σ_j²)). A wide interval in a crowded part of
    the ladder scores high; an outlier far from everyone does not, however wide
    its interval (seeding by interval width alone gave such bots 5–10× the
    average number of games in the simulation). Kept up to date in O(bots) per
    changed variance, so planning stays fast for 1000s of bots."""

    def __init__(self, entries: list[_Entry]) -> None:
        self.rating = np.array([e.rating for e in entries])
        self.var = np.array([e.var for e in entries])
        self.score = np.array([self._row(i).sum() for i in range(len(entries))])

    def _row(self, i: int) -> np.ndarray:
        z = np.abs(self.rating - self.rating[i]) / np.sqrt(self.var + self.var[i])
        terms = _normal_tail(z)
        terms[i] = 0.0
        return terms

    def update(self, i: int, var: float) -> None:
        old = self._row(i)
        self.var[i] = var
        new = self._row(i)
        self.score += new - old
        self.score[i] = new.sum()


def _normal_tail(z: np.ndarray) -> np.ndarray:
    """Φ(−z) for z ≥ 0 (Abramowitz & Stegun 7.1.26, absolute error < 1e-7)."""
    x = z / math.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    return 0.5 * poly * np.exp(-x * x)


def _waited(e: _Entry) -> tuple[float, float]:
    return (-e.wait_key[0], -e.wait_key[1])


def _information(table: list[_Entry], c: _Entry) -> float:
    total = 0.0
    for j in table:
        p = expected_score(j.rating, c.rating)
        total += (j.var + c.var) * p * (1.0 - p)
    return total


def _played(table: list[_Entry], offset: int, seats: int) -> None:
    """Count the planned games: newest wait key, variance shrunk by their information."""
    for e in table:
        info = 0.0
        for j in table:
            if j is not e:
                p = expected_score(e.rating, j.rating)
                info += seats * p * (1.0 - p) / ELO_PER_NAT**2
        e.var = 1.0 / (1.0 / e.var + info)
        e.games += seats
        e.wait_key = (2, float(offset))
