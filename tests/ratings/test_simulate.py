"""The simulation harness end to end (real pairing + real fit), small and seeded.

Catches sign errors, 400-vs-ln 10 scale errors and broken intervals quickly.
"""

from __future__ import annotations

import itertools
import statistics

from ladder.ratings.simulate import SimConfig, kendall_tau, main, run_ladder


def test_kendall_tau() -> None:
    assert kendall_tau([1, 2, 3, 4], [10, 20, 30, 40]) == 1.0
    assert kendall_tau([1, 2, 3, 4], [40, 30, 20, 10]) == -1.0
    assert kendall_tau([1, 2, 3, 4], [10, 20, 40, 30]) == 4 / 6


def test_simulated_ladders_are_ranked_and_calibrated() -> None:
    for seats, games in ((2, 40), (4, 20)):
        config = SimConfig(seats=seats, checkpoints=(games,))
        points = [run_ladder(config, seed)[0] for seed in range(6)]
        assert statistics.fmean(p.tau for p in points) >= 0.72
        coverage = sum(p.covered for p in points) / sum(p.bots for p in points)
        assert 0.88 <= coverage <= 0.99
        assert min(p.min_games for p in points) >= games // 3  # nobody starves


def test_command_line_prints_a_table(capsys) -> None:
    main(["--runs", "2", "--jobs", "1", "--bots", "8", "--seats", "2", "--checkpoints", "4"])
    out = capsys.readouterr().out
    assert "| 4 |" in out and "Kendall" in out


def test_oracle_pairing_shows_the_pairing_the_true_ratings(monkeypatch) -> None:
    from ladder.ratings import simulate

    seen = []
    real = simulate.plan_matches

    def spy(bots, *args, **kwargs):
        seen.append([b.rating for b in bots])
        return real(bots, *args, **kwargs)

    monkeypatch.setattr(simulate, "plan_matches", spy)
    run_ladder(SimConfig(bots=8, checkpoints=(2,)), seed=3)
    assert seen[0] == [None] * 8  # before any match the fit knows nothing
    seen.clear()
    run_ladder(SimConfig(bots=8, checkpoints=(2,), oracle_pairing=True), seed=3)
    first = seen[0]
    assert None not in first
    assert abs(statistics.fmean(first) - 1500.0) < 1e-9  # centred truth, as the fit is
    assert all(ratings == first for ratings in seen)  # the truth does not move


def test_the_pairing_sees_who_has_met_whom(monkeypatch) -> None:
    from ladder.ratings import simulate

    seen = []
    real = simulate.plan_matches

    def spy(bots, seats, groups, rng, **kwargs):
        seen.append(dict(kwargs["pair_games"]))
        return real(bots, seats, groups, rng, **kwargs)

    monkeypatch.setattr(simulate, "plan_matches", spy)
    run_ladder(SimConfig(seats=4, bots=8, checkpoints=(6,)), seed=5)
    assert seen[0] == {}
    # 8 bots at 4 seats: one group per plan (4 rotations × 6 pairs at the table)
    for before, after in itertools.pairwise(seen):
        assert sum(after.values()) - sum(before.values()) == 4 * 6
        assert all(after.get(pair, 0) >= n for pair, n in before.items())
