"""The action grammar: canonical strings, their decoding, and payments.

The vocabulary is finite, so every action string is built once at import and
decoding is one dictionary lookup; a string outside the vocabulary is
malformed. The grammar (docs/games/splendor-duel.md has examples):

    take <cell> [<cell> [<cell>]]   mandatory take, cells in name order (§7.1)
    priv <cell>                     spend one privilege on a cell (§5)
    replenish                       refill the board from the bag (§6)
    reserve <cell> <card>|deck<L>   take the gold on <cell>, reserve (§7.2)
    buy <card>[ gold=<x><n>,...]    buy, with gold paying n units of x (§7.3)
    pass                            no mandatory action possible (§7.4)
    copy <colour>                   place a copy-colour card (§8.2)
    match <cell>                    the matching-token ability (§8.1)
    steal <token>                   the steal ability (§8.1)
    royal <royal id>                choose a royal card (§8.3)
    discard <token>                 return one token to the bag (§9.1)
"""

from __future__ import annotations

from itertools import product

from arena.games.splendor_duel.board import (
    BIT,
    CELL_COUNT,
    CELL_NAMES,
    CELLS,
    CELLS_BY_NAME,
    SEGMENTS,
    SIZE,
    segment_text,
)
from arena.games.splendor_duel.cards import (
    CARD_COST,
    CARD_COUNT,
    CARD_IDS,
    CARD_IS_JOKER,
    GEMS,
    GOLD,
    LEVELS,
    PAYABLE,
    ROYAL_IDS,
    TOKEN_LETTERS,
    TOKEN_NAMES,
    TOKEN_SUPPLY,
)

# action kinds (first element of a decoded action)
TAKE, PRIV, REPLENISH, RESERVE, RESERVE_DECK, BUY, PASS = range(7)
COPY, MATCH, STEAL, ROYAL, DISCARD = range(7, 12)

REPLENISH_TEXT = "replenish"
PASS_TEXT = "pass"

#: (mask of the cells, action string) for every segment, in string order
TAKE_TABLE: tuple[tuple[int, str], ...] = tuple(
    sorted(
        ((sum(BIT[c] for c in seg), f"take {segment_text(seg)}") for seg in SEGMENTS),
        key=lambda item: item[1],
    )
)
# A segment's first cell (in name order) is in its leftmost column, and a
# segment spans at most 3 columns: so the takes starting in column k depend
# only on the 15 mask bits of columns k..k+2, and the take strings of column
# k all sort before those of column k+1. The lists are memoised per column.
_COLUMN_BITS = SIZE
_WINDOW = (1 << (3 * _COLUMN_BITS)) - 1
_TAKES_BY_COLUMN = tuple(
    tuple(
        (mask >> (col * _COLUMN_BITS), text)
        for mask, text in TAKE_TABLE
        if (mask & -mask).bit_length() - 1 in range(col * _COLUMN_BITS, (col + 1) * _COLUMN_BITS)
    )
    for col in range(SIZE)
)
_TAKE_CACHE: tuple[dict[int, list[str]], ...] = tuple({} for _ in range(SIZE))


def take_actions(takeable: int) -> list[str]:
    """§7.1: every segment whose cells all hold a non-gold token, in string order."""
    out: list[str] = []
    for col in range(SIZE):
        key = (takeable >> (col * _COLUMN_BITS)) & _WINDOW
        cache = _TAKE_CACHE[col]
        found = cache.get(key)
        if found is None:
            found = cache[key] = [t for m, t in _TAKES_BY_COLUMN[col] if m & key == m]
        out += found
    return out


PRIV_TEXT = tuple(f"priv {CELL_NAMES[c]}" for c in CELLS)
#: _PRIV_BY_COLUMN[col][5 mask bits]: the privilege actions of that column
_PRIV_BY_COLUMN = tuple(
    tuple(
        [PRIV_TEXT[CELLS_BY_NAME[col * SIZE + r]] for r in range(SIZE) if bits >> r & 1]
        for bits in range(1 << SIZE)
    )
    for col in range(SIZE)
)


def priv_actions(takeable: int) -> list[str]:
    """§5: one action per cell holding a non-gold token, in string order."""
    out: list[str] = []
    for col in range(SIZE):
        out += _PRIV_BY_COLUMN[col][(takeable >> (col * SIZE)) & 31]
    return out


MATCH_TEXT = tuple(f"match {CELL_NAMES[c]}" for c in CELLS)
#: RESERVE_TEXT[cell][card], RESERVE_DECK_TEXT[cell][level - 1]
RESERVE_TEXT = tuple(tuple(f"reserve {CELL_NAMES[c]} {cid}" for cid in CARD_IDS) for c in CELLS)
RESERVE_DECK_TEXT = tuple(
    tuple(f"reserve {CELL_NAMES[c]} deck{lv}" for lv in LEVELS) for c in CELLS
)
COPY_TEXT = tuple(f"copy {TOKEN_NAMES[t]}" for t in GEMS)
STEAL_TEXT = tuple(f"steal {name}" for name in TOKEN_NAMES)
DISCARD_TEXT = tuple(f"discard {name}" for name in TOKEN_NAMES)
ROYAL_TEXT = tuple(f"royal {rid}" for rid in ROYAL_IDS)
BUY_TEXT = tuple(f"buy {cid}" for cid in CARD_IDS)

