"""Replays: bytes round trip, verification catches tampering, frames."""

from __future__ import annotations

import copy
import re

import pytest

from arena import (
    BotSpec,
    MatchRequest,
    ReplayError,
    builtin_bot_dir,
    play_match,
    replay_from_bytes,
    replay_to_bytes,
    spectator_frames,
    verify_replay,
)
from arena.replay import check_fields, positions, render_at
from tests.arena.bots import bot_dir
from tests.arena.playout import scripted_replay


@pytest.fixture(scope="module")
def replay() -> dict:
    bots = [
        BotSpec("random", builtin_bot_dir("splendor-duel", "random")),
        BotSpec("first", bot_dir("faulty", fault="none")),
    ]
    return play_match(MatchRequest("splendor-duel", bots, seed=11, sandbox="process")).replay


def test_bytes_round_trip_is_stable(replay: dict) -> None:
    data = replay_to_bytes(replay)
    assert data[:2] == b"\x1f\x8b"
    assert replay_from_bytes(data) == replay
    assert replay_to_bytes(replay_from_bytes(data)) == data
    with pytest.raises(ReplayError):
        replay_from_bytes(b"not gzip")
    with pytest.raises(ReplayError, match="version"):
        replay_from_bytes(replay_to_bytes({**replay, "version": 99}))


def test_verify_passes_and_catches_tampering(replay: dict) -> None:
    assert verify_replay(replay) == []
    changed = copy.deepcopy(replay)
    changed["steps"][4]["action"] = (
        "pass" if changed["steps"][4]["action"] != "pass" else "replenish"
    )
    assert verify_replay(changed)
    changed = copy.deepcopy(replay)
    changed["outcome"]["ranks"] = changed["outcome"]["ranks"][::-1]
    assert any("outcome" in p for p in verify_replay(changed))
    changed = copy.deepcopy(replay)
    changed["seed"] += 1
    assert verify_replay(changed)
    changed = copy.deepcopy(replay)
    del changed["steps"][-1]
    assert verify_replay(changed)
    changed = copy.deepcopy(replay)
    changed["rules_version"] = "0-old"
    assert any("rules" in p for p in verify_replay(changed))


def test_spectator_frames(replay: dict) -> None:
    frames = spectator_frames(replay)
    assert len(frames) == len(replay["steps"]) + 1
    assert frames[0]["step"] == 0 and frames[0]["action"] is None
    assert frames[1]["action"] == replay["steps"][0]["action"] and frames[1]["description"]
    assert not any("note" in f for f in frames)
    owner = replay["seats"].index("first")
    with_notes = spectator_frames(replay, notes_for={owner})
    assert {f["seat"] for f in with_notes if "note" in f} == {owner}


def test_a_seat_sees_its_own_blind_reservation_and_nobody_else_does() -> None:
    """Splendor Duel: a card reserved blind from a deck is hidden in everyone's
    view and in the other seat's, shown face up only in its owner's."""
    replay = scripted_replay("splendor-duel", 2, 4, first=("reserve b3 deck1",))
    everyone = spectator_frames(replay)
    own, other = (spectator_frames(replay, seat=s) for s in (0, 1))
    for frames in (everyone, own, other):
        assert [f["action"] for f in frames[1:]] == [s["action"] for s in replay["steps"]]
    # every frame of a seat's view is the engine's observation for that seat
    for (_, _, _, state), frame in zip(positions(replay), other, strict=True):
        assert frame["view"] == state.observation(1)
    card = own[1]["view"]["players"][0]["reserved"][0]
    assert card["blind"] and card["card"]
    for frames in (everyone, other):
        assert frames[1]["view"]["players"][0]["reserved"][0] == {**card, "card": None}
        assert card["card"] not in repr(frames[1])


def test_a_seat_does_not_see_the_others_secret_choices_before_the_reveal() -> None:
    """Edel, Stein & Reich: the action cards are chosen in secret. Everyone's
    view of the finished match names each choice; a seat's view names only
    its own until the last seat has chosen, and shows only its own money
    when `money_visible` is off. Notes: only the viewed seat's."""
    replay = scripted_replay("edel-stein-reich", 3, 3, {"money_visible": False})
    steps = replay["steps"]
    everyone = spectator_frames(replay, notes_for={0, 1, 2})
    assert [f["action"] for f in everyone[1:]] == [s["action"] for s in steps]
    assert {f["seat"] for f in everyone if "note" in f} == {0, 1, 2}
    for seat in range(3):
        frames = spectator_frames(replay, notes_for={0, 1, 2}, seat=seat)
        assert {f["seat"] for f in frames if "note" in f} == {seat}
        # the first round's choices: steps 1..3, revealed by the third
        for frame in frames[1:4]:
            if frame["seat"] == seat:
                assert frame["action"] == steps[frame["step"] - 1]["action"]
                assert frame["view"]["my_choice"] == frame["action"].split()[1]
            else:
                assert frame["action"] is None
                assert frame["description"] == f"seat {frame['seat']} chooses in secret"
            if frame["step"] < 3:  # before the reveal the view names no choice but its own
                assert frame["view"]["choices"] is None
                chose = [s["seat"] for s in steps[: frame["step"]]]
                assert (frame["view"]["my_choice"] is not None) == (seat in chose)
        assert frames[3]["view"]["choices"] == everyone[3]["view"]["choices"] is not None
        for frame in frames:
            money = [p["money"] for p in frame["view"]["players"]]
            assert [m is not None for m in money] == [s == seat for s in range(3)]
    assert all(p["money"] is None for f in everyone for p in f["view"]["players"])
    hidden = [f for f in spectator_frames(replay, seat=0) if f["action"] is None][1:]
    assert len(hidden) >= 2 * 3  # two of three choices hidden from seat 0, every round


