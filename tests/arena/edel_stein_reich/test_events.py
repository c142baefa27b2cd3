"""The Event action and every effect of the house event deck (RULES.md §7.2, §9.3)."""

from __future__ import annotations

from tests.arena.edel_stein_reich.helpers import (
    commit_all,
    kind_index,
    new,
    set_all_gems,
    set_deck_top,
    set_offered,
    set_supply,
)


def event_for_seat_0(offered: str | None, top: str | None = None, holdings=None, seed: int = 3):
    """4 seats: seat 0 alone chooses Event; seats 1-3 all choose Money, which is lost."""
    st = new(4, seed)
    set_all_gems(st, holdings or [(3, 3, 3, 3)] * 4)
    set_offered(st, offered)
    if top is not None:
        set_deck_top(st, top)
    commit_all(st, ["event", "money", "money", "money"])
    return st


def test_take_or_blind_and_scoring_cards_are_kept():
    st = event_for_seat_0("certificate", top="scoring-red-x2")
    assert st.phase == "event_choice" and st.legal_actions(0) == ["blind", "take"]
    taken = st.clone()
    taken.apply(0, "take")
    assert [taken.comp.event_kinds[c].id for c in taken.held[0]] == ["certificate"]
    st.apply(0, "blind")  # the offered card is discarded, the top card drawn
    assert [st.comp.event_kinds[c].id for c in st.held[0]] == ["scoring-red-x2"]
    assert kind_index(st, "certificate") in st.ev_discard
    st.check_invariants()


def test_without_an_offered_card_the_blind_draw_is_the_only_option():
    st = event_for_seat_0(None, top="scoring-blue-x2")
    # one option only: the engine draws for the seat
    assert [st.comp.event_kinds[c].id for c in st.held[0]] == ["scoring-blue-x2"]


def test_no_card_at_all_means_no_event():
    st = new(4, 3)
    set_offered(st, None)
    # arrange: every event card is held by seat 1, none in the deck or discard pile
    st.held[1].extend(st.ev_deck + st.ev_discard)
    st.ev_deck, st.ev_discard = [], []
    commit_all(st, ["event", "money", "money", "money"])
    assert ("no_event", 0) in st.prev_log
    st.check_invariants()


def test_blind_draw_reshuffles_an_empty_deck_without_the_refused_card():
    st = event_for_seat_0("windfall-5")  # the only copy of its kind
    st.ev_discard.extend(st.ev_deck)
    st.ev_deck = []
    pile = len(st.ev_discard)
    refused = st.offered
    st.apply(0, "blind")
    log = st.log + st.prev_log
    assert ("reshuffle", pile) in log
    drawn = [e[2] for e in log if e[0] == "blind"]
    assert drawn and drawn[0] != refused
    assert refused in st.ev_discard
    st.check_invariants()


def immediate(kind: str, **kw):
    """Seat 0 has taken the offered immediate card `kind` and must apply or decline it."""
    st = event_for_seat_0(kind, **kw)
    st.apply(0, "take")
    assert st.phase == "immediate" and st.legal_actions(0) == ["apply", "decline"]
    return st


def test_every_immediate_card_may_be_declined():
    for kind in ("windfall-3", "delivery-2-green", "free-pick-2", "swap", "tribute"):
        st = immediate(kind)
        before = (list(st.money), [list(g) for g in st.gems])
        st.apply(0, "decline")
        assert (st.money, st.gems) == before
        assert st.ev_discard[-1] == kind_index(st, kind)
        st.check_invariants()


def test_gain_money():
    st = immediate("windfall-3")
    st.apply(0, "apply")
    assert st.money[0] == 3


def test_gain_gems_is_capped_by_the_supply():
    st = immediate("delivery-3-blue")
    set_supply(st, 5, 5, 5, 2, into=1)
    st.apply(0, "apply")
    assert st.gems[0][3] == 5 and st.supply[3] == 0


def test_gain_any_gems_one_pick_at_a_time():
    st = immediate("free-pick-2")
    st.apply(0, "apply")
    assert st.phase == "pick" and st.observation(1)["picks_left"] == 2
    st.apply(0, "pick r")
    st.apply(0, "pick r")
    assert st.gems[0] == [5, 3, 3, 3]
    assert st.phase == "commit"


def test_swap_one_gem_with_another_seat():
    st = immediate("swap", holdings=[(3, 3, 3, 3), (0, 0, 0, 0), (2, 0, 0, 0), (0, 0, 0, 0)])
    st.apply(0, "apply")
    legal = st.legal_actions(0)
    assert legal == sorted(legal) and all(a.startswith("swap 2 ") for a in legal)
    assert "swap 2 b r" in legal and "swap 2 b y" not in legal  # seat 2 holds only red
    st.apply(0, "swap 2 b r")
    assert st.gems[0] == [4, 3, 3, 2] and st.gems[2] == [1, 0, 0, 1]
    st.check_invariants()


def test_swap_without_a_partner_can_only_be_declined():
    st = event_for_seat_0("swap", holdings=[(3, 3, 3, 3), (0, 0, 0, 0), (0, 0, 0, 0), (0, 0, 0, 0)])
    st.apply(0, "take")
    # the only option is to decline: the engine does it
    assert st.phase == "commit" and ("decline", 0, st.ev_discard[-1]) in st.prev_log
    assert st.gems[0] == [3, 3, 3, 3]


