"""Re-simulate the golden replays in tests/arena/golden/ (see golden_replays.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.registry import get_game
from tests.arena.golden_replays import GOLDEN_DIR, digest

FILES = sorted(GOLDEN_DIR.glob("*.json"))


def test_there_are_golden_replays() -> None:
    assert any(p.name.startswith("splendor-duel-") for p in FILES)
    # every seat count of Edel, Stein & Reich
    assert {p.name.split("-")[3] for p in FILES if p.name.startswith("edel-stein-reich-")} == {
        "3p",
        "4p",
        "5p",
    }


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden_replay(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    game = get_game(data["game"])
    assert data["rules_version"] == game.rules_version, (
        f"{path.name} was recorded with rules {data['rules_version']}, the engine is "
        f"{game.rules_version}: check the change, then run "
        "`python -m tests.arena.golden_replays` to re-record"
    )
    state = game.new(data["seats"], data["seed"], data["options"])
    every = data["digest_every"]
    digests = iter(data["digests"])
    for step, (seat, action) in enumerate(data["moves"]):
        if step % every == 0:
            assert digest(state) == next(digests), f"{path.name}: state differs at step {step}"
        state.apply(seat, action)
    if len(data["moves"]) % every == 0:
        assert digest(state) == next(digests)
    assert state.is_over()
    assert state.outcome().to_json() == data["outcome"]
    assert state.snapshot() == data["final_snapshot"]
