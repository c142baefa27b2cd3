"""RULES.md §7.3–§9 one rule at a time: purchase, abilities, copy cards, royal cards, end of turn.

The §11 edge-case rows are in test_edge_cases.py. Each test builds a
position, applies actions and checks the exact result.
"""

from __future__ import annotations

import pytest

from arena.engine import IllegalAction, MalformedAction
from tests.arena.splendor_duel.helpers import (
    act,
    board_rows,
    hand_of,
    kinds,
    privileges_of,
    scenario,
)


def buys(state, card: str) -> list[str]:
    return [a for a in state.legal_actions(state.to_act()[0]) if a.split()[:2] == ["buy", card]]


def player(state, seat: int) -> dict:
    return state.spectator_view()["players"][seat]


# -- §7.3 purchase -----------------------------------------------------------------
def test_s73_bonuses_lower_gem_prices_and_the_exact_price_is_paid() -> None:
    # L1-03 costs 2 blue, 2 green, 1 pearl; L1-06 gives one blue bonus
    s = scenario(pyramid=["L1-03"], cards={0: ["L1-06"]}, hands={0: "b3 g3 p2"})
    assert buys(s, "L1-03") == ["buy L1-03"]
    act(s, "buy L1-03")
    assert hand_of(s, 0) == {"blue": 2, "green": 1, "pearl": 1}
    bag = s.spectator_view()["bag"]
    assert (bag["blue"], bag["green"], bag["pearl"]) == (1, 2, 1)


def test_s73_pearl_prices_are_never_lowered() -> None:
    # two double-bonus cards cover L1-03's gems; its pearl is still due
    owned = {0: ["L2-08", "L2-12"]}
    assert buys(scenario(pyramid=["L1-03"], cards=owned), "L1-03") == []
    s = scenario(pyramid=["L1-03"], cards=owned, hands={0: "y1"})
    assert buys(s, "L1-03") == ["buy L1-03 gold=p1"]  # gold is wild for the pearl too
    act(s, "buy L1-03 gold=p1")
    assert hand_of(s, 0) == {}
    s = scenario(pyramid=["L1-03"], cards=owned, hands={0: "p1"})
    act(s, "buy L1-03")
    assert hand_of(s, 0) == {}


def test_s73_gold_only_covers_what_the_tokens_do_not() -> None:
    assert buys(scenario(pyramid=["L1-02"], hands={0: "b2"}), "L1-02") == []
    s = scenario(pyramid=["L1-02"], hands={0: "b2 y1"})
    assert buys(s, "L1-02") == ["buy L1-02 gold=b1"]


def test_s73_a_reserved_card_is_bought_without_touching_the_pyramid() -> None:
    s = scenario(reserved={0: ["L1-02"]}, hands={0: "b3"})
    before = s.snapshot()
    act(s, "buy L1-02")
    after = s.snapshot()
    assert after["players"][0]["reserved"] == []
    assert after["players"][0]["cards"] == ["L1-02"]
    assert (after["pyramid"], after["decks"]) == (before["pyramid"], before["decks"])


def test_s73_the_opponents_reserved_card_cannot_be_bought() -> None:
    s = scenario(reserved={1: ["L1-07"]}, hands={0: "g3"})
    assert buys(s, "L1-07") == []
    with pytest.raises(IllegalAction):
        s.apply(0, "buy L1-07")


def test_s73_a_reserved_copy_card_also_needs_a_gem_card() -> None:
    # L1-26 costs 4 black, 1 pearl; L1-28 is a points-only card, L1-01 a white card
    common = {"reserved": {0: ["L1-26"]}, "hands": {0: "k4 p1"}}
    assert buys(scenario(**common), "L1-26") == []
    assert buys(scenario(cards={0: ["L1-28"]}, **common), "L1-26") == []
    assert buys(scenario(cards={0: ["L1-01"]}, **common), "L1-26") == ["buy L1-26"]


def test_s73_gold_pays_only_the_price_and_at_most_what_is_held() -> None:
    s = scenario(pyramid=["L1-02"], hands={0: "b3 y2"})  # L1-02 costs 3 blue
    for bad in ("buy L1-02 gold=b3", "buy L1-02 gold=w1", "buy L1-02 gold=b1,p1"):
        with pytest.raises(IllegalAction):  # more gold than held; white, pearl not in the price
            s.apply(0, bad)
    with pytest.raises(MalformedAction):  # 3 gold exist in the game
        s.apply(0, "buy L1-02 gold=b2,p2")


