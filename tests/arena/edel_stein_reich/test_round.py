"""A round: secret commits, resolution order, collisions, Free Choice, supply limits."""

from __future__ import annotations

import itertools

import pytest

from arena.engine import IllegalAction
from tests.arena.edel_stein_reich.helpers import (
    commit_all,
    give_gem_card,
    new,
    offer,
    set_all_gems,
    set_gems,
    set_offered,
    set_supply,
)


def test_every_uncommitted_seat_is_to_act_at_once():
    st = new(4)
    assert st.to_act() == [0, 1, 2, 3]
    assert all(st.legal_actions(s) == ["play event", "play gems", "play money"] for s in range(4))
    st.apply(2, "play money")
    assert st.to_act() == [0, 1, 3]
    assert st.legal_actions(2) == []
    with pytest.raises(IllegalAction):
        st.apply(2, "play gems")  # a choice is final
    assert new(5).legal_actions(0) == ["play event", "play free", "play gems", "play money"]
    with pytest.raises(IllegalAction):
        st.apply(0, "play free")  # Free Choice only with 5 seats


def test_commit_order_never_changes_the_result():
    choices = {0: "money", 1: "money", 2: "gems", 3: "event"}
    results = set()
    for order in itertools.permutations(range(4)):
        st = new(4, 9)
        for seat in order:
            st.apply(seat, f"play {choices[seat]}")
        results.add(repr(sorted(st.snapshot().items())))
    assert len(results) == 1


def test_one_chooser_performs_money_and_gems_with_their_own_card():
    st = new(3, 2)
    give_gem_card(st, 0, "G07")  # 6 money, 1 red + 1 blue
    give_gem_card(st, 1, "G25")  # 4 money, 2 yellow + 1 green + 1 blue
    give_gem_card(st, 2, "G30")
    set_all_gems(st, [(3, 3, 3, 3)] * 3)
    set_offered(st, "certificate")
    commit_all(st, ["money", "gems", "event"])
    assert st.money[0] == 6
    # Event (2) resolves before Gems (3): seat 2 decides first
    assert st.phase == "event_choice" and st.to_act() == [2]
    assert st.gems[1] == [3, 3, 3, 3]
    st.apply(2, "take")
    assert st.gems[1] == [3, 5, 4, 4]
    assert st.gems[0] == [3, 3, 3, 3]


def test_three_choosers_lose_the_action_and_nobody_chose_nothing_happens():
    st = new(3, 2)
    commit_all(st, ["money", "money", "money"])
    assert st.money == [0, 0, 0]
    assert st.gems == [[3, 3, 3, 3]] * 3
    assert ("lost", 0, (0, 1, 2)) in st.prev_log
    assert st.round_no == 1 and st.phase == "commit"  # on to the next round
    st.check_invariants()


def test_actions_resolve_in_number_order_and_later_bargains_see_earlier_trades():
    # Money is bargained first (seats 0, 1), then Gems (seats 2, 3): the Gems
    # bargain must see the holdings after the Money trade.
    st = new(4, 3)
    set_all_gems(st, [(1, 1, 1, 1), (3, 3, 3, 3), (2, 2, 2, 2), (2, 2, 2, 2)])
    commit_all(st, ["money", "money", "gems", "gems"])
    assert st.phase == "bargain" and st.bar_action == 0 and st.to_act() == [0]
    offer(st, 0, red=1)
    st.apply(1, "accept")
    assert st.phase == "bargain" and st.bar_action == 2  # now the Gems bargain
    assert st.gems[0] == [0, 1, 1, 1] and st.gems[1] == [4, 3, 3, 3]
    assert st.to_act() == [2]  # seats 2 and 3 tie on everything: lower seat opens


def test_event_with_two_choosers_is_bargained_and_the_winner_takes_the_event():
    st = new(3, 4)
    set_all_gems(st, [(1, 1, 1, 1), (3, 3, 3, 3), (3, 3, 3, 3)])
    commit_all(st, ["event", "event", "money"])
    assert st.bar_action == 1
    offer(st, 0, blue=1)
    st.apply(1, "accept")
    assert st.phase == "event_choice" and st.to_act() == [0]


