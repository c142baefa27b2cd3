"""The registry of games: id → GameDef."""

from __future__ import annotations

from arena.engine import GameDef, OptionError

_GAMES: dict[str, GameDef] = {}


def register(game: GameDef) -> GameDef:
    _GAMES[game.id] = game
    return game


def _load() -> None:
    # Imported here so that a game package registers itself on first use.
    # Not "if the registry is empty": importing one game package directly
    # registers that game alone, and the other would never be loaded.
    from arena.games import edel_stein_reich, splendor_duel  # noqa: F401


def get_game(game_id: str) -> GameDef:
    _load()
    try:
        return _GAMES[game_id]
    except KeyError:
        known = ", ".join(sorted(_GAMES))
        raise OptionError(f"unknown game {game_id!r} (known: {known})") from None


def all_games() -> list[GameDef]:
    _load()
    return [_GAMES[k] for k in sorted(_GAMES)]
