"""Which bots play next: pure, seeded, plain data in and out.

Policy (docs/ratings.md has the reasoning and the measurements):

* Groups: every planned table is played as a group with one engine seed and
  seats rotated, so seat advantage and deal luck cancel: 2 seats → the mirrored
  pair (A, B), (B, A); n seats → the n cyclic rotations of the table.
* Posterior: the pairing keeps a normal approximation of what the ladder
  knows, built like the fit's: the bots' fitted ratings as means, and as
  precision the fit's prior (`prior_draws` virtual draws) plus, for every pair
  of bots, the rated games they played at one table times p(1 − p). Its
  inverse is the full covariance: bots that met often, directly or through
  common opponents, have correlated errors.
* Value of a game: the expected share of correctly ordered pairs is
  Σ_{i<j} Φ(|μ_i − μ_j| / s_ij), s_ij the posterior SD of the difference. A
  game between a and b (information p_ab(1 − p_ab)) lowers every s_ij²; the
  gain G_ab is twice the first-order rise of that sum (a constant factor),
  Σ_{i<j} w_ij · Δs_ij², with w_ij = φ(z_ij) · max(z_ij, z_floor) / s_ij² and
  z_ij = |μ_i − μ_j| / s_ij.
  Pairs already settled (large z) and pairs too close to settle soon weigh
  little, so games go where they change the order, and to bots whose place
  is uncertain relative to many others. The floor keeps a weight on pairs
  whose fitted ratings are equal (their value comes from the mean moving,
  which a variance derivative does not see). In matrix form
  G_ab = p_ab(1 − p_ab) · (u_ab^T Σ L_w Σ u_ab), L_w the Laplacian of w.
* Seed bot: groups are numbered by the caller (`first_group`, a ladder-wide
  counter). Every `fairness_every`-th group (number divisible by it) is seeded
  with the bot that has waited longest (never played first); the others with
  a bot of the pair with the largest gain. A seated bot becomes the most
  recently played, so each fairness group lowers the number of bots that
  have waited longer than any given bot: every bot is seated at least once in
  any `fairness_every` × (number of bots) consecutive groups, whatever the
  ratings say (provided the caller numbers groups consecutively and passes
  back `last_played`).
* Opponents: each further seat is, with probability `random_fraction` (0.2),
  a uniformly random bot not yet at the table (keeps the comparison graph
  connected and guards against model misfit); otherwise the bot c with the
  largest Σ_{j at table} G_jc. Either way, a bot whose owner already has a
  bot at the table is passed over while any other bot is left: an owner's
  bots could play for each other (give a sibling a win, or decide a
  multi-player game in its favour). Only when every bot not yet seated
  shares an owner with one that is (fewer owners than seats) do they meet,
  so that a small ladder still plays.
* Within one plan, the planned games are added to the posterior (every pair
  at a table, once per rotation) and the seated bots count as just played,
  so a batch spreads over the pool. The means and the pair weights w stay as
  they were when the plan started.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .fit import FitConfig
from .results import ELO_PER_NAT, BotId


@dataclass(frozen=True)
class PairingBot:
    bot_id: BotId
    #: fitted ladder rating (Elo); None for a bot without rated matches.
    rating: float | None = None
    games: int = 0
    #: any increasing clock (timestamp, match id); None = never played.
    last_played: float | None = None
    #: whoever controls the bot's code; bots of one owner are kept apart at a
    #: table while the pool allows (see the module doc). None = no owner to
    #: keep apart (the platform's own bots).
    owner: Hashable | None = None


@dataclass(frozen=True)
class PairingConfig:
    random_fraction: float = 0.2
    fairness_every: int = 2
    #: the fit's prior, as in FitConfig: precision prior_draws/4 per bot, in nats⁻².
    prior_draws: float = FitConfig.prior_draws
    #: pairs closer than this many SDs weigh as if they were this far apart.
    z_floor: float = 1.0


PAIRING = PairingConfig()

#: Rated games per pair of bots at one table: {(a, b): games}, either order.
PairGames = Mapping[tuple[BotId, BotId], float]


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
    games: int
    wait_key: tuple[int, float]  # smaller = has waited longer
    owner: Hashable | None


def plan_matches(
    bots: Sequence[PairingBot],
    seats: int,
    groups: int,
    rng: random.Random,
    first_group: int = 0,
    config: PairingConfig = PAIRING,
    pair_games: PairGames | None = None,
) -> list[PlannedMatch]:
    """Plan `groups` groups (seats · groups matches) among `bots` (the enabled ones).

    `pair_games` holds the rated games each pair has played at one table (a
    pair with a bot that is not in `bots` is ignored). Returns [] when there
    are fewer bots than seats. Deterministic for the same input order and
    generator state.
    """
    if seats < 2:
        raise ValueError("a match needs at least 2 seats")
    if len({b.bot_id for b in bots}) != len(bots):
        raise ValueError("bot ids must be unique")
    if len(bots) < seats:
        return []
    entries = [
        _Entry(
            i,
            b.bot_id,
            b.games,
            (0, -math.inf) if b.last_played is None else (1, float(b.last_played)),
            b.owner,
        )
        for i, b in enumerate(bots)
    ]
    posterior = _Posterior(bots, pair_games or {}, config)
    planned: list[PlannedMatch] = []
    for offset in range(groups):
        group = first_group + offset
        gain = posterior.gains()
        # Shuffle once per group so that exact ties are broken at random.
        pool = entries[:]
        rng.shuffle(pool)
        if group % config.fairness_every == 0:
            seed_bot = min(pool, key=lambda e: (e.wait_key, -posterior.var(e.index), e.games))
        else:
            best = gain.max(axis=1)
            seed_bot = max(pool, key=lambda e: (best[e.index], _waited(e), -e.games))
        table = [seed_bot]
        random_picks = []
        while len(table) < seats:
            candidates = [e for e in pool if all(e is not t for t in table)]
            owners = {t.owner for t in table if t.owner is not None}
            apart = [c for c in candidates if c.owner is None or c.owner not in owners]
            candidates = apart or candidates  # fewer owners than seats: they meet
            if rng.random() < config.random_fraction:
                pick = rng.choice(candidates)
                random_picks.append(pick.bot_id)
            else:
                score = gain[[t.index for t in table]].sum(axis=0)
                pick = max(candidates, key=lambda c: score[c.index])
            table.append(pick)
        rng.shuffle(table)
        seed = rng.getrandbits(63)
        for r in range(seats):
            order = table[r:] + table[:r]
            planned.append(
                PlannedMatch(tuple(e.bot_id for e in order), seed, group, tuple(random_picks))
            )
        posterior.played([e.index for e in table], seats)
        for e in table:
            e.games += seats
            e.wait_key = (2, float(offset))
    return planned


class _Posterior:
    """Normal approximation of the ladder's knowledge, in nats (see the module doc).

    The pair weights w are fixed when the plan starts (like the means), so
    K = Σ L_w Σ needs one O(bots³) product per plan; each planned pair then
    changes Σ and K by low-rank updates in O(bots²)."""

    def __init__(self, bots: Sequence[PairingBot], pair_games: PairGames, config: PairingConfig):
        if config.prior_draws <= 0:
            raise ValueError("prior_draws must be positive")
        rated = [b.rating for b in bots if b.rating is not None]
        mean = sum(rated) / len(rated) if rated else 0.0
        mu = np.array([mean if b.rating is None else b.rating for b in bots]) / ELO_PER_NAT
        p = 1.0 / (1.0 + np.exp(mu[None, :] - mu[:, None]))
        self.q = p * (1.0 - p)
        index = {b.bot_id: i for i, b in enumerate(bots)}
        counts = np.zeros((len(bots), len(bots)))
        for (a, b), games in pair_games.items():
            i, j = index.get(a), index.get(b)
            if i is not None and j is not None and i != j:
                counts[i, j] += games
                counts[j, i] += games
        info = self.q * counts
        self.cov = np.linalg.inv(np.diag(info.sum(axis=1) + config.prior_draws / 4.0) - info)
        d = np.diag(self.cov)
        s2 = np.maximum(d[:, None] + d[None, :] - 2.0 * self.cov, 1e-12)
        z = np.abs(mu[:, None] - mu[None, :]) / np.sqrt(s2)
        w = np.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi) * np.maximum(z, config.z_floor) / s2
        np.fill_diagonal(w, 0.0)
        self.laplacian = np.diag(w.sum(axis=1)) - w
        self.k = self.cov @ self.laplacian @ self.cov

    def var(self, i: int) -> float:
        return float(self.cov[i, i])

    def gains(self) -> np.ndarray:
        """G_ab for every pair (0 on the diagonal)."""
        kd = np.diag(self.k)
        return self.q * np.maximum(kd[:, None] + kd[None, :] - 2.0 * self.k, 0.0)

    def played(self, table: list[int], seats: int) -> None:
        """Add the planned group: every pair at the table meets once per rotation.
        Σ' = Σ − α v vᵀ with v = Σ u; K' = K − α(v yᵀ + y vᵀ) + α² (vᵀ L v) v vᵀ, y = Σ L v."""
        for a, b in itertools.combinations(table, 2):
            info = seats * self.q[a, b]
            v = self.cov[:, a] - self.cov[:, b]
            alpha = info / (1.0 + info * (v[a] - v[b]))
            lv = self.laplacian @ v
            y = self.cov @ lv
            self.k += alpha * alpha * float(v @ lv) * np.outer(v, v)
            self.k -= alpha * (np.outer(v, y) + np.outer(y, v))
            self.cov -= alpha * np.outer(v, v)


def _waited(e: _Entry) -> tuple[float, float]:
    return (-e.wait_key[0], -e.wait_key[1])


def pair_games_of(tables: Sequence[Sequence[BotId]]) -> dict[tuple[BotId, BotId], int]:
    """`pair_games` from the seatings of rated matches (one count per pair per match)."""
    counts: dict[tuple[BotId, BotId], int] = {}
    for table in tables:
        for a, b in itertools.combinations(table, 2):
            counts[(a, b)] = counts.get((a, b), 0) + 1
    return counts
