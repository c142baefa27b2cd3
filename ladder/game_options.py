"""The game options the ladder plays with, and how they are shown.

The operator sets them per game in the admin (`LadderSettings.game_options`);
ladder and validation matches are created with them and challenges start
from them. A match stores the options it was created with, so a change
applies to new matches only.

`check_options` is the one check of options from outside (admin and API):
besides the game's own `validate_options` it refuses file paths (workers may
run on other hosts, so data comes inline) and sets up a table for each seat
count concerned, so that options a game cannot be dealt with fail here and
not on a worker.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from arena import GameDef, OptionError, all_games, get_game
from ladder.models import LadderSettings

#: options that take a file path on the command line; here only inline data
PATH_OPTIONS = {"components"}
#: how pages name an option whose value is a whole document
DOCUMENT_LABELS = {"components": "custom component data"}


def check_options(
    game: GameDef, options: Mapping[str, Any], seat_counts: Iterable[int] | None = None
) -> dict[str, Any]:
    """The game's clean options (defaults filled in); OptionError naming the
    game and option otherwise. Tables are set up for `seat_counts` (default:
    every seat count of the game)."""
    for name in sorted(PATH_OPTIONS & set(options)):
        value = options[name]
        if isinstance(value, str) and not value.lstrip().startswith("{"):
            # a plain string would be read as a file path on the server
            raise OptionError(
                f"option {name!r} of {game.id}: give the data as a JSON object, not a "
                "string (a string would be read as a file path on the server)"
            )
    clean = game.validate_options(options)
    for seats in game.seat_counts if seat_counts is None else seat_counts:
        try:
            game.new(seats, 0, clean)
        except OptionError:
            raise
        except Exception as exc:  # the engine refused the data
            raise OptionError(
                f"these options cannot set up a {seats}-seat {game.id} game: {exc}"
            ) from None
    if "\\u0000" in json.dumps(clean):  # PostgreSQL's jsonb cannot hold it
        raise OptionError("text in options may not contain NUL characters (\\u0000)")
    return clean


def json_kind(value: Any) -> str:
    """What a decoded JSON value is, in JSON's words (for messages)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return type(value).__name__


def clean_ladder_options(value: Any) -> dict[str, dict[str, Any]]:
    """The admin's `{game id: {option: value}}` checked, keeping per game only
    what differs from the defaults; ValueError (OptionError) naming the game
    and option otherwise."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(
            f"expected a JSON object {{game id: {{option: value}}}}, got {json_kind(value)}"
        )
    clean: dict[str, dict[str, Any]] = {}
    for game_id, options in value.items():
        game = get_game(game_id)  # OptionError: unknown game, naming the known ones
        if not isinstance(options, dict):
            raise ValueError(
                f"{game_id}: expected a JSON object {{option: value}}, got {json_kind(options)}"
            )
        changed = game.non_default(check_options(game, options))
        if changed:
            clean[game_id] = changed
    return clean


@dataclass(frozen=True)
class ShownOption:
    """A non-default option as pages show it: `name = value` (what `arena
    play -o NAME=VALUE` and the API take), and what it means in the game's
    own words (its OptionSpec's help)."""

    name: str
    value: str
    help: str

    def __str__(self) -> str:
        return f"{self.name} = {self.value}"


def describe(game: GameDef, options: Mapping[str, Any]) -> list[ShownOption]:
    """Each non-default option, as pages show them; a document is named,
    never printed."""
    shown_options = []
    for name, value in game.non_default(options).items():
        if isinstance(value, (dict, list)):
            shown = DOCUMENT_LABELS.get(name, "custom data")
        elif isinstance(value, str):
            shown = value
        else:
            shown = json.dumps(value)
        shown_options.append(ShownOption(name, shown, game.options[name].help))
    return shown_options


@dataclass(frozen=True)
class GameRules:
    """What pages say about the rules a game is played with here."""

    game: GameDef
    #: the options that differ from the defaults
    options: dict[str, Any]
    notice: str
    plays_with: list[ShownOption]

    @property
    def default_notice(self) -> bool:
        """The game's own notice applies (e.g. house values are played)."""
        return bool(self.notice) and self.notice == self.game.notice


def game_rules(game: GameDef, options: Mapping[str, Any]) -> GameRules:
    changed = game.non_default(options)
    return GameRules(game, changed, game.notice_for(changed), describe(game, changed))


def ladder_rules() -> list[GameRules]:
    """The rules of every game as the ladder plays them now."""
    row = LadderSettings.get()
    return [game_rules(game, row.options_for(game.id)) for game in all_games()]


def ladder_rules_of(game: GameDef) -> GameRules:
    """The rules of `game` as the ladder plays them now."""
    return game_rules(game, LadderSettings.get().options_for(game.id))
