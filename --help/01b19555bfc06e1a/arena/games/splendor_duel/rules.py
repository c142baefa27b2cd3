"""State transitions: one function per action kind, plus the turn's end.

Each handler receives an action already checked against the legal list, so
none of them can fail half-way. Comments cite RULES.md sections.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.engine import Outcome, ranks_from_keys
from arena.games.splendor_duel import actions as A
from arena.games.splendor_duel.board import BIT, SPIRAL, board_masks
from arena.games.splendor_duel.cards import (
    CARD_BONUS,
    CARD_COLOUR,
    CARD_COPY,
    CARD_COST,
    CARD_CROWNS,
    CARD_MATCH,
    CARD_PLAY_AGAIN,
    CARD_POINTS,
    CARD_STEAL,
    CARD_TAKE_PRIVILEGE,
    EMPTY,
    GOLD,
    HAND_LIMIT,
    PAYABLE,
    PEARL,
    PRIVILEGES,
    ROYAL_ABILITIES,
    ROYAL_POINTS,
    ROYAL_THRESHOLDS,
    SLOT_LEVEL,
    TOKEN_NAMES,
    WIN_COLOUR_POINTS,
    WIN_CROWNS,
    WIN_PRESTIGE,
)
from arena.games.splendor_duel.cards import (
    PLAY_AGAIN as PLAY_AGAIN_ABILITY,
)
from arena.games.splendor_duel.cards import (
    STEAL as STEAL_ABILITY,
)
from arena.games.splendor_duel.cards import (
    TAKE_PRIVILEGE as TAKE_PRIVILEGE_ABILITY,
)

if TYPE_CHECKING:
    from arena.games.splendor_duel.state import SplendorDuelState

# phases, as in state.py (kept equal by an assertion there)
MAIN, COPY, MATCH, STEAL, ROYAL, DISCARD, OVER = range(7)
# pending effect kinds
P_COPY, P_MATCH, P_STEAL, P_ROYAL = range(4)


def gain_privilege(s: SplendorDuelState, seat: int) -> None:
    """§4: from the supply, else from the opponent, else nothing."""
    privileges = s.privileges
    if privileges[0] + privileges[1] < PRIVILEGES:
        privileges[seat] += 1
    elif privileges[1 - seat]:
        privileges[1 - seat] -= 1
        privileges[seat] += 1


# -- optional actions -----------------------------------------------------------
def do_priv(s: SplendorDuelState, action: tuple) -> None:
    """§5: return a privilege, take any non-gold token. Never triggers §7.1's privilege."""
    seat = s.active
    cell = action[1]
    s.privileges[seat] -= 1
    s.tokens[seat * 7 + s.board[cell]] += 1
    s.board[cell] = EMPTY
    s.takeable &= ~BIT[cell]


def do_replenish(s: SplendorDuelState, action: tuple) -> None:
    """§6: draw the bag in random order onto the empty cells along the spiral."""
    bag = s.bag
    drawn = [t for t in range(7) for _ in range(bag[t])]
    s.rng.shuffle(drawn)
    board = s.board
    k = 0
    for cell in SPIRAL:
        if k == len(drawn):
            break
        if board[cell] == EMPTY:
            board[cell] = drawn[k]
            k += 1
    for t in range(7):
        bag[t] = 0
    s.takeable, s.gold_mask = board_masks(board, GOLD)
    s.replenished = True
    gain_privilege(s, 1 - s.active)  # even for a single token


# -- mandatory actions ----------------------------------------------------------
def do_take(s: SplendorDuelState, action: tuple) -> None:
    """§7.1; the opponent gains a privilege for 3 of one colour or both pearls."""
    seat = s.active
    board = s.board
    tokens = s.tokens
    taken = [board[c] for c in action[1]]
    for c in action[1]:
        board[c] = EMPTY
    s.takeable &= ~action[2]
    base = seat * 7
    for t in taken:
        tokens[base + t] += 1
    if taken.count(PEARL) == 2 or (len(taken) == 3 and taken[0] == taken[1] == taken[2]):
        gain_privilege(s, 1 - seat)
    end_of_effects(s)


def do_reserve(s: SplendorDuelState, action: tuple) -> None:
    """§7.2 from the pyramid: the slot is refilled at the end of the turn (§9.2)."""
    _, cell, card = action
    _take_gold(s, cell)
    s.pyramid[s.pyramid.index(card)] = EMPTY
    _add_reserved(s, card)
    end_of_effects(s)


def do_reserve_deck(s: SplendorDuelState, action: tuple) -> None:
    """§7.2 blind from a deck: only the owner sees the card (§10)."""
    _, cell, level = action
    _take_gold(s, cell)
    card = _draw(s, level)
    s.blind = (*s.blind, card)
    _add_reserved(s, card)
    end_of_effects(s)


