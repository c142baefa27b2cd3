"""Batch maximum-likelihood Elo for the leaderboard (like BayesElo and Ordo).

One static strength per bot is fitted to *all* rated matches at once:
Bradley–Terry for 2 seats, its multiplayer form Plackett–Luce for 3–5 seats
(see `_plackett_luce.py`), on the Elo scale (P(i ahead of j) = 1/(1+10^(−Δ/400))).

* Ties: a tied match counts as every finishing order consistent with it, each
  with equal weight (summing to 1). A 2-seat draw is therefore half a win and
  half a loss, as in Elo.
* Prior: every bot gets `prior_draws` virtual draws against a virtual opponent
  at the pool mean (θ = 0 before centring), as BayesElo does, so a bot with
  only wins or only losses still gets a finite rating. Two draws act like a
  normal prior with SD ≈ 245 Elo near the mean, but with logistic tails.
* First-move advantage: when every match has 2 seats (Splendor Duel) a term a
  is added to the strength of the bot listed first in each result (the one
  that moved first, see `results.py`) and fitted too, with a N(0, 200²) Elo
  prior. (The code calls it the first-seat term: first in turn order.)
* Solver: damped Newton with the analytic Hessian; it converges in a handful
  of steps. The Hessian is dense, so memory grows as bots² (fine to ~5 000 bots).
* Scale anchor: the ratings are shifted so that their mean is exactly `anchor`
  (1500). The 95 % interval of a bot is for its distance from that mean:
  ±1.96·√Var(θ_i − θ̄), from the inverse Hessian of the negative log-posterior
  (observed Fisher information plus prior).
* Provisional: while the interval half-width exceeds 100 Elo or the bot has
  fewer than 20 rated matches.
* Rounding: ratings, interval bounds and half-widths are rounded to 2 decimals;
  the order of the leaderboard is by rounded rating, then by the exact one,
  then by first appearance in the input. Same matches in the same order → the
  same numbers.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ._plackett_luce import Block, Prior, gradient_hessian, make_block, objective
from .results import ELO_PER_NAT, Z95, BotId, MatchResult


@dataclass(frozen=True)
class FitConfig:
    anchor: float = 1500.0
    prior_draws: float = 2.0
    #: None: fit the first-seat term iff every match has exactly 2 seats.
    first_seat_advantage: bool | None = None
    advantage_prior_sd: float = 200.0
    provisional_half_width: float = 100.0
    provisional_min_games: int = 20
    decimals: int = 2
    #: stop once the Newton step is below this (natural-log units, 1e-6 ≈ 0.0002 Elo).
    tolerance: float = 1e-6
    max_iterations: int = 100


FIT = FitConfig()


@dataclass(frozen=True)
class BotFit:
    bot_id: BotId
    rating: float
    half_width: float  # of the 95 % interval, Elo
    low: float
    high: float
    games: int
    provisional: bool


@dataclass(frozen=True)
class Fit:
    leaderboard: tuple[BotFit, ...]  # best first
    #: Elo added to the bot listed first, the first mover (None when not
    #: fitted), and its 95 % half-width.
    first_seat_advantage: float | None
    first_seat_advantage_half_width: float | None
    matches: int
    iterations: int

    def by_bot(self) -> dict[BotId, BotFit]:
        return {row.bot_id: row for row in self.leaderboard}


def fit_ratings(matches: Sequence[MatchResult], config: FitConfig = FIT) -> Fit:
    """Fit every bot that appears in `matches`; see the module docstring."""
    if config.prior_draws <= 0:
        raise ValueError("prior_draws must be positive: it is what keeps the fit finite")
    advantage = config.first_seat_advantage
    if advantage is None:
        advantage = bool(matches) and all(len(m.bot_ids) == 2 for m in matches)
    index, blocks, games = _blocks(matches)
    bots = len(index)
    if bots == 0:
        return Fit((), 0.0 if advantage else None, None, 0, 0)
    prior = Prior(config.prior_draws, config.advantage_prior_sd / ELO_PER_NAT)
    x, hess, iterations = _newton(blocks, bots, advantage, prior, config)

    cov = np.linalg.inv(hess)
    theta_cov = cov[:bots, :bots]
    centred_var = np.diag(theta_cov) - 2.0 * theta_cov.mean(axis=1) + theta_cov.mean()
    half = Z95 * np.sqrt(np.maximum(centred_var, 0.0)) * ELO_PER_NAT
    exact = config.anchor + (x[:bots] - x[:bots].mean()) * ELO_PER_NAT
    d = config.decimals
    rows = []
    for bot, i in index.items():
        rating = round(float(exact[i]), d)
        hw = round(float(half[i]), d)
        rows.append(
            BotFit(
                bot_id=bot,
                rating=rating,
                half_width=hw,
                low=round(rating - hw, d),
                high=round(rating + hw, d),
                games=int(games[i]),
                provisional=bool(hw > config.provisional_half_width)
                or bool(games[i] < config.provisional_min_games),
            )
        )
    order = sorted(range(bots), key=lambda i: (-rows[i].rating, -exact[i], i))
    adv = adv_half = None
    if advantage:
        adv = round(float(x[bots]) * ELO_PER_NAT, d)
        adv_half = round(Z95 * float(np.sqrt(cov[bots, bots])) * ELO_PER_NAT, d)
    return Fit(tuple(rows[i] for i in order), adv, adv_half, len(matches), iterations)


def _blocks(
    matches: Sequence[MatchResult],
) -> tuple[dict[BotId, int], list[Block], np.ndarray]:
    """Index the bots (first appearance), group matches by seat count into
    finishing orders, expand ties, count games. Flat lists keep the Python
    part of this to a few C-level passes over 100 000s of matches."""
    flat = [b for m in matches for b in m.bot_ids]
    index = {bot: i for i, bot in enumerate(dict.fromkeys(flat))}
    bots = len(index)
    all_bots = np.fromiter(map(index.__getitem__, flat), np.int64, len(flat))
    all_ranks = np.fromiter((r for m in matches for r in m.ranks), np.int64, len(flat))
    sizes = np.fromiter(map(len, (m.bot_ids for m in matches)), np.int64, len(matches))
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
    games = np.bincount(all_bots, minlength=bots)
    blocks = []
    for n in sorted(set(sizes.tolist())):
        cols = starts[sizes == n][:, None] + np.arange(n)
        seat_bots, ranks = all_bots[cols], all_ranks[cols]
        perm = np.argsort(ranks, axis=1, kind="stable")  # finishing position → seat
        sorted_ranks = np.take_along_axis(ranks, perm, axis=1)
        tied = (np.diff(sorted_ranks, axis=1) == 0).any(axis=1)
        clean = ~tied
        orders = [np.take_along_axis(seat_bots[clean], perm[clean], axis=1)]
        seat0 = [np.argmax(perm[clean] == 0, axis=1)]
        weights = [np.ones(int(clean.sum()))]
        for row in np.flatnonzero(tied):
            expanded = _tie_breaks(ranks[row].tolist())
            orders.append(seat_bots[row][np.array(expanded)])
            seat0.append(np.array([o.index(0) for o in expanded]))
            weights.append(np.full(len(expanded), 1.0 / len(expanded)))
        blocks.append(
            make_block(
                np.concatenate(orders).astype(np.int64),
                np.concatenate(seat0).astype(np.int64),
                np.concatenate(weights),
                bots,
            )
        )
    return index, blocks, games


def _tie_breaks(ranks: list[int]) -> list[tuple[int, ...]]:
    """Every seat order (best first) consistent with tied ranks."""
    groups = [[s for s in range(len(ranks)) if ranks[s] == r] for r in sorted(set(ranks))]
    return [
        tuple(itertools.chain.from_iterable(parts))
        for parts in itertools.product(*(itertools.permutations(g) for g in groups))
    ]


def _newton(
    blocks: list[Block], bots: int, advantage: bool, prior: Prior, config: FitConfig
) -> tuple[np.ndarray, np.ndarray, int]:
    x = np.zeros(bots + (1 if advantage else 0))
    value = None
    for iteration in range(1, config.max_iterations + 1):
        grad, hess = gradient_hessian(blocks, x, bots, advantage, prior)
        step = np.linalg.solve(hess, -grad)
        size = float(np.max(np.abs(step)))
        if size < config.tolerance:
            # Quadratic convergence: after this step the error is ~ size².
            return x + step, hess, iteration
        if size < 1e-3:
            # Near the optimum the full step is safe, and the objective's decrease
            # would be below its float resolution anyway.
            x, value = x + step, None
            continue
        # Backtracking (Armijo): the posterior is convex, but a full Newton step
        # can overshoot where logistic curvature vanishes (all-win records).
        if value is None:
            value = objective(blocks, x, bots, advantage, prior)
        slope = float(grad @ step)
        t = 1.0
        while True:
            candidate = x + t * step
            new_value = objective(blocks, candidate, bots, advantage, prior)
            if new_value <= value + 1e-4 * t * slope or t * size < 1e-12:
                break
            t *= 0.5
        x, value = candidate, new_value
    raise ArithmeticError(f"rating fit did not converge in {config.max_iterations} steps")
