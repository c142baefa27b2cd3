"""The reply chokepoint and the SDK loop."""

from __future__ import annotations

import io
import json

import pytest

from arena.protocol import (
    MAX_NOTE_CHARS,
    MAX_REPLY_BYTES,
    FaultKind,
    ReplyError,
    parse_reply,
    start_message,
)
from arena.registry import get_game
from arena.sdk import run

LEGAL = ["buy L1-01", "pass", "take a1"]


@pytest.mark.parametrize(
    "raw, action, note",
    [
        (b'"pass"', "pass", ""),
        (b'{"action": "take a1"}', "take a1", ""),
        (b'{"action": "pass", "note": "why not"}', "pass", "why not"),
        (b'"pass"\r', "pass", ""),
        ('{"action":"pass","note":"é\\u0007x"}'.encode(), "pass", "éx"),
    ],
)
def test_good_replies(raw: bytes, action: str, note: str) -> None:
    reply = parse_reply(raw, LEGAL)
    assert (reply.action, reply.note) == (action, note)


def test_long_notes_are_cut_not_punished() -> None:
    reply = parse_reply(json.dumps({"action": "pass", "note": "x" * 5000}).encode(), LEGAL)
    assert len(reply.note) == MAX_NOTE_CHARS


@pytest.mark.parametrize(
    "raw, kind, words",
    [
        (b'"resign"', FaultKind.ILLEGAL, "not a legal"),
        (b'{"action": "Pass"}', FaultKind.ILLEGAL, "not a legal"),
        # what to do instead, and nothing of the seat's legal list (it is public)
        (b'"buy everything"', FaultKind.ILLEGAL, "of the request's legal list, exactly as written"),
        (b"pass", FaultKind.PROTOCOL, "not JSON"),
        # the usual cause: an action printed without its JSON quotes
        (b"take a2", FaultKind.PROTOCOL, 'quotes included: "take a2" (json.dumps)'),
        (b"", FaultKind.PROTOCOL, "empty"),
        (b'"\xff"', FaultKind.PROTOCOL, "not UTF-8"),
        (b"42", FaultKind.PROTOCOL, "string or object"),
        (b'["pass"]', FaultKind.PROTOCOL, "string or object"),
        (b'{"move": "pass"}', FaultKind.PROTOCOL, "unknown key"),
        (b'{"action": 3}', FaultKind.PROTOCOL, "string 'action'"),
        (b'{"action": "pass", "note": 1}', FaultKind.PROTOCOL, "'note'"),
        (b"[" * 100_000, FaultKind.PROTOCOL, "exceeds"),
        (b'"' + b"a" * MAX_REPLY_BYTES + b'"', FaultKind.PROTOCOL, "exceeds"),
        (b"[" * 50_000 + b"]" * 10, FaultKind.PROTOCOL, "not JSON"),
    ],
)
def test_bad_replies(raw: bytes, kind: FaultKind, words: str) -> None:
    with pytest.raises(ReplyError) as info:
        parse_reply(raw, LEGAL)
    assert info.value.kind == kind
    assert words in info.value.detail


def test_a_line_that_is_not_json_is_not_quoted() -> None:
    # fault details are public; a stray print may be the bot's private debug output
    with pytest.raises(ReplyError) as info:
        parse_reply(b"debug: my secret weights 0.37 0.91", LEGAL)
    assert "secret" not in info.value.detail and "34 characters" in info.value.detail


def test_sdk_answers_the_referee() -> None:
    messages = [
        {
            "type": "start",
            "protocol": 1,
            "game": "g",
            "seat": 1,
            "seats": 2,
            "options": {},
            "time": {},
        },
        {
            "type": "request",
            "step": 0,
            "seat": 1,
            "observation": {"x": 1},
            "legal": ["a", "b"],
            "time": {},
        },
        {
            "type": "request",
            "step": 2,
            "seat": 1,
            "observation": {"x": 2},
            "legal": ["c"],
            "time": {},
        },
        {"type": "end", "seat": 1, "outcome": {"ranks": [2, 1]}, "fault": None},
        {"type": "request", "step": 9, "seat": 1, "observation": {}, "legal": ["z"], "time": {}},
    ]
    stdin = io.StringIO("".join(json.dumps(m) + "\n" for m in messages))
    stdout = io.StringIO()
    seen = []

    def decide(observation, legal, request):
        seen.append(request["step"])
        return (legal[-1], "note") if observation["x"] == 1 else legal[0]

    match = run(decide, stdin=stdin, stdout=stdout)
    lines = stdout.getvalue().splitlines()
    assert lines == ['"ready"', '{"action": "b", "note": "note"}', '"c"']
    assert [parse_reply(line.encode(), ["ready", "b", "c"]).action for line in lines] == [
        "ready",
        "b",
        "c",
    ]
    assert seen == [0, 2]
    assert match is not None and match.seat == 1 and match.outcome == {"ranks": [2, 1]}


