"""`arena bench GAME`: uniform-random games on one core, and what they cost.

Every decision picks uniformly among the legal actions of the first seat to
act (in a simultaneous phase the order of commits never changes the result),
with a seeded generator, so a run is reproducible. Besides games/s and
decisions/s it prints the cost of `clone()` and of `legal_actions()` on a
position seen for the first time (measured on a clone of a position sampled
right after an action, i.e. before anything was cached for it).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from dataclasses import dataclass, field

from arena.engine import GameDef, GameState
from arena.registry import get_game
from arena.rng import Rng

#: one position in this many is kept for the clone / legal_actions timings
SAMPLE_EVERY = 16
MAX_SAMPLES = 4000


@dataclass
class BenchResult:
    games: int = 0
    decisions: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    reasons: Counter = field(default_factory=Counter)
    samples: list[GameState] = field(default_factory=list)

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0

    @property
    def games_per_cpu_s(self) -> float:
        return self.games / self.cpu_seconds if self.cpu_seconds else 0.0

    @property
    def decisions_per_s(self) -> float:
        return self.decisions / self.seconds if self.seconds else 0.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="game id, e.g. splendor-duel")
    parser.add_argument("--players", type=int, default=None, help="seat count (default: smallest)")
    parser.add_argument("--games", type=int, default=None, help="play exactly N games")
    parser.add_argument(
        "--seconds",
        type=float,
        default=5.0,
        help="play for S seconds (default 5; ignored with --games)",
    )
    parser.add_argument("--seed", type=int, default=1, help="first game seed (default 1)")


def play_random(
    game: GameDef, seats: int, seed: int, games: int | None, seconds: float
) -> BenchResult:
    """Play uniform-random games; stop after `games` games or `seconds` seconds."""
    result = BenchResult()
    chooser = Rng(seed ^ 0x5EED)
    clock = time.perf_counter
    cpu_start = time.process_time()
    start = clock()
    deadline = start + seconds
    n = 0
    while (n < games) if games is not None else (clock() < deadline):
        state = game.new(seats, seed + n)
        steps = 0
        while True:
            to_act = state.to_act()
            if not to_act:
                break
            seat = to_act[0]
            legal = state.legal_actions(seat)
            state.apply(seat, legal[chooser.below(len(legal))])
            steps += 1
            if steps % SAMPLE_EVERY == 0 and len(result.samples) < MAX_SAMPLES:
                result.samples.append(state.clone())
        n += 1
        result.decisions += steps
        outcome = state.outcome()
        result.reasons[_reason_kind(outcome.reason if outcome else "no outcome")] += 1
    result.games = n
    result.seconds = clock() - start
    result.cpu_seconds = time.process_time() - cpu_start
    return result


def _reason_kind(reason: str) -> str:
    # "seat 1 reached 21 prestige points" → "reached prestige points"
    return " ".join(w for w in reason.split() if not w.isdigit() and w != "seat")


def time_per_call(samples: list[GameState], repeat: int = 5) -> tuple[float, float]:
    """(µs per clone(), µs per first legal_actions() of a position)."""
    live = [s for s in samples if s.to_act()]
    if not live:
        return 0.0, 0.0
    clock = time.perf_counter
    best_clone = best_both = float("inf")
    for _ in range(repeat):
        t0 = clock()
        for s in live:
            s.clone()
        t1 = clock()
        for s in live:
            s.clone().legal_actions(s.to_act()[0])
        t2 = clock()
        best_clone = min(best_clone, t1 - t0)
        best_both = min(best_both, t2 - t1)
    # to_act() is in the second loop only; it is cheap next to the two others
    per = 1e6 / len(live)
    return best_clone * per, max(0.0, best_both - best_clone) * per


def run(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    seats = args.players if args.players is not None else game.seat_counts[0]
    game.check_seats(seats)
    result = play_random(game, seats, args.seed, args.games, args.seconds)
    clone_us, legal_us = time_per_call(result.samples)
    print(f"{game.id} (rules {game.rules_version}), {seats} seats, uniform-random play, one core")
    print(f"games:        {result.games} in {result.seconds:.2f} s")
    print(f"games/s:      {result.games_per_s:,.1f}")
    # CPU time of this process: the figure to compare when the machine is busy
    print(f"games per CPU second: {result.games_per_cpu_s:,.1f} ({result.cpu_seconds:.2f} s CPU)")
    print(f"decisions/s:  {result.decisions_per_s:,.0f}")
    if result.games:
        print(f"decisions per game: {result.decisions / result.games:.1f}")
    print(f"clone():         {clone_us:.2f} µs per call")
    print(f"legal_actions(): {legal_us:.2f} µs per call (first call on a position)")
    for reason, count in result.reasons.most_common():
        print(f"  ended by '{reason}': {count}")
    return 0