def test_tribute_victims_give_in_seat_order_from_the_left_skipping_gemless_seats():
    st = immediate("tribute", holdings=[(1, 0, 0, 0), (3, 3, 3, 3), (0, 0, 0, 0), (0, 2, 0, 2)])
    st.apply(0, "apply")
    assert st.phase == "tribute" and st.to_act() == [1]
    assert st.observation(2)["tribute_to"] == 0
    assert st.legal_actions(1) == ["give b", "give g", "give r", "give y"]
    st.apply(1, "give r")
    assert st.to_act() == [3]  # seat 2 holds nothing and is skipped
    assert st.legal_actions(3) == ["give b", "give y"]
    st.apply(3, "give y")
    assert st.phase == "commit"
    assert st.gems[0] == [2, 1, 0, 0] and st.gems[1] == [2, 3, 3, 3] and st.gems[3] == [0, 1, 0, 2]
    st.check_invariants()


def test_scoring_cards_wait_in_front_of_the_taker():
    st = event_for_seat_0("scoring-green-plus-3")
    st.apply(0, "take")
    view = st.observation(1)
    assert view["players"][0]["held_events"] == ["scoring-green-plus-3"]


def test_an_applied_immediate_card_goes_to_the_event_discard_pile():
    # §7.2: applied or declined, the immediate card then lies on the discard pile
    for kind in ("windfall-5", "delivery-1-red"):
        st = immediate(kind)
        st.apply(0, "apply")
        assert st.ev_discard[-1] == kind_index(st, kind)
        assert st.held[0] == [] and st.pending_ev == -1
        st.check_invariants()


def test_swap_needs_a_gem_of_the_takers_own():
    # §9.3: partners hold gems, but the taker has none to give: only decline
    st = event_for_seat_0("swap", holdings=[(0, 0, 0, 0), (3, 3, 3, 3), (1, 0, 0, 0), (0, 0, 2, 0)])
    st.apply(0, "take")
    assert st.phase == "commit" and ("decline", 0, kind_index(st, "swap")) in st.prev_log
    assert st.gems[0] == [0, 0, 0, 0] and st.gems[1] == [3, 3, 3, 3]


def test_swap_of_the_same_colour_is_allowed_and_changes_nothing():
    # §9.3: both colours are the taker's choice; components.json allows equal ones
    st = immediate("swap", holdings=[(1, 0, 0, 1), (0, 0, 0, 0), (2, 0, 0, 0), (0, 0, 0, 0)])
    st.apply(0, "apply")
    assert st.legal_actions(0) == ["swap 2 b r", "swap 2 r r"]
    st.apply(0, "swap 2 r r")
    assert st.gems[0] == [1, 0, 0, 1] and st.gems[2] == [2, 0, 0, 0]
    assert ("swap", 0, 2, 0, 0) in st.prev_log
    st.check_invariants()


def test_tribute_goes_round_the_table_from_the_takers_left():
    # §9.3 with 5 seats and the taker at seat 3: seats 4, 0, 1, 2 in turn;
    # seat 1 holds nothing and is skipped; a victim with one colour gives it
    st = new(5, 3)
    set_all_gems(st, [(1, 0, 0, 0), (0, 0, 0, 0), (0, 0, 1, 1), (3, 3, 3, 3), (0, 2, 0, 0)])
    set_offered(st, "tribute")
    commit_all(st, ["money", "money", "money", "event", "money"])
    st.apply(3, "take")
    st.apply(3, "apply")
    assert st.phase == "tribute" and st.to_act() == [2]  # seats 4 and 0 had one colour
    assert st.legal_actions(2) == ["give b", "give g"]
    st.apply(2, "give b")
    gives = [e for e in st.prev_log if e[0] == "give"]
    assert gives == [("give", 4, 3, 1), ("give", 0, 3, 0), ("give", 2, 3, 3)]
    assert st.gems[3] == [4, 4, 3, 4]
    st.check_invariants()


def test_gain_any_gems_is_capped_by_the_supply():
    # §8 / §9.3: one gem left in the supply: the first pick takes it, the second is lost
    st = immediate("free-pick-2")
    set_supply(st, 0, 0, 1, 0, into=1)
    st.apply(0, "apply")
    assert st.phase == "commit"
    assert ("pick", 0, 2) in st.prev_log and st.gems[0] == [3, 3, 4, 3]
    assert st.supply == [0, 0, 0, 0]
    st.check_invariants()


def test_the_offered_card_alone_cannot_be_drawn_blind():
    # §7.2 [H]: deck and discard pile are empty, so the blind option has no card:
    # the refused offered card is not shuffled into a deck of one and drawn back.
    # Taking the offered card is the only option, and the engine takes it.
    st = new(4, 3)
    set_offered(st, "certificate")
    st.held[1].extend(st.ev_deck + st.ev_discard)  # arrange: every other card is held
    st.ev_deck, st.ev_discard = [], []
    commit_all(st, ["event", "money", "money", "money"])
    assert ("take", 0, kind_index(st, "certificate")) in st.prev_log
    assert not any(e[0] in ("blind", "reshuffle") for e in st.prev_log)
    st.check_invariants()
