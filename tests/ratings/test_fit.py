"""Batch Plackett–Luce / Bradley–Terry fit: recovery, intervals, ties, seat advantage."""

from __future__ import annotations

import random
import statistics

import pytest

from ladder.ratings import FitConfig, MatchResult, fit_ratings
from ladder.ratings.simulate import play


def synthetic(
    truth: list[float], count: int, seats: int, rng: random.Random, advantage: float = 0.0
) -> list[MatchResult]:
    return [
        play(tuple(rng.sample(range(len(truth)), seats)), truth, advantage, rng)
        for _ in range(count)
    ]


def centred(truth: list[float]) -> list[float]:
    mean = statistics.fmean(truth)
    return [t - mean + 1500 for t in truth]


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_recovers_known_strengths(seats: int) -> None:
    rng = random.Random(seats)
    truth = [1500 + 60 * (i - 7.5) for i in range(16)]  # 1050 … 1950
    fit = fit_ratings(synthetic(truth, 12_000, seats, rng))
    rows = fit.by_bot()
    want = centred(truth)
    errors = [rows[b].rating - want[b] for b in range(16)]
    assert max(abs(e) for e in errors) < 45
    assert [row.bot_id for row in fit.leaderboard][:3] == [15, 14, 13]
    inside = sum(rows[b].low <= want[b] <= rows[b].high for b in range(16))
    assert inside >= 13  # 95 % intervals: expect ~15 of 16
    assert statistics.fmean(r.rating for r in fit.leaderboard) == pytest.approx(1500, abs=0.01)


def test_two_equal_bots_interval_matches_hand_computation() -> None:
    # 400 games, 200 wins each, no seat term: Hessian of the difference is
    # 400·¼ + 2·¼ (prior) per bot → Var(θ_A − θ̄) = ½ / 200.5,
    # half-width = 1.96 · √(0.5/200.5) · 400/ln 10 = 17.003 Elo.
    matches = [MatchResult(("a", "b") if i % 2 else ("b", "a"), (1, 2)) for i in range(400)]
    fit = fit_ratings(matches, FitConfig(first_seat_advantage=False))
    a, b = fit.by_bot()["a"], fit.by_bot()["b"]
    assert a.rating == b.rating == 1500.0
    assert a.half_width == pytest.approx(17.00, abs=0.01)
    assert (a.low, a.high) == (round(1500 - a.half_width, 2), round(1500 + a.half_width, 2))
    assert a.games == b.games == 400 and not a.provisional


def test_intervals_shrink_like_one_over_root_games() -> None:
    rng = random.Random(8)
    truth = [rng.gauss(1500, 150) for _ in range(12)]
    matches = synthetic(truth, 8000, 2, rng)
    small = fit_ratings(matches[:2000]).leaderboard
    large = fit_ratings(matches).leaderboard
    ratio = statistics.fmean(r.half_width for r in small) / statistics.fmean(
        r.half_width for r in large
    )
    assert 1.7 < ratio < 2.3


def test_all_wins_stays_finite_and_provisional() -> None:
    matches = [MatchResult(("champ", "chump"), (1, 2)) for _ in range(10)]
    rows = fit_ratings(matches).by_bot()
    champ, chump = rows["champ"], rows["chump"]
    assert 1500 < champ.rating < 2100 and 900 < chump.rating < 1500
    assert champ.provisional and chump.provisional


def test_provisional_rule() -> None:
    rng = random.Random(9)
    truth = [1500.0] * 6
    matches = synthetic(truth, 3000, 2, rng)
    config = FitConfig(provisional_half_width=100.0, provisional_min_games=20)
    assert not any(r.provisional for r in fit_ratings(matches, config).leaderboard)
    few = fit_ratings(matches[:30], config).leaderboard  # ~10 games each
    assert all(r.provisional for r in few)
    strict = FitConfig(provisional_half_width=10.0)
    assert all(r.provisional for r in fit_ratings(matches, strict).leaderboard)


def test_a_draw_is_half_a_win_and_half_a_loss() -> None:
    config = FitConfig(first_seat_advantage=False)
    draws = [MatchResult(("a", "b"), (1, 1)), MatchResult(("a", "c"), (1, 1))] * 3
    split = [
        MatchResult(("a", "b"), (1, 2)),
        MatchResult(("a", "b"), (2, 1)),
        MatchResult(("a", "c"), (1, 2)),
        MatchResult(("a", "c"), (2, 1)),
    ] * 3
    # 6 draws against b and c carry the weight of 3 wins and 3 losses
    doubled = fit_ratings(draws + draws, config).by_bot()
    halves = fit_ratings(split, config).by_bot()
    for bot in "abc":
        assert doubled[bot].rating == halves[bot].rating == 1500.0
        assert doubled[bot].half_width == halves[bot].half_width


def test_multi_seat_ties() -> None:
    matches = [MatchResult(("a", "b", "c"), (1, 1, 3))] * 5 + [
        MatchResult(("c", "a", "b"), (1, 2, 2))
    ] * 2
    rows = fit_ratings(matches).by_bot()
    assert rows["a"].rating == rows["b"].rating
    assert rows["a"].rating > rows["c"].rating


def test_first_seat_advantage_recovered() -> None:
    rng = random.Random(10)
    truth = [rng.gauss(1500, 200) for _ in range(12)]
    fit = fit_ratings(synthetic(truth, 20_000, 2, rng, advantage=50.0))
    assert fit.first_seat_advantage == pytest.approx(50, abs=12)
    low = fit.first_seat_advantage - fit.first_seat_advantage_half_width
    high = fit.first_seat_advantage + fit.first_seat_advantage_half_width
    assert low < 50 < high
    none = fit_ratings(synthetic(truth, 20_000, 2, rng, advantage=0.0))
    assert abs(none.first_seat_advantage) < 12


def test_seat_term_only_for_two_seat_fits_unless_asked() -> None:
    rng = random.Random(11)
    truth = [1500.0] * 8
    assert fit_ratings(synthetic(truth, 200, 4, rng)).first_seat_advantage is None
    assert fit_ratings(synthetic(truth, 200, 2, rng)).first_seat_advantage is not None
    forced = fit_ratings(synthetic(truth, 200, 4, rng), FitConfig(first_seat_advantage=True))
    assert forced.first_seat_advantage is not None


def test_same_matches_same_numbers() -> None:
    rng = random.Random(12)
    truth = [rng.gauss(1500, 200) for _ in range(20)]
    matches = synthetic(truth, 3000, 3, rng) + synthetic(truth, 1000, 5, rng)
    assert fit_ratings(matches) == fit_ratings(list(matches))


def test_leaderboard_is_best_first_and_rounded() -> None:
    rng = random.Random(13)
    truth = [rng.gauss(1500, 200) for _ in range(20)]
    board = fit_ratings(synthetic(truth, 2000, 2, rng)).leaderboard
    assert [r.rating for r in board] == sorted((r.rating for r in board), reverse=True)
    for r in board:
        assert r.rating == round(r.rating, 2) and r.half_width == round(r.half_width, 2)


def test_empty_and_bad_config() -> None:
    assert fit_ratings([]).leaderboard == ()
    with pytest.raises(ValueError):
        fit_ratings([MatchResult(("a", "b"), (1, 2))], FitConfig(prior_draws=0))
