"""Search bot for Splendor Duel: the engine itself, two plies deep, on a
determinized copy of the game.

The observation hides the order of the three decks and the card the
opponent reserved blind. Each decision the bot builds one plausible full
state from what it sees with the engine's `GAME.determinize` (the deck
orders, the opponent's blind reserves and the random generator sampled from
a fresh seed; docs/games/splendor-duel.md, "Search in a bot") and searches
it:

1. every legal action is applied to a clone and scored by `evaluate`;
2. the best few (by that score) are looked at more closely, best first,
   while the time budget lasts: the rest of the bot's own turn is played
   greedily (each following decision by `evaluate`), then the opponent's
   reply that is worst for the bot is found among all of its legal actions;
3. the action with the best score after that reply is played.

A finished game scores ±1,000,000 (a sure win is taken, a move that lets the
opponent win at once is avoided when another exists). The time budget is
BUDGET_SHARE of the per-move limit, at most BUDGET_MAX_MS: no new action is
expanded after it, and the one being expanded stops at 1.5 times the budget
(300 ms with the default 1000 ms per move), so a loaded machine still leaves
a wide margin. Its own clock is wall time, so it adapts to a slow machine.
"""

import random
import time

from gemarena_sdk import run

from arena.games.splendor_duel.cards import CARD_POINTS
from arena.games.splendor_duel.game import GAME

BUDGET_SHARE = 0.25  # of move_ms
BUDGET_MAX_MS = 200.0
EXPAND = 40  # actions searched past the first ply, at most (best first)
WIN = 1_000_000.0

rng = random.Random()
options = {"first_seat": "random", "step_cap": 2000}
budget_s = BUDGET_MAX_MS / 1000


def on_start(match):
    global budget_s
    options.update(match.options)
    move_ms = match.time.get("move_ms", 1000)
    budget_s = min(BUDGET_MAX_MS, BUDGET_SHARE * move_ms) / 1000


# -- evaluation ------------------------------------------------------------------


def seat_score(s, seat):
    """How close `seat` is to one of the three victories, plus its means."""
    prestige = s.prestige[seat]
    crowns = s.crowns[seat]
    colour = max(s.colour_points[seat * 5 : seat * 5 + 5])
    bonus = sum(s.bonus[seat * 5 : seat * 5 + 5])
    tokens = s.tokens[seat * 7 : seat * 7 + 7]
    gems = sum(tokens[:5])
    precious = tokens[5] + tokens[6]  # pearls and gold
    reserved = sum(1 + 0.3 * CARD_POINTS[c] for c in s.reserved[seat])
    return (
        prestige * (1.0 + prestige / 20)
        + crowns * (1.2 + crowns / 8)
        + colour * (0.4 + colour / 12)
        + 1.1 * bonus
        + 0.45 * min(gems, 10)
        + 0.7 * precious
        + 0.35 * s.privileges[seat]
        + 0.4 * reserved
    )


def evaluate(s, me):
    result = s.result
    if result is not None:
        mine, theirs = result.ranks[me], result.ranks[1 - me]
        return WIN if mine < theirs else -WIN if mine > theirs else 0.0
    return seat_score(s, me) - seat_score(s, 1 - me)


def child(s, seat, action):
    c = s.clone()
    c.apply(seat, action)
    return c


def finish_turn(s, me, deadline):
    """Play the rest of `me`'s turn greedily (by `evaluate`)."""
    while s.result is None and s.active == me and time.monotonic() < deadline:
        best = max(s.legal_actions(me), key=lambda a: evaluate(child(s, me, a), me))
        s.apply(me, best)
    return s


def reply_value(s, me, deadline):
    """The score after the opponent's decision that is worst for `me` (of
    those looked at before the deadline)."""
    if s.result is not None or s.active == me:
        return evaluate(s, me)
    them = s.active
    worst = WIN
    for action in s.legal_actions(them):
        worst = min(worst, evaluate(child(s, them, action), me))
        if worst <= -WIN or time.monotonic() >= deadline:
            break
    return worst


def search(obs, legal):
    start = time.monotonic()
    deadline = start + budget_s
    hard_deadline = start + 1.5 * budget_s  # one expansion may run past `deadline`
    me = obs["seat"]
    root = GAME.determinize(obs, rng.getrandbits(64), options)
    first = [(evaluate(child(root, me, a), me), a) for a in legal]
    first.sort(key=lambda x: -x[0])
    if first[0][0] >= WIN:
        return first[0][1], "wins now"
    scored = []
    for value, action in first[:EXPAND]:
        if time.monotonic() >= deadline and scored:
            break
        node = finish_turn(child(root, me, action), me, hard_deadline)
        scored.append((reply_value(node, me, hard_deadline), value, action))
    best = max(scored, key=lambda x: (x[0], x[1]))
    ms = (time.monotonic() - start) * 1000
    return best[2], f"{len(scored)}/{len(legal)} searched, score {best[0]:.1f}, {ms:.0f} ms"


def decide(observation, legal):
    if len(legal) == 1:
        return legal[0]
    return search(observation, legal)


if __name__ == "__main__":
    run(decide, game="splendor-duel", on_start=on_start)
