"""Hidden information (RULES.md §10) and the view / snapshot formats.

Leak tests change a hidden fact and check that the views of those who may
not know it do not change.
"""

from __future__ import annotations

import copy
import json

import pytest

from arena.engine import OptionError, SnapshotError
from arena.games.splendor_duel import GAME
from arena.registry import get_game
from tests.arena.splendor_duel.helpers import act, scenario


def with_snapshot_change(state, change):
    snap = copy.deepcopy(state.snapshot())
    change(snap)
    return GAME.restore(snap)


def test_registered_under_its_id() -> None:
    assert get_game("splendor-duel") is GAME
    assert GAME.seat_counts == (2,)


def test_deck_order_is_hidden_from_both_seats_and_spectators() -> None:
    s = GAME.new(2, 11)
    other = with_snapshot_change(s, lambda snap: [deck.reverse() for deck in snap["decks"]])
    assert other.snapshot() != s.snapshot()
    for seat in (0, 1):
        assert other.observation(seat) == s.observation(seat)
    assert other.spectator_view() == s.spectator_view()
    # ... but it decides the future: the next refill differs
    assert other.snapshot()["decks"] != s.snapshot()["decks"]


def test_a_blind_reserved_card_is_seen_by_its_owner_only() -> None:
    s = scenario(board=None)
    gold = next(a.split()[1] for a in s.legal_actions(0) if a.startswith("reserve"))
    act(s, f"reserve {gold} deck2")
    mine = s.observation(0)["players"][0]["reserved"]
    theirs = s.observation(1)["players"][0]["reserved"]
    assert mine[0]["card"] is not None and mine[0]["blind"] is True
    assert theirs == [{"card": None, "level": 2, "blind": True}]
    assert s.spectator_view()["players"][0]["reserved"] == theirs

    def swap(snap):  # make the reserved card another level-2 card from the deck
        reserved = snap["players"][0]["reserved"][0]
        deck = snap["decks"][1]
        reserved["card"], deck[0] = deck[0], reserved["card"]

    other = with_snapshot_change(s, swap)
    assert other.observation(1) == s.observation(1)
    assert other.spectator_view() == s.spectator_view()
    assert other.observation(0) != s.observation(0)  # the owner does see it


def test_a_card_reserved_from_the_pyramid_is_public() -> None:
    s = scenario()
    legal = s.legal_actions(0)
    action = next(a for a in legal if a.startswith("reserve") and "deck" not in a)
    card = action.split()[2]
    act(s, action)
    assert s.observation(1)["players"][0]["reserved"] == [
        {"card": card, "level": int(card[1]), "blind": False}
    ]


def test_the_opponents_blind_card_does_not_show_in_legal_actions() -> None:
    s = scenario()
    gold = next(a.split()[1] for a in s.legal_actions(0) if a.startswith("reserve"))
    act(s, f"reserve {gold} deck1")
    assert s.legal_actions(0) == []  # seat 1 to act: seat 0 gets no list at all


def test_snapshot_round_trip_keeps_the_generator() -> None:
    s = scenario(board=None)
    act(s, next(a for a in s.legal_actions(0) if a.startswith("take")))
    restored = GAME.restore(json.loads(json.dumps(s.snapshot())))
    assert restored == s
    assert restored.rng.state == s.rng.state


def test_restore_rejects_broken_snapshots() -> None:
    snap = GAME.new(2, 3).snapshot()
    for breakage in (
        lambda d: d["decks"][0].pop(),  # a card lost
        lambda d: d["players"][0]["tokens"].update(white=9),  # too many whites
        lambda d: d.update(format=99),
        lambda d: d.update(phase="dancing"),
        lambda d: d.update(rules_version="0.1"),
        lambda d: d["players"][0].update(copies=[]),  # not a mapping: AttributeError
    ):
        broken = copy.deepcopy(snap)
        breakage(broken)
        with pytest.raises(SnapshotError):
            GAME.restore(broken)


@pytest.mark.parametrize(
    ("options", "name"),
    [({"first_seat": 2}, "first_seat"), ({"step_cap": 0}, "step_cap"), ({"colour": 1}, "colour")],
)
def test_bad_options_name_the_option(options, name) -> None:
    with pytest.raises(OptionError, match=name):
        GAME.new(2, 1, options)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (1.5, "whole number, not 1.5"),
        (float("inf"), "whole number, not inf"),
        (1e400, "whole number, not inf"),
        (1e308, "not a number that large"),
        (True, "whole number, not True"),
        ("12 steps", "whole number, not '12 steps'"),
        (None, "whole number, not None"),
    ],
)
def test_a_step_cap_must_be_a_whole_number_in_range(value, message) -> None:
    with pytest.raises(OptionError, match=message):
        GAME.validate_options({"step_cap": value})


@pytest.mark.parametrize(("value", "cap"), [(12, 12), (12.0, 12), ("12", 12)])
def test_a_step_cap_given_as_a_whole_number_is_kept(value, cap) -> None:
    assert GAME.validate_options({"step_cap": value})["step_cap"] == cap


def test_render_and_describe() -> None:
    s = GAME.new(2, 5, {"first_seat": 0})
    text = s.render()
    assert "seat 0 to act" in text and "level 3" in text
    take = next(a for a in s.legal_actions(0) if a.startswith("take") and len(a.split()) == 4)
    assert s.describe_action(0, take).startswith("seat 0 takes ")
    assert "buys" in s.describe_action(0, "buy L1-01 gold=b1")


def test_a_bought_or_reserved_card_is_described_in_words() -> None:
    """The replay's action line is read by spectators: "cost 2r2k1p play-again"
    (the text board's shorthand) meant nothing to them."""
    s = GAME.new(2, 5, {"first_seat": 0})
    assert s.describe_action(0, "buy L1-13 gold=k1") == (
        "seat 0 buys L1-13 (green bonus, costs 2 red, 2 black, 1 pearl; play again), "
        "paying 1 gold for black"
    )
    # described as it would read wherever the card lies
    assert s.describe_action(0, "reserve a1 L2-23").endswith(
        "reserves L2-23 (copy card, 2 crowns, costs 6 blue, 1 pearl)"
    )
    assert "L3-01 (white bonus, 3 points, 2 crowns, costs 3 blue, 5 red, 3 black, 1 pearl)" in (
        s.describe_action(0, "buy L3-01")
    )