# -- §8.1 card abilities -------------------------------------------------------------
@pytest.mark.parametrize(
    ("before", "after"),
    [
        ((0, 1), [1, 1]),  # from the supply
        ((1, 2), [2, 1]),  # supply empty: from the opponent
        ((3, 0), [3, 0]),  # holds all three: nothing
    ],
)
def test_s81_take_privilege_ability(before: tuple[int, int], after: list[int]) -> None:
    # L2-03 costs 4 white, 2 black, 1 pearl
    s = scenario(pyramid=["L2-03"], hands={0: "w4 k2 p1"}, privileges=before)
    act(s, "buy L2-03")
    assert privileges_of(s) == after
    assert s.to_act() == [1]


def test_s81_play_again_gives_a_full_new_turn() -> None:
    s = scenario(
        pyramid=["L1-03"],
        board=board_rows("w....", ".....", ".....", ".....", "....."),
        hands={0: "b2 g2 p1"},
        privileges=(1, 0),
    )
    act(s, "replenish", "buy L1-03")
    view = s.spectator_view()
    assert s.to_act() == [0] and view["turn"] == 2
    assert (view["phase"], view["replenished"], view["play_again"]) == ("main", False, False)
    legal = kinds(s.legal_actions(0))
    assert {"priv", "replenish"} <= legal  # optional actions again (the payment is in the bag)
    act(s, next(a for a in s.legal_actions(0) if a.startswith("take")))
    assert s.to_act() == [1]  # only one extra turn


def test_s81_matching_token_takes_only_the_cards_colour() -> None:
    # L1-09 (blue, matching token) costs 2 white, 2 black
    board = board_rows("bpy..", ".w...", "....b", ".....", ".....")
    s = scenario(pyramid=["L1-09"], hands={0: "w2 k2"}, board=board)
    act(s, "buy L1-09")
    assert s.legal_actions(0) == ["match a1", "match e3"]  # not the pearl, gold or white
    act(s, "match e3")
    assert hand_of(s, 0) == {"blue": 1}
    assert s.spectator_view()["board"][2][4] is None and s.to_act() == [1]


# -- §8.2 copy-colour cards ----------------------------------------------------------
def test_s82_a_copy_card_goes_on_a_colour_the_player_owns() -> None:
    # L1-26 costs 4 black, 1 pearl; the player owns a white and a blue card
    s = scenario(pyramid=["L1-26"], cards={0: ["L1-01", "L1-06"]}, hands={0: "k4 p1"})
    act(s, "buy L1-26")
    assert s.legal_actions(0) == ["copy blue", "copy white"]
    with pytest.raises(IllegalAction):
        s.apply(0, "copy red")
    act(s, "copy blue")
    me = player(s, 0)
    assert me["copies"] == {"L1-26": "blue"}
    assert me["bonus"] == {"white": 1, "blue": 2, "green": 0, "red": 0, "black": 0}
    assert me["colour_points"]["blue"] == 1 and me["prestige"] == 1


# -- §8.3 crowns and royal cards -----------------------------------------------------
def test_s83_a_royal_card_without_ability_ends_the_turn_and_is_not_optional() -> None:
    s = scenario(pyramid=["L1-12"], cards={0: ["L1-02", "L1-07"]}, hands={0: "r3"})
    act(s, "buy L1-12")  # third crown
    assert kinds(s.legal_actions(0)) == {"royal"}
    act(s, "royal R4")
    assert player(s, 0)["prestige"] == 3 and s.to_act() == [1]
    assert s.spectator_view()["royals"] == ["R1", "R2", "R3"]


def test_s83_no_royal_card_between_the_thresholds() -> None:
    # 3 crowns and a royal card already; the 4th crown brings nothing
    s = scenario(pyramid=["L1-22"], cards={0: ["L1-02", "L1-07", "L1-12"]}, hands={0: "k3"})
    assert len(player(s, 0)["royals"]) == 1
    act(s, "buy L1-22")
    assert player(s, 0)["crowns"] == 4 and len(player(s, 0)["royals"]) == 1
    assert s.to_act() == [1]


