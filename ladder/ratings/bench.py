"""Time the leaderboard fit on a large synthetic ladder.

python -m ladder.ratings.bench [--bots 1000] [--matches 100000]
"""

from __future__ import annotations

import argparse
import math
import random
import time

from .fit import fit_ratings
from .results import MatchResult


def synthetic_matches(bots: int, matches: int, seats: int, rng: random.Random) -> list[MatchResult]:
    """Plackett–Luce results (Gumbel-perturbed strengths) of random tables."""
    strength = [rng.gauss(0.0, 200.0) * math.log(10) / 400 for _ in range(bots)]
    out = []
    for _ in range(matches):
        table = rng.sample(range(bots), seats)
        noisy = [strength[b] - math.log(-math.log(rng.random())) for b in table]
        order = sorted(range(seats), key=lambda s: -noisy[s])
        ranks = [0] * seats
        for place, seat in enumerate(order):
            ranks[seat] = place + 1
        out.append(MatchResult(tuple(table), tuple(ranks)))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m ladder.ratings.bench", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--bots", type=int, default=1000, help="bots in the ladder (default 1000)")
    parser.add_argument(
        "--matches", type=int, default=100_000, help="matches of each seat count (default 100000)"
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="fits timed, the best shown (default 3)"
    )
    args = parser.parse_args(argv)
    rng = random.Random(7)
    for seats in (2, 4):
        matches = synthetic_matches(args.bots, args.matches, seats, rng)
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            fit = fit_ratings(matches)
            times.append(time.perf_counter() - start)
        print(
            f"{seats} seats: {args.bots} bots x {args.matches} matches: "
            f"best {min(times):.3f} s, worst {max(times):.3f} s, {fit.iterations} Newton steps"
        )


if __name__ == "__main__":
    main()
