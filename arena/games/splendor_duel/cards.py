"""Tokens, jewel cards and royal cards as flat integer tables.

Everything the rules need per card is a tuple indexed by the card's number
(0..66, the order of the ids, which is also their string order), so the hot
paths never touch dictionaries or objects.
"""

from __future__ import annotations

from arena.games.splendor_duel.loader import DATA

# -- token types (RULES.md §1) -------------------------------------------------
WHITE, BLUE, GREEN, RED, BLACK, PEARL, GOLD = range(7)
EMPTY = -1
GEMS = (WHITE, BLUE, GREEN, RED, BLACK)
#: types a price can ask for (cost keys): the gems and the pearl
PAYABLE = (WHITE, BLUE, GREEN, RED, BLACK, PEARL)
TOKEN_NAMES = ("white", "blue", "green", "red", "black", "pearl", "gold")
TOKEN_CODES = {name: code for code, name in enumerate(TOKEN_NAMES)}
#: one letter per token type, used by the board picture and gold allocations
TOKEN_LETTERS = ("w", "b", "g", "r", "k", "p", "y")
#: token types in the string order of their names (black, blue, gold, ...)
TOKENS_BY_NAME = tuple(sorted(range(7), key=lambda t: TOKEN_NAMES[t]))
GEMS_BY_NAME = tuple(t for t in TOKENS_BY_NAME if t in GEMS)
NON_GOLD_BY_NAME = tuple(t for t in TOKENS_BY_NAME if t != GOLD)

assert list(DATA["cost_keys"]) == list(TOKEN_NAMES[:6])
TOKEN_SUPPLY = tuple(DATA["tokens"][name] for name in TOKEN_NAMES)  # 4,4,4,4,4,2,3
PRIVILEGES = int(DATA["privileges"])
HAND_LIMIT = 10  # RULES.md §9.1

# -- victory (RULES.md §9.3) and crowns (§8.3) --------------------------------
WIN_PRESTIGE = int(DATA["victory"]["prestige"])
WIN_CROWNS = int(DATA["victory"]["crowns"])
WIN_COLOUR_POINTS = int(DATA["victory"]["colour_points"])
ROYAL_THRESHOLDS = tuple(DATA["royal_thresholds"])

# -- ability codes --------------------------------------------------------------
PLAY_AGAIN = "play_again"
TAKE_PRIVILEGE = "take_privilege"
MATCH_TOKEN = "take_token_matching_card_color"
STEAL = "steal_token"
COPY_COLOUR = "copy_color"

# -- jewel cards ----------------------------------------------------------------
_JEWELS = sorted(DATA["jewel_cards"], key=lambda c: c["id"])
CARD_COUNT = len(_JEWELS)
CARD_IDS: tuple[str, ...] = tuple(c["id"] for c in _JEWELS)
CARD_INDEX = {cid: i for i, cid in enumerate(CARD_IDS)}
CARD_LEVEL = tuple(int(c["level"]) for c in _JEWELS)
#: printed cost per payable type (white, blue, green, red, black, pearl)
CARD_COST = tuple(tuple(int(x) for x in c["cost"]) for c in _JEWELS)
CARD_POINTS = tuple(int(c["points"]) for c in _JEWELS)
CARD_CROWNS = tuple(int(c["crowns"]) for c in _JEWELS)
#: gem colour code of a gem card, else -1 (jokers and points-only cards)
CARD_COLOUR = tuple(TOKEN_CODES[c["bonus_color"]] if c["kind"] == "gem" else -1 for c in _JEWELS)
CARD_BONUS = tuple(int(c["bonus_count"]) for c in _JEWELS)
CARD_IS_JOKER = tuple(c["kind"] == "joker" for c in _JEWELS)
CARD_ABILITIES = tuple(tuple(c["abilities"]) for c in _JEWELS)
CARD_PLAY_AGAIN = tuple(PLAY_AGAIN in a for a in CARD_ABILITIES)
CARD_TAKE_PRIVILEGE = tuple(TAKE_PRIVILEGE in a for a in CARD_ABILITIES)
CARD_MATCH = tuple(MATCH_TOKEN in a for a in CARD_ABILITIES)
CARD_STEAL = tuple(STEAL in a for a in CARD_ABILITIES)
CARD_COPY = tuple(COPY_COLOUR in a for a in CARD_ABILITIES)
LEVELS = (1, 2, 3)
#: card numbers of each level (index 0 = level 1)
LEVEL_CARDS = tuple(tuple(i for i in range(CARD_COUNT) if CARD_LEVEL[i] == lv) for lv in LEVELS)

