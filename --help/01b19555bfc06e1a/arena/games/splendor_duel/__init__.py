"""Splendor Duel (2 players), base game. Rules: docs/games/splendor-duel.md.

Importing the package registers the game.
"""

from arena.games.splendor_duel.game import GAME, RULES_VERSION, SplendorDuel
from arena.games.splendor_duel.state import SplendorDuelState
from arena.registry import register

register(GAME)

__all__ = ["GAME", "RULES_VERSION", "SplendorDuel", "SplendorDuelState"]
