"""Round-robin tournaments and a small Elo fit with 95% intervals.

Kept apart from ladder/ratings (arena never imports the ladder): a
Bradley–Terry fit by Newton's method on every pair of seats of every match,
with a weak Gaussian prior so that a bot that always wins stays finite.
The pairs of one game are not independent (at 4 seats one result makes 6
pairs), so the intervals come from the games' own spread: a sandwich
estimate clustered by game (or the model's, where that is wider). With
equal bots the plain model-based interval covered only 85 % of the truth at
4 and 5 seats; this one 95 % (3 seats: 92.5 %, 2 seats: 95–96 %).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

ELO_PER_NAT = 400 / math.log(10)
PRIOR_SD_NATS = 3.0  # about 520 Elo: weak, only keeps perfect records finite


@dataclass(frozen=True)
class Pairing:
    """One game of the schedule: bot indices per seat and the seed."""

    seats: tuple[int, ...]
    seed: int


def schedule(bots: int, players: int, games: int, seed: int = 0) -> list[Pairing]:
    """`games` games for every group of `players` bots; within a group the
    seats rotate through every rotation and each seed is played once per
    rotation (mirrored seeds), so seat and deal advantages cancel when
    `games` is a multiple of `players` (the rotations are cyclic: at 3 seats
    and more, not every seat order is played)."""
    out = []
    for group in itertools.combinations(range(bots), players):
        rotations = [group[i:] + group[:i] for i in range(players)]
        for g in range(games):
            out.append(Pairing(rotations[g % players], seed + g // players))
    return out


@dataclass
class Standing:
    games: int = 0
    wins: float = 0.0  # rank 1; shared first places are split
    sole_firsts: int = 0  # rank 1 alone: ahead of every other seat
    rank_sum: float = 0.0
    faults: int = 0
    elo: float = 0.0
    ci95: float = 0.0
    opponents: dict[int, list[float]] = field(default_factory=dict)

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def sole_first_rate(self) -> float:
        return self.sole_firsts / self.games if self.games else 0.0


def count_game(
    standings: Sequence[Standing],
    seats: Sequence[int],
    ranks: Sequence[int],
    faulted: Sequence[bool],
) -> None:
    """Add one counted game to the standings: `seats` are bot indices per
    seat, `ranks` and `faulted` per seat too."""
    firsts = sum(1 for r in ranks if r == 1)
    for seat, bot in enumerate(seats):
        st = standings[bot]
        st.games += 1
        st.rank_sum += ranks[seat]
        if ranks[seat] == 1:
            st.wins += 1 / firsts
            st.sole_firsts += firsts == 1
        if faulted[seat]:
            st.faults += 1


def ranked(
    standings: Sequence[Standing], games: Sequence[Sequence[tuple[int, int, float]]]
) -> list[tuple[int, float | None, float | None]]:
    """(bot index, Elo, half its 95% interval) a bot, best first by Elo;
    `games` holds each counted game's pair results by bot index. A bot with
    no game counted has no Elo (None) and comes last, in index order."""
    played = [b for b, st in enumerate(standings) if st.games]
    index = {b: k for k, b in enumerate(played)}
    elo, ci = fit_elo(len(played), [[(index[i], index[j], s) for i, j, s in g] for g in games])
    order: list[tuple[int, float | None, float | None]] = sorted(
        ((b, elo[index[b]], ci[index[b]]) for b in played), key=lambda row: -row[1]
    )
    order += [(b, None, None) for b in range(len(standings)) if b not in index]
    return order


#: a standings row's figures besides its bot, games and faults: all null for
#: a bot with no game counted
ROW_FIGURES = (
    "win_rate", "first_alone", "first_alone_ci95", "avg_rank", "elo", "elo_ci95_half_width"
)  # fmt: skip


def standings_rows(
    labels: Sequence[str],
    standings: Sequence[Standing],
    games: Sequence[Sequence[tuple[int, int, float]]],
) -> list[dict]:
    """One row a bot, best first, as `arena tournament` prints them and
    writes them to --json; `null` figures for a bot with no game counted."""
    rows = []
    for b, elo, ci in ranked(standings, games):
        st = standings[b]
        row = {"bot": labels[b], "games": st.games, "faults": st.faults}
        if elo is not None:
            lo, hi = wilson_interval(st.sole_firsts, st.games)
            row |= {
                "win_rate": st.win_rate,
                "first_alone": st.sole_first_rate,
                "first_alone_ci95": [lo, hi],
                "avg_rank": st.rank_sum / st.games,
                "elo": elo,
                "elo_ci95_half_width": ci,
            }
        else:
            row |= dict.fromkeys(ROW_FIGURES)
        rows.append(row)
    return rows


def table_lines(rows: Sequence[dict]) -> list[str]:
    """The standings table (`standings_rows`) as text: a header line and
    one line a bot."""
    width = max(28, *(len(row["bot"]) for row in rows)) if rows else 28
    lines = [
        f"{'bot':<{width}} {'games':>5} {'win rate':>8} {'1st alone':>9} {'(95% CI)':>13}"
        f" {'avg rank':>8} {'faults':>6} {'Elo':>6} {'(±95%)':>7}"
    ]
    for row in rows:
        if row["elo"] is None:
            lines.append(
                f"{row['bot']:<{width}} {0:>5} {'—':>8} {'—':>9} {'':>13} {'—':>8}"
                f" {row['faults']:>6} {'—':>6}"
            )
            continue
        lo, hi = row["first_alone_ci95"]
        interval = f"{lo * 100:.1f}–{hi * 100:.1f}%"
        half = "±" + format(row["elo_ci95_half_width"], ".0f")
        lines.append(
            f"{row['bot']:<{width}} {row['games']:>5} {row['win_rate']:>8.1%}"
            f" {row['first_alone']:>9.1%} {interval:>13} {row['avg_rank']:>8.2f}"
            f" {row['faults']:>6} {row['elo']:>6.0f} {half:>7}"
        )
    return lines


def wilson_interval(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (95% by default) of a success proportion;
    unlike p ± z·se it stays inside [0, 1] and is sound near 0 % and 100 %."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def pair_results(ranks: Sequence[int]) -> list[tuple[int, int, float]]:
    """(seat a, seat b, score of a) for every pair: 1 win, 0.5 tie, 0 loss."""
    out = []
    for a, b in itertools.combinations(range(len(ranks)), 2):
        score = 1.0 if ranks[a] < ranks[b] else 0.0 if ranks[a] > ranks[b] else 0.5
        out.append((a, b, score))
    return out


def fit_elo(
    n: int, games: Sequence[Sequence[tuple[int, int, float]]]
) -> tuple[list[float], list[float]]:
    """Elo ratings (mean 1500) and 95% half-widths from the games' pair
    results: one list of (i, j, score of i) per game (see pair_results)."""
    if n == 0:
        return [], []
    r = [0.0] * n
    for _ in range(50):
        grad = [-x / PRIOR_SD_NATS**2 for x in r]
        hess = [[(1 / PRIOR_SD_NATS**2 if i == j else 0.0) for j in range(n)] for i in range(n)]
        for game in games:
            for i, j, s in game:
                p = 1 / (1 + math.exp(r[j] - r[i]))
                grad[i] += s - p
                grad[j] -= s - p
                w = p * (1 - p)
                hess[i][i] += w
                hess[j][j] += w
                hess[i][j] -= w
                hess[j][i] -= w
        step = _solve(hess, grad)
        r = [x + d for x, d in zip(r, step, strict=True)]
        if max(abs(d) for d in step) < 1e-9:
            break
    bread = _inverse(hess)
    # the spread of the games' scores: B = Σ_game u uᵀ, u = that game's gradient
    meat = [[0.0] * n for _ in range(n)]
    for game in games:
        u = [0.0] * n
        for i, j, s in game:
            p = 1 / (1 + math.exp(r[j] - r[i]))
            u[i] += s - p
            u[j] -= s - p
        for a in range(n):
            if u[a]:
                for b in range(n):
                    meat[a][b] += u[a] * u[b]
    cov = _product(_product(bread, meat), bread)
    mean = sum(r) / n
    elo = [1500 + (x - mean) * ELO_PER_NAT for x in r]
    # the interval of r_i - mean(r): the mean itself is fixed by convention.
    # The wider of the two estimates: a perfect record leaves the games no
    # spread at all, and then the model's (prior-bound) width is the honest one.
    ci = []
    for i in range(n):
        v = [(1.0 if k == i else 0.0) - 1 / n for k in range(n)]
        var = max(
            sum(v[a] * m[a][b] * v[b] for a in range(n) for b in range(n)) for m in (cov, bread)
        )
        ci.append(1.96 * math.sqrt(max(var, 0.0)) * ELO_PER_NAT)
    return elo, ci


def _product(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    n = len(a)
    return [[sum(a[i][k] * b[k][j] for k in range(n)) for j in range(n)] for i in range(n)]


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    inv = _inverse(a)
    return [sum(inv[i][k] * b[k] for k in range(len(b))) for i in range(len(b))]


def _inverse(a: list[list[float]]) -> list[list[float]]:
    """Gauss–Jordan inverse of a small positive-definite matrix."""
    n = len(a)
    m = [row[:] + [1.0 if i == j else 0.0 for j in range(n)] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda row: abs(m[row][col]))
        m[col], m[pivot] = m[pivot], m[col]
        div = m[col][col]
        m[col] = [x / div for x in m[col]]
        for row in range(n):
            if row != col and m[row][col] != 0.0:
                factor = m[row][col]
                m[row] = [x - factor * y for x, y in zip(m[row], m[col], strict=True)]
    return [row[n:] for row in m]