# -- pyramid slots (RULES.md §1): 5 of level 1, 4 of level 2, 3 of level 3 -------
PYRAMID_SIZE = tuple(int(DATA["pyramid"][str(lv)]) for lv in LEVELS)
SLOT_LEVEL = tuple(lv for lv in LEVELS for _ in range(PYRAMID_SIZE[lv - 1]))
SLOT_COUNT = len(SLOT_LEVEL)

# -- royal cards (RULES.md §8.3) -----------------------------------------------
_ROYALS = sorted(DATA["royal_cards"], key=lambda c: c["id"])
ROYAL_IDS: tuple[str, ...] = tuple(r["id"] for r in _ROYALS)
ROYAL_INDEX = {rid: i for i, rid in enumerate(ROYAL_IDS)}
ROYAL_POINTS = tuple(int(r["points"]) for r in _ROYALS)
ROYAL_ABILITIES = tuple(tuple(r["abilities"]) for r in _ROYALS)


def card_text(card: int) -> str:
    """A one-line description of a jewel card, for render() and replays."""
    parts = [CARD_IDS[card]]
    if CARD_COLOUR[card] >= 0:
        bonus = TOKEN_NAMES[CARD_COLOUR[card]]
        parts.append(f"{bonus}x{CARD_BONUS[card]}" if CARD_BONUS[card] > 1 else bonus)
    elif CARD_IS_JOKER[card]:
        parts.append("copy")
    else:
        parts.append("points-only")
    if CARD_POINTS[card]:
        parts.append(f"{CARD_POINTS[card]}pt")
    if CARD_CROWNS[card]:
        parts.append(f"{CARD_CROWNS[card]}cr")
    cost = "".join(
        f"{n}{TOKEN_LETTERS[t]}" for t, n in zip(PAYABLE, CARD_COST[card], strict=True) if n
    )
    parts.append(f"cost {cost or 'free'}")
    for ability in CARD_ABILITIES[card]:
        if ability != COPY_COLOUR:
            parts.append(ability.replace("_", "-"))
    return " ".join(parts)


#: the abilities in words, for spectators (the copy card says so in its kind)
ABILITY_WORDS = {
    PLAY_AGAIN: "play again",
    TAKE_PRIVILEGE: "take a privilege",
    MATCH_TOKEN: "take a token of its colour",
    STEAL: "steal a token",
}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def card_words(card: int) -> str:
    """A jewel card in words, for the replay's action lines: what `card_text`
    says in letters ("L1-13 green cost 2r2k1p play-again") is "L1-13 (green
    bonus, costs 2 red, 2 black, 1 pearl; play again)", which a spectator can read."""
    if CARD_COLOUR[card] >= 0:
        bonus = TOKEN_NAMES[CARD_COLOUR[card]]
        parts = [
            f"{CARD_BONUS[card]} {bonus} bonuses" if CARD_BONUS[card] > 1 else f"{bonus} bonus"
        ]
    elif CARD_IS_JOKER[card]:
        parts = ["copy card"]
    else:
        parts = ["no bonus"]
    if CARD_POINTS[card]:
        parts.append(_plural(CARD_POINTS[card], "point"))
    if CARD_CROWNS[card]:
        parts.append(_plural(CARD_CROWNS[card], "crown"))
    cost = ", ".join(
        f"{n} {TOKEN_NAMES[t]}" for t, n in zip(PAYABLE, CARD_COST[card], strict=True) if n
    )
    parts.append(f"costs {cost}" if cost else "free")
    abilities = [ABILITY_WORDS[a] for a in CARD_ABILITIES[card] if a in ABILITY_WORDS]
    return f"{CARD_IDS[card]} ({'; '.join([', '.join(parts), *abilities])})"
