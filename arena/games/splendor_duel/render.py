"""Plain-text pictures of a position and actions described in words."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.games.splendor_duel import actions as A
from arena.games.splendor_duel.board import CELL_NAMES, render_board
from arena.games.splendor_duel.cards import (
    CARD_IDS,
    LEVELS,
    PAYABLE,
    ROYAL_IDS,
    ROYAL_POINTS,
    SLOT_LEVEL,
    TOKEN_LETTERS,
    TOKEN_NAMES,
    card_text,
    card_words,
)

if TYPE_CHECKING:
    from arena.games.splendor_duel.state import SplendorDuelState

PHASE_NAMES = ("main", "copy", "match", "steal", "royal", "discard", "over")


def render(s: SplendorDuelState) -> str:
    lines = [f"Splendor Duel — step {s.step_count}, turn {s.turn}"]
    if s.result is not None:
        lines.append(f"game over: {s.result.reason}; ranks {list(s.result.ranks)}")
    else:
        lines.append(f"seat {s.active} to act ({PHASE_NAMES[s.phase]} phase)")
    lines.append("board (w b g r k = gems, p = pearl, y = gold):")
    lines.extend("  " + line for line in render_board(s.board, TOKEN_LETTERS))
    bag = " ".join(f"{TOKEN_LETTERS[t]}{n}" for t, n in enumerate(s.bag) if n)
    supply = 3 - s.privileges[0] - s.privileges[1]
    lines.append(f"bag: {bag or 'empty'}   privileges in supply: {supply}")
    for level in reversed(LEVELS):
        cards = [
            card_text(c) for slot, c in enumerate(s.pyramid) if SLOT_LEVEL[slot] == level and c >= 0
        ]
        lines.append(f"level {level} (deck {len(s.decks[level - 1])}):")
        lines.extend(f"  {text}" for text in cards)
    royals = ", ".join(f"{ROYAL_IDS[r]} ({ROYAL_POINTS[r]}pt)" for r in s.royals)
    lines.append(f"royal cards: {royals or 'none'}")
    copies = dict(s.copies)
    for seat in (0, 1):
        tokens = " ".join(
            f"{TOKEN_LETTERS[t]}{s.tokens[seat * 7 + t]}"
            for t in range(7)
            if s.tokens[seat * 7 + t]
        )
        bonus = " ".join(
            f"{TOKEN_LETTERS[c]}{s.bonus[seat * 5 + c]}" for c in range(5) if s.bonus[seat * 5 + c]
        )
        lines.append(
            f"seat {seat}: {s.prestige[seat]} points, {s.crowns[seat]} crowns, "
            f"{s.privileges[seat]} privileges; tokens {tokens or '-'}; bonus {bonus or '-'}"
        )
        cards = [
            CARD_IDS[c] + (f"={TOKEN_LETTERS[copies[c]]}" if c in copies else "")
            for c in s.cards[seat]
        ]
        lines.append(f"  cards: {' '.join(cards) or '-'}")
        reserved = [CARD_IDS[c] + ("*" if c in s.blind else "") for c in s.reserved[seat]]
        royals = [ROYAL_IDS[r] for r in s.royals_owned[seat]]
        lines.append(
            f"  reserved: {' '.join(reserved) or '-'} (* = blind)   royals: {' '.join(royals) or '-'}"
        )
    return "\n".join(lines)


def describe(s: SplendorDuelState, seat: int, action: str) -> str:
    """The action in words; uses the position it is played from."""
    decoded = A.DECODE.get(action)
    if decoded is None:
        return f"seat {seat}: {action!r} (not an action)"
    kind = decoded[0]
    who = f"seat {seat}"
    board = s.board

    def token_at(cell: int) -> str:
        t = board[cell]
        return (
            f"{TOKEN_NAMES[t]} from {CELL_NAMES[cell]}"
            if t >= 0
            else f"nothing at {CELL_NAMES[cell]}"
        )

    if kind == A.TAKE:
        return f"{who} takes " + ", ".join(token_at(c) for c in decoded[1])
    if kind == A.PRIV:
        return f"{who} spends a privilege to take {token_at(decoded[1])}"
    if kind == A.REPLENISH:
        return f"{who} replenishes the board (the opponent gains a privilege)"
    if kind == A.RESERVE:
        return f"{who} takes the gold at {CELL_NAMES[decoded[1]]} and reserves {card_words(decoded[2])}"
    if kind == A.RESERVE_DECK:
        return f"{who} takes the gold at {CELL_NAMES[decoded[1]]} and reserves the top card of deck {decoded[2]}"
    if kind == A.BUY:
        _, card, gold = decoded
        paid = ", ".join(
            f"{n} gold for {TOKEN_NAMES[t]}" for t, n in zip(PAYABLE, gold, strict=True) if n
        )
        return f"{who} buys {card_words(card)}" + (f", paying {paid}" if paid else "")
    if kind == A.PASS:
        return f"{who} cannot act and passes"
    if kind == A.COPY:
        return f"{who} places the copy card on {TOKEN_NAMES[decoded[1]]}"
    if kind == A.MATCH:
        return f"{who} takes the matching {token_at(decoded[1])}"
    if kind == A.STEAL:
        return f"{who} steals a {TOKEN_NAMES[decoded[1]]} token"
    if kind == A.ROYAL:
        r = decoded[1]
        return f"{who} takes royal card {ROYAL_IDS[r]} ({ROYAL_POINTS[r]} points)"
    return f"{who} returns a {TOKEN_NAMES[decoded[1]]} token to the bag"
