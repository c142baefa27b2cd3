"""Pairing: mirrored pairs, rotations, no starvation, information, ~20 % random."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from ladder.ratings import PairingBot, PairingConfig, plan_matches


def ladder(n: int = 12) -> list[PairingBot]:
    return [PairingBot(f"b{i}", 1200.0 + 50 * i, 80.0, 50, float(i)) for i in range(n)]


def test_two_seats_are_mirrored_pairs() -> None:
    plan = plan_matches(ladder(), seats=2, groups=30, rng=random.Random(1))
    assert len(plan) == 60
    by_group: dict[int, list] = {}
    for match in plan:
        by_group.setdefault(match.group, []).append(match)
    assert sorted(by_group) == list(range(30))
    for first, second in by_group.values():
        assert first.seats == second.seats[::-1]
        assert first.seed == second.seed
        assert len(set(first.seats)) == 2
    assert len({m.seed for m in plan}) == 30


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_tables_are_rotated(seats: int) -> None:
    plan = plan_matches(ladder(), seats=seats, groups=10, rng=random.Random(2), first_group=100)
    assert len(plan) == 10 * seats
    for g in range(100, 110):
        group = [m for m in plan if m.group == g]
        assert len(group) == seats and len({m.seed for m in group}) == 1
        base = group[0].seats
        assert len(set(base)) == seats
        assert [m.seats for m in group] == [base[r:] + base[:r] for r in range(seats)]
        for seat in range(seats):  # every bot sits in every seat once
            assert {m.seats[seat] for m in group} == set(base)


def simulate_rounds(bots: list[PairingBot], seats: int, groups: int, rng: random.Random, config):
    """Plan one group at a time, feeding last_played back like the ladder does."""
    played: list[tuple[int, tuple]] = []
    status = {b.bot_id: b for b in bots}
    for g in range(groups):
        plan = plan_matches(list(status.values()), seats, 1, rng, first_group=g, config=config)
        for match in plan:
            for bot in match.seats:
                old = status[bot]
                status[bot] = PairingBot(bot, old.rating, old.half_width, old.games + 1, 1000.0 + g)
        played.append((g, plan[0].seats))
    return played


@pytest.mark.parametrize("seats", [2, 4])
def test_no_starvation(seats: int) -> None:
    # b0 is far below everyone with a tiny interval: information never picks it,
    # and it is never the most uncertain. It must still play regularly.
    bots = [PairingBot("b0", 600.0, 5.0, 500, 0.0)] + [
        PairingBot(f"b{i}", 1500.0 + 10 * i, 150.0, 5, 0.0) for i in range(1, 16)
    ]
    config = PairingConfig(random_fraction=0.0)
    played = simulate_rounds(bots, seats, 600, random.Random(3), config)
    window = config.fairness_every * len(bots)
    for start in range(0, 600 - window):
        seen = {b for g, table in played[start : start + window] for b in table}
        assert seen == {b.bot_id for b in bots}, f"someone starved in groups {start}…"
    counts = Counter(b for _, table in played for b in table)
    assert counts["b0"] >= 600 / window


def test_about_twenty_percent_random_opponents() -> None:
    rng = random.Random(4)
    plan = plan_matches(ladder(20), seats=2, groups=3000, rng=rng)
    groups = {m.group: m for m in plan}
    share = sum(bool(m.random_picks) for m in groups.values()) / len(groups)
    assert 0.17 < share < 0.23
    plan4 = plan_matches(ladder(20), seats=4, groups=1000, rng=rng)
    # 3 opponent seats per table, each random with probability 0.2
    per_seat = sum(len(m.random_picks) for m in {x.group: x for x in plan4}.values()) / 3000
    assert 0.17 < per_seat < 0.23
    none = plan_matches(ladder(20), 2, 200, rng, config=PairingConfig(random_fraction=0.0))
    assert not any(m.random_picks for m in none)


def test_opponent_is_the_closest_call() -> None:
    # equal intervals: the informative opponent is the nearest rating
    bots = [PairingBot(f"b{i}", r, 100.0, 40, 5.0) for i, r in enumerate([1000, 1480, 1530, 2000])]
    bots.append(PairingBot("seed", 1500.0, 100.0, 40, 0.0))  # waited longest
    plan = plan_matches(bots, 2, 1, random.Random(5), config=PairingConfig(random_fraction=0.0))
    assert set(plan[0].seats) == {"seed", "b1"}


def test_uncertain_bots_are_seeded_first() -> None:
    rated = [PairingBot(f"b{i}", 1400.0 + 20 * i, 60.0, 80, 10.0 + i) for i in range(10)]
    newcomer = PairingBot("new", None, None, 0, 50.0)  # played most recently, but unrated
    for seed_by in ("rank", "interval"):
        config = PairingConfig(random_fraction=0.0, seed_by=seed_by)
        # odd group numbers are uncertainty groups, even ones fairness groups
        plan = plan_matches(rated + [newcomer], 2, 1, random.Random(6), 1, config)
        assert "new" in plan[0].seats
        fair = plan_matches(rated + [newcomer], 2, 1, random.Random(6), 0, config)
        assert "b0" in fair[0].seats  # the longest-waiting bot


def test_a_batch_spreads_over_the_pool() -> None:
    plan = plan_matches(ladder(16), seats=2, groups=16, rng=random.Random(7))
    counts = Counter(b for m in plan for b in m.seats)
    assert len(counts) >= 14 and max(counts.values()) <= 8


def test_deterministic_for_the_same_generator() -> None:
    one = plan_matches(ladder(), 4, 20, random.Random(8))
    two = plan_matches(ladder(), 4, 20, random.Random(8))
    assert one == two
    assert one != plan_matches(ladder(), 4, 20, random.Random(9))


def test_edges() -> None:
    assert plan_matches(ladder(3), 4, 5, random.Random(1)) == []
    with pytest.raises(ValueError):
        plan_matches(ladder(3), 1, 5, random.Random(1))
    with pytest.raises(ValueError):
        plan_matches(ladder(3) + ladder(3), 2, 5, random.Random(1))
