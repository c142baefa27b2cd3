"""`arena games`: list the registered games."""

from __future__ import annotations

import argparse
import json
from typing import Any

from arena.registry import all_games


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--options", action="store_true", help="also list each game's options")


def run(args: argparse.Namespace) -> int:
    for game in all_games():
        seats = ", ".join(map(str, game.seat_counts))
        print(f"{game.id:<18} {game.name}  (seats: {seats}; rules {game.rules_version})")
        if game.notice:
            print(f"{'':<18} note: {game.notice}")
        if args.options:
            for name, spec in sorted(game.options.items()):
                print(f"{'':<18} --option {name}={typed(spec.default)}  {spec.help}")
    return 0


def typed(value: Any) -> str:
    """A value as it is written after `--option NAME=` (JSON, or bare text)."""
    return value if isinstance(value, str) else json.dumps(value)
