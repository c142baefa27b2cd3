"""Simulated ladders with known strengths, through the real pairing and fit code.

    python -m ladder.ratings.simulate [--runs 400] [--jobs 2] [--seats 2 4]

Each run draws 32 true ratings from N(1500, 200²) Elo (the reading of
"spread 200" in notes/ratings.md), then loops: fit all matches so far
(`fit_ratings`), plan about one game per bot (`plan_matches`, groups numbered
ladder-wide), play them from the Plackett–Luce model (Gumbel-perturbed true
strengths, plus an optional true first-seat advantage). At each checkpoint
(average games per bot) the fit of the matches so far is scored against the
truth: Kendall τ, whether the fitted #1 is the true #1 (top-1 rate over runs),
and coverage: the share of bots whose true rating, centred like the fit (pool
mean 1500), lies inside the bot's 95 % interval. τ of incremental Elo over
the same matches is printed for comparison. `--oracle-pairing` lets the
pairing see the true ratings (the fit and the scoring are unchanged): what a
scheduler with perfect knowledge of the strengths would achieve.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace

from .elo import replay_elo
from .fit import FitConfig, fit_ratings
from .pairing import PairingBot, PairingConfig, pair_games_of, plan_matches
from .results import ELO_PER_NAT, MatchResult


@dataclass(frozen=True)
class SimConfig:
    seats: int = 2
    bots: int = 32
    spread: float = 200.0  # SD of the true ratings, Elo
    first_seat_advantage: float = 0.0  # true Elo bonus of seat 0, the first mover here
    checkpoints: tuple[int, ...] = (10, 20, 30, 40, 100)
    games_per_batch: float = 1.0  # games per bot between refits
    #: pairing sees the true ratings instead of the fitted ones (a what-if bound).
    oracle_pairing: bool = False
    fit: FitConfig = FitConfig()
    pairing: PairingConfig = PairingConfig()


@dataclass(frozen=True)
class Checkpoint:
    games: int
    tau: float
    elo_tau: float
    top1: bool
    covered: int
    bots: int
    half_width: float
    min_games: int
    max_games: int


def kendall_tau(xs: list[float], ys: list[float]) -> float:
    """Kendall τ-a (no ties expected between continuous ratings)."""
    n = len(xs)
    concordance = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            concordance += _sign(xs[i] - xs[j]) * _sign(ys[i] - ys[j])
    return concordance / (n * (n - 1) / 2)


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def play(
    table: tuple[int, ...], truth: list[float], advantage: float, rng: random.Random
) -> MatchResult:
    """Ranks of one match under Plackett–Luce: sort strengths plus Gumbel noise."""
    noisy = [
        (truth[b] + (advantage if s == 0 else 0.0)) / ELO_PER_NAT
        - math.log(-math.log(rng.random()))
        for s, b in enumerate(table)
    ]
    order = sorted(range(len(table)), key=lambda s: -noisy[s])
    ranks = [0] * len(table)
    for place, seat in enumerate(order):
        ranks[seat] = place + 1
    return MatchResult(table, tuple(ranks))


def run_ladder(config: SimConfig, seed: int) -> list[Checkpoint]:
    rng = random.Random(seed)
    truth = [1500.0 + rng.gauss(0.0, config.spread) for _ in range(config.bots)]
    mean = statistics.fmean(truth)
    centred = [t - mean + 1500.0 for t in truth]
    seat_games = config.seats * config.seats  # seat appearances per group
    per_batch = max(1, round(config.bots * config.games_per_batch / seat_games))
    matches: list[MatchResult] = []
    last_played: dict[int, int] = {}
    pair_games: dict[tuple[int, int], int] = {}
    group = 0
    results = []
    for checkpoint in config.checkpoints:
        target = math.ceil(checkpoint * config.bots / config.seats)
        while len(matches) < target:
            fit = fit_ratings(matches, config.fit).by_bot() if matches else {}
            status = [
                PairingBot(
                    b,
                    centred[b] if config.oracle_pairing else fit[b].rating if b in fit else None,
                    fit[b].games if b in fit else 0,
                    last_played.get(b),
                )
                for b in range(config.bots)
            ]
            plan = plan_matches(
                status,
                config.seats,
                per_batch,
                rng,
                first_group=group,
                config=config.pairing,
                pair_games=pair_games,
            )
            for planned in plan:
                matches.append(play(planned.seats, truth, config.first_seat_advantage, rng))
                for b in planned.seats:
                    last_played[b] = planned.group
            for pair, games in pair_games_of([p.seats for p in plan]).items():
                pair_games[pair] = pair_games.get(pair, 0) + games
            group += per_batch
        results.append(_score(matches[:target], checkpoint, centred, config))
    return results


def _score(
    matches: list[MatchResult], games: int, centred: list[float], config: SimConfig
) -> Checkpoint:
    fit = fit_ratings(matches, config.fit).by_bot()
    elo, _ = replay_elo(matches)
    bots = range(config.bots)
    fitted = [fit[b].rating if b in fit else 1500.0 for b in bots]
    played = [fit[b].games if b in fit else 0 for b in bots]
    best_true = max(bots, key=lambda b: centred[b])
    best_fit = max(bots, key=lambda b: fitted[b])
    covered = sum(1 for b in bots if b in fit and fit[b].low <= centred[b] <= fit[b].high)
    return Checkpoint(
        games=games,
        tau=kendall_tau(fitted, centred),
        elo_tau=kendall_tau([elo[b].rating if b in elo else 1500.0 for b in bots], centred),
        top1=best_true == best_fit,
        covered=covered,
        bots=config.bots,
        half_width=statistics.fmean(fit[b].half_width for b in fit),
        min_games=min(played),
        max_games=max(played),
    )


def _run(args: tuple[SimConfig, int]) -> list[Checkpoint]:
    return run_ladder(*args)


def summarise(config: SimConfig, runs: list[list[Checkpoint]]) -> list[str]:
    lines = [
        f"{config.seats} seats, {config.bots} bots, true SD {config.spread:g} Elo, "
        f"{len(runs)} runs (± = standard error over runs)",
        "| games/bot | Kendall τ | τ incr. Elo | top-1 | 95 % coverage | mean ± half-width | games min–max |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for k, checkpoint in enumerate(config.checkpoints):
        cps = [run[k] for run in runs]
        taus = [c.tau for c in cps]
        se = statistics.stdev(taus) / math.sqrt(len(taus)) if len(taus) > 1 else 0.0
        top1 = sum(c.top1 for c in cps) / len(cps)
        coverage = sum(c.covered for c in cps) / sum(c.bots for c in cps)
        lines.append(
            f"| {checkpoint} | {statistics.fmean(taus):.3f} ± {se:.3f} "
            f"| {statistics.fmean(c.elo_tau for c in cps):.3f} "
            f"| {top1:.2f} | {100 * coverage:.1f} % "
            f"| {statistics.fmean(c.half_width for c in cps):.0f} "
            f"| {min(c.min_games for c in cps)}–{max(c.max_games for c in cps)} |"
        )
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m ladder.ratings.simulate", description=__doc__.splitlines()[0]
    )
    add = parser.add_argument
    add("--runs", type=int, default=400, help="ladders per seat count (default 400)")
    add("--jobs", type=int, default=2, help="worker processes (default 2)")
    add("--seats", type=int, nargs="+", default=[2, 4], help="seat counts (default 2 4)")
    add("--bots", type=int, default=32, help="bots per ladder (default 32)")
    add("--spread", type=float, default=200.0, help="SD of the true ratings, Elo (default 200)")
    add(
        "--checkpoints",
        type=int,
        nargs="+",
        default=[10, 20, 30, 40, 100],
        help="games per bot at which the fit is scored (default 10 20 30 40 100)",
    )
    add("--seed", type=int, default=1, help="base seed; runs use seed, seats and run number")
    add(
        "--first-seat-advantage",
        type=float,
        default=0.0,
        help="true Elo bonus of moving first; seat 0 moves first here (default 0)",
    )
    add(
        "--prior-draws",
        type=float,
        default=FitConfig.prior_draws,
        help="virtual draws per bot in the fit and the pairing's posterior "
        f"(default {FitConfig.prior_draws:g})",
    )
    add(
        "--random-fraction",
        type=float,
        default=PairingConfig.random_fraction,
        help=f"share of random opponents (default {PairingConfig.random_fraction:g})",
    )
    add(
        "--fairness-every",
        type=int,
        default=PairingConfig.fairness_every,
        help="every n-th group is seeded by the longest-waiting bot "
        f"(default {PairingConfig.fairness_every})",
    )
    add(
        "--z-floor",
        type=float,
        default=PairingConfig.z_floor,
        help="pairs closer than this many SDs weigh as if this far apart "
        f"(default {PairingConfig.z_floor:g})",
    )
    add(
        "--games-per-batch",
        type=float,
        default=1.0,
        help="games per bot planned between refits (default 1)",
    )
    add(
        "--oracle-pairing",
        action="store_true",
        help="pair by the true ratings instead of the fitted ones (what-if: perfect knowledge)",
    )
    args = parser.parse_args(argv)
    for seats in args.seats:
        config = SimConfig(
            seats=seats,
            bots=args.bots,
            spread=args.spread,
            first_seat_advantage=args.first_seat_advantage,
            games_per_batch=args.games_per_batch,
            oracle_pairing=args.oracle_pairing,
            checkpoints=tuple(sorted(args.checkpoints)),
            fit=replace(FitConfig(), prior_draws=args.prior_draws),
            pairing=replace(
                PairingConfig(),
                random_fraction=args.random_fraction,
                fairness_every=args.fairness_every,
                prior_draws=args.prior_draws,
                z_floor=args.z_floor,
            ),
        )
        start = time.perf_counter()
        jobs = [(config, args.seed * 1_000_003 + seats * 10_007 + r) for r in range(args.runs)]
        if args.jobs > 1:
            with ProcessPoolExecutor(args.jobs) as pool:
                runs = list(pool.map(_run, jobs))
        else:
            runs = [_run(job) for job in jobs]
        print("\n".join(summarise(config, runs)))
        print(f"({time.perf_counter() - start:.0f} s)\n", flush=True)


if __name__ == "__main__":
    main()
