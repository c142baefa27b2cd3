"""Component data of Edel, Stein & Reich: gem cards, event cards, scoring card.

The data comes from a JSON document (the bundled house values in
`data/components.json`, or an operator's file given through the `components`
option). `parse_components` checks every entry and raises ValueError naming
the bad one; it never reads files (that is `loader.py`'s job), so engine code
can use it freely.

Gem colours are fixed by the game (RULES.md §2): red, yellow, green, blue in
falling value order. Everywhere in the engine a gem holding is a list of four
counts in that order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

COLOURS: tuple[str, ...] = ("red", "yellow", "green", "blue")
#: one-letter colour codes used in the action grammar
LETTERS: tuple[str, ...] = ("r", "y", "g", "b")
LETTER_INDEX: dict[str, int] = {c: i for i, c in enumerate(LETTERS)}

SCHEMA = "edel-stein-reich/components/1"

#: event effect codes (RULES.md §9.3) → the kind of card they make
OPS: dict[str, str] = {
    "certificate": "certificate",
    "majority_bonus": "scoring",
    "gain_money": "immediate",
    "gain_gems": "immediate",
    "gain_any_gems": "immediate",
    "swap_one_gem_with_player": "immediate",
    "each_opponent_gives_one_gem_of_their_choice": "immediate",
}

SEAT_COUNTS = (3, 4, 5)


@dataclass(frozen=True)
class GemCard:
    id: str
    money: int
    gems: tuple[int, int, int, int]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "money": self.money, "gems": gems_json(self.gems)}


@dataclass(frozen=True)
class EventCard:
    """One kind of event card; the deck holds `count` copies of it."""

    id: str
    name: str
    op: str
    kind: str  # certificate | scoring | immediate
    #: majority_bonus: colour index; gain_gems: unused
    colour: int = -1
    #: majority_bonus: bonus; gain_money: money; gain_any_gems: gem count
    amount: int = 0
    #: gain_gems: the gems
    gems: tuple[int, int, int, int] = (0, 0, 0, 0)
    count: int = 1

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "name": self.name, "kind": self.kind, "op": self.op}
        if self.op == "majority_bonus":
            out["params"] = {"colour": COLOURS[self.colour], "bonus": self.amount}
        elif self.op == "gain_money":
            out["params"] = {"money": self.amount}
        elif self.op == "gain_any_gems":
            out["params"] = {"count": self.amount}
        elif self.op == "gain_gems":
            out["params"] = {"gems": gems_json(self.gems)}
        return out


@dataclass(frozen=True)
class Components:
    gems_per_colour: int
    start_gems: tuple[int, int, int, int]
    start_money: int
    barter_value: tuple[int, int, int, int]
    scoring_value: tuple[int, int, int, int]
    majority_minimum: int
    majority_half_round_up: bool
    #: tie splits (majorities, certificate prizes) rounded up instead of down
    split_round_up: bool
    majority_tie_return: int
    certificate_awards: tuple[int, ...]
    set_aside: dict[int, int]
    gem_cards: tuple[GemCard, ...]
    event_kinds: tuple[EventCard, ...]
    #: the event deck as kind indices, one entry per physical card
    event_deck: tuple[int, ...]
    house_values: bool
    #: the normalised JSON this was parsed from (for snapshots and options)
    source: dict[str, Any]


def gems_json(gems) -> dict[str, int]:
    return {COLOURS[i]: n for i, n in enumerate(gems) if n}


def _int(value: Any, where: str, lo: int = 0, hi: int = 1000) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValueError(f"{where}: expected an integer in {lo}..{hi}, got {value!r}")
    return value


def _colour_map(value: Any, where: str, hi: int = 1000) -> tuple[int, int, int, int]:
    if not isinstance(value, Mapping):
        raise ValueError(f"{where}: expected an object of colour counts, got {value!r}")
    for key in value:
        if key not in COLOURS:
            raise ValueError(f"{where}.{key}: unknown colour (known: {', '.join(COLOURS)})")
    r, y, g, b = (_int(value.get(c, 0), f"{where}.{c}", 0, hi) for c in COLOURS)
    return (r, y, g, b)


def _full_colour_map(value: Any, where: str, hi: int = 1000) -> tuple[int, int, int, int]:
    out = _colour_map(value, where, hi)
    missing = [c for c in COLOURS if c not in value]
    if missing:
        raise ValueError(f"{where}.{missing[0]}: missing")
    return out


def _require(data: Mapping[str, Any], key: str) -> Any:
    if key not in data:
        raise ValueError(f"{key}: missing")
    return data[key]


def _event(raw: Any, where: str) -> EventCard:
    if not isinstance(raw, Mapping):
        raise ValueError(f"{where}: expected an object, got {raw!r}")
    card_id = raw.get("id")
    if not isinstance(card_id, str) or not card_id or " " in card_id:
        raise ValueError(f"{where}.id: expected a non-empty word, got {card_id!r}")
    name = raw.get("name", card_id)
    if not isinstance(name, str):
        raise ValueError(f"{where}.name: expected a string")
    op = raw.get("op")
    if op not in OPS:
        raise ValueError(f"{where}.op: unknown effect {op!r} (known: {', '.join(OPS)})")
    params = raw.get("params", {})
    if not isinstance(params, Mapping):
        raise ValueError(f"{where}.params: expected an object")
    count = _int(raw.get("count", 1), f"{where}.count", 1, 200)
    fields: dict[str, Any] = {}
    if op == "majority_bonus":
        colour = params.get("colour")
        if colour not in COLOURS:
            raise ValueError(f"{where}.params.colour: unknown colour {colour!r}")
        fields = {"colour": COLOURS.index(colour)}
        fields["amount"] = _int(params.get("bonus"), f"{where}.params.bonus")
    elif op == "gain_money":
        fields = {"amount": _int(params.get("money"), f"{where}.params.money")}
    elif op == "gain_any_gems":
        fields = {"amount": _int(params.get("count"), f"{where}.params.count", 1, 20)}
    elif op == "gain_gems":
        gems = _colour_map(params.get("gems"), f"{where}.params.gems", 88)
        if not any(gems):
            raise ValueError(f"{where}.params.gems: gives no gem")
        fields = {"gems": gems}
    return EventCard(card_id, name, op, OPS[op], count=count, **fields)


#: Far above any printed deck (30 gem cards, 39 events in the house values):
#: a bigger deck only makes matches, replays and snapshots huge.
MAX_GEM_CARDS = 500
MAX_EVENT_DECK = 500


def parse_components(data: Any) -> Components:
    """Check a component document and build the engine's tables.

    Raises ValueError whose message starts with the path of the bad entry
    (e.g. ``gem_cards[3].money: ...``).
    """
    if not isinstance(data, Mapping):
        raise ValueError("components: expected a JSON object")
    if data.get("schema") != SCHEMA:
        raise ValueError(f"schema: expected {SCHEMA!r}, got {data.get('schema')!r}")
    per_colour = _int(_require(data, "gems_per_colour"), "gems_per_colour", 1, 99)
    start_gems = _full_colour_map(_require(data, "start_gems"), "start_gems", per_colour)
    if max(start_gems) * 5 > per_colour:
        raise ValueError("start_gems: five seats would need more gems than the supply holds")
    barter = _full_colour_map(_require(data, "barter_value"), "barter_value", 100)
    if not barter[0] > barter[1] > barter[2] > barter[3] >= 0:
        raise ValueError("barter_value: must fall strictly from red to blue")
    rounding = _require(data, "majority_half_rounding")
    if rounding not in ("down", "up"):
        raise ValueError(f"majority_half_rounding: expected 'down' or 'up', got {rounding!r}")
    # optional: documents from before it existed rounded down
    split_rounding = data.get("split_rounding", "down")
    if split_rounding not in ("down", "up"):
        raise ValueError(f"split_rounding: expected 'down' or 'up', got {split_rounding!r}")
    awards = _require(data, "certificate_awards")
    if not isinstance(awards, list) or not awards:
        raise ValueError("certificate_awards: expected a non-empty list of integers")
    set_aside_raw = _require(data, "set_aside")
    if not isinstance(set_aside_raw, Mapping):
        raise ValueError("set_aside: expected an object keyed by seat count")
    set_aside = {
        n: _int(set_aside_raw.get(str(n), 0), f"set_aside.{n}", 0, 100) for n in SEAT_COUNTS
    }
    raw_cards = _require(data, "gem_cards")
    if not isinstance(raw_cards, list) or not raw_cards:
        raise ValueError("gem_cards: expected a non-empty list")
    if len(raw_cards) > MAX_GEM_CARDS:
        raise ValueError(f"gem_cards: {len(raw_cards)} cards, at most {MAX_GEM_CARDS}")
    gem_cards = []
    for i, raw in enumerate(raw_cards):
        where = f"gem_cards[{i}]"
        if not isinstance(raw, Mapping):
            raise ValueError(f"{where}: expected an object")
        card_id = raw.get("id", f"G{i + 1:02d}")
        if not isinstance(card_id, str) or not card_id:
            raise ValueError(f"{where}.id: expected a non-empty string")
        money = _int(raw.get("money"), f"{where}.money", 0, 100)
        gems = _colour_map(raw.get("gems"), f"{where}.gems", 88)
        gem_cards.append(GemCard(card_id, money, gems))
    raw_events = _require(data, "event_cards")
    if not isinstance(raw_events, list) or not raw_events:
        raise ValueError("event_cards: expected a non-empty list")
    if len(raw_events) > MAX_EVENT_DECK:
        raise ValueError(f"event_cards: {len(raw_events)} kinds, at most {MAX_EVENT_DECK}")
    kinds = tuple(_event(raw, f"event_cards[{i}]") for i, raw in enumerate(raw_events))
    total = sum(kind.count for kind in kinds)
    if total > MAX_EVENT_DECK:
        raise ValueError(
            f"event_cards: the counts add up to {total} cards, at most {MAX_EVENT_DECK}"
        )
    seen: set[str] = set()
    for i, kind in enumerate(kinds):
        if kind.id in seen:
            raise ValueError(f"event_cards[{i}].id: duplicate id {kind.id!r}")
        seen.add(kind.id)
    deck = tuple(k for k, kind in enumerate(kinds) for _ in range(kind.count))
    return Components(
        gems_per_colour=per_colour,
        start_gems=start_gems,
        start_money=_int(data.get("start_money", 0), "start_money"),
        barter_value=barter,
        scoring_value=_full_colour_map(_require(data, "scoring_value"), "scoring_value"),
        majority_minimum=_int(data.get("majority_minimum", 1), "majority_minimum", 1, 99),
        majority_half_round_up=rounding == "up",
        split_round_up=split_rounding == "up",
        majority_tie_return=_int(_require(data, "majority_tie_return"), "majority_tie_return"),
        certificate_awards=tuple(_int(a, f"certificate_awards[{i}]") for i, a in enumerate(awards)),
        set_aside=set_aside,
        gem_cards=tuple(gem_cards),
        event_kinds=kinds,
        event_deck=deck,
        house_values=bool(data.get("house_values", False)),
        source=dict(data),
    )


def check_seat_count(comp: Components, seats: int) -> None:
    """The gem deck must deal whole rounds for this seat count (RULES.md §3.7)."""
    in_play = len(comp.gem_cards) - comp.set_aside[seats]
    if in_play < seats or in_play % seats:
        raise ValueError(
            f"gem_cards: {len(comp.gem_cards)} cards minus set_aside.{seats} = {in_play} "
            f"do not deal whole rounds to {seats} seats"
        )