def five(choices, holdings=None, seed=6):
    st = new(5, seed)
    if holdings:
        set_all_gems(st, holdings)
    commit_all(st, choices)
    return st


def test_free_choice_alone_returns_one_gem_then_takes_two():
    st = five(["money", "money", "money", "gems", "free"])
    assert st.phase == "return" and st.to_act() == [4]
    assert st.legal_actions(4) == ["return b", "return g", "return r", "return y"]
    before = list(st.gems[4])
    st.apply(4, "return b")
    assert st.phase == "pick" and st.to_act() == [4]
    st.apply(4, "pick r")
    st.apply(4, "pick b")  # the returned colour may be taken again
    assert st.gems[4] == [before[0] + 1, before[1], before[2], before[3]]
    st.check_invariants()


def test_free_choice_alone_without_gems_skips_the_return():
    st = five(
        ["money", "money", "money", "gems", "free"],
        [(3, 3, 3, 3)] * 4 + [(0, 0, 0, 0)],
    )
    assert st.phase == "pick" and st.pick_left == 2 and st.to_act() == [4]


def test_shared_free_choice_is_never_lost_and_goes_in_priority_order():
    holdings = [(3, 3, 3, 3), (3, 3, 3, 3), (4, 0, 0, 0), (1, 5, 5, 5), (2, 0, 0, 0)]
    st = five(["money", "gems", "free", "free", "free"], holdings)
    # fewer red first: seat 3 (1 red), seat 4 (2), seat 2 (4)
    assert st.phase == "pick" and st.to_act() == [3]
    st.apply(3, "pick r")
    assert st.to_act() == [4]
    st.apply(4, "pick y")
    assert st.to_act() == [2]
    st.apply(2, "pick g")
    assert st.phase == "commit"
    assert st.gems[3][0] == 2 and st.gems[4][1] == 1 and st.gems[2][2] == 1


def test_gems_gain_is_capped_by_the_supply():
    st = new(3, 2)
    give_gem_card(st, 0, "G23")  # 2 red + 1 blue
    set_supply(st, 1, 5, 5, 0, into=1)
    set_offered(st, "certificate")
    commit_all(st, ["gems", "money", "event"])
    st.apply(2, "take")
    assert st.gems[0] == [4, 3, 3, 3]  # one red left in the supply, no blue
    assert st.supply[0] == 0
    assert ("gain", 0, (1, 0, 0, 0)) in st.prev_log
    st.check_invariants()


def test_picks_list_only_colours_in_stock_and_are_lost_on_an_empty_supply():
    st = new(5, 6)
    set_gems(st, 4, 1, 0, 0, 0)
    set_supply(st, 0, 0, 0, 0, into=0)
    commit_all(st, ["money", "money", "money", "gems", "free"])
    # seat 4's only gem is red, so returning it is forced; then the only gem in
    # the supply is that red, so the first pick is forced and the second is lost
    assert ("return", 4, 0) in st.prev_log and ("pick", 4, 0) in st.prev_log
    assert st.phase == "commit"
    assert st.gems[4] == [1, 0, 0, 0] and st.supply == [0, 0, 0, 0]


@pytest.mark.parametrize("action", ["money", "event", "gems"])
def test_three_choosers_lose_every_contested_action(action):
    # §5.4 k >= 3: nobody performs it; seat 3 performs its own action alone
    st = new(4, 8)
    set_all_gems(st, [(3, 3, 3, 3)] * 4)
    set_offered(st, "certificate")
    offered = st.offered
    other = "money" if action != "money" else "gems"
    commit_all(st, [action, action, action, other])
    assert ("lost", ["money", "event", "gems"].index(action), (0, 1, 2)) in st.prev_log
    assert st.money[:3] == [0, 0, 0]
    assert st.gems[:3] == [[3, 3, 3, 3]] * 3
    assert st.held == [[], [], [], []]
    assert st.ev_discard[-1] == offered  # the untaken event is discarded (§5.5)
    assert ("perform", ["money", "event", "gems"].index(other), 3) in st.prev_log
    st.check_invariants()


