"""RULES.md §11 edge-case table: one scenario per row (the row number is in the name).

Positions are built by helpers.scenario from a real game's snapshot.
"""

from __future__ import annotations

import pytest

from arena.engine import IllegalAction, MalformedAction
from tests.arena.splendor_duel.helpers import act, board_rows, kinds, scenario

EMPTY_BOARD = board_rows(".....", ".....", ".....", ".....", ".....")


def privileges(state) -> list[int]:
    return [state.observation(0)["players"][s]["privileges"] for s in (0, 1)]


def hand(state, seat: int) -> dict[str, int]:
    return {k: v for k, v in state.observation(0)["players"][seat]["tokens"].items() if v}


def test_row01_a_line_stops_at_an_empty_cell_or_gold() -> None:
    s = scenario(board=board_rows("w.wyg", ".....", ".....", ".....", "....."))
    takes = [a for a in s.legal_actions(0) if a.startswith("take")]
    assert takes == ["take a1", "take c1", "take e1"]
    for action in ("take a1 b1 c1", "take c1 d1 e1", "take d1"):
        with pytest.raises(IllegalAction):
            s.apply(0, action)
    with pytest.raises(MalformedAction):  # not a straight line of adjacent cells
        s.apply(0, "take a1 c1")


def test_row02_two_pearls_and_a_gem_give_the_opponent_a_privilege() -> None:
    s = scenario(board=board_rows("p....", "p....", "w....", ".....", "....."))
    act(s, "take a1 a2 a3")
    assert privileges(s) == [0, 2]
    assert hand(s, 0) == {"pearl": 2, "white": 1}


def test_row02_three_of_one_colour_give_a_privilege_two_gems_do_not() -> None:
    s = scenario(board=board_rows("www..", "rr...", ".....", ".....", "....."))
    act(s, "take a1 b1 c1")
    assert privileges(s) == [0, 2]
    act(s, "take a2 b2")  # seat 1 takes two reds: nothing for seat 0
    assert privileges(s) == [0, 2]


def test_row03_privileges_and_abilities_never_trigger_the_take_privilege() -> None:
    s = scenario(board=board_rows("pwww.", "p....", ".....", ".....", "....."), privileges=(3, 0))
    act(s, "priv a1", "priv a2", "priv b1")
    assert privileges(s) == [0, 0]  # all three back in the supply, none for seat 1
    act(s, "take c1 d1")
    assert privileges(s) == [0, 0]


def test_row04_a_privilege_owed_with_an_empty_supply_comes_from_the_other_player() -> None:
    board = board_rows("ww...", ".....", ".....", ".....", ".....")
    s = scenario(board=board, privileges=(2, 1))
    act(s, "replenish")  # seat 1 is owed one; the supply is empty: it comes from seat 0
    assert privileges(s) == [1, 2]
    s = scenario(board=board, privileges=(0, 3))
    act(s, "replenish")  # seat 1 already holds all three: nothing happens
    assert privileges(s) == [0, 3]


def test_row05_no_privilege_after_replenishing() -> None:
    s = scenario(board=board_rows("ww...", ".....", ".....", ".....", "....."), privileges=(1, 0))
    assert "priv a1" in s.legal_actions(0)
    act(s, "replenish")
    assert "priv" not in kinds(s.legal_actions(0))
    with pytest.raises(IllegalAction):
        s.apply(0, "priv a1")
    assert "replenish" not in s.legal_actions(0)  # and only once (§6)


def test_row06_no_replenish_with_an_empty_bag() -> None:
    s = scenario()  # a new game: the board is full and the bag empty
    assert "replenish" not in s.legal_actions(0)
    with pytest.raises(IllegalAction):
        s.apply(0, "replenish")


def test_row07_with_no_mandatory_action_the_replenish_is_forced() -> None:
    s = scenario(board=EMPTY_BOARD)
    assert s.legal_actions(0) == ["replenish"]
    act(s, "replenish")
    assert privileges(s) == [0, 2]
    assert "take" in kinds(s.legal_actions(0)) and "pass" not in kinds(s.legal_actions(0))


