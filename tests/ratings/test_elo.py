"""Incremental Elo: hand-computed values, symmetry, pairwise multi-seat, replay == incremental."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest

from ladder.ratings import (
    EloRating,
    MatchResult,
    apply_elo,
    elo_changes,
    expected_score,
    k_factor,
    replay_elo,
)


def test_expected_score_hand_values() -> None:
    assert expected_score(1500, 1500) == 0.5
    # 1 / (1 + 10^-0.5) = 0.7597469...
    assert expected_score(1600, 1400) == pytest.approx(0.7597469, abs=1e-7)
    assert expected_score(1400, 1600) == pytest.approx(0.2402531, abs=1e-7)


def test_two_fresh_bots() -> None:
    assert elo_changes([1500, 1500], [0, 0], [1, 2]) == (16.0, -16.0)
    assert elo_changes([1500, 1500], [0, 0], [2, 1]) == (-16.0, 16.0)
    assert elo_changes([1500, 1500], [0, 0], [1, 1]) == (0.0, 0.0)


def test_mixed_k_hand_computed() -> None:
    # A: 1600 with 40 games (K 16), B: 1400 with 5 games (K 32), A wins.
    # 16 * (1 - 0.75974693) = 3.8440 → 3.84 ; 32 * (0 - 0.24025307) = -7.6881 → -7.69
    assert elo_changes([1600, 1400], [40, 5], [1, 2]) == (3.84, -7.69)
    # upset: B wins: 16 * (0 - 0.7597) = -12.156 → -12.16 ; 32 * 0.7597 = 24.312 → 24.31
    assert elo_changes([1600, 1400], [40, 5], [2, 1]) == (-12.16, 24.31)
    # draw, both K 16: 16 * (0.5 - 0.7597) = -4.156 → -4.16
    assert elo_changes([1600, 1400], [30, 30], [1, 1]) == (-4.16, 4.16)


def test_k_changes_after_thirty_matches() -> None:
    assert k_factor(0) == 32 and k_factor(29) == 32
    assert k_factor(30) == 16 and k_factor(500) == 16
    assert elo_changes([1500, 1500], [29, 30], [1, 2]) == (16.0, -8.0)


def test_three_seats_hand_computed() -> None:
    # equal ratings, K/(n-1) = 16 per pair
    assert elo_changes([1500] * 3, [0] * 3, [1, 2, 3]) == (16.0, 0.0, -16.0)
    assert elo_changes([1500] * 3, [0] * 3, [1, 1, 3]) == (8.0, 8.0, -16.0)
    assert elo_changes([1500] * 3, [0] * 3, [2, 2, 2]) == (0.0, 0.0, 0.0)


def test_multi_seat_is_the_sum_of_pairwise_games() -> None:
    rng = random.Random(3)
    for _ in range(200):
        n = rng.randint(3, 5)
        ratings = [rng.uniform(1200, 1900) for _ in range(n)]
        games = [rng.randint(0, 60) for _ in range(n)]
        ranks = [rng.randint(1, n) for _ in range(n)]
        got = elo_changes(ratings, games, ranks)
        for i in range(n):
            k = (32 if games[i] < 30 else 16) / (n - 1)
            want = 0.0
            for j in range(n):
                if j != i:
                    s = 1.0 if ranks[i] < ranks[j] else 0.5 if ranks[i] == ranks[j] else 0.0
                    want += k * (s - 1 / (1 + 10 ** ((ratings[j] - ratings[i]) / 400)))
            assert got[i] == pytest.approx(want, abs=0.005 + 1e-9)
        # a single match moves a rating by at most K
        assert all(abs(c) <= 32 for c in got)


def test_two_seats_symmetric_and_zero_sum() -> None:
    rng = random.Random(4)
    for _ in range(1000):
        ra, rb = rng.uniform(1000, 2200), rng.uniform(1000, 2200)
        g = rng.choice([0, 10, 29, 30, 100])
        ranks = rng.choice([(1, 2), (2, 1), (1, 1)])
        a, b = elo_changes([ra, rb], [g, g], ranks)
        assert a == -b  # exactly zero-sum with equal K
        assert elo_changes([rb, ra], [g, g], ranks[::-1]) == (b, a)  # seat order irrelevant


def test_apply_elo_reports_every_seat() -> None:
    state = {"a": EloRating(1600.0, 40), "b": EloRating(1400.0, 5)}
    update = apply_elo(state, MatchResult(("a", "b", "new"), (1, 3, 2)))
    assert update.bot_ids == ("a", "b", "new")
    assert update.before[2] == EloRating(1500.0, 0)
    assert [r.games for r in update.after] == [41, 6, 1]
    for before, after, change in zip(update.before, update.after, update.changes, strict=True):
        assert after.rating == round(before.rating + change, 2)
    assert state["a"] == EloRating(1600.0, 40)  # pure: the input state is untouched


def random_matches(count: int, bots: int, rng: random.Random) -> list[MatchResult]:
    matches = []
    for _ in range(count):
        n = rng.choice([2, 2, 3, 4, 5])
        table = rng.sample(range(bots), n)
        matches.append(MatchResult(tuple(table), tuple(rng.randint(1, n) for _ in range(n))))
    return matches


def test_recompute_equals_incremental_bit_for_bit() -> None:
    rng = random.Random(5)
    matches = random_matches(3000, 25, rng)
    final, updates = replay_elo(matches)
    # the incremental path as the Django side runs it: one match at a time, with
    # the state stored to and read back from a 2-decimal column in between
    stored: dict[int, tuple[Decimal, int]] = {}
    for match, replayed in zip(matches, updates, strict=True):
        state = {b: EloRating(float(r), g) for b, (r, g) in stored.items()}
        update = apply_elo(state, match)
        assert update == replayed
        for bot, after in update.as_state().items():
            assert Decimal(str(after.rating)) == Decimal(after.rating).quantize(Decimal("0.01"))
            stored[bot] = (Decimal(str(after.rating)), after.games)
    assert {b: EloRating(float(r), g) for b, (r, g) in stored.items()} == final
    assert replay_elo(matches) == (final, updates)


def test_replay_can_continue_from_a_state() -> None:
    matches = random_matches(400, 10, random.Random(6))
    full, _ = replay_elo(matches)
    half, _ = replay_elo(matches[:200])
    rest, _ = replay_elo(matches[200:], state=half)
    assert rest == full


@pytest.mark.parametrize(
    "bots, ranks",
    [(("a",), (1,)), (("a", "b"), (1,)), (("a", "a"), (1, 2)), (("a", "b"), (0, 1))],
)
def test_bad_results_are_refused(bots: tuple, ranks: tuple) -> None:
    with pytest.raises(ValueError):
        MatchResult(bots, ranks)
