"""Scoring after a phase (RULES.md §10), the phase flow, and the final ranking (§11)."""

from __future__ import annotations

import pytest

from arena.games.edel_stein_reich import scoring
from tests.arena.edel_stein_reich.helpers import hold_event, new, set_all_gems


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        ([5, 3, 2], ([0], 10, 2)),  # sole majority: full value, half of 5 returned, rounded down
        ([1, 0, 0], ([0], 10, 0)),
        ([4, 4, 1], ([0, 1], 5, 2)),  # tie: split, each returns 2
        ([1, 1, 1], ([0, 1, 2], 3, 1)),  # tie: 10 // 3; each returns all it has (1)
        ([0, 0, 0], ([], 0, 0)),  # nobody holds the colour: nobody scores
    ],
)
def test_majority(counts, expected):
    assert scoring.majority(counts, 10, 1, False, 2) == expected


def test_majority_half_can_round_up():
    assert scoring.majority([5, 3], 10, 1, True, 2) == ([0], 10, 3)


def test_tie_splits_can_round_up():
    """RULES.md §10.1/§10.3 round splits down [H]; house rules must be
    configurable, so the data's `split_rounding` may say "up"."""
    assert scoring.majority([1, 1, 1], 10, 1, False, 2, split_round_up=True) == ([0, 1, 2], 4, 1)
    assert scoring.majority([5, 3], 10, 1, False, 2, split_round_up=True) == ([0], 10, 2)
    assert scoring.certificate_prizes([1, 1, 1], (10, 4), split_round_up=True) == [5, 5, 5]
    assert scoring.certificate_prizes([3, 1, 1], (10, 4), split_round_up=True) == [10, 2, 2]


@pytest.mark.parametrize(
    ("certificates", "prizes"),
    [
        ([3, 1, 0], [10, 4, 0]),
        ([3, 3, 1], [7, 7, 0]),  # tied for most share 10 + 4; no second prize
        ([3, 1, 1], [10, 2, 2]),  # tied second share 4
        ([1, 1, 1], [4, 4, 4]),  # 14 // 3
        ([0, 2, 0], [0, 10, 0]),  # only seats with a certificate compete
        ([0, 0, 0], [0, 0, 0]),
    ],
)
def test_certificate_prizes(certificates, prizes):
    assert scoring.certificate_prizes(certificates, (10, 4)) == prizes


def test_score_phase_pays_majorities_bonuses_and_certificates_then_cleans_up():
    st = new(3, 1)
    set_all_gems(st, [(5, 2, 4, 0), (1, 2, 4, 0), (0, 1, 0, 0)])
    hold_event(st, 0, "scoring-red-x2")  # seat 0 wins red: +10
    hold_event(st, 1, "scoring-red-plus-5")  # seat 1 does not: nothing
    hold_event(st, 1, "scoring-green-plus-3")  # seat 1 ties for green: +3, unsplit
    hold_event(st, 0, "certificate")
    hold_event(st, 2, "certificate")
    hold_event(st, 2, "certificate")
    scoring.score_phase(st)
    # red 10 to seat 0 (returns 2); yellow tie 8 → 4 each (return 2 each);
    # green tie 6 → 3 each (return 2 each); blue: nobody
    # certificates: seat 2 most (10), seat 0 second (4)
    assert st.money == [10 + 4 + 3 + 10 + 4, 4 + 3 + 3, 10]
    assert st.gems == [[3, 0, 2, 0], [1, 0, 2, 0], [0, 1, 0, 0]]
    assert st.held == [[], [], []]
    st.check_invariants()


def test_score_phase_rounds_splits_as_the_component_data_says():
    """Three seats tied on yellow (8 // 3) and on certificates (14 // 3)."""
    from arena.games.edel_stein_reich import GAME
    from tests.arena.edel_stein_reich.test_options import house_values

    for rounding, yellow, certificate in (("down", 2, 4), ("up", 3, 5)):
        st = GAME.new(3, 1, {"components": {**house_values(), "split_rounding": rounding}})
        set_all_gems(st, [(0, 1, 0, 0), (0, 1, 0, 0), (0, 1, 0, 0)])
        for seat in range(3):
            hold_event(st, seat, "certificate")
        scoring.score_phase(st)
        assert st.money == [yellow + certificate] * 3, rounding


def test_a_phase_ends_when_the_gem_deck_is_used_up_and_the_next_is_set_up():
    st = new(3, 2)
    assert len(st.set_aside) == 6 and len(st.gem_deck) == 21  # 24 in play, 3 dealt
    rounds = 0
    while st.phase_no == 0:
        # everyone takes Money: lost every round, so nothing but scoring changes
        for seat in range(3):
            st.apply(seat, "play money")
        rounds += 1
    assert rounds == 8  # 24 cards / 3 seats
    assert ("scored", 1) in st.prev_log
    assert st.phase_no == 1 and st.round_no == 0
    assert len(st.set_aside) == 6 and len(st.gem_deck) == 21 and st.gem_discard == []
    # all three tie on every colour: 10//3, 8//3, 6//3, 4//3 each and 2 gems back per colour
    assert st.money == [3 + 2 + 2 + 1] * 3
    assert st.gems == [[1, 1, 1, 1]] * 3
    st.check_invariants()


@pytest.mark.parametrize(("seats", "rounds"), [(3, 8), (4, 7), (5, 6)])
def test_three_phases_then_the_game_ends(seats, rounds):
    st = new(seats, 4)
    played = 0
    while not st.is_over():
        for seat in range(seats):
            st.apply(seat, "play money")
        played += 1
    assert played == 3 * rounds
    assert st.outcome().reason == "three phases scored"


