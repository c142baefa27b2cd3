"""Bot protocol v1: the messages the referee sends and the one place where a
bot's reply is parsed (untrusted input has one chokepoint).

Everything a bot writes on stdout reaches the runner as raw bytes and goes
through `parse_reply` before anything else looks at it: size cap, strict
UTF-8, JSON, shape, then legality. docs/protocol.md is the reference for bot
authors; keep the two in step.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

PROTOCOL_VERSION = 1

#: the largest reply line accepted, in bytes (the sandbox also enforces it)
MAX_REPLY_BYTES = 64 * 1024
#: debug notes longer than this are cut (not a fault: notes are a courtesy)
MAX_NOTE_CHARS = 300
#: an action string longer than this cannot be legal in any game
MAX_ACTION_CHARS = 1000

#: the only legal reply to the start message
READY = "ready"


class FaultKind(StrEnum):
    """Why a bot forfeited. The ladder stores these strings."""

    # no reply before the move limit plus the time bank ran out (a bot that closed
    # its stdout but still runs looks the same: the sandbox holds the pipe open)
    TIMEOUT = "timeout"
    CRASH = "crash"  # the bot exited before the match ended
    MEMORY = "memory"  # killed for exceeding the memory limit
    ILLEGAL = "illegal"  # a well-formed reply naming an action that is not legal now
    PROTOCOL = "protocol"  # anything else: too large, not UTF-8, not JSON, wrong shape


class ReplyError(Exception):
    """A reply that cannot be accepted; `kind` is PROTOCOL or ILLEGAL."""

    def __init__(self, kind: FaultKind, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


@dataclass(frozen=True)
class Reply:
    action: str
    note: str = ""


# -- referee → bot ----------------------------------------------------------


def encode(message: Mapping[str, Any]) -> bytes:
    """One message as one line of compact JSON (no newline: the sandbox adds it)."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def start_message(
    *,
    game: str,
    rules_version: str,
    seat: int,
    seats: int,
    options: Mapping[str, Any],
    time: Mapping[str, int],
) -> dict[str, Any]:
    return {
        "type": "start",
        "protocol": PROTOCOL_VERSION,
        "game": game,
        "rules_version": rules_version,
        "seat": seat,
        "seats": seats,
        "options": dict(options),
        "time": dict(time),
    }


def request_message(
    *,
    step: int,
    seat: int,
    observation: Mapping[str, Any],
    legal: Sequence[str],
    move_ms: int,
    bank_ms: int,
) -> dict[str, Any]:
    return {
        "type": "request",
        "step": step,
        "seat": seat,
        "observation": observation,
        "legal": list(legal),
        "time": {"move_ms": move_ms, "bank_ms": bank_ms},
    }


def end_message(
    *, seat: int, outcome: Mapping[str, Any], fault: Mapping[str, Any] | None
) -> dict[str, Any]:
    return {"type": "end", "seat": seat, "outcome": dict(outcome), "fault": fault}


# -- bot → referee: the chokepoint ------------------------------------------


def parse_reply(raw: bytes, legal: Sequence[str] | frozenset[str]) -> Reply:
    """The bot's reply line → Reply, or ReplyError naming what is wrong.

    Accepted shapes (docs/protocol.md "Replies"):
      "ACTION"                              a bare JSON string
      {"action": "ACTION"}                  an object ...
      {"action": "ACTION", "note": "TEXT"}  ... with an optional debug note
    """
    if len(raw) > MAX_REPLY_BYTES:
        raise ReplyError(FaultKind.PROTOCOL, f"reply of {len(raw)} bytes exceeds {MAX_REPLY_BYTES}")
    try:
        text = raw.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise ReplyError(
            FaultKind.PROTOCOL, f"reply is not UTF-8 ({exc.reason} at byte {exc.start})"
        ) from None
    text = text.removesuffix("\r")  # tolerate a bot on a CRLF platform
    if not text.strip():
        raise ReplyError(FaultKind.PROTOCOL, "empty reply line")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        # The detail is public (match pages, replays): say what was wrong, not
        # what the bot wrote, which may be its debug output.
        raise ReplyError(
            FaultKind.PROTOCOL,
            f"reply is not JSON: {_short(str(exc))} (a line of {len(text)} characters; "
            'an action is sent as a JSON string, quotes included: "take a2" (json.dumps); '
            "debug output belongs on stderr)",
        ) from None
    note = ""
    if isinstance(data, str):
        action = data
    elif isinstance(data, dict):
        extra = sorted(set(data) - {"action", "note"})
        if extra:
            raise ReplyError(
                FaultKind.PROTOCOL, f"unknown key {extra[0]!r} in reply (allowed: action, note)"
            )
        action = data.get("action")
        if not isinstance(action, str):
            raise ReplyError(FaultKind.PROTOCOL, "reply object needs a string 'action'")
        raw_note = data.get("note", "")
        if not isinstance(raw_note, str):
            raise ReplyError(FaultKind.PROTOCOL, "'note' must be a string")
        note = clean_note(raw_note)
    else:
        raise ReplyError(
            FaultKind.PROTOCOL, f"reply must be a JSON string or object, got {type(data).__name__}"
        )
    if action not in legal:
        # Public like every detail, so no example from `legal`: a seat's legal
        # actions may show what the others may not know (a blind reserve).
        raise ReplyError(
            FaultKind.ILLEGAL,
            f"{_show(action)} is not a legal action now (answer one of the strings "
            "of the request's legal list, exactly as written)",
        )
    return Reply(action, note)


def terminal_safe(text: str) -> str:
    """A bot's text (its stderr) as a terminal may show it: control
    characters other than newline and tab spelled out (ESC as \\x1b), so
    that an opponent's bot cannot move the cursor, retitle the window or
    hide lines of the summary with escape sequences."""
    return "".join(
        ch if ch in "\n\t" or ch.isprintable() else ch.encode("unicode_escape").decode("ascii")
        for ch in text
    )


def clean_note(note: str) -> str:
    """Cut to MAX_NOTE_CHARS and drop control characters except newline/tab."""
    note = note[:MAX_NOTE_CHARS]
    return "".join(ch for ch in note if ch in "\n\t" or ch.isprintable())


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _show(text: str) -> str:
    return repr(_short(text, min(MAX_ACTION_CHARS, 80)))
