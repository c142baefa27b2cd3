"""The options that choose among the house rules [H] (RULES.md §0).

One scenario per non-default value, each next to the default it departs
from, then seeded random playouts of every non-default value with the
invariants checked after every step.
"""

from __future__ import annotations

import json

import pytest

from arena.games.edel_stein_reich import GAME, scoring
from arena.games.edel_stein_reich.loader import DATA_FILE
from arena.rng import Rng
from tests.arena.edel_stein_reich.helpers import (
    commit_all,
    give_gem_card,
    hold_event,
    new,
    set_all_gems,
    set_deck_top,
    set_offered,
    set_supply,
)
from tests.arena.edel_stein_reich.test_playout import MAX_LEGAL


def views(st):
    return [st.observation(s) for s in range(st.n)] + [st.spectator_view()]


# -- set_aside_top_public (§3.7) ---------------------------------------------------------


def test_the_top_set_aside_card_can_be_hidden_from_everyone():
    for seats in (3, 4):
        a = new(seats, 15, set_aside_top_public=False)
        assert a.set_aside and all(v["set_aside_top"] is None for v in views(a))
        assert all(v["set_aside_count"] == len(a.set_aside) for v in views(a))
        # leak test: a different top card changes no view
        b = a.clone()
        b.set_aside[-1], b.gem_deck[0] = b.gem_deck[0], b.set_aside[-1]
        assert views(a) == views(b)
        assert new(seats, 15).spectator_view()["set_aside_top"] is not None


# -- event_reshuffle (§5.2, §7.2) --------------------------------------------------------


def empty_event_deck(st):
    """Arrange: every event card not on offer lies in the discard pile."""
    st.ev_discard.extend(st.ev_deck)
    st.ev_deck = []


def test_without_reshuffle_an_empty_deck_offers_no_event():
    st = new(4, 13, event_reshuffle=False)
    empty_event_deck(st)
    commit_all(st, ["money", "money", "money", "money"])
    assert not any(e[0] == "reshuffle" for e in st.log + st.prev_log)
    assert st.round_no == 1 and st.offered == -1 and st.ev_deck == []
    assert st.observation(0)["offered_event"] is None
    # the Event performer now has neither option, although the discard pile is full
    commit_all(st, ["event", "money", "money", "money"])
    assert ("no_event", 0) in st.prev_log and st.held[0] == []
    st.check_invariants()


def test_without_reshuffle_the_blind_draw_needs_a_card_on_the_deck():
    def event_round(**options):
        st = new(4, 3, **options)
        set_all_gems(st, [(3, 3, 3, 3)] * 4)
        set_offered(st, "certificate")
        empty_event_deck(st)
        commit_all(st, ["event", "money", "money", "money"])
        return st

    assert event_round().legal_actions(0) == ["blind", "take"]
    st = event_round(event_reshuffle=False)
    # "take" is the only option left, so the engine took the offered card
    assert st.phase == "commit" and ("take", 0, st.held[0][0]) in st.prev_log
    assert [st.comp.event_kinds[c].id for c in st.held[0]] == ["certificate"]
    st.check_invariants()


# -- untaken_event (§5.5) ------------------------------------------------------------------


def test_a_kept_untaken_event_is_offered_again_instead_of_a_new_card():
    def next_round(**options):
        st = new(4, 12, **options)
        set_offered(st, "windfall-5")
        offered, deck, pile = st.offered, list(st.ev_deck), list(st.ev_discard)
        commit_all(st, ["money", "money", "money", "gems"])  # nobody plays Event
        assert st.round_no == 1
        st.check_invariants()
        return st, offered, deck, pile

    st, offered, deck, pile = next_round()
    assert st.ev_discard == pile + [offered] and st.offered == deck[-1]
    st, offered, deck, pile = next_round(untaken_event="keep")
    # no card is turned up while the kept one lies there
    assert st.offered == offered and st.ev_deck == deck and st.ev_discard == pile
    assert st.observation(0)["offered_event"]["id"] == "windfall-5"


def test_a_card_refused_for_a_blind_draw_is_discarded_even_when_untaken_events_are_kept():
    st = new(4, 3, untaken_event="keep")
    set_all_gems(st, [(3, 3, 3, 3)] * 4)
    set_offered(st, "certificate")
    refused = st.offered
    set_deck_top(st, "scoring-red-plus-5")
    deck = list(st.ev_deck)
    commit_all(st, ["event", "money", "money", "money"])
    st.apply(0, "blind")
    # §7.2: the performer refused the offered card, so it is not "untaken" but discarded
    assert st.round_no == 1 and st.ev_discard[-1] == refused
    assert st.offered == deck[-2]  # a new card is turned up
    st.check_invariants()


