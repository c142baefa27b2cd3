"""Numeric kernels of the Plackett–Luce posterior (numpy, vectorised per seat count).

Parameters x = (θ_1 … θ_K[, a]) in natural-log units (θ = R·ln10/400); a is the
first-seat advantage, added to the strength of the result's first bot (the
first mover). A
finishing order o_1 … o_n with strengths e has the negative log-likelihood

    Σ_{t=1}^{n−1} [ log Σ_{s≥t} exp e_{o_s} − e_{o_t} ]

whose gradient and Hessian per stage t are (softmax p over the remaining
seats) p − 1_{o_t} and diag(p) − p pᵀ. For n = 2 this is Bradley–Terry.
Arrays are laid out (finishing position, match) so that every operation runs
along the long match axis.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Block:
    """All orderings with the same seat count n."""

    order: np.ndarray  # (n, M) bot index at each finishing position
    seat0: np.ndarray  # (M,) finishing position of the seat-0 bot
    weight: np.ndarray  # (M,) 1, or 1/k for the k tie-breaks of a tied match
    upper: tuple[np.ndarray, np.ndarray]  # positions a < b of every pair
    pairs: np.ndarray  # (P·M,) flat Hessian index order[a]·K + order[b], a < b


def make_block(order: np.ndarray, seat0: np.ndarray, weight: np.ndarray, bots: int) -> Block:
    """`order` is (M, n): bot indices best first."""
    order_t = np.ascontiguousarray(order.T)
    a, b = np.triu_indices(order_t.shape[0], k=1)
    pairs = (order_t[a] * bots + order_t[b]).ravel()
    return Block(order_t, seat0, weight, (a, b), pairs)


def _strengths(block: Block, x: np.ndarray, bots: int, advantage: bool) -> np.ndarray:
    e = x[block.order]
    if advantage:
        e[block.seat0, np.arange(e.shape[1])] += x[bots]
    return e


@dataclass(frozen=True)
class Prior:
    """`draws` virtual draws of every bot against a virtual opponent at θ = 0,
    and a normal prior with standard deviation `advantage_sd` (nats) on a."""

    draws: float
    advantage_sd: float

    def value(self, x: np.ndarray, bots: int, advantage: bool) -> float:
        theta = x[:bots]
        # −log of p^½ (1−p)^½ per draw, p = logistic(θ): ½ softplus(θ) + ½ softplus(−θ)
        softplus = np.logaddexp(0.0, theta) + np.logaddexp(0.0, -theta)
        total = self.draws * 0.5 * float(np.sum(softplus))
        if advantage:
            total += 0.5 * (x[bots] / self.advantage_sd) ** 2
        return total

    def gradient_hessian(
        self, x: np.ndarray, bots: int, advantage: bool
    ) -> tuple[np.ndarray, np.ndarray]:
        size = len(x)
        p = 1.0 / (1.0 + np.exp(-x[:bots]))
        grad = np.zeros(size)
        hess = np.zeros((size, size))
        grad[:bots] = self.draws * (p - 0.5)
        hess[np.arange(bots), np.arange(bots)] = self.draws * p * (1.0 - p)
        if advantage:
            grad[bots] = x[bots] / self.advantage_sd**2
            hess[bots, bots] = 1.0 / self.advantage_sd**2
        return grad, hess


def objective(
    blocks: list[Block], x: np.ndarray, bots: int, advantage: bool, prior: Prior
) -> float:
    """Negative log-posterior."""
    total = prior.value(x, bots, advantage)
    for block in blocks:
        e = _strengths(block, x, bots, advantage)
        for t in range(e.shape[0] - 1):
            rest = e[t:]
            top = rest.max(axis=0)
            lse = top + np.log(np.exp(rest - top).sum(axis=0))
            total += float(block.weight @ (lse - e[t]))
    return total


def gradient_hessian(
    blocks: list[Block], x: np.ndarray, bots: int, advantage: bool, prior: Prior
) -> tuple[np.ndarray, np.ndarray]:
    """Gradient and (dense) Hessian of the negative log-posterior."""
    grad, hess = prior.gradient_hessian(x, bots, advantage)
    diagonal = np.arange(bots)
    for block in blocks:
        e = _strengths(block, x, bots, advantage)
        n, m = e.shape
        # probs[t] = softmax over the positions still in the race at stage t (0 before t).
        probs = np.zeros((n - 1, n, m))
        for t in range(n - 1):
            rest = e[t:]
            p = np.exp(rest - rest.max(axis=0))
            probs[t, t:] = p / p.sum(axis=0)
        w = block.weight
        g_e = probs.sum(axis=0)
        g_e[: n - 1] -= 1.0
        g_e *= w
        h_diag = (probs * (1.0 - probs)).sum(axis=0) * w
        a, b = block.upper
        h_upper = -(probs[:, a] * probs[:, b]).sum(axis=0) * w
        flat_order = block.order.ravel()
        grad[:bots] += np.bincount(flat_order, g_e.ravel(), minlength=bots)
        hess[diagonal, diagonal] += np.bincount(flat_order, h_diag.ravel(), minlength=bots)
        # Each pair once (a < b); H gets U + Uᵀ, so which bot index is the row
        # does not matter.
        upper = np.bincount(block.pairs, h_upper.ravel(), minlength=bots * bots)
        upper = upper.reshape(bots, bots)
        hess[:bots, :bots] += upper + upper.T
        if advantage:
            # ∂²/∂a∂θ_j is the (j, seat-0 position) entry of the match's Hessian.
            cols = np.arange(m)
            s0 = block.seat0
            grad[bots] += g_e[s0, cols].sum()
            h_full = np.zeros((n, n, m))
            h_full[a, b] = h_upper
            h_full[b, a] = h_upper
            h_full[np.arange(n), np.arange(n)] = h_diag
            cross = np.bincount(flat_order, h_full[:, s0, cols].ravel(), minlength=bots)
            hess[:bots, bots] += cross
            hess[bots, :bots] += cross
            hess[bots, bots] += h_diag[s0, cols].sum()
    return grad, hess