def _stripped_turn(**extra):
    """Seat 0 mid-turn after replenishing: only gold on the board, nothing affordable."""
    return scenario(
        board=board_rows("yyy..", ".....", ".....", ".....", "....."),
        hands={0: "w4 b4 g4", 1: "r4 k4 p2"},
        pyramid=["L1-04", "L1-10", "L1-12", "L1-16", "L1-22", "L2-01", "L2-02", "L2-05", "L2-06"]
        + ["L3-01", "L3-02", "L3-03"],
        reserved={0: ["L3-04", "L3-06", "L3-08"]},
        privileges=(0, 0),
        replenished=True,
        **extra,
    )


def test_row08_no_mandatory_action_and_no_replenish_means_pass() -> None:
    s = _stripped_turn()
    assert s.legal_actions(0) == ["pass"]
    act(s, "pass")
    # §9.1 still applies: 12 tokens, so two discards, one at a time
    assert s.observation(0)["phase"] == "discard"
    assert s.legal_actions(0) == ["discard blue", "discard green", "discard white"]
    act(s, "discard blue", "discard green")
    assert s.to_act() == [1]
    assert hand(s, 0) == {"white": 4, "blue": 3, "green": 3}


def test_row09_no_reserve_without_gold_on_the_board() -> None:
    s = scenario(board=board_rows("wbgrk", ".....", ".....", ".....", "....."))
    assert "reserve" not in kinds(s.legal_actions(0))
    s = scenario(board=board_rows("wbgry", ".....", ".....", ".....", "....."))
    reserves = [a for a in s.legal_actions(0) if a.startswith("reserve")]
    assert len(reserves) == 12 + 3  # every pyramid card and every deck, with the gold at e1
    assert all(a.startswith("reserve e1 ") for a in reserves)


def test_row10_no_reserve_with_three_reserved_cards() -> None:
    s = scenario(reserved={0: ["L1-01", "L1-02", "L1-03"]})
    assert "reserve" not in kinds(s.legal_actions(0))


def test_row11_no_reserve_when_no_card_is_left() -> None:
    base = scenario(empty_decks=[1, 2, 3])
    pyramid_cards = [c for row in base.snapshot()["pyramid"] for c in row if c]
    s = scenario(empty_decks=[1, 2, 3], cards={1: pyramid_cards})
    assert s.snapshot()["pyramid"] == [[None] * 5, [None] * 4, [None] * 3]
    assert "reserve" not in kinds(s.legal_actions(0))
    assert "take" in kinds(s.legal_actions(0))


def test_row12_an_exhausted_deck_leaves_its_slot_empty() -> None:
    s = scenario(empty_decks=[3])
    legal = s.legal_actions(0)
    gold_cell = next(a.split()[1] for a in legal if a.startswith("reserve"))
    assert f"reserve {gold_cell} deck2" in legal
    assert f"reserve {gold_cell} deck3" not in legal
    card = s.snapshot()["pyramid"][2][0]
    act(s, f"reserve {gold_cell} {card}")
    assert s.snapshot()["pyramid"][2][0] is None  # end of turn: nothing to refill from
    assert s.to_act() == [1]


def test_row13_a_copy_card_needs_a_gem_card() -> None:
    common = {"pyramid": ["L1-26"], "hands": {0: "k4 p1"}}
    assert "buy L1-26" not in scenario(**common).legal_actions(0)
    assert "buy L1-26" not in scenario(cards={0: ["L1-28"]}, **common).legal_actions(0)
    assert "buy L1-26" in scenario(cards={0: ["L1-01"]}, **common).legal_actions(0)


def test_row14_a_copy_card_next_to_a_double_bonus_gives_one_bonus() -> None:
    s = scenario(pyramid=["L1-26"], hands={0: "k4 p1"}, cards={0: ["L2-04"]})
    act(s, "buy L1-26")
    assert s.legal_actions(0) == ["copy white"]
    act(s, "copy white")
    me = s.observation(0)["players"][0]
    assert me["bonus"]["white"] == 3
    assert me["copies"] == {"L1-26": "white"}
    assert me["colour_points"]["white"] == 1 + 1  # L2-04's point and the copy card's


def test_row15_the_matching_token_ability_is_skipped_without_that_colour() -> None:
    no_white = board_rows("bb...", ".....", ".....", ".....", ".....")
    s = scenario(pyramid=["L1-04"], hands={0: "r2 k2"}, board=no_white)
    act(s, "buy L1-04")
    assert s.to_act() == [1] and s.observation(1)["phase"] == "main"

    whites = board_rows("bw...", ".....", "..w..", ".....", ".....")
    s = scenario(pyramid=["L1-04"], hands={0: "r2 k2"}, board=whites)
    act(s, "buy L1-04")
    assert s.legal_actions(0) == ["match b1", "match c3"]
    act(s, "match c3")
    assert hand(s, 0) == {"white": 1}
    assert privileges(s) == [0, 1]  # no privilege: abilities never trigger §7.1's rule


