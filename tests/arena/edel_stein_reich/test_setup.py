"""Set-up per seat count (RULES.md §3) and the bundled component data (§2, §9.2)."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.games.edel_stein_reich.loader import DEFAULT_COMPONENTS
from tests.arena.edel_stein_reich.helpers import new

#: seats → (gem cards set aside, rounds per phase, action cards) — §3.2, §3.7, §3.8
SETUP = {
    3: (6, 8, ["play event", "play gems", "play money"]),
    4: (2, 7, ["play event", "play gems", "play money"]),
    5: (0, 6, ["play event", "play free", "play gems", "play money"]),
}


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_setup_per_seat_count(seats):
    set_aside, rounds, hand = SETUP[seats]
    st = new(seats, 21)
    # §3.3-3.5: 3 gems of each colour, no money, the rest of the 88 gems is the supply
    assert st.gems == [[3, 3, 3, 3]] * seats
    assert st.money == [0] * seats
    assert st.supply == [22 - 3 * seats] * 4
    # §3.2: Money, Event, Gems; Free Choice only with 5
    assert all(st.legal_actions(s) == hand for s in range(seats))
    # §3.7: 6 / 2 / 0 gem cards set aside, the rest dealt one per seat and round
    assert len(st.set_aside) == set_aside
    assert len(st.gem_deck) == 30 - set_aside - seats
    assert len(set(st.gem_card)) == seats and min(st.gem_card) >= 0
    # §5.2: one event card offered from the shuffled deck of 39
    assert st.offered >= 0 and len(st.ev_deck) == 38 and st.ev_discard == []
    view = st.observation(0)
    assert view["rounds_per_phase"] == rounds
    assert (view["phase_number"], view["round"]) == (1, 1)
    assert view["set_aside_count"] == set_aside
    assert (view["set_aside_top"] is None) == (set_aside == 0)
    # §5.1: every seat's gem card is public
    assert all(p["gem_card"] is not None for p in view["players"])
    assert view["offered_event"] is not None
    st.check_invariants()


def test_the_event_deck_is_shuffled_from_the_seed():
    decks = {tuple(new(4, seed).ev_deck) for seed in range(5)}
    assert len(decks) == 5
    assert new(4, 3).ev_deck == new(4, 3).ev_deck


def test_bundled_data_keeps_the_verified_facts():
    comp = DEFAULT_COMPONENTS
    # §2: 88 gems, 22 per colour; §3.3: 3 of each at the start; §3.4: no money
    assert comp.gems_per_colour == 22 and comp.start_gems == (3, 3, 3, 3)
    assert comp.start_money == 0
    assert comp.set_aside == {3: 6, 4: 2, 5: 0}
    # §2: 30 gem cards of 4-7 money and 2-4 gems; 39 event cards
    assert len(comp.gem_cards) == 30
    assert all(4 <= c.money <= 7 and 2 <= sum(c.gems) <= 4 for c in comp.gem_cards)
    assert len(comp.event_deck) == 39


def test_bundled_house_values_are_the_rules_placeholders():
    comp = DEFAULT_COMPONENTS
    assert comp.house_values
    assert comp.scoring_value == (10, 8, 6, 4)  # §2 [P]
    assert comp.barter_value == (4, 3, 2, 1)  # §6.2 [H]
    assert comp.certificate_awards == (10, 4)  # §10.3 [S]
    assert not comp.majority_half_round_up and comp.majority_tie_return == 2  # §10.1
    assert comp.majority_minimum == 1
    # §9.2: 10 certificates, 12 scoring-time cards, 17 immediate cards
    kinds = Counter(comp.event_kinds[k].kind for k in comp.event_deck)
    assert kinds == {"certificate": 10, "scoring": 12, "immediate": 17}
    # §9.3: the "x2" cards pay the full colour value as their bonus
    for kind in comp.event_kinds:
        if kind.id.endswith("-x2"):
            assert kind.amount == comp.scoring_value[kind.colour]


#: the placeholder gem cards G01-G30 of the rules reference (components.json,
#: gem_cards.exact_card_list), as money:gems [P]
REFERENCE_GEM_CARDS = (
    "7:b2 7:g1b1 7:b2 7:g2 7:y1b1 7:g1b1 6:r1b1 6:y1g1 6:y1b1 6:g2b1 6:b3 6:g1b2 6:r1g1 6:y2 "
    "5:r1g1b1 5:y2b1 5:y1g2 5:r1b2 5:y1g1b1 5:g2b1 5:y1b2 5:r1y1b1 4:r2b1 4:r1y1g1 4:y2g1b1 "
    "4:g2b2 4:r1g1b2 4:y1g2b1 4:r1y1b2 4:y2g2"
).split()
#: the placeholder event deck of the rules reference (components.json,
#: event_cards.exact_card_list): effect, parameters, copies [P]
REFERENCE_EVENTS = {
    ("certificate", None): 10,
    ("majority_bonus", ("red", 5)): 2,
    ("majority_bonus", ("red", 10)): 1,
    ("majority_bonus", ("yellow", 4)): 2,
    ("majority_bonus", ("yellow", 8)): 1,
    ("majority_bonus", ("green", 3)): 2,
    ("majority_bonus", ("green", 6)): 1,
    ("majority_bonus", ("blue", 2)): 2,
    ("majority_bonus", ("blue", 4)): 1,
    ("gain_money", 3): 2,
    ("gain_money", 5): 1,
    ("gain_gems", (1, 0, 0, 0)): 2,
    ("gain_gems", (0, 2, 0, 0)): 1,
    ("gain_gems", (0, 0, 2, 0)): 1,
    ("gain_gems", (0, 0, 0, 3)): 1,
    ("gain_gems", (0, 1, 1, 0)): 1,
    ("gain_any_gems", 1): 3,
    ("gain_any_gems", 2): 1,
    ("swap_one_gem_with_player", None): 3,
    ("each_opponent_gives_one_gem_of_their_choice", None): 1,
}


def _reference_key(kind) -> tuple:
    if kind.op == "majority_bonus":
        return kind.op, (("red", "yellow", "green", "blue")[kind.colour], kind.amount)
    if kind.op in ("gain_money", "gain_any_gems"):
        return kind.op, kind.amount
    if kind.op == "gain_gems":
        return kind.op, kind.gems
    return kind.op, None


def test_bundled_decks_are_the_rules_reference_placeholder_decks():
    # §2 / §9.2 [P]: the house values are the reference's placeholder lists
    comp = DEFAULT_COMPONENTS
    cards = [
        f"{c.money}:"
        + "".join(f"{letter}{k}" for letter, k in zip("rygb", c.gems, strict=True) if k)
        for c in comp.gem_cards
    ]
    assert cards == REFERENCE_GEM_CARDS
    assert [c.id for c in comp.gem_cards] == [f"G{i:02d}" for i in range(1, 31)]
    events = Counter()
    for kind in comp.event_kinds:
        events[_reference_key(kind)] += kind.count
    assert events == REFERENCE_EVENTS
