"""`arena play GAME BOT...`: one match, exactly as the ladder runs it."""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from arena.cmd_common import (
    add_match_arguments,
    check_replay_folder,
    match_settings,
    print_notice,
)
from arena.engine import OptionError
from arena.protocol import terminal_safe
from arena.registry import get_game
from arena.replay import save_replay
from arena.runner import play_match
from arena.runner_bots import (
    BUILTIN_PREFIX,
    BotNotFound,
    import_hint,
    resolve_bot,
    unique_labels,
)
from arena.runner_types import BotSpec, MatchRequest, MatchResult, SystemFault
from arena.sandboxes import image_lib_problem, usable_backend
from sandbox import SandboxError

EPILOG = (
    "exit status: 0 the match was played and no seat forfeited; 1 it was played "
    "and a seat forfeited (the replay is written all the same); 2 a bad argument, "
    "bot or option; 3 a system fault (not the bots' fault)"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG
    parser.add_argument("game", help="a game id (see `arena games`)")
    parser.add_argument("bots", nargs="+", metavar="BOT",
                        help="one per seat: a directory with main.py, a .py file, or builtin:NAME")  # fmt: skip
    parser.add_argument("--seed", type=int, default=0,
                        help="the engine seed: the deal and draws (default 0); "
                             "bots that use randomness of their own, such as "
                             "builtin:random, still vary")  # fmt: skip
    parser.add_argument("--out", type=Path, default=None,
                        help="replay file, in an existing directory "
                             "(default: <game>-seed<N>.replay.json.gz)")  # fmt: skip
    parser.add_argument("--no-replay", action="store_true", help="do not write a replay")
    parser.add_argument("--verbose", "-v", action="store_true", help="print every step")
    parser.add_argument("--stderr", action="store_true",
                        help="print every bot's stderr (its debug output; the last "
                             "part if long) after the match")  # fmt: skip
    add_match_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """The exit status is EPILOG's."""
    out = (
        None if args.no_replay else args.out or Path(f"{args.game}-seed{args.seed}.replay.json.gz")
    )
    workdir = Path(tempfile.mkdtemp(prefix="gemarena-play-"))
    workdir.chmod(0o755)
    try:
        try:
            check_seat_count(args.game, args.bots)
            resolved = [resolve_bot(arg, args.game, workdir) for arg in args.bots]
            labels = unique_labels([label for label, _ in resolved])
            if out is not None:
                check_replay_file(out)
            if args.sandbox != "auto":  # auto falls back to the process sandbox itself
                usable_backend(args.sandbox)  # e.g. no bot image: said, not a system fault
            request = MatchRequest(
                game=args.game,
                bots=[
                    BotSpec(label, path) for label, (_, path) in zip(labels, resolved, strict=True)
                ],
                seed=args.seed,
                **match_settings(args, args.game),
                sandbox=args.sandbox,
            )
            result = play_match(request, on_step=_print_step if args.verbose else None)
        except (BotNotFound, OptionError, ValueError, SandboxError) as exc:
            print(f"arena play: {exc}", file=sys.stderr)
            return 2
        except SystemFault as exc:
            print(f"arena play: system fault (not the bots' fault): {exc}", file=sys.stderr)
            return 3
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if out is not None:
        # written before anything is printed: a reader that leaves early
        # (`arena play … | head`) must not cost the match's replay
        save_replay(out, result.replay)
    print_result(result, [_source(arg) for arg in args.bots])
    stale = image_lib_problem() if result.sandbox == "docker" else ""
    if stale:
        print(f"arena play: warning: {stale}", file=sys.stderr)
    if args.stderr:
        print_stderr(result)
    if out is not None:
        print(f"replay: {out}")
    # a script (or CI) that plays its bot must see a forfeit without parsing
    return 1 if any(result.faults) else 0


def check_seat_count(game_id: str, bots: list[str]) -> None:
    """OptionError, with a command line that has the right count, unless
    `bots` fill a table of the game (one BOT per seat)."""
    game = get_game(game_id)
    counts = game.seat_counts
    if len(bots) in counts:
        return
    fitted = bots[: max(counts)] + ["builtin:random"] * (min(counts) - len(bots))
    allowed = ", ".join(map(str, counts))
    raise OptionError(
        f"{game.id} is played by {allowed} seats, not {len(bots)}: name one bot per seat "
        f"(the same one again, or a built-in), e.g. arena play {game.id} {' '.join(fitted)}"
    )


def check_replay_file(out: Path) -> None:
    """ValueError unless the replay can be written at `out` once the match is over."""
    if out.is_dir():
        raise ValueError(f"--out {out} is a directory; name the replay file")
    check_replay_folder(out.parent, f"--out {out}")


def _print_step(event: dict) -> None:
    note = f"  [{event['note']}]" if event["note"] else ""
    forced = " (forced)" if event["forced"] else f" ({event['think_ms']:.0f} ms)"
    print(f"{event['step']:4d}  {event['description']}{forced}{note}")


def _source(arg: str) -> tuple[Path | None, bool]:
    """(the bot's folder as its author has it, whether only a .py was given)."""
    if arg.startswith(BUILTIN_PREFIX):
        return None, False
    path = Path(arg)
    return (path, False) if path.is_dir() else (path.parent, True)


def print_result(
    result: MatchResult, sources: list[tuple[Path | None, bool]] | None = None
) -> None:
    outcome = result.outcome
    print(f"{result.game}, seed {result.seed}: {outcome.reason}")
    print_notice(result.game, result.replay.get("options"))
    for seat, label in enumerate(result.labels):
        fault = result.faults[seat]
        line = f"  seat {seat}  rank {outcome.ranks[seat]}  score {outcome.scores[seat]:g}  {label}"
        line += f"  think {result.think_ms[seat]:.0f} ms"
        if fault is not None:
            # the detail names the step (or the start message) itself
            line += f"\n          FORFEIT {fault.kind}: {fault.detail}"
        print(line)
        if fault is not None and result.stderr_tails[seat].strip():
            tail = terminal_safe(result.stderr_tails[seat].strip()).splitlines()[-5:]
            print("          stderr: " + "\n                  ".join(tail))
            if fault.kind == "crash" and sources:
                hint = import_hint(result.stderr_tails[seat], *sources[seat])
                if hint:
                    print(f"          hint: {hint}")
    t = result.timings
    print(
        f"  {int(t['decisions'])} decisions; wall {t['wall_ms']:.0f} ms (start-up {t['startup_ms']:.0f} ms)"
        f"; {result.sandbox} sandbox"
    )


def print_stderr(result: MatchResult) -> None:
    for seat, label in enumerate(result.labels):
        tail = terminal_safe(result.stderr_tails[seat].rstrip())
        print(f"--- stderr of seat {seat} ({label}){'' if tail else ': nothing'}")
        if tail:
            print(tail)
