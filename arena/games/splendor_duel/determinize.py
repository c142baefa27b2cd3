"""A full state from one seat's observation (a *determinization*), for search.

`GAME.determinize(observation, seed, options)` (docs/games/splendor-duel.md,
"Search in a bot") rebuilds everything the observation shows and samples
what it hides (RULES.md §10), uniformly among the possibilities consistent
with it, from `seed`:

- for each level, which of the cards nobody sees are the opponent's blind
  reserves and in which order the rest lie in the deck (every unseen card of
  a level came from the same shuffle, so they are exchangeable);
- the random generator of the state (so later replenishes are sampled too).

Nothing else is hidden: the seat's own blind reserves are shown to it, and
every field the rules keep is in the observation (the bag, the pending
effects, `replenished`, `play_again`). The state is built by the snapshot
path (`views.state_from`, which checks the invariants of RULES.md §12), then
checked once more: its observation must be the given one, exactly, and the
decision it asks for must be one the rules can ask (`_check_decision`).
Nothing inconsistent is returned; SnapshotError says what is wrong.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from arena.engine import SnapshotError
from arena.games.splendor_duel import views
from arena.games.splendor_duel.cards import (
    CARD_COPY,
    CARD_IDS,
    CARD_INDEX,
    GEMS,
    HAND_LIMIT,
    LEVEL_CARDS,
    PYRAMID_SIZE,
    ROYAL_THRESHOLDS,
)
from arena.games.splendor_duel.rules import P_COPY, P_MATCH, P_ROYAL, P_STEAL
from arena.games.splendor_duel.state import (
    COPY,
    DISCARD,
    GAME_ID,
    MAIN,
    MATCH,
    OVER,
    ROYAL,
    RULES_VERSION,
    STEAL,
    SplendorDuelState,
)
from arena.rng import Rng

#: the observation fields a snapshot has under the same name and meaning
SHARED = (
    "game",
    "step",
    "turn",
    "active",
    "first_seat",
    "phase",
    "pending",
    "replenished",
    "play_again",
    "board",
    "pyramid",
    "royals",
    "outcome",
)
PLAYER_SHARED = ("tokens", "cards", "copies", "royals", "privileges")
#: the phase each pending effect asks its decision in (state.py, rules.py)
EFFECT_PHASE = {P_COPY: COPY, P_MATCH: MATCH, P_STEAL: STEAL, P_ROYAL: ROYAL}


class _Impossible(ValueError):
    """Well-formed, but no game of these rules and options shows it."""


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def determinize(
    game: Any, observation: Any, seed: int, options: Mapping[str, Any] | None = None
) -> SplendorDuelState:
    """A state whose `observation(seat)` equals `observation`; see the module doc."""
    if not isinstance(observation, Mapping) or observation.get("game") != GAME_ID:
        raise SnapshotError(f"not an observation of {GAME_ID}")
    if not _is_int(seed):
        raise SnapshotError(f"the seed must be an integer, got {seed!r}")
    seat = observation.get("seat")
    if seat is None:
        raise SnapshotError(f"a {GAME_ID} spectator view: determinize needs a seat's observation")
    if seat not in (0, 1) or not _is_int(seat):
        raise SnapshotError(f"bad {GAME_ID} observation: seat {seat!r}")
    clean = game.validate_options(options)  # OptionError names a bad option
    sampler = Rng(seed)
    try:
        st = views.state_from(_snapshot(observation, seat, clean, sampler))
        _check_decision(st, clean)
    except _Impossible as exc:
        raise SnapshotError(f"impossible {GAME_ID} observation: {exc}") from None
    except AssertionError as exc:  # the invariants of RULES.md §12
        raise SnapshotError(
            f"impossible {GAME_ID} observation: an invariant of RULES.md §12 fails: {exc}"
        ) from None
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise SnapshotError(f"bad {GAME_ID} observation: {type(exc).__name__}: {exc}") from None
    _check_view(st, observation, seat)
    return st


def _snapshot(obs: Mapping[str, Any], seat: int, options: dict, sampler: Rng) -> dict[str, Any]:
    """The snapshot of the observation with the hidden parts drawn from `sampler`."""
    players = obs["players"]
    if not isinstance(players, list) or len(players) != 2:
        raise _Impossible(f"expected 2 players, got {len(players)}")
    if obs["phase"] not in views.PHASE_NAMES:
        raise _Impossible(f"no phase {obs['phase']!r} in rules {RULES_VERSION}")
    if [len(level) for level in obs["pyramid"]] != list(PYRAMID_SIZE):
        raise _Impossible(f"the pyramid's levels have {list(PYRAMID_SIZE)} slots")
    seen = {c for level in obs["pyramid"] for c in level if c is not None}
    blind_levels: list[int] = []  # of the opponent's hidden reserves, in order
    for owner, p in enumerate(players):
        seen.update(p["cards"])
        for r in p["reserved"]:
            if r["card"] is not None:
                seen.add(r["card"])
            elif owner == seat:
                raise _Impossible(f"a reserve of seat {seat} without its card: it sees its own")
            elif r["blind"] is not True:
                raise _Impossible(f"a reserve of seat {owner} without its card is not blind")
            else:
                blind_levels.append(r["level"])
    if any(level not in (1, 2, 3) or not _is_int(level) for level in blind_levels):
        raise _Impossible(f"a hidden reserve of level {blind_levels}")
    unknown = sorted(c for c in seen if c not in CARD_INDEX)
    if unknown:
        raise _Impossible(f"no card {unknown[0]!r} in rules {RULES_VERSION}")
    sizes = obs["deck_sizes"]
    if not isinstance(sizes, list) or len(sizes) != 3 or not all(_is_int(n) for n in sizes):
        raise _Impossible(f"deck_sizes: expected 3 integers, got {sizes!r:.80}")
    decks, drawn = [], {}
    for level, numbers in enumerate(LEVEL_CARDS, 1):
        unseen = [CARD_IDS[c] for c in numbers if CARD_IDS[c] not in seen]
        hidden = blind_levels.count(level)
        if len(unseen) != sizes[level - 1] + hidden:
            raise _Impossible(
                f"{len(unseen)} level-{level} cards are unseen, but deck_sizes[{level - 1}] "
                f"is {sizes[level - 1]!r} and {hidden} hidden reserves are of that level"
            )
        sampler.shuffle(unseen)
        drawn[level] = unseen[:hidden]
        decks.append(unseen[hidden:])  # bottom first, as in a snapshot
    out = {key: obs[key] for key in SHARED}
    out["players"] = [
        {key: p[key] for key in PLAYER_SHARED}
        | {
            "reserved": [
                dict(r, card=drawn[r["level"]].pop() if r["card"] is None else r["card"])
                for r in p["reserved"]
            ]
        }
        for p in players
    ]
    out.update(
        format=views.SNAPSHOT_FORMAT,
        rules_version=RULES_VERSION,
        options=options,
        step_cap=options["step_cap"],
        decks=decks,
        rng=f"{sampler.next_u64():#018x}",  # every replenish to come is sampled too
    )
    return out


def _check_decision(st: SplendorDuelState, options: Mapping[str, Any]) -> None:
    """What the invariants do not cover: the options and the decision asked now
    (a state that passed them could still not play on)."""
    if options["first_seat"] != "random" and st.first_seat != options["first_seat"]:
        raise _Impossible(f"first_seat is {st.first_seat}, the options say {options['first_seat']}")
    if (st.phase == OVER) != (st.result is not None):
        raise _Impossible(f"phase {views.PHASE_NAMES[st.phase]} with outcome {st.result}")
    if st.phase == OVER:
        return  # the step cap stops a game in whatever phase it is
    if st.step_count >= st.step_cap:
        raise _Impossible(f"step {st.step_count} reached the step cap but the game is not over")
    if st.active not in (0, 1) or st.turn < 1 or st.step_count < 0:
        raise _Impossible(f"active {st.active}, turn {st.turn}, step {st.step_count}")
    if st.phase in (MAIN, DISCARD):
        if st.pending:
            raise _Impossible(f"effects pending in the {views.PHASE_NAMES[st.phase]} phase")
    elif not st.pending or EFFECT_PHASE[st.pending[0][0]] != st.phase:
        raise _Impossible(
            f"the {views.PHASE_NAMES[st.phase]} phase needs that effect first in pending"
        )
    for kind, arg in st.pending:
        if kind == P_COPY and (
            not CARD_COPY[arg] or arg not in st.cards[st.active] or arg in dict(st.copies)
        ):
            raise _Impossible(f"a copy effect for {CARD_IDS[arg]}, not a copy card just bought")
        if kind == P_MATCH and arg not in GEMS:
            raise _Impossible("a match effect for a colour no card has")
        if kind == P_ROYAL and arg not in ROYAL_THRESHOLDS:
            raise _Impossible(f"a royal effect at {arg} crowns")
    if st.phase == DISCARD and sum(st.tokens[st.active * 7 : st.active * 7 + 7]) <= HAND_LIMIT:
        raise _Impossible(f"the discard phase with {HAND_LIMIT} tokens or fewer")
    if not st.legal_actions(st.active):
        raise _Impossible(f"seat {st.active} has no legal action in this position")


def _check_view(st: SplendorDuelState, observation: Mapping[str, Any], seat: int) -> None:
    """The rebuilt state shows `seat` exactly `observation` (as JSON: `true` is not `1`)."""
    rebuilt = st.observation(seat)
    try:
        given = json.dumps(observation, sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise SnapshotError(f"bad {GAME_ID} observation: not JSON: {exc}") from None
    if rebuilt == observation and json.dumps(rebuilt, sort_keys=True) == given:
        return
    path, want, shown = _first_difference(observation, rebuilt, "")
    where = f"impossible {GAME_ID} observation for rules {RULES_VERSION} and these options"
    if want is _MISSING:
        raise SnapshotError(f"{where}: {path} is missing")
    if shown is _MISSING:
        raise SnapshotError(f"{where}: {path} is no field of this observation")
    raise SnapshotError(
        f"{where}: {path or 'the observation'} cannot be {want!r:.200} (the nearest state "
        f"shows {shown!r:.200})"
    )


_MISSING = object()


def _first_difference(given: Any, rebuilt: Any, path: str) -> tuple[str, Any, Any]:
    """The path of the first place where two JSON values differ, and both values there."""
    if isinstance(given, Mapping) and isinstance(rebuilt, Mapping):
        for key in sorted(set(given) | set(rebuilt), key=str):
            if key not in given or key not in rebuilt:
                return (
                    f"{path}.{key}".lstrip("."),
                    given.get(key, _MISSING),
                    rebuilt.get(key, _MISSING),
                )
            if json.dumps(given[key], sort_keys=True) != json.dumps(rebuilt[key], sort_keys=True):
                return _first_difference(given[key], rebuilt[key], f"{path}.{key}".lstrip("."))
    if isinstance(given, list) and isinstance(rebuilt, list) and len(given) == len(rebuilt):
        for i, (a, b) in enumerate(zip(given, rebuilt, strict=True)):
            if json.dumps(a, sort_keys=True) != json.dumps(b, sort_keys=True):
                return _first_difference(a, b, f"{path}[{i}]")
    return path, given, rebuilt