def test_row16_steal_never_takes_gold() -> None:
    s = scenario(pyramid=["L2-02"], hands={0: "b4 r3", 1: "y2"})
    act(s, "buy L2-02")
    assert s.to_act() == [1]  # skipped: only gold to steal
    s = scenario(pyramid=["L2-02"], hands={0: "b4 r3", 1: "y1 p1 w1"})
    act(s, "buy L2-02")
    assert s.legal_actions(0) == ["steal pearl", "steal white"]
    with pytest.raises(IllegalAction):
        s.apply(0, "steal gold")
    with pytest.raises(MalformedAction):
        s.apply(0, "steal gold-please")
    act(s, "steal pearl")
    assert hand(s, 1) == {"gold": 1, "white": 1}


def test_row17_discard_down_to_ten_after_a_steal_gold_allowed() -> None:
    s = scenario(
        pyramid=["L2-02"],
        cards={0: ["L2-08", "L1-06", "L1-07", "L2-20", "L1-21"]},  # 4 blue, 3 red bonuses
        hands={0: "w4 g4 p1 y1", 1: "k2"},
    )
    assert "buy L2-02" in s.legal_actions(0)  # §11 row 19: free after bonuses
    act(s, "buy L2-02", "steal black")
    assert s.observation(0)["phase"] == "discard"
    assert s.legal_actions(0) == [
        "discard black",
        "discard gold",
        "discard green",
        "discard pearl",
        "discard white",
    ]
    act(s, "discard gold")
    assert s.to_act() == [1]
    assert s.observation(1)["bag"]["gold"] == 1  # §11 row 24: back to the bag


def test_row18_gold_may_pay_for_a_colour_the_player_holds() -> None:
    s = scenario(pyramid=["L1-02"], hands={0: "b3 y2"})
    buys = [a for a in s.legal_actions(0) if a.startswith("buy L1-02")]
    assert buys == ["buy L1-02", "buy L1-02 gold=b1", "buy L1-02 gold=b2"]
    act(s, "buy L1-02 gold=b2")
    assert hand(s, 0) == {"blue": 2}
    assert s.observation(1)["bag"]["gold"] == 2 and s.observation(1)["bag"]["blue"] == 1


def test_row18_every_way_to_pay_is_its_own_action() -> None:
    # L2-01 costs 2 green, 2 red, 2 black, 1 pearl; 3 gold cover any 3 units
    s = scenario(pyramid=["L2-01"], hands={0: "g2 r2 k2 p1 y3"})
    buys = [a for a in s.legal_actions(0) if a.startswith("buy L2-01")]
    # gold allocations over 7 payable units (g,g,r,r,k,k,p) with at most 3 gold:
    # per type 0..2 (pearl 0..1), total <= 3
    expected = sum(
        1
        for g in range(3)
        for r in range(3)
        for k in range(3)
        for p in range(2)
        if g + r + k + p <= 3
    )
    assert len(buys) == expected == len(set(buys))
    assert "buy L2-01 gold=g1,r1,p1" in buys


def test_row19_a_free_card_can_be_bought_with_no_tokens() -> None:
    s = scenario(pyramid=["L1-02"], cards={0: ["L2-08", "L1-06"]})
    assert "buy L1-02" in s.legal_actions(0)
    act(s, "buy L1-02")
    bonus = s.observation(0)["players"][0]["bonus"]
    assert (bonus["blue"], bonus["white"]) == (3, 1)


def test_row20_victory_ends_the_game_before_a_play_again_turn() -> None:
    s = scenario(
        pyramid=["L3-11"],
        cards={0: ["L3-02", "L3-04", "L3-06", "L3-08", "L1-05", "L1-21"]},  # 17 points
        hands={0: "r4 y3"},
    )
    act(s, "buy L3-11 gold=r3", "copy white")
    assert s.is_over()
    assert s.outcome().ranks == (1, 2)
    assert "20 prestige" in s.outcome().reason
    assert s.to_act() == [] and s.legal_actions(0) == []