def test_final_ranking_by_money_then_gem_value_then_shared():
    st = new(4, 1)
    st.money = [20, 20, 20, 25]
    st.bank_paid = 85
    set_all_gems(st, [(1, 0, 0, 0), (0, 1, 0, 1), (0, 0, 2, 0), (0, 0, 0, 0)])
    st.end_reason = "test"
    out = scoring.final_outcome(st)
    # seat 3 richest; seats 0,1,2 tie on money; gem value 4, 4, 4: shared second
    assert out.ranks == (2, 2, 2, 1)
    set_all_gems(st, [(1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 2, 0), (0, 0, 0, 0)])
    assert scoring.final_outcome(st).ranks == (2, 4, 2, 1)
    assert scoring.final_outcome(st).scores == (20.0, 20.0, 20.0, 25.0)


def test_bonus_cards_stack_and_need_the_colour_to_be_paid():
    st = new(4, 2)
    set_all_gems(st, [(4, 0, 0, 0), (1, 2, 0, 0), (0, 2, 0, 0), (0, 0, 0, 0)])
    hold_event(st, 0, "scoring-red-plus-5")
    hold_event(st, 0, "scoring-red-plus-5")  # §9.3: stacks
    hold_event(st, 2, "scoring-yellow-plus-4")  # tied for yellow: paid, never split
    hold_event(st, 3, "scoring-blue-x2")  # nobody holds blue: nobody is paid for it
    scoring.score_phase(st)
    assert st.money == [10 + 5 + 5, 4, 4 + 4, 0]
    # red: seat 0 alone returns half of 4; yellow: both tied seats return 2
    assert st.gems == [[2, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    assert st.held == [[], [], [], []]
    st.check_invariants()


def test_a_new_phase_keeps_the_event_deck_as_it_is():
    st = new(4, 5)
    while st.gem_deck:  # play to the last round of phase 1; every action is lost
        for seat in range(4):
            st.apply(seat, "play money")
    deck = list(st.ev_deck)
    assert st.phase_no == 0 and len(deck) >= 2
    for seat in range(4):
        st.apply(seat, "play money")
    # §10.5 [H]: no reshuffle; the next round offers the card that was on top
    assert st.phase_no == 1 and ("scored", 1) in st.prev_log
    assert st.ev_deck == deck[:-1] and st.offered == deck[-1]
    st.check_invariants()


@pytest.mark.parametrize(
    ("certificates", "prizes"),
    [
        ([2, 1, 1, 1, 0], [10, 1, 1, 1, 0]),  # three tied second share 4 (+ no third prize)
        ([1, 1, 1, 1, 1], [2, 2, 2, 2, 2]),  # 14 // 5
        ([3, 2, 2, 1, 0], [10, 2, 2, 0, 0]),  # the tied second use up place 3: no prize left
        ([0, 0, 4, 4, 0], [0, 0, 7, 7, 0]),
    ],
)
def test_certificate_prizes_with_five_seats(certificates, prizes):
    assert scoring.certificate_prizes(certificates, (10, 4)) == prizes


def test_a_five_way_majority_tie_pays_nothing_but_still_counts_for_bonus_cards():
    # §10.1: blue 4 split five ways rounds down to 0, and each returns 2;
    # §9.3: the tied seats were paid for blue, so a blue card's bonus is paid
    st = new(5, 1)
    set_all_gems(st, [(0, 0, 0, 3)] * 5)
    hold_event(st, 4, "scoring-blue-plus-2")
    scoring.score_phase(st)
    assert ("majority", 3, (0, 1, 2, 3, 4), 0, 2) in st.log
    assert st.money == [0, 0, 0, 0, 2]
    assert st.gems == [[0, 0, 0, 1]] * 5
    st.check_invariants()


def test_the_bank_never_runs_out():
    # §2 / §8 [H]: the box holds 425 million, the software bank is unlimited
    st = new(3, 1)
    st.money = [200, 200, 100]
    st.bank_paid = 500
    set_all_gems(st, [(4, 4, 4, 4), (0, 0, 0, 0), (0, 0, 0, 0)])
    hold_event(st, 0, "certificate")
    scoring.score_phase(st)
    assert st.money == [200 + 10 + 8 + 6 + 4 + 10, 200, 100]
    assert st.bank_paid == 538
    st.check_invariants()


def test_final_ranking_with_five_seats():
    # §11: most money first; equal money by gem value; then a shared rank
    st = new(5, 1)
    st.money = [30, 30, 12, 30, 12]
    st.bank_paid = 114
    set_all_gems(st, [(1, 0, 0, 0), (0, 0, 0, 4), (0, 0, 0, 0), (0, 0, 2, 0), (0, 0, 0, 0)])
    st.end_reason = "test"
    # seats 0, 1, 3 share the most money; gem value 4, 4, 4: a shared win
    assert scoring.final_outcome(st).ranks == (1, 1, 4, 1, 4)
    set_all_gems(st, [(1, 0, 0, 0), (0, 0, 0, 5), (0, 0, 0, 0), (0, 0, 2, 0), (0, 0, 0, 1)])
    assert scoring.final_outcome(st).ranks == (2, 1, 5, 2, 4)


def test_every_gem_card_is_back_in_play_at_a_new_phase():
    # §10.5: all 30 gem cards are collected and shuffled, and a fresh set is
    # set aside: cards set aside in phase 1 can be dealt in phase 2
    dealt_again = 0
    for seed in range(6):
        st = new(3, seed)
        first = set(st.set_aside)
        while st.phase_no == 0:
            for seat in range(3):
                st.apply(seat, "play money")
        in_play = set(st.gem_deck) | set(st.gem_card)
        assert in_play | set(st.set_aside) == set(range(30)) and st.gem_discard == []
        assert len(st.set_aside) == 6
        dealt_again += bool(first & in_play)
    assert dealt_again
