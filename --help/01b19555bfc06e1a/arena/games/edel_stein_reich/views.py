"""Observations and the spectator view (RULES.md §13), built from a whitelist.

Public: everyone's gems, gem card, held event cards, money (unless the
`money_visible` option hides other seats' money), the offered event, deck
sizes, discard piles, the top set-aside gem card (unless the
`set_aside_top_public` option hides it), bargaining offers and every
resolved effect (the round log). Hidden: deck orders and, until the
last seat has chosen, every action choice — a seat sees only its own.
"""

from __future__ import annotations

from typing import Any

from arena.games.edel_stein_reich import rules
from arena.games.edel_stein_reich.bargaining import size_value
from arena.games.edel_stein_reich.components import COLOURS, gems_json

ACTIONS = rules.ACTION_NAMES


def _card(st, card: int) -> str:
    return st.comp.event_kinds[card].id


def log_entry(st, e: tuple) -> dict[str, Any]:
    """One public log entry as JSON (the engine stores compact tuples)."""
    kind = e[0]
    if kind == "reveal":
        return {"type": kind, "choices": [ACTIONS[a] for a in e[1]]}
    if kind in ("lost", "void"):
        return {"type": kind, "action": ACTIONS[e[1]], "seats": list(e[2])}
    if kind == "perform":
        return {"type": kind, "action": ACTIONS[e[1]], "seat": e[2]}
    if kind == "gain":
        return {"type": kind, "seat": e[1], "gems": gems_json(e[2])}
    if kind == "reshuffle":
        return {"type": kind, "event_deck_size": e[1]}
    if kind == "no_event":
        return {"type": kind, "seat": e[1]}
    if kind in ("take", "blind", "apply", "decline"):
        return {"type": kind, "seat": e[1], "card": _card(st, e[2])}
    if kind in ("pick", "return"):
        return {"type": kind, "seat": e[1], "colour": COLOURS[e[2]]}
    if kind == "swap":
        return {
            "type": kind,
            "seat": e[1],
            "with": e[2],
            "gave": COLOURS[e[3]],
            "took": COLOURS[e[4]],
        }
    if kind == "give":
        return {"type": kind, "seat": e[1], "to": e[2], "colour": COLOURS[e[3]]}
    if kind == "free_shared":
        return {"type": kind, "order": list(e[1])}
    if kind == "offer":
        return {"type": kind, "seat": e[1], "gems": gems_json(e[2])}
    if kind == "accept":
        return {"type": kind, "seat": e[1], "maker": e[2], "gems": gems_json(e[3]), "winner": e[4]}
    if kind == "majority":
        return {
            "type": kind,
            "colour": COLOURS[e[1]],
            "seats": list(e[2]),
            "money_each": e[3],
            "returned_each": e[4],
        }
    if kind == "bonus":
        return {"type": kind, "seat": e[1], "card": _card(st, e[2]), "money": e[3]}
    if kind == "certificates":
        return {"type": kind, "seat": e[1], "count": e[2], "money": e[3]}
    return {"type": kind, "phase": e[1]}  # "scored"


def _bargain(st) -> dict[str, Any]:
    o, other = st.bar_seats
    size, value = size_value(st.bar_standing, st.comp.barter_value)
    return {
        "action": ACTIONS[st.bar_action],
        "opener": o,
        "other": other,
        "standing": {
            "maker": st.bar_maker if st.bar_maker >= 0 else None,
            "gems": gems_json(st.bar_standing),
            "size": size,
            "value": value,
        },
        # the raise being announced colour by colour (counts chosen so far)
        "building": {COLOURS[c]: k for c, k in enumerate(st.bar_build)},
    }


def observation(st, seat: int | None) -> dict[str, Any]:
    """What `seat` may know; `seat=None` gives the spectator view."""
    comp = st.comp
    n = st.n
    show_money = st.options["money_visible"]
    revealed = st.revealed
    players = []
    for s in range(n):
        card = st.gem_card[s]
        players.append(
            {
                "seat": s,
                "gems": {COLOURS[c]: st.gems[s][c] for c in range(4)},
                "money": st.money[s] if show_money or s == seat else None,
                "gem_card": comp.gem_cards[card].to_json() if card >= 0 else None,
                "held_events": [_card(st, c) for c in st.held[s]],
                "has_chosen": st.commits[s] >= 0,
            }
        )
    my_choice = None
    if seat is not None and 0 <= seat < n and st.commits[seat] >= 0:
        my_choice = ACTIONS[st.commits[seat]]
    in_play = len(comp.gem_cards) - comp.set_aside[n]
    top = None
    if st.set_aside and st.options["set_aside_top_public"]:  # §3.7 [H]
        top = comp.gem_cards[st.set_aside[-1]].id
    obs: dict[str, Any] = {
        "game": "edel-stein-reich",
        "seat": seat,
        "seats": n,
        "step": st.step,
        "phase": st.phase,
        "to_act": st.to_act(),
        "phase_number": st.phase_no + 1,
        "round": st.round_no + 1,
        "rounds_per_phase": in_play // n,
        "players": players,
        "supply": {COLOURS[c]: st.supply[c] for c in range(4)},
        "gem_deck_size": len(st.gem_deck),
        "gem_discard": [comp.gem_cards[c].id for c in st.gem_discard],
        "set_aside_count": len(st.set_aside),
        "set_aside_top": top,
        "event_deck_size": len(st.ev_deck),
        "event_discard": [_card(st, c) for c in st.ev_discard],
        "offered_event": comp.event_kinds[st.offered].to_json() if st.offered >= 0 else None,
        "my_choice": my_choice,
        "choices": [ACTIONS[a] for a in st.commits] if revealed else None,
        "resolving": ACTIONS[st.res_idx] if revealed and st.phase != rules.OVER else None,
        "bargain": _bargain(st) if st.phase == rules.BARGAIN else None,
        "pending_event": (
            comp.event_kinds[st.pending_ev].to_json() if st.pending_ev >= 0 else None
        ),
        "picks_left": st.pick_left if st.phase == "pick" else 0,
        "tribute_to": st.tribute_to if st.phase == "tribute" else None,
        "log": [log_entry(st, e) for e in st.log],
        "previous_log": [log_entry(st, e) for e in st.prev_log],
        "outcome": None,
    }
    if st.phase == rules.OVER:
        obs["outcome"] = st.outcome().to_json()
    return obs
