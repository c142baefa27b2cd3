"""Edel, Stein & Reich (Reinhard Staupe, alea 2003) for 3–5 seats.

Importing this package registers the game. Rules: docs/games/edel-stein-reich.md.
The card lists and several numbers are *house values* (placeholders for
printed values no public source gives); an operator can replace them with
the `components` option.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arena.engine import GameDef, OptionError, OptionSpec, SnapshotError
from arena.games.edel_stein_reich.components import check_seat_count, parse_components
from arena.games.edel_stein_reich.determinize import determinize
from arena.games.edel_stein_reich.loader import DEFAULT_COMPONENTS, parse_option
from arena.games.edel_stein_reich.state import GAME_ID, RULES_VERSION, EsrState
from arena.registry import register


def _one_of(*choices: str) -> Callable[[Any], str]:
    """A parser accepting exactly one of `choices`."""

    def parse(value: Any) -> str:
        if value not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}, got {value!r}")
        return value

    return parse


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if value in ("true", "1", "yes"):
        return True
    if value in ("false", "0", "no"):
        return False
    raise ValueError(f"expected true or false, got {value!r}")


class EdelSteinReich(GameDef):
    id = GAME_ID
    name = "Edel, Stein & Reich"
    seat_counts = (3, 4, 5)
    rules_version = RULES_VERSION
    step_cap = 20_000
    notice = (
        "Plays with house values: the gem and event card lists, scoring-card money, "
        "certificate prizes, barter (gem) values, the rounding of returns and splits, "
        "the minimum holding that scores and the tie rules are placeholders, not the "
        "printed values."
    )
    options = {
        "components": OptionSpec(
            None,
            "component data replacing the house values: a path to a JSON file or inline JSON",
            parse_option,
        ),
        "barter_winner": OptionSpec(
            "offer",
            "who acts after a trade: 'offer' = the maker of the accepted offer (public "
            "sources); 'more_gems' = the seat with more gems, red first (project summary)",
            _one_of("offer", "more_gems"),
        ),
        "money_visible": OptionSpec(
            True, "whether every seat sees the others' money (false: own money only)", _bool
        ),
        # The options below choose among the house rules [H] of RULES.md; each
        # default is the engine's original behaviour.
        "set_aside_top_public": OptionSpec(
            True,
            "§3.7: whether the top set-aside gem card is shown to every seat and spectator "
            "(false: only the number of set-aside cards is shown)",
            _bool,
        ),
        "event_reshuffle": OptionSpec(
            True,
            "§5.2/§7.2: whether an empty event deck is refilled by shuffling the event "
            "discard pile (false: once used up it stays empty: no offered event, no blind "
            "draw; only event_deck_between_phases = 'reshuffle' refills it, at a new phase)",
            _bool,
        ),
        "priority_tiebreak": OptionSpec(
            "less_money",
            "§6.1: priority (bargaining opener, shared Free Choice order) when the gem "
            "counts are equal: 'less_money' = less money, then lower seat; 'seat' = lower seat",
            _one_of("less_money", "seat"),
        ),
        "free_choice_same_colour": OptionSpec(
            True,
            "§7.4: whether Free Choice alone may take the colour it returned (false: its "
            "picks exclude that colour; with no other colour in stock they are lost)",
            _bool,
        ),
        "final_tiebreak": OptionSpec(
            "gem_value",
            "§11: equal money at the end: 'gem_value' = higher gem value (4/3/2/1), then a "
            "shared rank; 'shared' = a shared rank",
            _one_of("gem_value", "shared"),
        ),
        "certificate_ties": OptionSpec(
            "split",
            "§10.3: seats tied on certificates: 'split' = add the prizes of the places they "
            "occupy and split them, rounded down; 'full' = each gets the prize of the best "
            "place they share",
            _one_of("split", "full"),
        ),
        "untaken_event": OptionSpec(
            "discard",
            "§5.5: the offered event when nobody took it this round: 'discard' = it goes to "
            "the event discard pile; 'keep' = it stays offered for the next round (across a "
            "new phase too), and no new card is turned up while it lies there. A card refused "
            "for a blind draw (§7.2) is discarded either way",
            _one_of("discard", "keep"),
        ),
        "gemless_opener": OptionSpec(
            "pass",
            "§6.3: the bargaining opener holds no gems: 'pass' = the opening passes to the "
            "other seat (if it holds none either, the action is void); 'void' = the action is "
            "void for this round at once (nobody performs it, nothing moves). A seat without "
            "gems always comes first in priority (§6.1), so with 'void' any bargain with a "
            "gemless seat is void",
            _one_of("pass", "void"),
        ),
        "event_deck_between_phases": OptionSpec(
            "keep",
            "§10.5: the event deck at a new phase: 'keep' = as it is; 'reshuffle' = the event "
            "discard pile (the scoring-time cards and certificates included, §10.4) is "
            "shuffled together with the deck, whatever event_reshuffle says. A card kept "
            "on offer (untaken_event 'keep') stays offered",
            _one_of("keep", "reshuffle"),
        ),
    }

    def notice_for(self, options: Mapping[str, Any] | None) -> str:
        # The house-values warning holds only while house values are played: the
        # bundled data, or a document that still says it is ("house_values": true).
        components = (options or {}).get("components")
        if isinstance(components, Mapping) and not components.get("house_values", False):
            return (
                "Plays with custom component data (the components option: the "
                "operator's on the ladder, the challenger's in a challenge) instead of "
                "the bundled house values."
            )
        return self.notice

    def _components(self, clean: Mapping[str, Any], seats: int):
        comp = DEFAULT_COMPONENTS if clean["components"] is None else None
        try:
            if comp is None:
                comp = parse_components(clean["components"])
            check_seat_count(comp, seats)
        except ValueError as exc:
            raise OptionError(f"option 'components' of {self.id}: {exc}") from None
        return comp

    def public_data(self, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Every event card of the match's components by id (name, kind, effect):
        a viewer names the cards it has not seen face up yet. Empty when the
        options are no longer valid (the viewer then names cards by id)."""
        try:
            clean = self.validate_options(options)
            comp = (
                DEFAULT_COMPONENTS
                if clean["components"] is None
                else parse_components(clean["components"])
            )
        except ValueError:  # OptionError is one
            return {}
        return {"events": {card.id: card.to_json() for card in comp.event_kinds}}

    def new(self, seats: int, seed: int, options: Mapping[str, Any] | None = None) -> EsrState:
        self.check_seats(seats)
        clean = self.validate_options(options)
        return EsrState(seats, seed, self._components(clean, seats), clean, self.step_cap)

    def determinize(
        self,
        observation: Mapping[str, Any],
        seed: int,
        options: Mapping[str, Any] | None = None,
        money: Sequence[int | None] | None = None,
    ) -> EsrState:
        """A full state that shows `observation` to its seat, for search in a bot
        (docs/games/edel-stein-reich.md, "Search in a bot"). What the observation
        hides is sampled from `seed`; `options` are the match's (`Match.options`).
        Hidden money is estimated unless `money` gives it (an int per seat, or
        None to estimate). SnapshotError when `observation` is not one this
        game can show with these options; OptionError for bad options."""
        return determinize(self, observation, seed, options, money)

    def restore(self, snapshot: Mapping[str, Any]) -> EsrState:
        if not isinstance(snapshot, Mapping) or snapshot.get("game") != self.id:
            raise SnapshotError(f"not a snapshot of {self.id}")
        if snapshot.get("version") != self.rules_version:
            raise SnapshotError(
                f"snapshot of rules version {snapshot.get('version')!r}, "
                f"engine is {self.rules_version!r}"
            )
        try:
            seats = snapshot["seats"]
            self.check_seats(seats)
            clean = self.validate_options(snapshot["options"])
            return EsrState.from_snapshot(dict(snapshot), self._components(clean, seats), clean)
        except (KeyError, TypeError, ValueError) as exc:
            raise SnapshotError(f"bad {self.id} snapshot: {exc}") from None


GAME = register(EdelSteinReich())
