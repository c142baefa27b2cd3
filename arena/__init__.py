"""Gem Arena's pure side: game engines, the bot protocol, the match runner.

Never imports Django. The ladder uses only the names exported here.
"""

from arena.engine import (
    EngineError,
    GameDef,
    GameState,
    IllegalAction,
    MalformedAction,
    OptionError,
    Outcome,
)
from arena.registry import all_games, get_game
from arena.sandboxes import SandboxStatus, sandbox_status

__all__ = [
    "EngineError",
    "GameDef",
    "GameState",
    "IllegalAction",
    "MalformedAction",
    "OptionError",
    "Outcome",
    "SandboxStatus",
    "all_games",
    "get_game",
    "sandbox_status",
]