def test_s83_a_royal_steal_is_skipped_when_the_opponent_holds_only_gold() -> None:
    s = scenario(pyramid=["L1-12"], cards={0: ["L1-02", "L1-07"]}, hands={0: "r3", 1: "y2"})
    act(s, "buy L1-12", "royal R1")  # third crown; R1 steals
    assert s.to_act() == [1] and hand_of(s, 1) == {"gold": 2}


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ((0, 1), [1, 1]),  # from the supply
        ((1, 2), [2, 1]),  # supply empty: from the opponent
        ((3, 0), [3, 0]),  # holds all three: nothing
    ],
)
def test_s83_a_royal_privilege_follows_section_4(before: tuple[int, int], after: list[int]) -> None:
    s = scenario(
        pyramid=["L1-12"], cards={0: ["L1-02", "L1-07"]}, hands={0: "r3"}, privileges=before
    )
    act(s, "buy L1-12", "royal R3")
    assert privileges_of(s) == after and s.to_act() == [1]


def test_s83_copy_then_one_royal_card_then_its_steal_then_the_discard() -> None:
    # 8 black bonuses make L3-12 (copy colour, 3 crowns, costs 8 black) free;
    # L1-02 and L1-17 give 2 crowns, so the purchase reaches 5: one royal card
    black8 = ["L1-16", "L1-17", "L1-18", "L1-19", "L1-20", "L2-14", "L2-16"]
    s = scenario(pyramid=["L3-12"], cards={0: ["L1-02", *black8]}, hands={0: "w4 b4 g2", 1: "r1"})
    assert (player(s, 0)["crowns"], player(s, 0)["bonus"]["black"]) == (2, 8)
    act(s, "buy L3-12")
    phases = [s.spectator_view()["phase"]]
    for action in ("copy black", "royal R1", "steal red"):
        act(s, action)
        phases.append(s.spectator_view()["phase"])
    assert phases == ["copy", "royal", "steal", "discard"]
    assert s.spectator_view()["pyramid"][2][0] is None  # refilled only once the turn ends
    act(s, "discard red")
    me = player(s, 0)
    assert (me["crowns"], me["royals"], me["bonus"]["black"]) == (5, ["R1"], 9)
    assert s.to_act() == [1] and s.spectator_view()["pyramid"][2][0] is not None


# -- §9.1 token limit ----------------------------------------------------------------
def test_s91_a_take_past_ten_is_discarded_down_to_exactly_ten() -> None:
    s = scenario(
        board=board_rows("rrr..", ".....", ".....", ".....", "....."), hands={0: "w4 b4 g1"}
    )
    bag_before = s.spectator_view()["bag"]
    act(s, "take a1 b1 c1")
    assert s.spectator_view()["phase"] == "discard" and s.to_act() == [0]
    assert s.legal_actions(0) == ["discard blue", "discard green", "discard red", "discard white"]
    act(s, "discard red")
    assert s.spectator_view()["phase"] == "discard"  # 11: one more
    act(s, "discard green")
    assert s.to_act() == [1]
    assert hand_of(s, 0) == {"white": 4, "blue": 4, "red": 2}
    bag = s.spectator_view()["bag"]  # discards go to the bag
    assert {t: bag[t] - bag_before[t] for t in bag if bag[t] != bag_before[t]} == {
        "red": 1,
        "green": 1,
    }


def test_s91_exactly_ten_tokens_need_no_discard() -> None:
    s = scenario(board=board_rows("rrr..", ".....", ".....", ".....", "....."), hands={0: "w4 b3"})
    act(s, "take a1 b1 c1")
    assert s.to_act() == [1] and sum(hand_of(s, 0).values()) == 10


def test_s91_a_matching_token_past_ten_is_discarded_after_the_ability() -> None:
    # two red and two black bonuses make L1-04 (white, matching token) free
    s = scenario(
        pyramid=["L1-04"],
        cards={0: ["L1-21", "L1-25", "L1-16", "L1-20"]},
        board=board_rows("w....", ".....", ".....", ".....", "....."),
        hands={0: "w2 b4 g4"},
    )
    act(s, "buy L1-04")
    assert s.legal_actions(0) == ["match a1"]
    act(s, "match a1")
    assert s.spectator_view()["phase"] == "discard" and sum(hand_of(s, 0).values()) == 11
    act(s, "discard white")
    assert s.to_act() == [1] and hand_of(s, 0) == {"white": 2, "blue": 4, "green": 4}


