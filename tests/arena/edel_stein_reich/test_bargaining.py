"""Bargaining (RULES.md §6): opener, offers, forcing rules, outcome, barter_winner."""

from __future__ import annotations

import itertools

import pytest

from arena.engine import IllegalAction
from arena.games.edel_stein_reich import bargaining
from tests.arena.edel_stein_reich.helpers import (
    commit_all,
    give_gem_card,
    new,
    offer,
    set_all_gems,
    set_offered,
)


def money_duel(holdings, money=(0, 0, 0), **options):
    """3 seats: seats 0 and 1 both choose Money, seat 2 takes Gems alone."""
    st = new(3, 5, **options)
    set_all_gems(st, holdings)
    st.money = list(money)
    st.bank_paid = sum(money)
    give_gem_card(st, 0, "G01")  # 7 money
    give_gem_card(st, 1, "G02")  # 7 money
    commit_all(st, ["money", "money", "gems"])
    return st


@pytest.mark.parametrize(
    ("holdings", "money", "opener"),
    [
        # §6.1: fewer red opens
        ([(3, 0, 0, 0), (2, 9, 9, 9), (3, 3, 3, 3)], (0, 0, 0), 1),
        ([(1, 3, 3, 3), (2, 0, 0, 0), (3, 3, 3, 3)], (0, 0, 0), 0),
        # then fewer yellow, green, blue [S]
        ([(2, 2, 0, 0), (2, 1, 5, 5), (3, 3, 3, 3)], (0, 0, 0), 1),
        ([(2, 2, 1, 9), (2, 2, 2, 0), (3, 3, 3, 3)], (0, 0, 0), 0),
        ([(2, 2, 2, 3), (2, 2, 2, 2), (3, 3, 3, 3)], (0, 0, 0), 1),
        # then less money [H]
        ([(2, 2, 2, 2), (2, 2, 2, 2), (3, 3, 3, 3)], (5, 4, 0), 1),
        # then the lower seat [H]
        ([(2, 2, 2, 2), (2, 2, 2, 2), (3, 3, 3, 3)], (4, 4, 0), 0),
    ],
)
def test_opener_follows_the_priority_order(holdings, money, opener):
    st = money_duel(holdings, money)
    assert st.phase == "bargain"
    assert st.to_act() == [opener]
    assert st.observation(2)["bargain"]["opener"] == opener


def test_opener_must_raise_first_and_cannot_accept():
    st = money_duel([(1, 1, 1, 1), (3, 3, 3, 3), (3, 3, 3, 3)])
    legal = st.legal_actions(0)
    assert "accept" not in legal
    assert all(a.startswith("offer r") for a in legal)
    with pytest.raises(IllegalAction):
        st.apply(0, "accept")


def test_a_raise_must_beat_the_standing_offer_by_size_then_value():
    st = money_duel([(2, 2, 2, 2), (3, 3, 3, 3), (3, 3, 3, 3)])
    offer(st, 0, yellow=1)  # size 1, value 3
    assert st.to_act() == [1]
    assert "accept" in st.legal_actions(1)
    # one green (value 2) does not beat one yellow: a blue must be added
    st.apply(1, "offer r0")
    st.apply(1, "offer y0")
    st.apply(1, "offer g1")
    assert "offer b0" not in st.legal_actions(1)
    assert "offer b1" in st.legal_actions(1)
    st.apply(1, "offer b1")  # 2 gems beat 1 gem even with the same value
    assert st.bar_standing == (0, 0, 1, 1) and st.bar_maker == 1
    # seat 0 answers: without red and yellow it needs at least one green
    st.apply(0, "offer r0")
    st.apply(0, "offer y0")
    assert st.legal_actions(0) == ["offer g1", "offer g2"]
    st.apply(0, "offer g1")
    # green + blue would equal the standing offer, so the engine forced 2 blue
    assert st.bar_standing == (0, 0, 1, 2) and st.bar_maker == 0
    assert st.to_act() == [1]