def test_a_kept_event_is_offered_from_an_empty_deck_without_a_reshuffle():
    for reshuffle in (True, False):
        st = new(4, 13, untaken_event="keep", event_reshuffle=reshuffle)
        set_offered(st, "certificate")
        kept = st.offered
        empty_event_deck(st)
        commit_all(st, ["money", "money", "money", "money"])
        # no new card is needed, so the discard pile is not shuffled into a deck
        assert st.offered == kept and st.ev_deck == []
        assert not any(e[0] == "reshuffle" for e in st.log + st.prev_log)
        commit_all(st, ["event", "money", "money", "money"])
        if reshuffle:  # the blind draw still shuffles the pile first (§7.2)
            assert st.legal_actions(0) == ["blind", "take"]
        else:  # without a refill "take" is the only option: taken by the engine
            assert ("take", 0, kept) in st.prev_log and st.held[0] == [kept]
        st.check_invariants()


# -- priority_tiebreak (§6.1) -------------------------------------------------------------


def test_seat_tiebreak_ignores_money_for_the_bargaining_opener():
    def opener(**options):
        st = new(3, 5, **options)
        set_all_gems(st, [(2, 2, 2, 2), (2, 2, 2, 2), (3, 3, 3, 3)])
        st.money = [5, 4, 0]
        st.bank_paid = 9
        commit_all(st, ["money", "money", "gems"])
        assert st.phase == "bargain"
        return st.bar_seats[0]

    assert opener() == 1  # less money opens
    assert opener(priority_tiebreak="seat") == 0


def test_seat_tiebreak_orders_shared_free_choice():
    def order(**options):
        st = new(5, 6, **options)
        set_all_gems(st, [(3, 3, 3, 3)] * 5)
        st.money = [0, 0, 7, 3, 5]
        st.bank_paid = 15
        commit_all(st, ["money", "gems", "free", "free", "free"])
        return next(e[1] for e in st.log if e[0] == "free_shared")

    assert order() == (3, 4, 2)  # equal gems: less money first
    assert order(priority_tiebreak="seat") == (2, 3, 4)


# -- gemless_opener (§6.3) ------------------------------------------------------------------


@pytest.mark.parametrize(
    "holdings",
    [
        [(0, 0, 0, 0), (1, 0, 0, 0), (3, 3, 3, 3)],
        [(0, 0, 1, 0), (0, 0, 0, 0), (3, 3, 3, 3)],  # the gemless seat opens wherever it sits
    ],
)
def test_a_gemless_opener_can_void_the_action_at_once(holdings):
    def money_duel(**options):
        st = new(3, 5, **options)
        set_all_gems(st, holdings)
        give_gem_card(st, 0, "G01")  # 7 money
        give_gem_card(st, 1, "G02")  # 7 money
        commit_all(st, ["money", "money", "gems"])
        st.check_invariants()
        return st

    gemless = holdings.index((0, 0, 0, 0))
    other = 1 - gemless
    st = money_duel()
    # the opening passes; the other seat's one-gem raise and the acceptance are forced
    assert st.money[other] == 7 and st.gems[gemless] == list(holdings[other])
    st = money_duel(gemless_opener="void")
    assert ("void", 0, (0, 1)) in st.prev_log
    assert st.money[:2] == [0, 0] and st.gems[:2] == [list(g) for g in holdings[:2]]


# -- free_choice_same_colour (§7.4) -------------------------------------------------------


def lone_free_choice(holdings=None, **options):
    """5 seats: seat 4 alone chooses Free Choice; seats 0-3 all choose Money, which is lost."""
    st = new(5, 6, **options)
    if holdings:
        set_all_gems(st, holdings)
    commit_all(st, ["money", "money", "money", "money", "free"])
    return st


def test_free_choice_alone_may_be_barred_from_taking_back_the_returned_colour():
    st = lone_free_choice(free_choice_same_colour=False)
    st.apply(4, "return b")
    assert st.legal_actions(4) == ["pick g", "pick r", "pick y"]
    st.apply(4, "pick r")
    assert st.legal_actions(4) == ["pick g", "pick r", "pick y"]  # for both picks
    st.apply(4, "pick g")
    assert st.phase == "commit" and st.pick_ban == -1
    st.check_invariants()
    default = lone_free_choice()
    default.apply(4, "return b")
    assert "pick b" in default.legal_actions(4)


def test_barred_free_choice_loses_its_picks_when_only_the_returned_colour_is_left():
    # seat 4 holds one blue only and the supply is empty: the return is forced,
    # and afterwards the supply holds nothing but that blue
    holdings = [(3, 3, 3, 3)] * 4 + [(0, 0, 0, 1)]
    st = new(5, 6, free_choice_same_colour=False)
    set_all_gems(st, holdings)
    set_supply(st, 0, 0, 0, 0, into=0)
    commit_all(st, ["money", "money", "money", "money", "free"])
    assert ("return", 4, 3) in st.prev_log
    assert not any(e[0] == "pick" for e in st.prev_log)  # both picks are lost
    assert st.gems[4] == [0, 0, 0, 0] and st.supply == [0, 0, 0, 1]
    assert st.phase == "commit" and st.round_no == 1 and st.pick_ban == -1
    st.check_invariants()


