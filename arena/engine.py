"""The engine contract every game implements (for bot authors: docs/bots.md,
"The supported API").

One vocabulary for all games, in the spirit of OpenSpiel: a `GameDef`
describes a game and makes states; a `GameState` answers who is to act, what
they may do, applies one action per decision, and produces per-seat views.

Actions are canonical strings (like UCI in chess). A state never changes when
`apply` raises.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


class EngineError(Exception):
    """Base class of every error an engine raises on purpose."""


class MalformedAction(EngineError, ValueError):
    """The action string does not follow the game's action grammar."""


class IllegalAction(EngineError, ValueError):
    """The action is well formed but not legal for this seat now."""


class OptionError(EngineError, ValueError):
    """A game option is unknown or has a bad value; the message names it."""


class SnapshotError(EngineError, ValueError):
    """A snapshot cannot be restored (wrong game, version or shape)."""


@dataclass(frozen=True)
class Outcome:
    """The end of a game.

    ranks[seat] is 1 for the winner(s); tied seats share a rank and the next
    rank skips (1, 1, 3). scores are the game's own numbers (points, money).
    """

    ranks: tuple[int, ...]
    scores: tuple[float, ...]
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"ranks": list(self.ranks), "scores": list(self.scores), "reason": self.reason}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Outcome:
        return Outcome(tuple(data["ranks"]), tuple(data["scores"]), str(data["reason"]))


def ranks_from_keys(keys: list[Any]) -> tuple[int, ...]:
    """Competition ranks from sort keys where a larger key is better."""
    order = sorted(range(len(keys)), key=lambda s: keys[s], reverse=True)
    ranks = [0] * len(keys)
    for pos, seat in enumerate(order):
        if pos > 0 and keys[seat] == keys[order[pos - 1]]:
            ranks[seat] = ranks[order[pos - 1]]
        else:
            ranks[seat] = pos + 1
    return tuple(ranks)


def option_value(text: str) -> Any:
    """An option value typed as text (`arena play -o NAME=VALUE`, the challenge
    form): JSON if it reads as JSON (true, 300, null, {...}), else the text
    itself (offer, random). ValueError for JSON nested too deeply to read."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("this JSON is nested too deeply") from None
    except ValueError:
        return text


@dataclass(frozen=True)
class OptionSpec:
    """One game option: its default, a short help text and a validator.

    `parse` takes the raw value (from JSON or a command line) and returns the
    clean value or raises ValueError with a reason.
    """

    default: Any
    help: str
    parse: Callable[[Any], Any] = field(default=lambda v: v)


class GameState(ABC):
    """A position of one game plus everything needed to continue it."""

    game_id: str

    @property
    @abstractmethod
    def seat_count(self) -> int: ...

    @property
    @abstractmethod
    def step(self) -> int:
        """Number of actions applied so far."""

    @abstractmethod
    def to_act(self) -> list[int]:
        """Seats that must choose now, ascending; empty when the game is over.

        In a secret simultaneous phase every seat that has not committed yet
        is listed; the order in which they commit never changes the result.
        """

    @abstractmethod
    def legal_actions(self, seat: int) -> list[str]:
        """Sorted, unique canonical actions; non-empty for a seat to act."""

    @abstractmethod
    def apply(self, seat: int, action: str) -> None:
        """Apply one action. Raises MalformedAction / IllegalAction and then
        leaves the state unchanged."""

    @abstractmethod
    def clone(self) -> GameState: ...

    @abstractmethod
    def is_over(self) -> bool: ...

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """The outcome once the game is over, else None."""

    @abstractmethod
    def observation(self, seat: int) -> dict[str, Any]:
        """Exactly what `seat` may know now (JSON-serialisable)."""

    @abstractmethod
    def spectator_view(self) -> dict[str, Any]:
        """What the public may know now (JSON-serialisable)."""

    @abstractmethod
    def snapshot(self) -> dict[str, Any]:
        """Everything, including the random generator (JSON-serialisable)."""

    @abstractmethod
    def render(self) -> str:
        """A plain-text picture of the position for the CLI and debugging."""

    def describe_action(self, seat: int, action: str) -> str:
        """The action in words, for replays. Games may override."""
        return f"seat {seat}: {action}"

    def secret_action(self, seat: int, action: str) -> bool:
        """Whether `seat` playing `action` now is a secret choice that the
        game reveals only later (asked before the action is applied). A live
        feed shows such a step without the action; the replay keeps it.
        Games with secret choices override."""
        return False

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameState) and self.snapshot() == other.snapshot()

    __hash__ = None  # type: ignore[assignment]


class GameDef(ABC):
    """A game: its identity, options, and a factory for states."""

    id: str
    name: str
    seat_counts: tuple[int, ...]
    rules_version: str
    options: Mapping[str, OptionSpec]
    #: the most actions a game takes with the default options; the runner
    #: treats a game past its cap (`max_steps`) as an engine fault
    step_cap: int
    #: a note shown to users wherever the game is shown (e.g. house values)
    notice: str = ""

    def notice_for(self, options: Mapping[str, Any] | None) -> str:
        """The notice for games played with these options (clean values, as
        `validate_options` returns them; only the ones set are needed). A game
        whose options change what it must warn about overrides this."""
        return self.notice

    def max_steps(self, options: Mapping[str, Any]) -> int:
        """The step cap of a game with these (validated) options; a game
        whose options move the cap overrides this."""
        return self.step_cap

    def validate_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Defaults filled in and every value checked; OptionError names the bad one."""
        options = dict(options or {})
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            known = ", ".join(sorted(self.options)) or "none"
            raise OptionError(f"unknown option {unknown[0]!r} for {self.id} (known: {known})")
        clean: dict[str, Any] = {}
        for name, spec in self.options.items():
            raw = options.get(name, spec.default)
            try:
                clean[name] = spec.parse(raw)
            except (TypeError, ValueError, OverflowError) as exc:
                raise OptionError(f"option {name!r} of {self.id}: {exc}") from None
            except RecursionError:
                raise OptionError(f"option {name!r} of {self.id}: nested too deeply") from None
        return clean

    def non_default(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The clean `options` that differ from the defaults, in the game's order."""
        defaults = self.validate_options({})
        return {
            name: options[name]
            for name in self.options
            if name in options and options[name] != defaults[name]
        }

    def public_data(self, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Printed component data anyone may see that a viewer needs to draw
        a match played with `options` (card faces by id), JSON-serialisable.
        Empty when the views describe everything themselves."""
        return {}

    def check_seats(self, seats: int) -> None:
        if seats not in self.seat_counts:
            allowed = ", ".join(map(str, self.seat_counts))
            raise OptionError(f"{self.id} is played by {allowed} seats, not {seats}")

    @abstractmethod
    def new(self, seats: int, seed: int, options: Mapping[str, Any] | None = None) -> GameState:
        """A fresh game. Must call check_seats and validate_options."""

    def first_to_act(
        self, seats: int, seed: int, options: Mapping[str, Any] | None = None
    ) -> int | None:
        """The seat that makes the first move of a game with this seed and
        these options, or None when several seats choose at once. The seed
        may draw it (Splendor Duel's `first_seat: random`), so it is not
        always seat 0; the ladder's fit credits its first-move term to it."""
        acting = self.new(seats, seed, options).to_act()
        return acting[0] if len(acting) == 1 else None

    @abstractmethod
    def restore(self, snapshot: Mapping[str, Any]) -> GameState:
        """The state a snapshot was taken from (SnapshotError when it can't)."""