NO_GOLD = (0, 0, 0, 0, 0, 0)  # also "nothing to pay"


def buy_text(card: int, gold: tuple[int, ...]) -> str:
    """`buy L1-05` or `buy L1-05 gold=b1,p1` (gold per payable type, in cost order)."""
    if not any(gold):
        return BUY_TEXT[card]
    alloc = ",".join(f"{TOKEN_LETTERS[t]}{n}" for t, n in zip(PAYABLE, gold, strict=True) if n)
    return f"{BUY_TEXT[card]} gold={alloc}"


def _vocabulary() -> dict[str, tuple]:
    decode: dict[str, tuple] = {REPLENISH_TEXT: (REPLENISH,), PASS_TEXT: (PASS,)}
    for mask, text in TAKE_TABLE:
        decode[text] = (TAKE, tuple(c for c in CELLS if mask & BIT[c]), mask)
    for c in CELLS:
        decode[PRIV_TEXT[c]] = (PRIV, c)
        decode[MATCH_TEXT[c]] = (MATCH, c)
        for card in range(CARD_COUNT):
            decode[RESERVE_TEXT[c][card]] = (RESERVE, c, card)
        for lv in LEVELS:
            decode[RESERVE_DECK_TEXT[c][lv - 1]] = (RESERVE_DECK, c, lv)
    for t in GEMS:
        decode[COPY_TEXT[t]] = (COPY, t)
    for t in range(len(TOKEN_NAMES)):
        decode[DISCARD_TEXT[t]] = (DISCARD, t)
        decode[STEAL_TEXT[t]] = (STEAL, t)  # well formed; never legal for gold (§8.1)
    for r in range(len(ROYAL_IDS)):
        decode[ROYAL_TEXT[r]] = (ROYAL, r)
    max_gold = TOKEN_SUPPLY[GOLD]
    for gold in product(range(max_gold + 1), repeat=len(PAYABLE)):
        if sum(gold) <= max_gold:
            for card in range(CARD_COUNT):
                decode[buy_text(card, gold)] = (BUY, card, gold)
    return decode


#: every action string of the game → its decoded tuple
DECODE: dict[str, tuple] = _vocabulary()
assert len(CELL_NAMES) == CELL_COUNT

# -- payments (RULES.md §7.3) -------------------------------------------------
# Affordability of every card at once: DEFICIT[t][v] packs, in 8 bits per
# card (card k in bits 8k..8k+7), how many units of type t a card still
# asks for when the player covers v of them (bonus + tokens for a gem, tokens
# for the pearl). Summing the six packed numbers gives every card's shortfall
# in one go; a card is affordable when its shortfall is at most the gold held.
# Sums stay below 6 * 8 + JOKER_BLOCK < 256, so fields never overflow.
FIELD_BITS = 8  # one byte per card: int.to_bytes gives the shortfalls as a bytes object
PACKED_BYTES = CARD_COUNT
FIELD_MASK = (1 << FIELD_BITS) - 1
_MAX_COVER = 64
DEFICIT: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        sum(max(0, CARD_COST[card][t] - v) << (FIELD_BITS * card) for card in range(CARD_COUNT))
        for v in range(_MAX_COVER)
    )
    for t in PAYABLE
)
#: added for a player without a gem card: copy cards become unaffordable (§11 row 13)
JOKER_BLOCK = sum(100 << (FIELD_BITS * card) for card in range(CARD_COUNT) if CARD_IS_JOKER[card])
_PAYMENT_CACHE: dict[tuple, list[str]] = {}


def payment_actions(
    card: int, price: tuple[int, ...], have: tuple[int, ...], gold: int
) -> list[str]:
    """Every way to pay `price` exactly: one action per gold allocation.

    For each payable type t the gold used is between the part the player's
    own tokens cannot cover and the whole price; the total is at most the
    gold held. Using gold while holding the coloured token is allowed
    (§11 row 18). The result is in string order. Empty when unaffordable.
    """
    key = (card, price, have, gold)
    hit = _PAYMENT_CACHE.get(key)
    if hit is not None:
        return hit
    ranges = []
    for p, h in zip(price, have, strict=True):
        low = p - h if p > h else 0
        ranges.append(range(low, min(p, gold) + 1))
    found = sorted(buy_text(card, alloc) for alloc in product(*ranges) if sum(alloc) <= gold)
    if len(_PAYMENT_CACHE) > 200_000:  # bounded memory in long benchmarks
        _PAYMENT_CACHE.clear()
    _PAYMENT_CACHE[key] = found
    return found
