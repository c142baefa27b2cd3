"""The live view benchmark's games (`python -m ladder.bench_live` prints the
figures; the polls are not timed here)."""

from __future__ import annotations

import pytest

from arena import get_game
from ladder.bench_live import long_game, poll_points, runner_events


@pytest.mark.parametrize(
    ("game", "seats", "steps"), [("splendor-duel", 2, 60), ("edel-stein-reich", 5, 200)]
)
def test_a_long_game_lasts_the_steps_asked_for_and_replays_legally(game, seats, steps) -> None:
    found = long_game(game, seats, steps)
    assert found is not None
    seed, actions = found
    assert len(actions) == steps
    state = get_game(game).new(seats, seed)
    for seat, action in actions:
        assert action in state.legal_actions(seat)
        state.apply(seat, action)
    assert not state.is_over()
    events = list(runner_events(game, seats, seed, actions))
    assert [e["step"] for e in events] == list(range(steps))
    assert [(e["seat"], e["action"]) for e in events] == actions
    assert events[-1]["view"] == state.spectator_view()


def test_no_game_lasts_forever() -> None:
    assert long_game("splendor-duel", 2, 5000) is None  # ends after 130-350 steps
    assert [after for _, after in poll_points(200)] == [-1, 100, 195, 200]
