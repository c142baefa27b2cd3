"""Observations, the spectator view, snapshots and restoring them.

Views are built from a whitelist of fields. Hidden (RULES.md §10): the order
of the decks, and the identity of a card reserved blind from a deck, which
only its owner sees. The snapshot holds everything, including the random
generator's state (as a hex string, so JSON readers in any language keep it
exact); derived counters are recomputed on restore.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from arena.engine import Outcome, SnapshotError
from arena.games.splendor_duel.board import CELL_COUNT, SIZE, board_masks
from arena.games.splendor_duel.cards import (
    CARD_BONUS,
    CARD_COLOUR,
    CARD_CROWNS,
    CARD_IDS,
    CARD_INDEX,
    CARD_LEVEL,
    CARD_POINTS,
    EMPTY,
    GOLD,
    PYRAMID_SIZE,
    ROYAL_IDS,
    ROYAL_INDEX,
    ROYAL_POINTS,
    TOKEN_CODES,
    TOKEN_NAMES,
)
from arena.rng import Rng

if TYPE_CHECKING:
    from arena.games.splendor_duel.state import SplendorDuelState

SNAPSHOT_FORMAT = 1
PHASE_NAMES = ("main", "copy", "match", "steal", "royal", "discard", "over")
PENDING_NAMES = ("copy", "match", "steal", "royal")


def _counts(values: list[int]) -> dict[str, int]:
    return {TOKEN_NAMES[t]: values[t] for t in range(7)}


def _board(s: SplendorDuelState) -> list[list[str | None]]:
    return [
        [TOKEN_NAMES[t] if t >= 0 else None for t in s.board[r * SIZE : (r + 1) * SIZE]]
        for r in range(SIZE)
    ]


def _pending(s: SplendorDuelState) -> list[dict[str, Any]]:
    out = []
    for kind, arg in s.pending:
        item: dict[str, Any] = {"effect": PENDING_NAMES[kind]}
        if kind == 0:
            item["card"] = CARD_IDS[arg]
        elif kind == 1:
            item["colour"] = TOKEN_NAMES[arg]
        elif kind == 3:
            item["crowns"] = arg
        out.append(item)
    return out


def _player(s: SplendorDuelState, seat: int, viewer: int | None, full: bool) -> dict[str, Any]:
    copies = dict(s.copies)
    reserved = []
    for card in s.reserved[seat]:
        blind = card in s.blind
        visible = full or not blind or viewer == seat
        reserved.append(
            {"card": CARD_IDS[card] if visible else None, "level": CARD_LEVEL[card], "blind": blind}
        )
    player: dict[str, Any] = {
        "tokens": _counts(s.tokens[seat * 7 : seat * 7 + 7]),
        "cards": [CARD_IDS[c] for c in s.cards[seat]],
        "copies": {CARD_IDS[c]: TOKEN_NAMES[copies[c]] for c in s.cards[seat] if c in copies},
        "reserved": reserved,
        "royals": [ROYAL_IDS[r] for r in s.royals_owned[seat]],
        "privileges": s.privileges[seat],
    }
    if not full:  # derived numbers, for bots' convenience
        player["bonus"] = {TOKEN_NAMES[c]: s.bonus[seat * 5 + c] for c in range(5)}
        player["colour_points"] = {TOKEN_NAMES[c]: s.colour_points[seat * 5 + c] for c in range(5)}
        player["prestige"] = s.prestige[seat]
        player["crowns"] = s.crowns[seat]
        player["token_count"] = sum(s.tokens[seat * 7 : seat * 7 + 7])
    return player


def _common(s: SplendorDuelState) -> dict[str, Any]:
    return {
        "game": s.game_id,
        "step": s.step_count,
        "turn": s.turn,
        "active": s.active,
        "to_act": s.to_act(),
        "first_seat": s.first_seat,
        "phase": PHASE_NAMES[s.phase],
        "pending": _pending(s),
        "replenished": s.replenished,
        "play_again": s.play_again,
        "board": _board(s),
        "pyramid": [[CARD_IDS[c] if c >= 0 else None for c in s.pyramid[a:b]] for a, b in _LEVELS],
        "royals": [ROYAL_IDS[r] for r in s.royals],
        "outcome": s.result.to_json() if s.result is not None else None,
    }


_LEVELS = ((0, 5), (5, 9), (9, 12))


def observation(s: SplendorDuelState, seat: int | None) -> dict[str, Any]:
    """What `seat` may know (None: the public, i.e. the spectator view)."""
    view = _common(s)
    view["seat"] = seat
    view["bag"] = _counts(s.bag)
    view["privileges_supply"] = 3 - s.privileges[0] - s.privileges[1]
    view["deck_sizes"] = [len(d) for d in s.decks]
    view["players"] = [_player(s, p, seat, full=False) for p in (0, 1)]
    return view


def snapshot(s: SplendorDuelState) -> dict[str, Any]:
    snap = _common(s)
    snap["format"] = SNAPSHOT_FORMAT
    snap["rules_version"] = s.rules_version
    snap["options"] = dict(s.options)
    snap["step_cap"] = s.step_cap
    snap["decks"] = [[CARD_IDS[c] for c in deck] for deck in s.decks]
    snap["players"] = [_player(s, p, None, full=True) for p in (0, 1)]
    snap["rng"] = f"{s.rng.state:#018x}"
    del snap["to_act"]
    return snap


def restore(data: Mapping[str, Any], rules_version: str) -> SplendorDuelState:
    if data.get("game") != "splendor-duel" or data.get("format") != SNAPSHOT_FORMAT:
        raise SnapshotError("not a splendor-duel snapshot of format 1")
    if data.get("rules_version") != rules_version:
        raise SnapshotError(
            f"snapshot of rules {data.get('rules_version')!r}, engine has {rules_version!r}"
        )
    try:
        return state_from(data)
    except (KeyError, ValueError, TypeError, IndexError, AttributeError, AssertionError) as exc:
        raise SnapshotError(f"bad splendor-duel snapshot: {exc!r}") from None


def state_from(data: Mapping[str, Any]) -> SplendorDuelState:
    """The state of a snapshot's fields, checked against the invariants; raises
    what it meets (KeyError, ValueError, AssertionError…), for the caller to
    name (restore, and determinize.py for a state built from an observation)."""
    from arena.games.splendor_duel.invariants import check_invariants
    from arena.games.splendor_duel.state import empty_state

    s = empty_state()
    s.options = dict(data["options"])
    s.step_cap = int(data["step_cap"])
    s.step_count = int(data["step"])
    s.turn = int(data["turn"])
    s.active = int(data["active"])
    s.first_seat = int(data["first_seat"])
    s.phase = PHASE_NAMES.index(data["phase"])
    s.replenished = bool(data["replenished"])
    s.play_again = bool(data["play_again"])
    s.board = [TOKEN_CODES[t] if t is not None else EMPTY for row in data["board"] for t in row]
    if len(s.board) != CELL_COUNT:
        raise ValueError("board size")
    s.takeable, s.gold_mask = board_masks(s.board, GOLD)
    s.pyramid = [CARD_INDEX[c] if c is not None else EMPTY for lv in data["pyramid"] for c in lv]
    if [len(lv) for lv in data["pyramid"]] != list(PYRAMID_SIZE):
        raise ValueError(f"pyramid levels of {PYRAMID_SIZE} slots")
    s.decks = tuple(tuple(CARD_INDEX[c] for c in deck) for deck in data["decks"])
    s.royals = tuple(ROYAL_INDEX[r] for r in data["royals"])
    s.pending = tuple(_restore_pending(item) for item in data["pending"])
    s.rng = Rng(int(data["rng"], 16))
    if len(data["players"]) != 2:
        raise ValueError("two players")
    cards, reserved, owned, blind, copies = [], [], [], [], []
    for seat, p in enumerate(data["players"]):
        for t, name in enumerate(TOKEN_NAMES):
            s.tokens[seat * 7 + t] = int(p["tokens"][name])
        s.privileges[seat] = int(p["privileges"])
        cards.append(tuple(CARD_INDEX[c] for c in p["cards"]))
        copies.extend((CARD_INDEX[c], TOKEN_CODES[col]) for c, col in p["copies"].items())
        reserved.append(tuple(CARD_INDEX[r["card"]] for r in p["reserved"]))
        blind.extend(CARD_INDEX[r["card"]] for r in p["reserved"] if r["blind"])
        owned.append(tuple(ROYAL_INDEX[r] for r in p["royals"]))
    s.cards, s.reserved, s.royals_owned = tuple(cards), tuple(reserved), tuple(owned)
    s.blind, s.copies = tuple(blind), tuple(copies)
    _derive(s)
    outcome = data.get("outcome")
    s.result = Outcome.from_json(outcome) if outcome is not None else None
    check_invariants(s)
    return s


def _restore_pending(item: Mapping[str, Any]) -> tuple[int, int]:
    kind = PENDING_NAMES.index(item["effect"])
    if kind == 0:
        return (0, CARD_INDEX[item["card"]])
    if kind == 1:
        return (1, TOKEN_CODES[item["colour"]])
    if kind == 3:
        return (3, int(item["crowns"]))
    return (kind, 0)


def _derive(s: SplendorDuelState) -> None:
    """Bag, bonuses, points and crowns from the stored facts."""
    from arena.games.splendor_duel.cards import TOKEN_SUPPLY

    for t in range(7):
        s.bag[t] = TOKEN_SUPPLY[t] - s.board.count(t) - s.tokens[t] - s.tokens[7 + t]
    copies = dict(s.copies)
    for seat in (0, 1):
        for card in s.cards[seat]:
            colour = CARD_COLOUR[card] if card not in copies else copies[card]
            s.prestige[seat] += CARD_POINTS[card]
            s.crowns[seat] += CARD_CROWNS[card]
            if colour >= 0:
                s.bonus[seat * 5 + colour] += CARD_BONUS[card]
                s.colour_points[seat * 5 + colour] += CARD_POINTS[card]
        s.prestige[seat] += sum(ROYAL_POINTS[r] for r in s.royals_owned[seat])
