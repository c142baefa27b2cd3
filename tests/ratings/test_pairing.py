"""Pairing: mirrored pairs, rotations, no starvation, information, ~20 % random."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import numpy as np
import pytest

from ladder.ratings import PairingBot, PairingConfig, pair_games_of, plan_matches
from ladder.ratings.pairing import _Posterior
from ladder.ratings.results import ELO_PER_NAT

PAIRING_DEFAULT = PairingConfig()


def ladder(n: int = 12) -> list[PairingBot]:
    return [PairingBot(f"b{i}", 1200.0 + 50 * i, 50, float(i)) for i in range(n)]


def round_robin(bots: list[PairingBot], games: int) -> dict:
    return {(a.bot_id, b.bot_id): games for a, b in itertools.combinations(bots, 2)}


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


def simulate_rounds(
    bots: list[PairingBot], seats: int, groups: int, rng: random.Random, config, pair_games
):
    """Plan one group at a time, feeding last_played and the games back like the ladder does."""
    played: list[tuple[int, tuple]] = []
    status = {b.bot_id: b for b in bots}
    pair_games = dict(pair_games)
    for g in range(groups):
        plan = plan_matches(
            list(status.values()),
            seats,
            1,
            rng,
            first_group=g,
            config=config,
            pair_games=pair_games,
        )
        for match in plan:
            for bot in match.seats:
                old = status[bot]
                status[bot] = PairingBot(bot, old.rating, old.games + 1, 1000.0 + g)
        for pair, games in pair_games_of([m.seats for m in plan]).items():
            pair_games[pair] = pair_games.get(pair, 0) + games
        played.append((g, plan[0].seats))
    return played


@pytest.mark.parametrize("seats", [2, 4])
def test_no_starvation(seats: int) -> None:
    # b0 is far below everyone and has met each of them 200 times: information
    # never picks it, and it is never the most uncertain. It must still play regularly.
    b0 = PairingBot("b0", 600.0, 3000, 0.0)
    others = [PairingBot(f"b{i}", 1500.0 + 10 * i, 5, 0.0) for i in range(1, 16)]
    known = {("b0", b.bot_id): 200 for b in others}
    config = PairingConfig(random_fraction=0.0)
    bots = [b0] + others
    played = simulate_rounds(bots, seats, 600, random.Random(3), config, known)
    window = config.fairness_every * len(bots)
    for start in range(0, 600 - window):
        seen = {b for g, table in played[start : start + window] for b in table}
        assert seen == {b.bot_id for b in bots}, f"someone starved in groups {start}…"
    counts = Counter(b for _, table in played for b in table)
    assert counts["b0"] >= 600 / window
    # ... and only when fairness seats it: information never picks it
    assert all(g % config.fairness_every == 0 for g, table in played if "b0" in table)


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


def test_no_lopsided_games_and_new_opponents_first() -> None:
    config = PairingConfig(random_fraction=0.0)
    seed = PairingBot("seed", 1500.0, 40, 0.0)  # waited longest: seeds group 0
    # a game against a bot 1000 Elo away tells nothing
    far = [PairingBot("near", 1520.0, 40, 5.0), PairingBot("far", 2500.0, 40, 5.0)]
    plan = plan_matches([seed] + far, 2, 1, random.Random(5), config=config)
    assert set(plan[0].seats) == {"seed", "near"}
    # of two equal opponents, the one never met; whichever comes first in the input
    twins = [PairingBot("met", 1550.0, 40, 5.0), PairingBot("new", 1550.0, 40, 5.0)]
    for order in (twins, twins[::-1]):
        for rng_seed in range(5):
            plan = plan_matches(
                [seed] + order,
                2,
                1,
                random.Random(rng_seed),
                config=config,
                pair_games={("seed", "met"): 30, ("met", "new"): 5, ("seed", "other"): 9},
            )
            assert set(plan[0].seats) == {"seed", "new"}


def test_uncertain_bots_are_seeded_first() -> None:
    rated = [PairingBot(f"b{i}", 1400.0 + 20 * i, 90, 10.0 + i) for i in range(10)]
    newcomer = PairingBot("new", None, 0, 50.0)  # played most recently, but unrated
    config = PairingConfig(random_fraction=0.0)
    known = round_robin(rated, 10)
    # odd group numbers are information groups, even ones fairness groups
    plan = plan_matches(rated + [newcomer], 2, 1, random.Random(6), 1, config, known)
    assert "new" in plan[0].seats
    fair = plan_matches(rated + [newcomer], 2, 1, random.Random(6), 0, config, known)
    assert "b0" in fair[0].seats  # the longest-waiting bot


def expected_correct_pairs(mu: np.ndarray, cov: np.ndarray) -> float:
    """Σ_{i<j} Φ(|μ_i − μ_j| / s_ij), written out pair by pair."""
    total = 0.0
    for i, j in itertools.combinations(range(len(mu)), 2):
        s = math.sqrt(cov[i, i] + cov[j, j] - 2 * cov[i, j])
        total += 0.5 * (1 + math.erf(abs(mu[i] - mu[j]) / s / math.sqrt(2)))
    return total


def test_gain_is_twice_the_rise_in_expected_correct_pairs_per_game() -> None:
    # Without the floor, G_ab = q_ab · Σ φ(z) z / s² · Δs² is the derivative
    # of Σ Φ(z) with respect to games between a and b, times 2 (dΦ/ds² = −φ z / 2s²).
    bots = [PairingBot(i, r, 0, None) for i, r in enumerate([1380.0, 1450, 1500, 1530, 1700])]
    games = {(0, 1): 3, (1, 2): 1, (2, 3): 4, (0, 4): 2, (3, 4): 1}
    config = PairingConfig(z_floor=0.0)
    posterior = _Posterior(bots, games, config)
    gains = posterior.gains()
    mu = np.array([b.rating for b in bots]) / ELO_PER_NAT
    base = expected_correct_pairs(mu, posterior.cov)
    eps = 1e-4
    for a, b in itertools.combinations(range(5), 2):
        more = dict(games)
        more[(a, b)] = more.get((a, b), 0) + eps
        bumped = expected_correct_pairs(mu, _Posterior(bots, more, config).cov)
        assert gains[a, b] == pytest.approx(2 * (bumped - base) / eps, rel=1e-3, abs=1e-9)
        assert gains[b, a] == pytest.approx(gains[a, b], rel=1e-12)
    assert np.all(np.diag(gains) == 0)


def test_planned_games_update_the_posterior_exactly() -> None:
    # The low-rank updates of Σ and K equal a fresh inverse with the planned games
    # added (pair weights and means as at the start of the plan).
    bots = [PairingBot(i, 1500.0 + 40 * i, 0, None) for i in range(6)]
    games = {(0, 1): 2, (1, 2): 3, (3, 4): 1, (4, 5): 2, (0, 5): 1}
    posterior = _Posterior(bots, games, PAIRING_DEFAULT)
    laplacian = posterior.laplacian.copy()
    posterior.played([1, 3, 4], seats=3)
    posterior.played([0, 2], seats=2)
    more = dict(games)
    for table, seats in (([1, 3, 4], 3), ([0, 2], 2)):
        for pair, n in pair_games_of([table]).items():
            more[pair] = more.get(pair, 0) + n * seats
    fresh = _Posterior(bots, more, PAIRING_DEFAULT)
    np.testing.assert_allclose(posterior.cov, fresh.cov, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(
        posterior.k, fresh.cov @ laplacian @ fresh.cov, rtol=1e-8, atol=1e-12
    )


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
    with pytest.raises(ValueError):
        plan_matches(ladder(3), 2, 5, random.Random(1), config=PairingConfig(prior_draws=0))
    # games with bots outside the pool (disabled, paused) are ignored
    assert plan_matches(ladder(4), 2, 3, random.Random(2), pair_games={("b0", "gone"): 50}) == (
        plan_matches(ladder(4), 2, 3, random.Random(2))
    )


def owned(owners: list[str | None]) -> list[PairingBot]:
    return [
        PairingBot(f"b{i}", 1300.0 + 25 * i, 20, float(i), owner=owner)
        for i, owner in enumerate(owners)
    ]


@pytest.mark.parametrize("seats", [2, 3, 5])
def test_an_owners_bots_never_share_a_table_while_others_are_left(seats: int) -> None:
    # five owners with three bots each, plus two bots without an owner: even
    # the information's favourite pairs (siblings 25 Elo apart, never met) are
    # passed over, and so are random picks of a sibling
    owners = [f"u{i % 5}" for i in range(15)] + [None, None]
    bots = owned(owners)
    owner_of = {b.bot_id: b.owner for b in bots}
    for config in (PairingConfig(), PairingConfig(random_fraction=1.0)):
        plan = plan_matches(bots, seats, 300, random.Random(seats), config=config)
        assert len(plan) == 300 * seats
        for match in plan:
            mine = [owner_of[b] for b in match.seats if owner_of[b] is not None]
            assert len(mine) == len(set(mine)), match
        # siblings still play everyone else: every bot is seated
        assert {b for m in plan for b in m.seats} == set(owner_of)


def test_with_fewer_owners_than_seats_siblings_meet_as_few_as_the_table_needs() -> None:
    # two owners for tables of 3: each table has two bots of one owner and one of the other
    bots = owned(["u0", "u0", "u0", "u1", "u1"])
    owner_of = {b.bot_id: b.owner for b in bots}
    plan = plan_matches(bots, 3, 100, random.Random(6))
    assert len(plan) == 300
    for match in plan:
        assert sorted(Counter(owner_of[b] for b in match.seats).values()) == [1, 2]
    # a single owner's private ladder still plays
    alone = plan_matches(owned(["me"] * 4), 2, 10, random.Random(7))
    assert len(alone) == 20


def test_bots_with_distinct_owners_are_planned_as_without_owners() -> None:
    # keeping owners apart draws nothing from the generator: a pool where no
    # two bots share an owner gets exactly the plan it got before owners existed
    for seats in (2, 4):
        plain = plan_matches(ladder(12), seats, 40, random.Random(11))
        apart = [
            PairingBot(b.bot_id, b.rating, b.games, b.last_played, owner=f"u{i}")
            for i, b in enumerate(ladder(12))
        ]
        assert plan_matches(apart, seats, 40, random.Random(11)) == plain