def _red_collector():
    return scenario(
        pyramid=["L3-11"],
        # 7 red points, a 6-point points-only card, 3 crowns for royal card R4
        cards={0: ["L3-10", "L1-25", "L2-20", "L2-18", "L3-13", "L1-02", "L1-07", "L1-12"]},
        royals={0: ["R4"]},
        hands={0: "r3"},
    )


def test_row21_colour_points_count_copy_cards_not_points_only_or_royal_cards() -> None:
    s = _red_collector()
    me = s.observation(0)["players"][0]
    assert me["prestige"] == 7 + 6 + 3 and me["colour_points"]["red"] == 7
    act(s, "buy L3-11", "copy red")
    assert s.is_over()
    assert s.outcome().reason == "seat 0 reached 10 points in red"

    s = _red_collector()
    act(s, "buy L3-11", "copy white")  # 19 prestige, 7 red: no victory; play again
    assert not s.is_over() and s.to_act() == [0]


def test_row22_royal_cards_at_three_and_six_crowns() -> None:
    s = scenario(pyramid=["L1-12"], cards={0: ["L1-02", "L1-07"]}, hands={0: "r3"})
    act(s, "buy L1-12")
    assert s.legal_actions(0) == ["royal R1", "royal R2", "royal R3", "royal R4"]
    act(s, "royal R3")  # its ability: take a privilege
    assert privileges(s) == [1, 1]
    assert s.to_act() == [1]

    s = scenario(
        pyramid=["L1-22"],
        cards={0: ["L1-02", "L1-07", "L1-12", "L1-17", "L2-01"]},  # 5 crowns
        royals={0: ["R3"]},
        hands={0: "k2", 1: "w1"},  # L1-22 costs 3 black, L1-17 gives 1
    )
    act(s, "buy L1-22")
    assert s.legal_actions(0) == ["royal R1", "royal R2", "royal R4"]
    act(s, "royal R1", "steal white")  # R1: steal
    assert hand(s, 0) == {"white": 1}
    assert s.to_act() == [1]


def test_row22_card_ability_before_royal_card_and_royal_play_again() -> None:
    s = scenario(pyramid=["L1-27"], cards={0: ["L1-02", "L1-07"]}, hands={0: "w4 p1"})
    act(s, "buy L1-27")
    assert s.observation(0)["phase"] == "copy"
    act(s, "copy blue")
    assert s.observation(0)["phase"] == "royal"
    act(s, "royal R2")
    assert s.to_act() == [0] and s.observation(0)["phase"] == "main"  # play again


def test_row23_the_step_cap_ends_the_game_ranked_by_prestige_then_crowns() -> None:
    s = scenario(cards={0: ["L1-05"]}, options={"step_cap": 1})
    act(s, next(a for a in s.legal_actions(0) if a.startswith("take")))
    assert s.is_over() and s.outcome().ranks == (1, 2)
    assert "step cap" in s.outcome().reason
    s = scenario(cards={1: ["L1-02"]}, options={"step_cap": 1})  # 0 points each, 1 crown
    act(s, next(a for a in s.legal_actions(0) if a.startswith("take")))
    assert s.outcome().ranks == (2, 1)
    s = scenario(options={"step_cap": 1})
    act(s, next(a for a in s.legal_actions(0) if a.startswith("take")))
    assert s.outcome().ranks == (1, 1)


def test_row24_spent_tokens_go_to_the_bag_not_the_board() -> None:
    s = scenario(pyramid=["L1-01"], hands={0: "b1 g1 r1 k1"})
    board_before = s.snapshot()["board"]
    act(s, "buy L1-01")
    assert s.snapshot()["board"] == board_before
    bag = s.observation(0)["bag"]
    assert [bag[c] for c in ("blue", "green", "red", "black")] == [1, 1, 1, 1]


@pytest.mark.parametrize("first", [0, 1])
def test_row25_the_second_player_starts_with_a_privilege(first: int) -> None:
    from arena.games.splendor_duel import GAME

    s = GAME.new(2, 7, {"first_seat": first})
    assert s.to_act() == [first]
    view = s.spectator_view()
    assert view["players"][first]["privileges"] == 0
    assert view["players"][1 - first]["privileges"] == 1
    assert view["privileges_supply"] == 2
