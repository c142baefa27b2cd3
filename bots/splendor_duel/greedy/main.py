"""Greedy Splendor Duel bot: scores each legal action on its own, no lookahead.

Buy the most valuable card it can (points, crowns, bonus); otherwise take as
many tokens as it can, preferring pearls and colours it lacks; reserve only
when nothing better is left; discard what it has most of. Card facts come
from the engine's data (arena.games.splendor_duel.cards).
"""

from gemarena_sdk import run

from arena.games.splendor_duel.cards import (
    CARD_BONUS,
    CARD_CROWNS,
    CARD_INDEX,
    CARD_POINTS,
    ROYAL_INDEX,
    ROYAL_POINTS,
)

COLUMNS = "abcde"
TOKEN_VALUE = {"pearl": 3, "gold": 3}


def cell_token(board, cell):
    return board[int(cell[1]) - 1][COLUMNS.index(cell[0])]


def card_value(card_id):
    c = CARD_INDEX[card_id]
    return 10 * CARD_POINTS[c] + 6 * CARD_CROWNS[c] + 4 * CARD_BONUS[c]


def score(action, obs):
    me = obs["players"][obs["seat"]]
    words = action.split()
    verb = words[0]
    if verb == "buy":
        gold = (
            sum(int(part[1:]) for part in words[2:] for part in part.split("=")[1].split(","))
            if len(words) > 2
            else 0
        )
        return 1000 + card_value(words[1]) - gold
    if verb == "royal":
        return 2000 + ROYAL_POINTS[ROYAL_INDEX[words[1]]]
    if verb == "take":
        tokens = [cell_token(obs["board"], cell) for cell in words[1:]]
        return 100 + sum(TOKEN_VALUE.get(t, 2 if me["tokens"].get(t, 0) < 2 else 1) for t in tokens)
    if verb == "reserve":
        target = words[2]
        return 50 + (card_value(target) if not target.startswith("deck") else 5)
    if verb == "discard":
        return me["tokens"].get(words[1], 0) - TOKEN_VALUE.get(words[1], 0)
    if verb == "steal":
        return TOKEN_VALUE.get(words[1], 1)
    if verb == "copy":
        return me["bonus"].get(words[1], 0)
    if verb == "priv":
        return 20 + TOKEN_VALUE.get(cell_token(obs["board"], words[1]), 1)
    if verb == "match":
        return 1
    return 0  # replenish, pass


def decide(observation, legal):
    return max(legal, key=lambda a: score(a, observation))


if __name__ == "__main__":
    run(decide, game="splendor-duel")
