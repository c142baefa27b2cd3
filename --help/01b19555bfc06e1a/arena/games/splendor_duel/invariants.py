"""Consistency checks of a state (RULES.md §12), used by tests and restore.

Slow and thorough: never called on the hot path of play.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.games.splendor_duel.board import board_masks
from arena.games.splendor_duel.cards import (
    CARD_BONUS,
    CARD_COLOUR,
    CARD_COUNT,
    CARD_CROWNS,
    CARD_IS_JOKER,
    CARD_LEVEL,
    CARD_POINTS,
    EMPTY,
    GOLD,
    HAND_LIMIT,
    PRIVILEGES,
    ROYAL_POINTS,
    ROYAL_THRESHOLDS,
    SLOT_LEVEL,
    TOKEN_NAMES,
    TOKEN_SUPPLY,
)
from arena.games.splendor_duel.rules import COPY, P_ROYAL

if TYPE_CHECKING:
    from arena.games.splendor_duel.state import SplendorDuelState


def check_invariants(s: SplendorDuelState) -> None:
    """RULES.md §12 plus the consistency of the derived counters."""
    board = s.board
    assert (s.takeable, s.gold_mask) == board_masks(board, GOLD), "board masks out of date"
    for t in range(7):
        total = board.count(t) + s.bag[t] + s.tokens[t] + s.tokens[7 + t]
        assert total == TOKEN_SUPPLY[t], f"{TOKEN_NAMES[t]}: {total} != {TOKEN_SUPPLY[t]}"
    assert min(s.tokens) >= 0 and min(s.bag) >= 0, "negative token count"
    assert 0 <= s.privileges[0] + s.privileges[1] <= PRIVILEGES
    assert min(s.privileges) >= 0
    places = [c for deck in s.decks for c in deck] + [c for c in s.pyramid if c >= 0]
    for seat in (0, 1):
        places += list(s.reserved[seat]) + list(s.cards[seat])
        assert len(s.reserved[seat]) <= 3
    assert sorted(places) == list(range(CARD_COUNT)), "cards lost or duplicated"
    for slot, card in enumerate(s.pyramid):
        assert card == EMPTY or CARD_LEVEL[card] == SLOT_LEVEL[slot]
    for level, deck in enumerate(s.decks, 1):
        assert all(CARD_LEVEL[c] == level for c in deck)
    reserved_all = set(s.reserved[0]) | set(s.reserved[1])
    assert set(s.blind) <= reserved_all, "a blind card is not in a reserve"
    copies = dict(s.copies)
    in_copy_phase = s.phase == COPY
    for seat in (0, 1):
        bonus = [0] * 5
        colour_points = [0] * 5
        prestige = crowns = 0
        for card in s.cards[seat]:
            prestige += CARD_POINTS[card]
            crowns += CARD_CROWNS[card]
            if CARD_COLOUR[card] >= 0:
                bonus[CARD_COLOUR[card]] += CARD_BONUS[card]
                colour_points[CARD_COLOUR[card]] += CARD_POINTS[card]
            elif CARD_IS_JOKER[card]:
                if card not in copies:
                    assert in_copy_phase and s.pending[0][1] == card, "copy card unplaced"
                    continue
                c = copies[card]
                assert any(CARD_COLOUR[g] == c for g in s.cards[seat]), "copy on no gem colour"
                bonus[c] += 1
                colour_points[c] += CARD_POINTS[card]
        prestige += sum(ROYAL_POINTS[r] for r in s.royals_owned[seat])
        assert s.bonus[seat * 5 : seat * 5 + 5] == bonus, "bonus out of date"
        assert s.colour_points[seat * 5 : seat * 5 + 5] == colour_points
        assert s.prestige[seat] == prestige and s.crowns[seat] == crowns
        royals_due = sum(crowns >= t for t in ROYAL_THRESHOLDS)
        royals_waiting = sum(1 for kind, _ in s.pending if kind == P_ROYAL)
        if s.active != seat:
            royals_waiting = 0
        assert len(s.royals_owned[seat]) + royals_waiting == royals_due, "royal cards"
        if seat != s.active:  # §9.1; the opponent's tokens only ever go down
            assert sum(s.tokens[seat * 7 : seat * 7 + 7]) <= HAND_LIMIT, "over the hand limit"
    owned = sorted(s.royals + s.royals_owned[0] + s.royals_owned[1])
    assert owned == list(range(len(ROYAL_POINTS)))
