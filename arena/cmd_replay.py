"""`arena replay verify FILE` and `arena replay show FILE [--step N]`."""

from __future__ import annotations

import argparse
import sys

from arena.cmd_common import option_args, print_notice
from arena.engine import EngineError
from arena.replay import ReplayError, load_replay, positions, render_at, verify_replay


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="replay_command", metavar="ACTION", required=True)
    verify = sub.add_parser("verify", help="re-simulate; exit 1 on any difference")
    verify.add_argument("files", nargs="+", metavar="FILE")
    show = sub.add_parser("show", help="print the steps and a position as text")
    show.add_argument("file", metavar="FILE")
    show.add_argument("--step", type=int, default=None,
                      help="show the position after N steps (default: the last)")  # fmt: skip
    show.add_argument("--all", action="store_true", help="print the position after every step")


def run(args: argparse.Namespace) -> int:
    if args.replay_command == "verify":
        return _verify(args.files)
    return _show(args)


def _verify(files: list[str]) -> int:
    failed = 0
    for name in files:
        try:
            problems = verify_replay(load_replay(name))
        except (ReplayError, EngineError) as exc:
            problems = [str(exc)]
        if problems:
            failed += 1
            print(f"{name}: FAILED")
            for problem in problems:
                print(f"  {problem}")
        else:
            print(f"{name}: ok")
    return 1 if failed else 0


def _show(args: argparse.Namespace) -> int:
    try:
        replay = load_replay(args.file)
        labels = replay["seats"]
        steps = len(replay["steps"])
        if args.step is not None and not 0 <= args.step <= steps:
            # before any output: a caller sees the error alone
            raise ReplayError(f"step {args.step} is outside 0..{steps}")
        print(f"{replay['game']} (rules {replay['rules_version']}), seed {replay['seed']}, "
              f"{len(replay['steps'])} steps")  # fmt: skip
        print_notice(replay["game"], replay.get("options"))
        given = option_args(replay["game"], replay.get("options"))
        if given:  # what `arena play` needs to deal this game again
            files = " (FILE: that option of the replay's options, saved as JSON)" * (
                any(a.endswith("=FILE") for a in given)
            )
            print(f"  options: {' '.join(given)}{files}")
        for seat, label in enumerate(labels):
            fault = replay["faults"][seat]
            extra = (
                f"  forfeit: {fault['kind']}: {fault['detail']}"  # the detail names the step
                if fault
                else ""
            )
            print(f"  seat {seat}: {label}  rank {replay['outcome']['ranks'][seat]}{extra}")
        print(f"  outcome: {replay['outcome']['reason']}")
        if args.all:
            for index, step, description, state in positions(replay):
                if step is not None:
                    print(f"\n== step {index}: {description}" + _note(step))
                print(state.render())
            return 0
        if args.step is None:
            for index, step, description, _state in positions(replay):
                if step is not None:
                    print(f"{index - 1:4d}  {description}" + _note(step))
        print()
        print(render_at(replay, args.step))
    except (ReplayError, EngineError) as exc:
        print(f"arena replay: {exc}", file=sys.stderr)
        return 1
    return 0


def _note(step: dict) -> str:
    if step.get("forced"):
        return "  (forced)"
    return f"  [{step['note']}]" if step.get("note") else ""