def test_gems_resolve_before_free_choice():
    # §5.4: Gems (3) takes the last red and blue before Free Choice (4) is resolved
    st = new(5, 6)
    set_all_gems(st, [(3, 3, 3, 3)] * 4 + [(0, 0, 1, 0)])
    give_gem_card(st, 0, "G23")  # 2 red + 1 blue
    set_supply(st, 2, 0, 0, 1, into=1)
    gems_before = [list(g) for g in st.gems]
    commit_all(st, ["gems", "money", "money", "money", "free"])
    # seat 4 then had to return its green and take it back; the second pick is lost
    assert st.phase == "commit" and st.round_no == 1
    assert st.gems[0] == [gems_before[0][0] + 2, 3, 3, gems_before[0][3] + 1]
    assert st.gems[4] == [0, 0, 1, 0] and st.supply == [0, 0, 0, 0]
    st.check_invariants()


def test_a_later_bargain_sees_the_holdings_left_by_an_earlier_event():
    # §5.4 / §6.1: the opener of the Gems bargain is fixed when Gems is resolved,
    # after the Event (2) swap changed seat 2's red count.
    st = new(4, 10)
    set_all_gems(st, [(3, 3, 3, 3), (2, 1, 3, 3), (2, 2, 3, 3), (3, 3, 3, 3)])
    set_offered(st, "swap")
    commit_all(st, ["event", "gems", "gems", "money"])
    assert st.phase == "event_choice" and st.to_act() == [0]
    st.apply(0, "take")
    st.apply(0, "apply")
    st.apply(0, "swap 2 b r")  # seat 2 now has 1 red, seat 1 still 2
    assert st.phase == "bargain" and st.bar_action == 2
    assert st.to_act() == [2] and st.bar_seats == (2, 1)


def test_a_bargained_gems_action_uses_the_winners_own_gem_card():
    st = new(3, 4)
    set_all_gems(st, [(1, 3, 3, 3), (3, 3, 3, 3), (3, 3, 3, 3)])
    give_gem_card(st, 0, "G23")  # 2 red + 1 blue
    give_gem_card(st, 1, "G30")  # 2 yellow + 2 green
    commit_all(st, ["gems", "gems", "money"])
    assert st.to_act() == [0]  # fewer red opens
    offer(st, 0, blue=1)
    st.apply(1, "accept")
    assert st.gems[0] == [3, 3, 3, 3]  # gave 1 blue, took 2 red + 1 blue from G23
    assert st.gems[1] == [3, 3, 3, 4]  # only the offered gem
    st.check_invariants()


def test_end_of_round_discards_the_gem_cards_and_the_untaken_event():
    st = new(4, 12)
    dealt = list(st.gem_card)
    set_offered(st, "windfall-5")
    offered = st.offered
    commit_all(st, ["money", "money", "money", "gems"])  # seat 3 uses its card
    # §5.5: all gem cards, used or not, go to the discard; the offered event too
    assert st.round_no == 1 and sorted(st.gem_discard) == sorted(dealt)
    assert st.ev_discard[-1] == offered and offered not in st.ev_deck
    assert st.observation(0)["gem_discard"] == [st.comp.gem_cards[c].id for c in st.gem_discard]
    assert not set(st.gem_card) & set(dealt)  # a fresh card for everybody
    st.check_invariants()


def test_an_empty_event_deck_is_refilled_from_the_discard_before_the_offer():
    st = new(4, 13)
    st.ev_discard.extend(st.ev_deck)
    st.ev_deck = []
    pile = len(st.ev_discard) + 1  # the untaken offered card joins the pile first
    commit_all(st, ["money", "money", "money", "money"])
    # §5.2 [H]: the discard pile is shuffled into a new deck, then the top is offered
    assert ("reshuffle", pile) in st.log
    assert st.offered >= 0 and len(st.ev_deck) == pile - 1 and st.ev_discard == []
    st.check_invariants()


