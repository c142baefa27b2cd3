"""The game registry loads every game, whichever module was imported first."""

from __future__ import annotations

import subprocess
import sys


def test_importing_one_game_package_first_still_registers_both() -> None:
    # a fresh interpreter: in this one both games are registered already
    code = (
        "import arena.games.edel_stein_reich\n"
        "from arena import all_games, get_game\n"
        "print(get_game('splendor-duel').id, [g.id for g in all_games()])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert out.split() == ["splendor-duel", "['edel-stein-reich',", "'splendor-duel']"]
