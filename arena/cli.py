"""The `arena` command: everything a bot author does locally.

Each subcommand lives in its own module exposing `add_arguments(parser)` and
`run(args) -> int`; this file only wires them together.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

#: subcommand → (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "games": ("arena.cmd_games", "list the games, their seat counts and options"),
    "bench": ("arena.bench", "play uniform-random games on one core and print their speed"),
    "play": ("arena.cmd_play", "play one match between bots in the sandbox; write its replay"),
    "tournament": ("arena.cmd_tournament", "round robin between bots: win rates and Elo"),
    "replay": ("arena.cmd_replay", "verify a replay by re-simulation, or show its positions"),
    "new-bot": ("arena.cmd_new_bot", "write a starter bot for a game into a directory"),
    "upload": ("arena.cmd_upload", "upload a bot to a Gem Arena server as a new version"),
    "matches": (
        "arena.cmd_matches",
        "list a bot's or a tournament's recent matches on a Gem Arena server",
    ),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena",
        description="Gem Arena: play, test and benchmark board-game bots locally.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (module, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        importlib.import_module(module).add_arguments(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    module = importlib.import_module(COMMANDS[args.command][0])
    try:
        return int(module.run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader left (`arena replay show … | head`): stop quietly, and
        # keep the interpreter's last flush at exit from failing again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what a shell reports for such a writer


if __name__ == "__main__":
    sys.exit(main())
