"""`python -m arena.bench_match`: what a match costs beyond the game itself.

Plays full Splendor Duel matches between two random bots on each sandbox
backend that works here and prints, as medians over the matches:
- the wall time of a whole match (start-up, play, end: the grace bots get
  to read the end message and exit, teardown);
- per decision: the referee's own time (engine calls, JSON, parsing,
  bookkeeping; waiting for the bot excluded), the engine alone replaying
  the same decisions (the same engine calls: to_act, legal_actions,
  observation, apply), the difference (the runner's overhead), and the bot
  round trip (request written → reply read, random bot's think time included).
Targets (docs/protocol.md): match ≤ 1.5 s, overhead ≤ 1 ms per decision.
"""

from __future__ import annotations

import argparse
import statistics
import time

from arena.registry import get_game
from arena.runner import play_match
from arena.runner_bots import builtin_bot_dir
from arena.runner_types import BotSpec, MatchRequest, MatchResult


def engine_alone_ms(result: MatchResult) -> float:
    """Median time per decision of the engine calls the runner makes."""
    replay = result.replay
    game = get_game(replay["game"])
    state = game.new(len(replay["seats"]), replay["seed"], replay["options"])
    per: list[float] = []
    for step in replay["steps"]:
        t = time.perf_counter()
        state.is_over()
        for seat in state.to_act():
            state.legal_actions(seat)
        state.observation(step["seat"])
        state.apply(step["seat"], step["action"])
        per.append((time.perf_counter() - t) * 1000)
    return statistics.median(per)


def bench(backend: str, matches: int, game: str) -> dict[str, float] | str:
    bot = builtin_bot_dir(game, "random")
    rows = []
    for seed in range(matches):
        request = MatchRequest(
            game, [BotSpec("a", bot), BotSpec("b", bot)], seed=seed, sandbox=backend
        )
        try:
            result = play_match(request)
        except Exception as exc:  # report, do not crash the other backend's figures
            return f"{type(exc).__name__}: {exc}"
        t = result.timings
        decisions = t["decisions"]
        rows.append(
            {
                "wall_ms": t["wall_ms"],
                "startup_ms": t["startup_ms"],
                "end_ms": t["end_ms"],
                "teardown_ms": t["teardown_ms"],
                "decisions": decisions,
                "referee_ms": t["referee_ms_median"],
                "engine_ms": engine_alone_ms(result),
                "round_trip_ms": sum(result.think_ms) / decisions,
            }
        )
    out = {key: statistics.median(r[key] for r in rows) for key in rows[0]}
    out["overhead_ms"] = statistics.median(r["referee_ms"] - r["engine_ms"] for r in rows)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m arena.bench_match", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--matches", type=int, default=5, help="matches per sandbox (default 5)")
    parser.add_argument("--game", default="splendor-duel", help="game id (default splendor-duel)")
    parser.add_argument(
        "--sandbox",
        action="append",
        choices=("docker", "process"),
        help="may be repeated (default: both; one that cannot run here is shown unavailable)",
    )
    args = parser.parse_args(argv)
    print(f"{args.game}, random vs random, median of {args.matches} matches")
    for backend in args.sandbox or ["docker", "process"]:
        figures = bench(backend, args.matches, args.game)
        if isinstance(figures, str):
            print(f"{backend:>8}: unavailable ({figures})")
            continue
        f = figures
        print(
            f"{backend:>8}: match {f['wall_ms']:.0f} ms (start-up {f['startup_ms']:.0f}, "
            f"end {f['end_ms']:.0f}, teardown {f['teardown_ms']:.0f}, "
            f"{f['decisions']:.0f} decisions); per decision: "
            f"referee {f['referee_ms']:.3f} ms, engine alone {f['engine_ms']:.3f} ms, "
            f"overhead {f['overhead_ms']:.3f} ms, bot round trip {f['round_trip_ms']:.3f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
