"""RULES.md §1–§7.2 one rule at a time: data, setup, turn order, privileges, replenish, take, reserve.

The §11 edge-case rows are in test_edge_cases.py; purchases and what follows
them are in test_purchase.py. Each test builds a position, applies actions
and checks the exact result.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter

import pytest

from arena.engine import IllegalAction, MalformedAction
from arena.games.splendor_duel import GAME
from arena.games.splendor_duel.board import CELL_NAMES, SEGMENTS, SPIRAL
from arena.games.splendor_duel.cards import (
    CARD_ABILITIES,
    CARD_BONUS,
    CARD_COLOUR,
    CARD_COST,
    CARD_CROWNS,
    CARD_INDEX,
    CARD_IS_JOKER,
    CARD_LEVEL,
    CARD_POINTS,
    ROYAL_ABILITIES,
    ROYAL_INDEX,
    ROYAL_POINTS,
    TOKEN_NAMES,
)
from arena.games.splendor_duel.loader import DATA
from tests.arena.splendor_duel.helpers import (
    act,
    board_rows,
    hand_of,
    kinds,
    privileges_of,
    scenario,
)

#: RULES.md §1: centre first, then clockwise outward (cards.json spiral_fill_order)
SPIRAL_NAMES = (
    "c3 c4 b4 b3 b2 c2 d2 d3 d4 d5 c5 b5 a5 a4 a3 a2 a1 b1 c1 d1 e1 e2 e3 e4 e5"
).split()
SUPPLY = {"white": 4, "blue": 4, "green": 4, "red": 4, "black": 4, "pearl": 2, "gold": 3}


def takes(state) -> list[str]:
    return [a for a in state.legal_actions(state.to_act()[0]) if a.startswith("take ")]


# -- §1 components ---------------------------------------------------------------
def test_s1_card_data_is_the_audited_table() -> None:
    """Every card field (cost, points, crowns, bonus, abilities) of the 67 + 4 cards.

    The digest was taken from the shared cards.json (the authority) after
    checking it equal, card by card, to data/cards.json. Changing one number
    of one card fails here.
    """
    text = json.dumps(
        [DATA["jewel_cards"], DATA["royal_cards"]], sort_keys=True, separators=(",", ":")
    )
    digest = hashlib.sha256(text.encode()).hexdigest()
    assert digest == "95e98770add2d038eff83e4e8aac95ff70e66cbdddda20d8d225ba2731f31a07"
    jewels = DATA["jewel_cards"]
    assert Counter(c["level"] for c in jewels) == {1: 30, 2: 24, 3: 13}
    assert Counter((c["level"], c["kind"]) for c in jewels) == {
        (1, "gem"): 25, (1, "joker"): 4, (1, "points_only"): 1,
        (2, "gem"): 20, (2, "joker"): 3, (2, "points_only"): 1,
        (3, "gem"): 10, (3, "joker"): 2, (3, "points_only"): 1,
    }  # fmt: skip
    assert sum(c["crowns"] for c in jewels) == 28
    assert sum(c["points"] for c in jewels) == 92
    assert [c["id"] for c in jewels if c["bonus_count"] == 2] == [
        "L2-04", "L2-08", "L2-12", "L2-16", "L2-20",
    ]  # fmt: skip
    assert Counter(a for c in jewels for a in c["abilities"]) == {
        "play_again": 6,
        "take_token_matching_card_color": 5,
        "copy_color": 9,
        "steal_token": 5,
        "take_privilege": 5,
    }
    assert DATA["tokens"] == SUPPLY and DATA["privileges"] == 3


def test_s1_the_engine_tables_hold_every_printed_field_of_every_card() -> None:
    """What the rules read (cards.py) is what the data file prints, card by card."""
    for card in DATA["jewel_cards"]:
        n = CARD_INDEX[card["id"]]
        assert CARD_LEVEL[n] == card["level"]
        assert CARD_COST[n] == tuple(card["cost"])  # white, blue, green, red, black, pearl
        assert (CARD_POINTS[n], CARD_CROWNS[n]) == (card["points"], card["crowns"])
        assert CARD_ABILITIES[n] == tuple(card["abilities"])
        assert CARD_IS_JOKER[n] == (card["kind"] == "joker")
        if card["kind"] == "gem":
            assert TOKEN_NAMES[CARD_COLOUR[n]] == card["bonus_color"]
            assert CARD_BONUS[n] == card["bonus_count"]
        else:  # copy-colour cards give 1 bonus of a chosen colour, points-only cards none
            assert CARD_COLOUR[n] == -1
            assert CARD_BONUS[n] == (1 if card["kind"] == "joker" else 0)
    for royal in DATA["royal_cards"]:
        r = ROYAL_INDEX[royal["id"]]
        assert (ROYAL_POINTS[r], ROYAL_ABILITIES[r]) == (royal["points"], tuple(royal["abilities"]))
    # the two costs that other implementations print wrongly (shared cards.json, cross_check)
    assert CARD_COST[CARD_INDEX["L1-27"]] == (4, 0, 0, 0, 0, 1)
    assert CARD_COST[CARD_INDEX["L1-13"]] == (0, 0, 0, 2, 2, 1)


def test_s1_spiral_starts_at_the_centre_and_turns_clockwise() -> None:
    assert [CELL_NAMES[c] for c in SPIRAL] == SPIRAL_NAMES


# -- §2 setup --------------------------------------------------------------------
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_s2_setup(seed: int) -> None:
    view = GAME.new(2, seed).spectator_view()
    # §2.1: 5 level-1, 4 level-2, 3 level-3 face up, the rest in three decks
    assert [len(row) for row in view["pyramid"]] == [5, 4, 3]
    for level, row in enumerate(view["pyramid"], 1):
        assert all(card is not None and card.startswith(f"L{level}-") for card in row)
    assert view["deck_sizes"] == [25, 20, 10]
    # §2.2: all 25 tokens on the board, the bag empty
    cells = [t for row in view["board"] for t in row]
    assert None not in cells
    assert Counter(cells) == SUPPLY
    assert not any(view["bag"].values())
    # §2.3: privileges in the supply (one of them given away, §2.4); all royal cards out
    assert view["royals"] == ["R1", "R2", "R3", "R4"]
    for p in view["players"]:
        assert not any(p["tokens"].values())
        assert p["cards"] == p["reserved"] == p["royals"] == []
    assert (view["phase"], view["replenished"], view["play_again"]) == ("main", False, False)


def test_s2_decks_tokens_and_first_player_are_drawn_from_the_seed() -> None:
    views = [GAME.new(2, seed).spectator_view() for seed in range(1, 9)]
    assert len({json.dumps(v["board"]) for v in views}) == 8  # the bag is mixed
    assert len({json.dumps(v["pyramid"]) for v in views}) == 8  # the decks are shuffled
    firsts = {v["first_seat"] for v in views}
    assert firsts == {0, 1}  # §2.4: chosen at random
    for v in views:  # the other seat holds the privilege
        assert v["players"][1 - v["first_seat"]]["privileges"] == 1
    # what the ladder stores as a match's first mover (Match.first_mover)
    assert [GAME.first_to_act(2, seed) for seed in range(1, 9)] == [v["first_seat"] for v in views]
    assert {GAME.first_to_act(2, seed, {"first_seat": 1}) for seed in range(1, 9)} == {1}


# -- §3 turn structure -----------------------------------------------------------
def test_s3_privileges_then_replenish_then_one_mandatory_action() -> None:
    s = scenario(
        board=board_rows("w...k", ".....", "..b..", ".....", "r...."),
        hands={0: "g2"},
        privileges=(2, 0),
    )
    act(s, "priv a1", "priv e1")  # seat 0 still in its turn
    assert s.to_act() == [0] and s.spectator_view()["phase"] == "main"
    act(s, "replenish")
    assert s.to_act() == [0] and "priv" not in kinds(s.legal_actions(0))
    act(s, "take c3")
    assert s.to_act() == [1]
    view = s.spectator_view()
    assert view["turn"] == 2 and view["replenished"] is False
    assert hand_of(s, 0) == {"white": 1, "black": 1, "green": 2, "blue": 1}


def test_s3_nothing_optional_after_the_mandatory_action() -> None:
    # L1-04 (white, matching token) costs 2 red, 2 black: paying fills the bag
    s = scenario(
        pyramid=["L1-04"],
        board=board_rows("w....", ".....", ".....", ".....", "....."),
        hands={0: "r2 k2"},
        privileges=(1, 0),
    )
    assert {"priv", "replenish"} <= kinds(s.legal_actions(0))
    act(s, "buy L1-04")
    assert s.legal_actions(0) == ["match a1"]  # the privilege and the bag are still there


# -- §4, §5 privileges -------------------------------------------------------------
def test_s5_a_privilege_takes_any_non_gold_token_and_may_be_repeated() -> None:
    s = scenario(
        board=board_rows("y...p", ".....", ".....", ".....", "w...."),
        privileges=(2, 0),
    )
    privs = [a for a in s.legal_actions(0) if a.startswith("priv")]
    assert privs == ["priv a5", "priv e1"]  # any distance apart, never the gold
    with pytest.raises(IllegalAction):
        s.apply(0, "priv a1")
    act(s, "priv a5", "priv e1")
    assert hand_of(s, 0) == {"white": 1, "pearl": 1}
    assert privileges_of(s) == [0, 0]  # both back in the supply
    assert s.spectator_view()["board"][0][4] is None


def test_s5_no_privilege_is_offered_without_one() -> None:
    s = scenario(board=board_rows("w....", ".....", ".....", ".....", "....."), privileges=(0, 1))
    assert "priv" not in kinds(s.legal_actions(0))


def test_s5_a_board_of_gold_offers_no_privilege() -> None:
    s = scenario(
        board=board_rows("y....", ".....", "....y", ".....", "....."),
        pyramid=["L1-02"],
        hands={0: "b3"},
        privileges=(1, 0),
    )
    assert kinds(s.legal_actions(0)) == {"buy", "replenish", "reserve"}


def test_s74_forced_replenish_is_decided_after_privileges_are_spent() -> None:
    s = scenario(board=board_rows("w....", ".....", ".....", ".....", "....."), privileges=(1, 0))
    assert s.legal_actions(0) == ["priv a1", "replenish", "take a1"]
    act(s, "priv a1")  # the last token: now no mandatory action is possible
    assert s.legal_actions(0) == ["replenish"]
    act(s, "replenish")
    assert privileges_of(s) == [0, 1]
    assert "take" in kinds(s.legal_actions(0))


# -- §6 replenish ----------------------------------------------------------------
def test_s6_replenish_fills_the_first_empty_cells_along_the_spiral() -> None:
    # 11 tokens on the board, 11 in hands: the bag holds white, pearl and gold
    board = board_rows(".g..r", ".g.r.", "bw...", "b.bk.", "w...k")
    s = scenario(board=board, hands={0: "w1 b1 g2 p1", 1: "r2 k2 y2"}, privileges=(0, 1))
    before = s.spectator_view()
    assert before["bag"] == {**dict.fromkeys(SUPPLY, 0), "white": 1, "pearl": 1, "gold": 1}
    empty = [n for n in SPIRAL_NAMES if _at(before["board"], n) is None]
    act(s, "replenish")
    after = s.spectator_view()
    filled = {n for n in CELL_NAMES if _at(before["board"], n) != _at(after["board"], n)}
    assert filled == set(empty[:3]) == {"c3", "b4", "c2"}  # c4, b3, b2 are skipped
    assert sorted(_at(after["board"], n) for n in filled) == ["gold", "pearl", "white"]
    assert not any(after["bag"].values())
    assert privileges_of(s) == [0, 2]  # the opponent's privilege


def test_s6_a_single_token_replenish_still_gives_the_privilege() -> None:
    s = scenario(
        board=board_rows("wwww.", "bbbb.", "gggg.", "rrrr.", "kkkk."),
        hands={0: "p2 y2"},
    )
    assert sum(s.spectator_view()["bag"].values()) == 1
    act(s, "replenish")
    board = s.spectator_view()["board"]
    assert _at(board, "e1") == "gold"  # the first empty cell on the spiral
    assert [_at(board, n) for n in ("e2", "e3", "e4", "e5")] == [None] * 4
    assert privileges_of(s) == [0, 2]


def _at(board, name: str):
    return board[int(name[1]) - 1]["abcde".index(name[0])]


# -- §7.1 take up to 3 tokens ----------------------------------------------------
def test_s71_lines_run_along_rows_columns_and_both_diagonals() -> None:
    s = scenario(board=board_rows("w...b", ".w.b.", "..r..", ".....", "....."))
    assert takes(s) == [
        "take a1", "take a1 b2", "take a1 b2 c3",
        "take b2", "take b2 c3",
        "take c3", "take c3 d2", "take c3 d2 e1",
        "take d2", "take d2 e1", "take e1",
    ]  # fmt: skip
    for bad in ("take b2 d2", "take a1 c3", "take a1 e1"):  # gaps: not in the vocabulary
        with pytest.raises(MalformedAction):
            s.apply(0, bad)


def test_s71_a_square_gives_rows_columns_and_diagonal_pairs_but_no_bent_triple() -> None:
    s = scenario(board=board_rows("wb...", "gr...", ".....", ".....", "....."))
    assert takes(s) == [
        "take a1", "take a1 a2", "take a1 b1", "take a1 b2",
        "take a2", "take a2 b1", "take a2 b2",
        "take b1", "take b1 b2", "take b2",
    ]  # fmt: skip
    with pytest.raises(MalformedAction):
        s.apply(0, "take a1 a2 b2")


def test_s71_the_board_has_145_segments() -> None:
    assert Counter(len(segment) for segment in SEGMENTS) == {1: 25, 2: 72, 3: 48}


def test_s71_two_pearls_alone_give_the_opponent_a_privilege() -> None:
    s = scenario(board=board_rows("pp...", ".....", ".....", ".....", "....."))
    act(s, "take a1 b1")
    assert privileges_of(s) == [0, 2]


def test_s71_three_of_a_colour_on_a_diagonal_give_a_privilege_mixed_do_not() -> None:
    s = scenario(board=board_rows("r....", ".r...", "..r..", ".....", "....."))
    act(s, "take a1 b2 c3")
    assert privileges_of(s) == [0, 2] and hand_of(s, 0) == {"red": 3}
    s = scenario(board=board_rows("rrk..", ".....", ".....", ".....", "....."))
    act(s, "take a1 b1 c1")
    assert privileges_of(s) == [0, 1]


def test_s71_both_pearls_with_a_gem_between_them_give_a_privilege() -> None:
    s = scenario(board=board_rows("pwp..", ".....", ".....", ".....", "....."))
    act(s, "take a1 b1 c1")
    assert privileges_of(s) == [0, 2]


@pytest.mark.parametrize(
    ("row", "actions", "after"),
    [
        ("pwp..", ("priv a1", "take b1 c1"), [0, 1]),  # both pearls this turn, one by the take
        ("rrrr.", ("priv a1", "take b1 c1"), [0, 1]),  # three reds this turn, two by the take
        ("rrrr.", ("priv a1", "take b1 c1 d1"), [0, 2]),  # three reds by the take itself
    ],
)
def test_s71_only_the_tokens_of_the_take_itself_count(
    row: str, actions: tuple[str, ...], after: list[int]
) -> None:
    s = scenario(board=board_rows(row, ".....", ".....", ".....", "....."), privileges=(1, 1))
    act(s, *actions)
    assert privileges_of(s) == after


def test_s4_privilege_owed_for_a_take_comes_from_the_taker_when_the_supply_is_empty() -> None:
    s = scenario(board=board_rows("www..", ".....", ".....", ".....", "....."), privileges=(2, 1))
    act(s, "take a1 b1 c1")
    assert privileges_of(s) == [1, 2]


# -- §7.2 take 1 gold and reserve 1 card -----------------------------------------
def test_s72_reserve_takes_the_chosen_gold_and_a_pyramid_card() -> None:
    s = scenario(board=board_rows("y....", ".....", "....y", ".....", "....."), pyramid=["L2-05"])
    deck_top = s.snapshot()["decks"][1][-1]
    reserves = [a for a in s.legal_actions(0) if a.startswith("reserve") and "L2-05" in a]
    assert reserves == ["reserve a1 L2-05", "reserve e3 L2-05"]
    act(s, "reserve e3 L2-05")
    view = s.observation(0)
    assert view["board"][2][4] is None and view["board"][0][0] == "gold"  # the chosen gold
    assert hand_of(s, 0) == {"gold": 1}
    assert view["players"][0]["reserved"] == [{"card": "L2-05", "level": 2, "blind": False}]
    assert view["pyramid"][1][0] == deck_top  # slot refilled from its deck at the end of turn
    assert view["deck_sizes"] == [25, 19, 10] and s.to_act() == [1]


def test_s72_a_blind_reserve_takes_the_top_of_the_deck() -> None:
    s = scenario(board=board_rows("y....", ".....", ".....", ".....", "....."))
    before = s.snapshot()
    act(s, "reserve a1 deck3")
    after = s.snapshot()
    assert after["players"][0]["reserved"] == [
        {"card": before["decks"][2][-1], "level": 3, "blind": True}
    ]
    assert after["decks"][2] == before["decks"][2][:-1]
    assert after["pyramid"] == before["pyramid"]


def test_s72_reserving_is_allowed_with_ten_tokens_then_one_is_discarded() -> None:
    s = scenario(
        board=board_rows("y....", ".....", ".....", ".....", "....."), hands={0: "w4 b4 g2"}
    )
    act(s, "reserve a1 deck1")
    assert s.spectator_view()["phase"] == "discard" and s.to_act() == [0]
    act(s, "discard white")
    assert s.to_act() == [1] and sum(hand_of(s, 0).values()) == 10


def test_s72_reserved_cards_give_nothing_until_bought() -> None:
    # L1-06: a blue bonus, L1-07: a crown, L3-13: 6 points; L1-02 costs 3 blue
    s = scenario(pyramid=["L1-02"], reserved={0: ["L1-06", "L1-07", "L3-13"]}, hands={0: "b2"})
    me = s.spectator_view()["players"][0]
    assert (me["prestige"], me["crowns"], me["bonus"]["blue"]) == (0, 0, 0)
    assert not [a for a in s.legal_actions(0) if a.startswith("buy L1-02")]


def test_s72_buying_a_reserved_card_frees_its_place() -> None:
    s = scenario(
        board=board_rows("y.w..", ".....", ".....", ".....", "....."),
        reserved={0: ["L1-02", "L1-07", "L1-12"]},
        hands={0: "b3"},
    )
    assert "reserve" not in kinds(s.legal_actions(0))
    act(s, "buy L1-02", "take c1")  # seat 0 buys from its reserve, seat 1 takes the white
    assert "reserve a1 deck1" in s.legal_actions(0)
