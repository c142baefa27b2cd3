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
