"""The bot side of protocol v1 in one stdlib-only file (docs/bots.md).

A bot is one function of (observation, legal actions):

    from gemarena_sdk import run      # this file, on every bot's sys.path

    def decide(observation, legal):
        return legal[0]            # or (action, "a short debug note")

    run(decide, game="splendor-duel")   # game: optional, the game it plays

`decide` may take a third argument, the whole request message (step, seat,
time left). While `run` is active, anything the bot prints goes to stderr,
its private debug log: the SDK keeps stdout for the protocol (a print before
`run` starts still goes to stdout and breaks the protocol). An exception in
`decide` ends the bot (a crash: the seat forfeits), with the traceback in
the debug log. A bot that names its game (`game=`) and is started for
another one (uploaded for the wrong game) stops at the start message and
says so on stderr: a crash, so the ladder's validation rejects that upload.

This file imports nothing from the rest of arena, and little of the standard
library (start-up time counts): the bot library (arena/sdk_lib.py) carries a
copy of it as the top-level module `gemarena_sdk`, so a bot does not pay for
importing the `arena` package unless it uses the engines.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TextIO

    Decide = Callable[..., str | tuple[str, str]]

PROTOCOL_VERSION = 1


class Match:
    """What the start message said: game, rules_version, seat, seats,
    options, time; after the end message, the outcome."""

    def __init__(self, start: dict[str, Any]) -> None:
        self.start = start
        self.game: str = start.get("game", "")
        #: the engine's rules version (a Splendor Duel snapshot needs it)
        self.rules_version: str = start.get("rules_version", "")
        self.seat: int = start.get("seat", 0)
        self.seats: int = start.get("seats", 0)
        self.options: dict[str, Any] = start.get("options", {})
        self.time: dict[str, int] = start.get("time", {})
        self.outcome: dict[str, Any] | None = None


def _reply(action: str, note: str = "") -> str:
    # ASCII JSON: whatever the note holds (even a lone surrogate), the line is
    # UTF-8, so a debug note can never cost the match
    if note:
        return json.dumps({"action": action, "note": note[:300]})
    return json.dumps(action)


def run(
    decide: Decide,
    *,
    game: str | None = None,
    on_start: Callable[[Match], None] | None = None,
    on_end: Callable[[Match], None] | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> Match | None:
    """Answer the referee until the end message or end of input."""
    inp = stdin or sys.stdin
    out = stdout or sys.stdout
    if stdout is None:
        sys.stdout = sys.stderr  # a stray print() must not break the protocol
    wants_request = _arity(decide) >= 3
    match: Match | None = None
    for line in inp:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "start":
            if message.get("protocol") != PROTOCOL_VERSION:
                print(f"sdk: referee speaks protocol {message.get('protocol')}", file=sys.stderr)
            match = Match(message)
            if game is not None and match.game != game:
                raise SystemExit(wrong_game(game, match.game))
            if on_start is not None:
                on_start(match)
            out.write('"ready"\n')
        elif kind == "request":
            args = (message["observation"], message["legal"])
            decision = decide(*args, message) if wants_request else decide(*args)
            _say_if_not_an_action(decision, message.get("step"))
            if isinstance(decision, tuple):
                out.write(_reply(str(decision[0]), str(decision[1])) + "\n")
            else:
                out.write(_reply(str(decision)) + "\n")
        elif kind == "end":
            if match is not None:
                match.outcome = message.get("outcome")
                if on_end is not None:
                    on_end(match)
            break
        out.flush()
    return match


def _say_if_not_an_action(decision: Any, step: Any) -> None:
    """The referee calls a decision that is not a string illegal, quoting
    only its text ('None', '0'); the owner's log says what went wrong."""
    action = decision[0] if isinstance(decision, tuple) and decision else decision
    if isinstance(action, str):
        return
    if action is None:
        what, hint = "None", " (a missing return?)"
    else:
        what, hint = f"{type(action).__name__} {str(action)[:60]}", ""
        if isinstance(action, int) and not isinstance(action, bool):
            hint = " (an index? return the action itself, legal[i])"
    print(
        f"sdk: decide returned {what} at step {step}{hint}: return one of the strings "
        "in legal, or (action, note)",
        file=sys.stderr,
    )


def wrong_game(written_for: str, started_for: str) -> str:
    """Why a bot that names its game refuses a match of another game."""
    return (
        f"sdk: this bot is written for {written_for} (run(..., game={written_for!r})) "
        f"but was started for a match of {started_for}: upload it as a bot for "
        f"{written_for}, or change game= if it really plays {started_for}"
    )


def _arity(func: Callable[..., Any]) -> int:
    """Positional parameters of `decide` (no `inspect`: it is slow to import)."""
    code = getattr(func, "__code__", None)
    if code is None:  # a callable object: look at its __call__
        code = getattr(getattr(func, "__call__", None), "__code__", None)  # noqa: B004
        if code is None:
            return 2
        return code.co_argcount - 1
    if code.co_flags & 0x04:  # CO_VARARGS
        return 3
    return code.co_argcount - (1 if hasattr(func, "__self__") else 0)