def test_equal_offer_is_not_a_raise_so_the_other_must_accept():
    st = money_duel([(1, 1, 0, 0), (3, 3, 3, 3), (3, 3, 3, 3)])
    offer(st, 0, yellow=1)
    offer(st, 1, red=1, yellow=1)  # size 2, value 7
    # seat 0's best offer (1 red + 1 yellow) only equals it: the engine accepts
    assert st.phase != "bargain"
    assert st.gems[0] == [2, 2, 0, 0] and st.gems[1] == [2, 2, 3, 3]
    assert st.money[:2] == [0, 7]


def test_accept_transfers_the_gems_and_the_maker_performs():
    st = money_duel([(2, 2, 2, 2), (3, 3, 3, 3), (3, 3, 3, 3)])
    offer(st, 0, red=1, blue=1)
    st.apply(1, "accept")
    assert st.gems[0] == [1, 2, 2, 1]
    assert st.gems[1] == [4, 3, 3, 4]
    assert st.money[0] == 7 and st.money[1] == 0  # seat 0's own gem card pays 7
    accepted = [e for e in st.prev_log + st.log if e[0] == "accept"]
    assert accepted == [("accept", 1, 0, (1, 0, 0, 1), 0)]
    st.check_invariants()


def test_a_seat_without_a_raise_is_made_to_accept():
    st = money_duel([(2, 2, 2, 2), (2, 2, 2, 3), (3, 3, 3, 3)])
    offer(st, 0, red=2, yellow=2, green=2, blue=2)  # everything: size 8
    offer(st, 1, red=2, yellow=2, green=2, blue=3)  # size 9: seat 0 cannot beat it
    assert st.phase != "bargain"
    assert st.gems[0] == [4, 4, 4, 5] and st.gems[1] == [0, 0, 0, 0]
    assert st.money[:2] == [0, 7]
    st.check_invariants()


def test_opener_without_gems_passes_the_opening_and_both_without_gems_void_it():
    st = money_duel([(0, 0, 0, 0), (1, 0, 0, 0), (3, 3, 3, 3)])
    # seat 0 comes first but holds no gem: seat 1 opens; its only offer (1 red)
    # and seat 0's acceptance are forced, so the engine plays them
    log = st.prev_log + st.log
    assert ("offer", 1, (1, 0, 0, 0)) in log
    assert st.gems[0] == [1, 0, 0, 0] and st.money[:2] == [0, 7]
    void = money_duel([(0, 0, 0, 0), (0, 0, 0, 0), (3, 3, 3, 3)])
    assert void.money[:2] == [0, 0]  # nobody performed Money
    assert ("void", 0, (0, 1)) in void.prev_log + void.log


def test_bargaining_always_ends():
    st = money_duel([(5, 5, 5, 5), (5, 5, 5, 5), (3, 3, 3, 3)])
    steps = 0
    while st.phase == "bargain":
        seat = st.to_act()[0]
        legal = st.legal_actions(seat)
        # the slowest possible bargaining: never accept, always the smallest raise
        raises = [a for a in legal if a != "accept"]
        st.apply(seat, min(raises, key=lambda a: int(a[7:])) if raises else legal[0])
        steps += 1
        assert steps < 500
    assert st.phase != "bargain"


def test_more_gems_option_gives_the_action_to_the_richer_seat_after_the_trade():
    holdings = [(2, 2, 2, 2), (3, 3, 3, 3), (3, 3, 3, 3)]
    default = money_duel(holdings)
    offer(default, 0, yellow=1)
    default.apply(1, "accept")
    assert default.money[:2] == [7, 0]  # the maker acts (public sources)
    korean = money_duel(holdings, barter_winner="more_gems")
    offer(korean, 0, yellow=1)
    korean.apply(1, "accept")
    # after the trade seat 1 has 3 red vs 2: it takes the action
    assert korean.money[:2] == [0, 7]
    assert korean.gems[1] == [3, 4, 3, 3]


