"""The live view benchmark (`python -m ladder.bench_live` prints the figures):
its games, and one small run of its polls (their times are not checked here)."""

from __future__ import annotations

import pytest

from arena import get_game
from ladder.bench_live import GAMES, long_game, main, poll_points, report, runner_events


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


@pytest.mark.django_db
def test_every_poll_of_a_small_run_answers_and_is_reported(capsys) -> None:
    report([30], repeats=1)  # raises on a poll that does not answer 200
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
    body = [row.split(" | ") for row in rows[2:]]
    views = ("everyone", "seat 0", "seat 0, first poll here")
    assert [(r[0][2:], r[1], r[3]) for r in body] == [
        (game, "30", view) for game, _ in GAMES for _ in poll_points(30) for view in views
    ]
    for row in body:
        queries, size = int(row[6]), int(row[7].rstrip(" |").replace(",", ""))
        assert queries > 0 and size > 20, row


def test_the_arguments_are_checked(capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--steps", "5"])
    assert exit_.value.code == 2
    assert "--steps must be 10..5000" in capsys.readouterr().err