def _take_gold(s: SplendorDuelState, cell: int) -> None:
    s.board[cell] = EMPTY
    s.gold_mask &= ~BIT[cell]
    s.tokens[s.active * 7 + GOLD] += 1


def _add_reserved(s: SplendorDuelState, card: int) -> None:
    seat = s.active
    reserved = list(s.reserved)
    reserved[seat] = (*reserved[seat], card)
    s.reserved = tuple(reserved)


def _draw(s: SplendorDuelState, level: int) -> int:
    decks = list(s.decks)
    deck = decks[level - 1]
    decks[level - 1] = deck[:-1]
    s.decks = tuple(decks)
    return deck[-1]


def price_of(s: SplendorDuelState, seat: int, card: int) -> list[int]:
    """§7.3: gem prices lowered by bonuses (never below 0); pearls never lowered."""
    bonus = s.bonus
    cost = CARD_COST[card]
    price = [max(0, cost[c] - bonus[seat * 5 + c]) for c in range(5)]
    price.append(cost[PEARL])
    return price


def do_buy(s: SplendorDuelState, action: tuple) -> None:
    """§7.3 purchase, then §8 effects in order: card ability, then royal card."""
    _, card, gold = action
    seat = s.active
    tokens = s.tokens
    bag = s.bag
    base = seat * 7
    price = price_of(s, seat, card)
    for t in PAYABLE:
        coloured = price[t] - gold[t]
        if coloured:
            tokens[base + t] -= coloured
            bag[t] += coloured  # §11 row 24: spent tokens go to the bag
    used = sum(gold)
    if used:
        tokens[base + GOLD] -= used
        bag[GOLD] += used
    if card in s.reserved[seat]:
        reserved = list(s.reserved)
        reserved[seat] = tuple(c for c in reserved[seat] if c != card)
        s.reserved = tuple(reserved)
        if card in s.blind:
            s.blind = tuple(c for c in s.blind if c != card)
    else:
        s.pyramid[s.pyramid.index(card)] = EMPTY
    cards = list(s.cards)
    cards[seat] = (*cards[seat], card)
    s.cards = tuple(cards)

    s.prestige[seat] += CARD_POINTS[card]
    colour = CARD_COLOUR[card]
    if colour >= 0:
        s.bonus[seat * 5 + colour] += CARD_BONUS[card]
        s.colour_points[seat * 5 + colour] += CARD_POINTS[card]

    pending = []
    if CARD_COPY[card]:
        pending.append((P_COPY, card))
    if CARD_PLAY_AGAIN[card]:
        s.play_again = True
    if CARD_TAKE_PRIVILEGE[card]:
        gain_privilege(s, seat)
    if CARD_MATCH[card]:
        pending.append((P_MATCH, colour))
    if CARD_STEAL[card]:
        pending.append((P_STEAL, 0))
    before = s.crowns[seat]
    after = before + CARD_CROWNS[card]
    s.crowns[seat] = after
    for threshold in ROYAL_THRESHOLDS:  # §8.3: at 3 and at 6 crowns
        if before < threshold <= after:
            pending.append((P_ROYAL, threshold))
    s.pending = tuple(pending)
    end_of_effects(s)


def do_pass(s: SplendorDuelState, action: tuple) -> None:
    """§7.4, §11 row 8 [ENG]: no mandatory action exists; the turn ends."""
    end_of_effects(s)


# -- effects of a purchase (§8) -----------------------------------------------
def do_copy(s: SplendorDuelState, action: tuple) -> None:
    """§8.2: the copy card joins colour c: one bonus (§11 row 14) and its points."""
    seat = s.active
    colour = action[1]
    card = s.pending[0][1]
    s.copies = (*s.copies, (card, colour))
    s.bonus[seat * 5 + colour] += 1
    s.colour_points[seat * 5 + colour] += CARD_POINTS[card]
    s.pending = s.pending[1:]
    end_of_effects(s)


def do_match(s: SplendorDuelState, action: tuple) -> None:
    """§8.1 take a token of the card's colour from any cell."""
    cell = action[1]
    s.tokens[s.active * 7 + s.board[cell]] += 1
    s.board[cell] = EMPTY
    s.takeable &= ~BIT[cell]
    s.pending = s.pending[1:]
    end_of_effects(s)


def do_steal(s: SplendorDuelState, action: tuple) -> None:
    """§8.1 take one gem or pearl from the opponent (never gold, §11 row 16)."""
    t = action[1]
    seat = s.active
    s.tokens[(1 - seat) * 7 + t] -= 1
    s.tokens[seat * 7 + t] += 1
    s.pending = s.pending[1:]
    end_of_effects(s)