def test_more_gems_rule_on_equal_holdings_keeps_the_maker():
    assert bargaining.winner_by_more_gems([2, 2, 2, 2], [2, 2, 2, 2], 0, 0, 1) == 0
    assert bargaining.winner_by_more_gems([2, 2, 2, 2], [2, 2, 3, 0], 1, 0, 1) == 1
    assert bargaining.winner_by_more_gems([2, 3, 0, 0], [2, 2, 9, 9], 1, 0, 1) == 0


def brute_force(holding, standing_size, standing_value, barter):
    out = set()
    for offer_ in itertools.product(*(range(h + 1) for h in holding)):
        size, value = bargaining.size_value(offer_, barter)
        if (size, value) > (standing_size, standing_value) and size:
            out.add(offer_)
    return out


def staged(holding, standing_size, standing_value, barter, partial=()):
    if len(partial) == 4:
        return {tuple(partial)}
    out = set()
    for k in bargaining.stage_counts(holding, list(partial), standing_size, standing_value, barter):
        out |= staged(holding, standing_size, standing_value, barter, partial + (k,))
    return out


@pytest.mark.parametrize(
    ("holding", "standing"),
    [
        ((3, 3, 3, 3), (0, 0, 0, 0)),
        ((2, 0, 4, 1), (1, 0, 0, 0)),
        ((1, 2, 0, 3), (0, 2, 1, 0)),
        ((0, 0, 0, 2), (0, 0, 1, 0)),
        ((4, 1, 1, 0), (3, 0, 0, 0)),
        ((0, 1, 0, 0), (0, 1, 0, 0)),
    ],
)
def test_offer_steps_reach_every_beating_multiset_exactly_once(holding, standing):
    barter = (4, 3, 2, 1)
    size, value = bargaining.size_value(standing, barter)
    assert staged(holding, size, value, barter) == brute_force(holding, size, value, barter)


def test_offer_step_lists_are_bounded_by_one_colour():
    st = money_duel([(9, 9, 1, 1), (9, 9, 1, 1), (3, 3, 3, 3)])
    # each step lists at most (gems of one colour + 1) counts plus accept
    assert len(st.legal_actions(st.to_act()[0])) <= 10


def test_an_event_with_no_card_to_win_is_still_bargained():
    # §5.4 / §7.2 [H]: two seats chose Event while no card is offered and none
    # can be drawn (both facts are public at commit time). The rules do not skip
    # the bargain: the gems change hands and the winner's Event yields nothing.
    st = new(3, 5)
    set_all_gems(st, [(1, 1, 1, 1), (3, 3, 3, 3), (3, 3, 3, 3)])
    set_offered(st, None)
    st.held[2].extend(st.ev_deck + st.ev_discard)  # arrange: every card is held
    st.ev_deck, st.ev_discard = [], []
    commit_all(st, ["event", "event", "money"])
    assert st.phase == "bargain" and st.to_act() == [0]
    offer(st, 0, blue=1)
    st.apply(1, "accept")
    assert st.gems[0] == [1, 1, 1, 0] and st.gems[1] == [3, 3, 3, 4]
    assert ("no_event", 0) in st.prev_log
    st.check_invariants()


def test_a_five_seat_bargain_between_equal_seats_is_opened_by_the_lower_seat():
    # §6.1 to its last step with 5 seats: equal gems, equal money, lower seat opens
    st = new(5, 5)
    set_all_gems(st, [(3, 3, 3, 3), (2, 2, 2, 2), (3, 3, 3, 3), (3, 3, 3, 3), (2, 2, 2, 2)])
    st.money = [1, 6, 0, 2, 6]
    st.bank_paid = 15
    set_offered(st, "certificate")
    commit_all(st, ["money", "gems", "money", "event", "gems"])
    # Money first: seats 0 and 2 tie on gems, seat 2 has less money
    assert st.bar_action == 0 and st.to_act() == [2]
    offer(st, 2, blue=1)
    st.apply(0, "accept")
    st.apply(3, "take")  # the lone Event
    # Gems: seats 1 and 4 tie on gems and on money: the lower seat opens
    assert st.phase == "bargain" and st.bar_action == 2 and st.bar_seats == (1, 4)
    assert st.to_act() == [1]