# -- §9.2 pyramid refill -------------------------------------------------------------
def test_s92_the_pyramid_is_refilled_at_the_end_of_the_turn() -> None:
    whites = board_rows("w....", ".....", ".....", ".....", ".....")
    s = scenario(pyramid=["L1-04"], hands={0: "r2 k2"}, board=whites)
    act(s, "buy L1-04")
    assert s.spectator_view()["pyramid"][0][0] is None  # still empty while choosing
    deck_before = s.spectator_view()["deck_sizes"][0]
    act(s, "match a1")
    assert s.spectator_view()["pyramid"][0][0] is not None
    assert s.spectator_view()["deck_sizes"][0] == deck_before - 1


def test_s92_the_last_card_of_a_deck_fills_a_slot_then_slots_stay_empty() -> None:
    s = scenario(pyramid=["L1-02"], hands={0: "b3"}, deck_sizes={1: 1})
    (last,) = s.snapshot()["decks"][0]
    act(s, "buy L1-02")
    view = s.spectator_view()
    assert (view["pyramid"][0][0], view["deck_sizes"][0]) == (last, 0)
    act(s, next(a for a in s.legal_actions(1) if a.startswith("take")))
    reserves = [a for a in s.legal_actions(0) if a.startswith("reserve")]
    assert not [a for a in reserves if a.endswith("deck1")]
    assert [a for a in reserves if a.endswith("deck2")]
    gold_cell = reserves[0].split()[1]
    act(s, f"reserve {gold_cell} {last}")
    assert s.spectator_view()["pyramid"][0][0] is None and s.to_act() == [1]


# -- §9.3 victory --------------------------------------------------------------------
def test_s93_ten_crowns_win() -> None:
    # 9 crowns, no points on cards (two royal cards: 4 points); L1-27 adds the 10th
    crowns9 = ["L1-02", "L1-07", "L1-12", "L1-17", "L1-22", "L2-22", "L2-23"]
    s = scenario(pyramid=["L1-27"], cards={0: crowns9}, hands={0: "w1 p1"})
    assert (player(s, 0)["crowns"], player(s, 0)["prestige"]) == (9, 4)
    act(s, "buy L1-27")
    assert not s.is_over()  # the copy choice is still part of the turn
    act(s, "copy green")
    assert s.is_over() and s.outcome().ranks == (1, 2)
    assert s.outcome().reason == "seat 0 reached 10 crowns"


def test_s93_victory_is_checked_only_once_the_turn_has_ended() -> None:
    # 19 points (14 on points-only cards, 1 on each colour); L2-02 (1 point, steal)
    cards = ["L3-13", "L2-24", "L1-28", "L1-05", "L1-10", "L1-15", "L1-20", "L1-25"]
    s = scenario(pyramid=["L2-02"], cards={0: cards}, hands={0: "b3 r2 w3 g4 k2 p1", 1: "w1"})
    assert player(s, 0)["prestige"] == 19
    act(s, "buy L2-02")  # 20 points, but the steal and the discard come first
    assert not s.is_over() and s.spectator_view()["phase"] == "steal"
    act(s, "steal white")
    assert not s.is_over() and s.spectator_view()["phase"] == "discard"
    act(s, "discard white")
    assert s.is_over() and s.outcome().reason == "seat 0 reached 20 prestige points"
    assert s.outcome().scores == (20.0, 0.0)


def test_s93_a_royal_cards_points_count_and_the_pyramid_is_refilled_first() -> None:
    # 17 points (no colour reaches 10) and 2 crowns; L1-12 (green, 1 crown) costs 3 red
    cards = ["L3-02", "L3-04", "L3-06", "L3-08", "L1-05", "L1-21", "L1-02", "L1-07"]
    s = scenario(pyramid=["L1-12"], cards={0: cards}, hands={0: "r2"})
    assert (player(s, 0)["prestige"], player(s, 0)["crowns"]) == (17, 2)
    act(s, "buy L1-12")
    assert not s.is_over()
    act(s, "royal R4")  # 3 points: 20
    assert s.is_over() and s.outcome().reason == "seat 0 reached 20 prestige points"
    assert max(player(s, 0)["colour_points"].values()) < 10
    assert s.spectator_view()["pyramid"][0][0] is not None  # §9.2 before §9.3