def test_sdk_says_on_stderr_when_decide_returns_nothing(capsys) -> None:
    """A decide that forgets its return: the referee calls 'None' illegal;
    the owner's stderr says why."""
    stdin = io.StringIO(
        json.dumps({"type": "request", "step": 7, "observation": {}, "legal": ["a"]}) + "\n"
    )
    stdout = io.StringIO()
    run(lambda observation, legal: None, stdin=stdin, stdout=stdout)
    assert stdout.getvalue() == '"None"\n'
    assert "decide returned None at step 7 (a missing return?)" in capsys.readouterr().err


@pytest.mark.parametrize(
    "decision, said",
    [
        (0, "decide returned int 0 at step 7 (an index? return the action itself, legal[i])"),
        ((["a"], "note"), "decide returned list ['a'] at step 7: return one of the strings"),
        ("a", None),
        (("a", "note"), None),
    ],
)
def test_sdk_says_on_stderr_when_decide_returns_no_string(decision, said, capsys) -> None:
    """A newcomer's decide returns the index of its choice (or a list): the
    referee's fault quotes only '0'; the owner's stderr says what to return."""
    stdin = io.StringIO(
        json.dumps({"type": "request", "step": 7, "observation": {}, "legal": ["a"]}) + "\n"
    )
    run(lambda observation, legal: decision, stdin=stdin, stdout=io.StringIO())
    err = capsys.readouterr().err
    if said is None:
        assert "sdk:" not in err, err
    else:
        assert said in err, err


@pytest.mark.parametrize("game_id", ["splendor-duel", "edel-stein-reich"])
def test_sdk_match_carries_what_the_referees_start_message_says(game_id: str) -> None:
    """docs/bots.md lists the Match fields; a bot that restores a snapshot
    needs `rules_version`, which the referee's start message carries."""
    game = get_game(game_id)
    start = start_message(
        game=game.id,
        rules_version=game.rules_version,
        seat=1,
        seats=game.seat_counts[0],
        options=game.validate_options({}),
        time={"startup_ms": 10000, "move_ms": 1000, "bank_ms": 10000},
    )
    seen = []
    run(
        lambda observation, legal: legal[0],
        on_start=seen.append,
        stdin=io.StringIO(json.dumps(start) + "\n"),
        stdout=io.StringIO(),
    )
    (match,) = seen
    assert match.rules_version == game.rules_version
    assert (match.game, match.seat, match.seats) == (game.id, 1, game.seat_counts[0])
    assert match.options == game.validate_options({}) and match.time["move_ms"] == 1000
    assert match.outcome is None


def test_sdk_bot_that_names_its_game_refuses_another(capsys) -> None:
    """A bot uploaded for the wrong game that only picks from `legal` would
    play it; one that says `run(..., game=...)` stops before "ready" and its
    log says why (QA of a new Edel, Stein & Reich bot author)."""
    game = get_game("edel-stein-reich")
    start = start_message(
        game=game.id,
        rules_version=game.rules_version,
        seat=0,
        seats=3,
        options=game.validate_options({}),
        time={"startup_ms": 10000, "move_ms": 1000, "bank_ms": 10000},
    )
    stdout = io.StringIO()
    with pytest.raises(SystemExit) as info:
        run(
            lambda observation, legal: legal[0],
            game="splendor-duel",
            stdin=io.StringIO(json.dumps(start) + "\n"),
            stdout=stdout,
        )
    assert stdout.getvalue() == ""  # not even "ready"
    said = str(info.value.code)
    assert said.startswith("sdk: this bot is written for splendor-duel")
    assert "started for a match of edel-stein-reich" in said
    # its own game, and no game named at all, play as before
    for named in ("edel-stein-reich", None):
        stdout = io.StringIO()
        match = run(
            lambda observation, legal: legal[0],
            game=named,
            stdin=io.StringIO(json.dumps(start) + "\n"),
            stdout=stdout,
        )
        assert stdout.getvalue() == '"ready"\n' and match is not None


def test_sdk_two_argument_decide() -> None:
    stdin = io.StringIO(
        json.dumps({"type": "request", "step": 0, "observation": {}, "legal": ["a"]}) + "\n"
    )
    stdout = io.StringIO()
    run(lambda observation, legal: legal[0], stdin=stdin, stdout=stdout)
    assert stdout.getvalue() == '"a"\n'


def test_an_sdk_note_with_a_character_utf8_cannot_hold_is_no_fault() -> None:
    """A lone surrogate (text decoded with surrogateescape, say) in a debug
    note: the SDK wrote it as is and the bytes on the wire were not UTF-8, a
    protocol fault for a courtesy. Replies go out as ASCII JSON; the referee
    drops what is not printable (clean_note)."""
    request = {"type": "request", "step": 0, "observation": {}, "legal": ["pass"]}
    stdout = io.StringIO()
    run(
        lambda observation, legal: (legal[0], "bad \udcff byte, café"),
        stdin=io.StringIO(json.dumps(request) + "\n"),
        stdout=stdout,
    )
    line = stdout.getvalue().splitlines()[0]
    assert line.isascii()
    reply = parse_reply(line.encode(), LEGAL)
    assert (reply.action, reply.note) == ("pass", "bad  byte, café")
