"""Build Splendor Duel positions for scenario tests.

A scenario starts from a real new game and edits its snapshot (the public
restore path), so every position passes the engine's own invariants: cards
named for a player or the pyramid are moved there from wherever they were.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from arena.games.splendor_duel import GAME, SplendorDuelState
from arena.games.splendor_duel.cards import (
    CARD_COLOUR,
    CARD_CROWNS,
    CARD_IDS,
    CARD_INDEX,
    CARD_IS_JOKER,
    ROYAL_THRESHOLDS,
)

LETTERS = {
    "w": "white",
    "b": "blue",
    "g": "green",
    "r": "red",
    "k": "black",
    "p": "pearl",
    "y": "gold",
}
NAMES = ("white", "blue", "green", "red", "black", "pearl", "gold")


def board_rows(*rows: str) -> list[list[str | None]]:
    """Rows from row 1 down, one letter per cell (w b g r k p y, '.' empty)."""
    assert len(rows) == 5 and all(len(r) == 5 for r in rows)
    return [[LETTERS.get(ch) for ch in row] for row in rows]


def tokens(spec: str = "") -> dict[str, int]:
    """'w2 y1' → a full token dictionary."""
    out = dict.fromkeys(NAMES, 0)
    for part in spec.split():
        out[LETTERS[part[0]]] = int(part[1:])
    return out


def _detach(snap: dict[str, Any], card: str) -> None:
    for deck in snap["decks"]:
        if card in deck:
            deck.remove(card)
    for level in snap["pyramid"]:
        for i, c in enumerate(level):
            if c == card:
                level[i] = None
    for p in snap["players"]:
        p["cards"] = [c for c in p["cards"] if c != card]
        p["copies"].pop(card, None)
        p["reserved"] = [r for r in p["reserved"] if r["card"] != card]


def _level(card: str) -> int:
    return int(card[1])


def scenario(
    *,
    seed: int = 1,
    active: int = 0,
    board: list[list[str | None]] | None = None,
    hands: Mapping[int, str] | None = None,
    cards: Mapping[int, Iterable[str]] | None = None,
    copies: Mapping[int, Mapping[str, str]] | None = None,
    reserved: Mapping[int, Iterable[str]] | None = None,
    blind: Iterable[str] = (),
    pyramid: Iterable[str] = (),
    empty_decks: Iterable[int] = (),
    deck_sizes: Mapping[int, int] | None = None,
    privileges: tuple[int, int] = (0, 1),
    royals: Mapping[int, Iterable[str]] | None = None,
    options: Mapping[str, Any] | None = None,
    **fields: Any,
) -> SplendorDuelState:
    """A position where seat `active` starts a turn (override `phase` etc. in fields).

    `empty_decks` empties decks; `deck_sizes` ({level: n}) keeps only the top n
    cards of a deck. The cards taken out go to the other seat's cards.
    """
    state = GAME.new(2, seed, {"first_seat": active, **(options or {})})
    snap = copy.deepcopy(state.snapshot())
    if board is not None:
        snap["board"] = board
    for seat, spec in (hands or {}).items():
        snap["players"][seat]["tokens"] = tokens(spec)
    placed_per_level = [0, 0, 0]
    for card in pyramid:  # the i-th named card of a level goes to slot i; old card to the deck
        _detach(snap, card)
        level = _level(card) - 1
        row = snap["pyramid"][level]
        slot = placed_per_level[level]
        placed_per_level[level] += 1
        if row[slot] is not None:
            snap["decks"][level].insert(0, row[slot])
        row[slot] = card
    for seat, ids in (cards or {}).items():
        for card in ids:
            _detach(snap, card)
            snap["players"][seat]["cards"].append(card)
    for seat, placed in (copies or {}).items():
        snap["players"][seat]["copies"].update(placed)
    blind = set(blind)
    for seat, ids in (reserved or {}).items():
        for card in ids:
            _detach(snap, card)
            snap["players"][seat]["reserved"].append(
                {"card": card, "level": _level(card), "blind": card in blind}
            )
    dump = snap["players"][1 - active]  # emptied decks go to the other seat's cards
    sizes = {**dict.fromkeys(empty_decks, 0), **(deck_sizes or {})}
    for level, size in sizes.items():
        deck = snap["decks"][level - 1]
        dump["cards"].extend(deck[: len(deck) - size])
        snap["decks"][level - 1] = deck[len(deck) - size :]
    for seat, ids in (royals or {}).items():
        snap["players"][seat]["royals"] = list(ids)
        snap["royals"] = [r for r in snap["royals"] if r not in ids]
    for seat in (0, 1):
        snap["players"][seat]["privileges"] = privileges[seat]
    snap.update(fields)
    _complete(snap)
    # cards taken out of the pyramid leave holes; fill them from the decks
    for level, row in enumerate(snap["pyramid"]):
        for i, c in enumerate(row):
            if c is None and snap["decks"][level] and level + 1 not in sizes:
                row[i] = snap["decks"][level].pop()
    return GAME.restore(snap)


def act(state: SplendorDuelState, *actions: str) -> SplendorDuelState:
    """Apply actions for whoever is to act, checking each is listed as legal."""
    for action in actions:
        seat = state.to_act()[0]
        assert action in state.legal_actions(seat), (action, state.legal_actions(seat))
        state.apply(seat, action)
    return state


def kinds(legal: list[str]) -> set[str]:
    return {a.split()[0] for a in legal}


SUPPLY = {"white": 4, "blue": 4, "green": 4, "red": 4, "black": 4, "pearl": 2, "gold": 3}


def _complete(snap: dict[str, Any]) -> None:
    """Balance tokens, place unplaced copy cards, hand out due royal cards.

    A token type held by the players beyond what the bag can supply is taken
    off the board (from its last cells).
    """
    for name, supply in SUPPLY.items():
        held = sum(p["tokens"][name] for p in snap["players"])
        cells = [(r, c) for r in range(5) for c in range(5) if snap["board"][r][c] == name]
        while held + len(cells) > supply:
            r, c = cells.pop()
            snap["board"][r][c] = None
    for p in snap["players"]:
        numbers = [CARD_INDEX[c] for c in p["cards"]]
        colours = [CARD_COLOUR[n] for n in numbers if CARD_COLOUR[n] >= 0]
        for n in numbers:
            if CARD_IS_JOKER[n] and CARD_IDS[n] not in p["copies"]:
                p["copies"][CARD_IDS[n]] = NAMES[colours[0]]
        crowns = sum(CARD_CROWNS[n] for n in numbers)
        due = sum(crowns >= t for t in ROYAL_THRESHOLDS)
        while len(p["royals"]) < due:
            p["royals"].append(snap["royals"].pop(0))


def privileges_of(state: SplendorDuelState) -> list[int]:
    """[seat 0, seat 1] privileges; the supply holds the rest of 3."""
    return [state.spectator_view()["players"][s]["privileges"] for s in (0, 1)]


def hand_of(state: SplendorDuelState, seat: int) -> dict[str, int]:
    """A seat's tokens, only the types it holds."""
    held = state.spectator_view()["players"][seat]["tokens"]
    return {name: n for name, n in held.items() if n}
