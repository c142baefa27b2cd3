"""`arena new-bot GAME DIR`: write a starter bot (main.py and README.md) from
the templates in bots/starter/ (see `arena.runner_bots.starter_files`; the
web site's starter kit zips the same files)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from arena.engine import OptionError
from arena.registry import get_game
from arena.runner_bots import random_opponents, starter_files


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="a game id (see `arena games`)")
    parser.add_argument("dir", type=Path, help="the new bot's directory (created; must be empty)")


def run(args: argparse.Namespace) -> int:
    try:
        game = get_game(args.game)
    except OptionError as exc:
        print(f"arena new-bot: {exc}", file=sys.stderr)
        return 2
    target: Path = args.dir
    if target.exists() and not target.is_dir():
        print(f"arena new-bot: {target} exists and is not a directory", file=sys.stderr)
        return 2
    if target.exists() and any(target.iterdir()):
        print(f"arena new-bot: {target} exists and is not empty", file=sys.stderr)
        return 2
    target.mkdir(parents=True, exist_ok=True)
    target.chmod(0o755)  # the sandbox runs bots as an unprivileged user
    for name, text in starter_files(game).items():
        (target / name).write_text(text)
        (target / name).chmod(0o644)
    print(
        f"wrote {target / 'main.py'} and {target / 'README.md'}; "
        f"try: arena play {game.id} {target} {random_opponents(game)}"
    )
    return 0