def do_royal(s: SplendorDuelState, action: tuple) -> None:
    """§8.3: take a royal card and resolve its ability at once."""
    royal = action[1]
    seat = s.active
    s.royals = tuple(r for r in s.royals if r != royal)
    owned = list(s.royals_owned)
    owned[seat] = (*owned[seat], royal)
    s.royals_owned = tuple(owned)
    s.prestige[seat] += ROYAL_POINTS[royal]  # no colour (§1 colour points)
    pending = s.pending[1:]
    abilities = ROYAL_ABILITIES[royal]
    if STEAL_ABILITY in abilities:
        pending = ((P_STEAL, 0), *pending)
    if TAKE_PRIVILEGE_ABILITY in abilities:
        gain_privilege(s, seat)
    if PLAY_AGAIN_ABILITY in abilities:
        s.play_again = True
    s.pending = pending
    end_of_effects(s)


def do_discard(s: SplendorDuelState, action: tuple) -> None:
    """§9.1: one token back to the bag, until 10 remain."""
    t = action[1]
    s.tokens[s.active * 7 + t] -= 1
    s.bag[t] += 1
    end_of_effects(s)


def end_of_effects(s: SplendorDuelState) -> None:
    """Ask for the next pending choice, skipping impossible ones, then end the turn."""
    seat = s.active
    while s.pending:
        kind, arg = s.pending[0]
        if kind == P_COPY:
            s.phase = COPY  # always possible: buying it needed a gem card
            return
        if kind == P_MATCH:
            if arg in s.board:  # §11 row 15: skipped when none on the board
                s.phase = MATCH
                return
        elif kind == P_STEAL:
            base = (1 - seat) * 7
            if any(s.tokens[base : base + 6]):  # §11 row 16: gold never stolen
                s.phase = STEAL
                return
        elif kind == P_ROYAL and s.royals:  # §11 row 22: skip if none left
            s.phase = ROYAL
            return
        s.pending = s.pending[1:]
    base = seat * 7
    if sum(s.tokens[base : base + 7]) > HAND_LIMIT:  # §9.1, §11 row 17
        s.phase = DISCARD
        return
    finish_turn(s)


def finish_turn(s: SplendorDuelState) -> None:
    """§9.2 refill the pyramid, §9.3 victory, §9.4 next turn (§11 row 20)."""
    pyramid = s.pyramid
    if EMPTY in pyramid:
        for slot in range(len(pyramid)):
            if pyramid[slot] == EMPTY and s.decks[SLOT_LEVEL[slot] - 1]:  # §11 row 12
                pyramid[slot] = _draw(s, SLOT_LEVEL[slot])
    seat = s.active
    if (
        s.prestige[seat] >= WIN_PRESTIGE
        or s.crowns[seat] >= WIN_CROWNS
        or max(s.colour_points[seat * 5 : seat * 5 + 5]) >= WIN_COLOUR_POINTS
    ):
        reason = victory_reason(s, seat)
        ranks = (1, 2) if seat == 0 else (2, 1)
        s.result = Outcome(ranks, (float(s.prestige[0]), float(s.prestige[1])), reason)
        s.phase = OVER
        return
    if not s.play_again:
        s.active = 1 - seat
    s.play_again = False
    s.replenished = False
    s.phase = MAIN
    s.turn += 1


def victory_reason(s: SplendorDuelState, seat: int) -> str:
    """§9.3 (colour points include copy cards, exclude points-only and royal cards)."""
    if s.prestige[seat] >= WIN_PRESTIGE:
        return f"seat {seat} reached {s.prestige[seat]} prestige points"
    if s.crowns[seat] >= WIN_CROWNS:
        return f"seat {seat} reached {s.crowns[seat]} crowns"
    for c in range(5):
        if s.colour_points[seat * 5 + c] >= WIN_COLOUR_POINTS:
            points = s.colour_points[seat * 5 + c]
            return f"seat {seat} reached {points} points in {TOKEN_NAMES[c]}"
    return ""


def end_by_step_cap(s: SplendorDuelState) -> None:
    """§11 row 23 [ENG]: the cap ends the game; rank by prestige, then crowns."""
    keys = [(s.prestige[seat], s.crowns[seat]) for seat in (0, 1)]
    s.result = Outcome(
        ranks_from_keys(keys),
        (float(s.prestige[0]), float(s.prestige[1])),
        f"step cap {s.step_cap} reached; ranked by prestige points, then crowns",
    )
    s.phase = OVER


HANDLERS = {
    A.TAKE: do_take,
    A.PRIV: do_priv,
    A.REPLENISH: do_replenish,
    A.RESERVE: do_reserve,
    A.RESERVE_DECK: do_reserve_deck,
    A.BUY: do_buy,
    A.PASS: do_pass,
    A.COPY: do_copy,
    A.MATCH: do_match,
    A.STEAL: do_steal,
    A.ROYAL: do_royal,
    A.DISCARD: do_discard,
}