def test_no_event_card_anywhere_means_no_offered_event():
    st = new(4, 14)
    set_offered(st, None)
    st.held[1].extend(st.ev_deck + st.ev_discard)  # arrange: every card is held
    st.ev_deck, st.ev_discard = [], []
    commit_all(st, ["money", "money", "money", "money"])
    assert st.round_no == 1 and st.offered == -1
    assert st.observation(0)["offered_event"] is None
    st.check_invariants()


def test_two_free_choice_choosers_do_not_bargain():
    # §5.4 / §7.4: unlike cards 1-3, two choosers of Free Choice each take one gem
    holdings = [(3, 3, 3, 3), (3, 3, 3, 3), (3, 3, 3, 3), (2, 3, 3, 3), (1, 3, 3, 3)]
    st = new(5, 6)
    set_all_gems(st, holdings)
    set_offered(st, "certificate")
    commit_all(st, ["money", "event", "gems", "free", "free"])
    st.apply(1, "take")  # the lone Event is resolved first
    assert st.phase == "pick" and st.to_act() == [4] and st.pick_left == 1  # fewer red first
    st.apply(4, "pick y")
    assert st.to_act() == [3]
    st.apply(3, "pick y")
    assert st.phase == "commit"
    assert st.gems[3][1] == 4 and st.gems[4][1] == 4
    assert not any(e[0] in ("offer", "accept", "lost") for e in st.prev_log)


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_action_cards_are_never_used_up(seats):
    # §5.3: every card returns to its owner after each round: the same card
    # may be played round after round
    st = new(seats, 16)
    hand = st.legal_actions(0)
    for round_no in range(1, 4):
        commit_all(st, ["money"] * seats)
        assert st.phase == "commit" and st.round_no == round_no
        assert all(st.legal_actions(s) == hand for s in range(seats))


def test_shared_free_choice_stops_when_the_supply_runs_out():
    # §7.4 / §8: three choosers, two gems in the supply: the first two in
    # priority order take one each, the third gets nothing
    holdings = [(3, 3, 3, 3), (3, 3, 3, 3), (2, 3, 3, 3), (3, 0, 0, 0), (1, 3, 3, 3)]
    st = new(5, 6)
    set_all_gems(st, holdings)
    set_supply(st, 1, 0, 0, 1, into=0)
    set_offered(st, "certificate")
    commit_all(st, ["money", "event", "free", "free", "free"])
    st.apply(1, "take")
    assert st.phase == "pick" and st.to_act() == [4]  # 1 red, then 2 red, then 3
    st.apply(4, "pick r")  # only blue is left: seat 2's pick is forced
    assert st.phase == "commit"
    assert ("free_shared", (4, 2, 3)) in st.prev_log
    assert ("pick", 2, 3) in st.prev_log and st.gems[3] == [3, 0, 0, 0]
    assert st.supply == [0, 0, 0, 0]
    st.check_invariants()


def test_five_free_choices_go_by_colours_then_money_then_seat():
    # §6.1 at every level for the shared Free Choice (§7.4): equal red, so
    # fewer yellow first; equal gems, so less money; equal money, so lower seat
    holdings = [(2, 2, 2, 2), (2, 2, 2, 2), (2, 2, 2, 2), (2, 1, 5, 5), (2, 2, 2, 2)]
    st = new(5, 6)
    set_all_gems(st, holdings)
    st.money = [5, 3, 5, 9, 4]
    st.bank_paid = sum(st.money)
    commit_all(st, ["free"] * 5)
    assert ("free_shared", (3, 1, 4, 0, 2)) in st.log
    for seat in (3, 1, 4, 0, 2):
        assert st.to_act() == [seat]
        st.apply(seat, "pick b")
    assert st.phase == "commit" and ("lost", 3, (0, 1, 2, 3, 4)) not in st.prev_log
    st.check_invariants()