def test_barred_free_choice_is_forced_onto_the_one_other_colour():
    st = new(5, 6, free_choice_same_colour=False)
    set_all_gems(st, [(3, 3, 3, 3)] * 4 + [(0, 0, 0, 1)])
    set_supply(st, 0, 0, 1, 0, into=0)
    commit_all(st, ["money", "money", "money", "money", "free"])
    # return blue (forced), take the single green (forced), the second pick is lost
    assert ("pick", 4, 2) in st.prev_log
    assert st.gems[4] == [0, 0, 1, 0] and st.supply == [0, 0, 0, 1]
    st.check_invariants()


def test_the_barred_colour_survives_a_snapshot():
    st = lone_free_choice(free_choice_same_colour=False)
    st.apply(4, "return y")
    back = GAME.restore(json.loads(json.dumps(st.snapshot())))
    assert back == st and back.pick_ban == 1
    assert back.legal_actions(4) == ["pick b", "pick g", "pick r"]
    fresh = new(5, 6)
    old = fresh.snapshot()
    del old["pick_ban"]  # a snapshot taken before the option existed
    assert GAME.restore(old) == fresh


# -- final_tiebreak (§11) ---------------------------------------------------------------------


def test_shared_final_tiebreak_ignores_gem_value():
    def ranks(**options):
        st = new(4, 1, **options)
        st.money = [20, 20, 20, 25]
        st.bank_paid = 85
        set_all_gems(st, [(1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 2, 0), (0, 0, 0, 0)])
        st.end_reason = "test"
        return scoring.final_outcome(st).ranks

    assert ranks() == (2, 4, 2, 1)  # gem values 4, 3, 4
    assert ranks(final_tiebreak="shared") == (2, 2, 2, 1)


# -- certificate_ties (§10.3) -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("certificates", "prizes"),
    [
        ([3, 1, 0], [10, 4, 0]),  # no tie: as with split
        ([3, 3, 1], [10, 10, 0]),  # tied for most: 10 each; they use up second place
        ([3, 1, 1], [10, 4, 4]),  # tied second: 4 each
        ([1, 1, 1], [10, 10, 10]),
        ([2, 2, 1, 1], [10, 10, 0, 0]),  # places 1-2 used up: nothing for third
        ([0, 2, 0], [0, 10, 0]),
    ],
)
def test_full_certificate_ties(certificates, prizes):
    assert scoring.certificate_prizes(certificates, (10, 4), "full") == prizes


def test_full_certificate_ties_in_a_phase_scoring():
    def money(**options):
        st = new(3, 1, **options)
        set_all_gems(st, [(0, 0, 0, 0)] * 3)
        for seat in (0, 1):
            hold_event(st, seat, "certificate")
        scoring.score_phase(st)
        st.check_invariants()
        return st.money

    assert money() == [7, 7, 0]
    assert money(certificate_ties="full") == [10, 10, 0]


# -- event_deck_between_phases (§10.5) ---------------------------------------------------------


def to_phase_two(**options):
    """4 seats play phase 1 with every action lost; seat 0 holds a certificate at scoring.

    Returns the state at the start of phase 2, the event deck before the last
    round, and every other event card not held (offered and discard pile).
    """
    st = new(4, 5, **options)
    while st.gem_deck:
        commit_all(st, ["money", "money", "money", "money"])
    hold_event(st, 0, "certificate")  # discarded at the scoring (§10.4)
    deck = list(st.ev_deck)
    others = st.ev_discard + st.held[0] + [st.offered]
    commit_all(st, ["money", "money", "money", "money"])
    assert st.phase_no == 1 and st.round_no == 0 and ("scored", 1) in st.prev_log
    st.check_invariants()
    return st, deck, others


def test_a_new_phase_can_shuffle_the_event_discard_pile_back_into_the_deck():
    st, deck, others = to_phase_two()
    assert st.ev_deck == deck[:-1] and st.offered == deck[-1]  # kept as it is
    assert sorted(st.ev_discard) == sorted(others)
    st, deck, others = to_phase_two(event_deck_between_phases="reshuffle")
    assert st.ev_discard == [] and ("reshuffle", len(deck) + len(others)) in st.prev_log
    assert sorted(st.ev_deck + [st.offered]) == sorted(deck + others)


def test_a_kept_offered_card_stays_offered_through_the_reshuffle_of_a_new_phase():
    st, deck, others = to_phase_two(event_deck_between_phases="reshuffle", untaken_event="keep")
    kept = others[-1]  # nobody took an event card in phase 1: the first one still lies there
    assert st.offered == kept and st.ev_discard == []
    assert sorted(st.ev_deck) == sorted(deck + others[:-1])


