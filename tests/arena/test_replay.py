"""Replays: bytes round trip, verification catches tampering, frames."""

from __future__ import annotations

import copy

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
from arena.replay import render_at
from tests.arena.bots import bot_dir


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


def test_render_at(replay: dict) -> None:
    assert render_at(replay, 0) != render_at(replay, 1)
    assert render_at(replay) == render_at(replay, len(replay["steps"]))
    with pytest.raises(ReplayError):
        render_at(replay, len(replay["steps"]) + 1)
