"""The Splendor Duel game definition: options, setup (RULES.md §2), restore."""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from typing import Any

from arena.engine import GameDef, OptionSpec
from arena.games.splendor_duel import views
from arena.games.splendor_duel.board import SPIRAL, board_masks
from arena.games.splendor_duel.cards import GOLD, LEVEL_CARDS, ROYAL_IDS, SLOT_LEVEL, TOKEN_SUPPLY
from arena.games.splendor_duel.determinize import determinize
from arena.games.splendor_duel.loader import DATA
from arena.games.splendor_duel.state import (
    GAME_ID,
    RULES_VERSION,
    SplendorDuelState,
    empty_state,
)
from arena.rng import Rng

#: §11 row 23 [ENG]: random games need about 100–200 steps; real ones fewer
DEFAULT_STEP_CAP = 2000


def _parse_first_seat(value: Any) -> str | int:
    if value == "random":
        return "random"
    if isinstance(value, bool) or value not in (0, 1, "0", "1"):
        raise ValueError(f"must be 'random', 0 or 1, not {value!r}")
    return int(value)


def _parse_step_cap(value: Any) -> int:
    whole = (
        (isinstance(value, int) and not isinstance(value, bool))
        or (isinstance(value, float) and math.isfinite(value) and value.is_integer())
        or (isinstance(value, str) and value.isascii() and value.strip().isdigit())
    )
    if not whole:
        raise ValueError(f"must be a whole number, not {value!r:.40}")
    cap = int(value)
    if not 1 <= cap <= 100_000:
        shown = cap if cap < 10**12 else "a number that large"
        raise ValueError(f"must be between 1 and 100000, not {shown}")
    return cap


class SplendorDuel(GameDef):
    id = GAME_ID
    name = "Splendor Duel"
    seat_counts = (2,)
    rules_version = RULES_VERSION
    step_cap = DEFAULT_STEP_CAP
    options = {
        "first_seat": OptionSpec(
            "random", "who plays first: 'random' (drawn from the seed), 0 or 1", _parse_first_seat
        ),
        "step_cap": OptionSpec(
            DEFAULT_STEP_CAP,
            "actions after which the game stops; ranks then by prestige, then crowns",
            _parse_step_cap,
        ),
    }

    def max_steps(self, options: Mapping[str, Any]) -> int:
        return int(options["step_cap"])

    def new(
        self, seats: int, seed: int, options: Mapping[str, Any] | None = None
    ) -> SplendorDuelState:
        self.check_seats(seats)
        clean = self.validate_options(options)
        s = empty_state()
        s.options = clean
        s.step_cap = clean["step_cap"]
        s.rng = rng = Rng(seed)
        # §2.1: shuffle each deck; deal 3 level-3, 4 level-2, 5 level-1 cards
        decks = []
        for cards in LEVEL_CARDS:
            deck = list(cards)
            rng.shuffle(deck)
            decks.append(deck)
        for slot in sorted(range(len(SLOT_LEVEL)), key=lambda x: -SLOT_LEVEL[x]):
            s.pyramid[slot] = decks[SLOT_LEVEL[slot] - 1].pop()
        s.decks = tuple(tuple(deck) for deck in decks)
        # §2.2: every token from the bag onto the board along the spiral
        bag = [t for t in range(7) for _ in range(TOKEN_SUPPLY[t])]
        rng.shuffle(bag)
        for cell, t in zip(SPIRAL, bag, strict=True):
            s.board[cell] = t
        s.takeable, s.gold_mask = board_masks(s.board, GOLD)
        s.royals = tuple(range(len(ROYAL_IDS)))  # §2.3
        # §2.4, §11 row 25: the second player takes 1 privilege
        first = rng.below(2) if clean["first_seat"] == "random" else clean["first_seat"]
        s.first_seat = s.active = first
        s.privileges[1 - first] = 1
        return s

    def determinize(
        self,
        observation: Mapping[str, Any],
        seed: int,
        options: Mapping[str, Any] | None = None,
    ) -> SplendorDuelState:
        """A full state that shows `observation` to its seat, for search in a bot
        (docs/games/splendor-duel.md, "Search in a bot"). What the observation
        hides (deck orders, the opponent's blind reserves, the generator) is
        sampled from `seed`; `options` are the match's (`Match.options`).
        SnapshotError when `observation` is not one this game can show with
        these options; OptionError for bad options."""
        return determinize(self, observation, seed, options)

    def restore(self, snapshot: Mapping[str, Any]) -> SplendorDuelState:
        return views.restore(snapshot, self.rules_version)

    def public_data(self, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The faces of the jewel and royal cards by id, as in data/cards.json
        (no option changes them)."""
        return {
            "cards": {card["id"]: copy.deepcopy(card) for card in DATA["jewel_cards"]},
            "royals": {card["id"]: copy.deepcopy(card) for card in DATA["royal_cards"]},
        }


GAME = SplendorDuel()