# -- random playouts ------------------------------------------------------------------------------


def small_event_deck(kinds: int = 20) -> dict:
    """The house values with one card of each of the first `kinds` event kinds (all 20
    by default), so the deck runs out."""
    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    data["event_cards"] = data["event_cards"][:kinds]
    for card in data["event_cards"]:
        card["count"] = 1
    return data


def playout(seats: int, seed: int, options: dict, on_step) -> None:
    st = GAME.new(seats, seed, options)
    chooser = Rng(seed + 2000)
    while not st.is_over():
        on_step(st)
        to_act = st.to_act()
        seat = to_act[chooser.below(len(to_act))]
        legal = st.legal_actions(seat)
        assert len(legal) >= 2 or st.phase == "commit", "a forced decision was asked"
        assert len(legal) <= MAX_LEGAL
        st.apply(seat, legal[chooser.below(len(legal))])
        st.check_invariants()
    on_step(st)
    assert st.outcome().reason == "three phases scored"
    back = GAME.restore(json.loads(json.dumps(st.snapshot())))
    assert back == st and back.options == st.options


NON_DEFAULT = [
    {"set_aside_top_public": False},
    {"event_reshuffle": False, "components": "small"},
    {"priority_tiebreak": "seat"},
    {"free_choice_same_colour": False},
    {"final_tiebreak": "shared"},
    {"certificate_ties": "full"},
    {"untaken_event": "keep"},
    {"gemless_opener": "void"},
    {"event_deck_between_phases": "reshuffle"},
    # the three event-deck options together, with a deck that runs out even so
    {
        "untaken_event": "keep",
        "event_deck_between_phases": "reshuffle",
        "event_reshuffle": False,
        "components": "tiny",
    },
]


@pytest.mark.parametrize("seats", [3, 4, 5])
@pytest.mark.parametrize(
    "options", NON_DEFAULT, ids=lambda o: "+".join(k for k in o if k != "components")
)
def test_random_games_with_each_non_default_value(seats, options):
    options = dict(options)
    if options.get("components") in ("small", "tiny"):
        options["components"] = small_event_deck(20 if options["components"] == "small" else 6)
    seen = {"empty_deck": 0, "barred": 0, "kept": 0, "void": 0, "phase_reshuffle": 0}
    round_start = {"key": None, "offered": -1}

    def on_step(st):
        key = (st.phase_no, st.round_no)
        new_round = st.step == 0 or key != round_start["key"]  # step 0: a new game
        if st.step == 0:
            round_start["offered"] = -1
        if new_round:
            round_start["key"] = key
            seen["void"] += sum(e[0] == "void" for e in st.prev_log)
        if options.get("untaken_event") == "keep" and new_round:
            before = round_start["offered"]
            if before >= 0 and not any(e[0] in ("take", "blind") for e in st.prev_log):
                seen["kept"] += 1
                assert st.offered == before, "an untaken event was not kept"
        if new_round:
            round_start["offered"] = st.offered
        if options.get("gemless_opener") == "void" and st.phase == "bargain":
            assert all(any(st.gems[s]) for s in st.bar_seats), "a gemless seat bargains"
        if options.get("event_deck_between_phases") == "reshuffle" and new_round:
            if st.phase_no and st.round_no == 0:  # the first step of phases 2 and 3
                assert st.ev_discard == [], "the discard pile was not shuffled back"
                seen["phase_reshuffle"] += st.prev_log[-1][0] == "reshuffle"
        if options.get("set_aside_top_public") is False:
            assert st.spectator_view()["set_aside_top"] is None
        if options.get("event_reshuffle") is False:
            assert not any(e[0] == "reshuffle" for e in st.log)
            if not st.ev_deck and st.ev_discard:
                seen["empty_deck"] += 1
                assert st.phase != "event_choice" or st.legal_actions(st.actor) == ["take"]
        if st.pick_ban >= 0:
            seen["barred"] += 1
            assert f"pick {'rygb'[st.pick_ban]}" not in st.legal_actions(st.actor)

    for seed in range(3):
        playout(seats, seed, options, on_step)
    if options.get("event_reshuffle") is False:
        assert seen["empty_deck"], "the playouts never emptied the event deck"
    if options.get("free_choice_same_colour") is False and seats == 5:
        assert seen["barred"], "the playouts never barred a returned colour"
    if options.get("untaken_event") == "keep":
        assert seen["kept"], "the playouts never kept an untaken event"
    if options.get("gemless_opener") == "void" and seats in (3, 4):
        assert seen["void"], "the playouts never voided a bargain"
    if options.get("event_deck_between_phases") == "reshuffle":
        assert seen["phase_reshuffle"], "the playouts never reshuffled at a new phase"
