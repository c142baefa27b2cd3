"""Helpers shared by the generic engine tests: games, seeded random playouts.

A playout is a seed plus the actions chosen: the actions come from a
separate generator (`arena.rng.Rng`, seeded from the game seed), so every
playout is reproducible.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from arena.engine import GameDef, GameState
from arena.registry import all_games, get_game
from arena.replay import build_replay
from arena.rng import Rng


def game_cases() -> list[tuple[GameDef, int]]:
    """(game, seat count) for every registered game and each of its seat counts."""
    return [(game, seats) for game in all_games() for seats in game.seat_counts]


def case_id(case: tuple[GameDef, int]) -> str:
    return f"{case[0].id}-{case[1]}p"


@dataclass
class Playout:
    game: GameDef
    seats: int
    seed: int
    moves: list[tuple[int, str]] = field(default_factory=list)
    final: GameState | None = None


def play(
    game: GameDef,
    seats: int,
    seed: int,
    on_step: Callable[[GameState, int], None] | None = None,
) -> Playout:
    """A uniform-random game; `on_step(state, step)` runs before each action and at the end.

    In a simultaneous phase the seat to commit is drawn at random too, so the
    order of commits is exercised.
    """
    state = game.new(seats, seed)
    chooser = Rng(seed * 7919 + 17)
    result = Playout(game, seats, seed)
    cap = state_cap(game)
    while True:
        if on_step is not None:
            on_step(state, len(result.moves))
        to_act = state.to_act()
        if not to_act:
            break
        assert len(result.moves) < cap, f"{game.id}: still running after the step cap {cap}"
        seat = to_act[chooser.below(len(to_act))]
        legal = state.legal_actions(seat)
        action = legal[chooser.below(len(legal))]
        state.apply(seat, action)
        result.moves.append((seat, action))
    result.final = state
    return result


def scripted_replay(
    game_id: str, seats: int, seed: int, options: dict | None = None, first: tuple[str, ...] = ()
) -> dict:
    """A complete replay (docs/replays.md) of a game whose first actions are
    `first`, each played by the lowest seat to act, and the rest a random
    playout; every step carries the note "note of seat N"."""
    game = get_game(game_id)
    options = game.validate_options(options)
    state = game.new(seats, seed, options)
    chooser = Rng(seed * 7919 + 17)
    steps: list[dict] = []
    while to_act := state.to_act():
        assert len(steps) < state_cap(game), f"{game_id}: still running after the step cap"
        if len(steps) < len(first):
            seat, action = to_act[0], first[len(steps)]
        else:
            seat = to_act[chooser.below(len(to_act))]
            legal = state.legal_actions(seat)
            action = legal[chooser.below(len(legal))]
        state.apply(seat, action)
        steps.append(
            {"seat": seat, "action": action, "think_ms": 1.0, "note": f"note of seat {seat}"}
        )
    outcome = state.outcome()
    assert outcome is not None
    return build_replay(
        game=game,
        seed=seed,
        options=options,
        labels=[f"seat{i}" for i in range(seats)],
        time_control={"startup_ms": 10000, "move_ms": 1000, "bank_ms": 10000},
        steps=steps,
        engine_outcome=outcome,
        outcome=outcome,
        faults=[None] * seats,
    )


def replay(
    game: GameDef, seats: int, seed: int, moves: list[tuple[int, str]]
) -> Iterator[GameState]:
    """The states of a recorded game: the start, then after every move."""
    state = game.new(seats, seed)
    yield state
    for seat, action in moves:
        state.apply(seat, action)
        yield state


def state_cap(game: GameDef) -> int:
    return int(game.step_cap)


def poke(node, chooser: Rng) -> None:
    """Change one number, string, flag or list somewhere inside `node` (an
    observation as JSON), for tests that a tampered observation is refused."""
    path = []
    while isinstance(node, (dict, list)) and node:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        key = keys[chooser.below(len(keys))]
        path.append((node, key))
        if not isinstance(node[key], (dict, list)) or chooser.below(4) == 0:
            break
        node = node[key]
    if not path:
        return
    parent, key = path[-1]
    value = parent[key]
    if isinstance(value, bool):
        parent[key] = not value
    elif isinstance(value, int):
        parent[key] = value + (1 if chooser.below(2) else -1)
    elif isinstance(value, list):
        if value:
            value.pop(chooser.below(len(value)))
        else:
            value.append(0)
    elif isinstance(value, str):
        parent[key] = value + "x"
    else:
        parent[key] = 0
