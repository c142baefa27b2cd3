"""`arena bench`: the command runs for every game and prints its figures."""

from __future__ import annotations

import pytest

from arena.cli import main
from arena.registry import get_game
from tests.arena.playout import case_id, game_cases

CASES = game_cases()


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_bench_prints_its_figures(case, capsys) -> None:
    game, seats = case
    assert main(["bench", game.id, "--players", str(seats), "--games", "2", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    for label in ("games/s:", "decisions/s:", "clone():", "legal_actions():"):
        assert label in out
    assert "games:        2 in" in out


def test_bench_is_reproducible() -> None:
    from arena.bench import play_random

    game = get_game("splendor-duel")
    a = play_random(game, 2, 9, 3, 0)
    b = play_random(game, 2, 9, 3, 0)
    assert (a.decisions, a.reasons) == (b.decisions, b.reasons)


def test_bench_rejects_a_bad_seat_count() -> None:
    from arena.engine import OptionError

    with pytest.raises(OptionError):
        main(["bench", "splendor-duel", "--players", "3", "--games", "1"])