def test_seat_frames_refuse_a_seat_the_match_has_not() -> None:
    replay = scripted_replay("splendor-duel", 2, 4)
    for seat in (2, -1):
        with pytest.raises(ReplayError, match=r"seat must be a seat number 0\.\.1"):
            spectator_frames(replay, seat=seat)


def test_render_at(replay: dict) -> None:
    assert render_at(replay, 0) != render_at(replay, 1)
    assert render_at(replay) == render_at(replay, len(replay["steps"]))
    with pytest.raises(ReplayError):
        render_at(replay, len(replay["steps"]) + 1)


def _set(path: tuple, value):
    """A change that sets replay[path[0]][path[1]]... to `value` (or deletes it: ...)."""

    def change(replay: dict) -> None:
        target = replay
        for key in path[:-1]:
            target = target[key]
        if value is ...:
            del target[path[-1]]
        else:
            target[path[-1]] = value

    return change


DAMAGED = [
    (_set(("steps", 3, "seat"), ...), "step 3: 'seat' must be a seat number"),
    (_set(("steps", 0, "seat"), "x"), "step 0: 'seat' must be a seat number"),
    (_set(("steps", 0, "seat"), 2), "step 0: 'seat' must be a seat number 0..1"),
    (_set(("steps", 0, "seat"), True), "step 0: 'seat' must be a seat number"),
    (_set(("steps", 0, "action"), 5), "step 0: 'action' must be a string"),
    (_set(("steps", 0), "take a1"), "step 0 must be an object"),
    (_set(("steps", 0, "think_ms"), "fast"), "step 0: 'think_ms' must be a number"),
    (_set(("steps", 0, "note"), ["x"]), "step 0: 'note' must be a string"),
    (_set(("steps", 0, "forced"), "yes"), "step 0: 'forced' must be true or false"),
    (_set(("steps",), {"a": 1}), "'steps' must be a list"),
    (_set(("seed",), "abc"), "'seed' must be a whole number"),
    (_set(("seed",), 1.5), "'seed' must be a whole number"),
    (_set(("game",), 7), "'game' must be a string"),
    (_set(("rules_version",), 1.0), "'rules_version' must be a string"),
    (_set(("options",), [1]), "'options' must be an object"),
    (_set(("seats",), 3), "'seats' must be a non-empty list"),
    (_set(("seats",), []), "'seats' must be a non-empty list"),
    (_set(("seats",), ["a"] * 9), "outcome.ranks must be 9 whole numbers"),
    (_set(("outcome",), {"x": 1}), "outcome.ranks must be 2 whole numbers"),
    (_set(("outcome",), None), "'outcome' must be an object"),
    (_set(("outcome", "scores"), ["a", "b"]), "outcome.scores must be 2 numbers"),
    (_set(("outcome", "reason"), None), "outcome.reason must be a string"),
    (_set(("engine_outcome",), {"ranks": [1]}), "engine_outcome.ranks must be 2"),
    (_set(("faults",), [None]), "'faults' must be a list of 2 entries"),
    (_set(("faults",), [{"detail": "x"}, None]), "'faults' entry of seat 0 must be null or"),
    (_set(("faults",), [None, {"kind": "crash", "detail": "x", "step": "7"}]), "seat 1"),
]


@pytest.mark.parametrize(("change", "message"), DAMAGED)
def test_a_damaged_replay_is_refused_with_the_field_named(replay: dict, change, message) -> None:
    """A hand-edited or damaged file (a downloaded replay an analyst changed, a
    truncated conversion) is a ReplayError naming the field, never a KeyError or
    TypeError from inside re-simulation (`arena replay` printed a traceback)."""
    damaged = copy.deepcopy(replay)
    damaged["steps"][0]["note"] = "kept"  # the optional fields are accepted when well-formed
    assert verify_replay(damaged) == []
    change(damaged)
    with pytest.raises(ReplayError, match=re.escape(message)):
        replay_from_bytes(replay_to_bytes(damaged))
    problems = verify_replay(damaged)  # the library call reports, never raises
    assert len(problems) == 1 and message in problems[0]


def test_the_fields_check_accepts_what_the_runner_writes(replay: dict) -> None:
    forced = copy.deepcopy(replay)
    forced["faults"][1] = {"kind": "timeout", "detail": "slow", "step": 4}
    forced["engine_outcome"] = None
    forced["steps"][5] = {"seat": forced["steps"][5]["seat"], "action": "x", "forced": True}
    forced["extra_key_of_a_later_format"] = {"kept": True}
    check_fields(forced)  # no exception: only types and lengths are checked here
