"""The conformance suite every registered game gets for free.

Parametrized over `arena.registry.all_games()` and each game's seat counts.
Random playouts over several seeds check, after every step, the contract of
arena/engine.py: who is to act, legal lists (sorted, unique, non-empty for a
seat to act, empty for the others), the outcome, determinism, snapshots that
restore to an equal state and continue identically, bad actions that raise
the right error and leave the state unchanged, JSON-serialisable views, and
termination within the step cap.

Hooks a game may provide:

- ``state.check_invariants()``: optional method of the state; raise
  AssertionError when the state is inconsistent (token counts, cards...).
  It is called after every step of every playout here.
- the state must carry its random generator as an ``arena.rng.Rng`` held
  directly in one of its attributes (any name); the generic leak test changes
  that generator and checks that no seat's observation and not the spectator
  view changes. Leak tests for a game's own hidden facts (hands, decks,
  secret choices) live in ``tests/arena/<game package>/``.

ARENA_CONFORMANCE_SEEDS (default 16) sets how many random games each check
plays per game and seat count; heavier checks sample positions.
"""

from __future__ import annotations

import hashlib
import json
import os

import pytest

from arena.engine import (
    EngineError,
    GameDef,
    GameState,
    IllegalAction,
    MalformedAction,
    OptionError,
)
from arena.rng import Rng
from tests.arena.playout import case_id, game_cases, play, replay, state_cap

SEEDS = range(1, 1 + int(os.environ.get("ARENA_CONFORMANCE_SEEDS", "16")))
CASES = game_cases()
GARBAGE = ["", " ", "\n", "%%% not an action %%%", "\x00\x01"]

pytestmark = pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])


def digest(data: object) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def check_position(state: GameState, seats: int, step: int) -> None:
    assert state.seat_count == seats
    assert state.step == step
    to_act = state.to_act()
    assert isinstance(to_act, list)
    assert to_act == sorted(set(to_act)), f"to_act not ascending/unique: {to_act}"
    assert all(0 <= s < seats for s in to_act)
    assert state.is_over() == (not to_act)
    assert (state.outcome() is None) == (not state.is_over())
    for seat in range(seats):
        legal = state.legal_actions(seat)
        assert isinstance(legal, list)
        if seat in to_act:
            assert legal, f"seat {seat} is to act but has no legal action"
            assert all(isinstance(a, str) for a in legal)
            assert legal == sorted(legal), "legal actions are not sorted"
            assert len(set(legal)) == len(legal), "legal actions repeat"
        else:
            assert legal == [], f"seat {seat} is not to act but has legal actions"
    if hasattr(state, "check_invariants"):
        state.check_invariants()


def check_outcome(state: GameState, game: GameDef, seats: int) -> None:
    outcome = state.outcome()
    assert outcome is not None
    assert len(outcome.ranks) == seats and len(outcome.scores) == seats
    for rank in outcome.ranks:
        better = sum(1 for r in outcome.ranks if r < rank)
        assert rank == better + 1, f"ranks {outcome.ranks} are not competition ranks"
    assert isinstance(outcome.reason, str) and outcome.reason
    assert state.step <= state_cap(game)
    json.dumps(outcome.to_json())


def test_game_definition(case: tuple[GameDef, int]) -> None:
    game, seats = case
    assert game.id and game.name and game.rules_version
    assert seats in game.seat_counts
    assert game.step_cap > 0
    defaults = game.validate_options({})
    assert set(defaults) == set(game.options)
    assert game.validate_options(defaults) == defaults
    with pytest.raises(OptionError, match="no_such_option"):
        game.validate_options({"no_such_option": 1})
    with pytest.raises(OptionError):
        game.new(max(game.seat_counts) + 1, 1)


def test_random_playouts_keep_the_contract(case: tuple[GameDef, int]) -> None:
    game, seats = case
    for seed in SEEDS:
        playout = play(game, seats, seed, lambda s, step: check_position(s, seats, step))
        check_outcome(playout.final, game, seats)


def test_same_seed_and_actions_give_the_same_states(case: tuple[GameDef, int]) -> None:
    game, seats = case
    for seed in SEEDS:
        digests: list[str] = []
        playout = play(
            game, seats, seed, lambda s, _step, out=digests: out.append(digest(s.snapshot()))
        )
        again = [digest(s.snapshot()) for s in replay(game, seats, seed, playout.moves)]
        assert again == digests, f"seed {seed}: replay differs"


def test_snapshot_restores_an_equal_state_that_continues_identically(
    case: tuple[GameDef, int],
) -> None:
    game, seats = case
    for seed in SEEDS:
        playout = play(game, seats, seed)
        picks = Rng(seed).below(len(playout.moves) + 1), len(playout.moves) // 2, 0
        for pick in sorted(set(picks)):
            states = replay(game, seats, seed, playout.moves)
            for _ in range(pick + 1):
                state = next(states)
            state = state.clone()
            snap = json.loads(json.dumps(state.snapshot()))
            restored = game.restore(snap)
            assert restored == state
            assert restored.snapshot() == snap
            for seat in state.to_act():
                assert restored.legal_actions(seat) == state.legal_actions(seat)
            for seat, action in playout.moves[pick:]:
                state.apply(seat, action)
                restored.apply(seat, action)
            assert restored.snapshot() == state.snapshot() == playout.final.snapshot()


def test_clone_is_independent_and_equal(case: tuple[GameDef, int]) -> None:
    game, seats = case
    playout = play(game, seats, SEEDS[0])
    states = replay(game, seats, SEEDS[0], playout.moves)
    for step, state in enumerate(states):
        if step >= len(playout.moves):
            break
        if step % 5:
            continue
        copy = state.clone()
        assert copy == state
        before = state.snapshot()
        copy.apply(*playout.moves[step])
        assert state.snapshot() == before, "applying to a clone changed the original"


def test_every_listed_action_applies(case: tuple[GameDef, int]) -> None:
    game, seats = case

    def try_all(state: GameState, step: int) -> None:
        if step % 7:
            return
        for seat in state.to_act():
            for action in state.legal_actions(seat):
                copy = state.clone()
                copy.apply(seat, action)
                assert copy.step == state.step + 1

    for seed in SEEDS[:3]:
        play(game, seats, seed, try_all)


def test_bad_actions_raise_and_leave_the_state_unchanged(case: tuple[GameDef, int]) -> None:
    game, seats = case
    seen: list[str] = []

    def check_unchanged(state: GameState, seat: int, action: str, error: type) -> None:
        before = state.snapshot()
        legal_before = {s: state.legal_actions(s) for s in range(seats)}
        with pytest.raises(error):
            state.apply(seat, action)
        assert state.snapshot() == before, f"{action!r} changed the state"
        assert {s: state.legal_actions(s) for s in range(seats)} == legal_before

    def probe(state: GameState, step: int) -> None:
        to_act = state.to_act()
        if step % 3:
            seen.extend(a for s in to_act for a in state.legal_actions(s)[:5])
            return
        seat = to_act[0] if to_act else 0
        for garbage in GARBAGE:
            check_unchanged(state, seat, garbage, MalformedAction)
        if to_act:
            legal = set(state.legal_actions(seat))
            stale = [a for a in seen[-200:] if a not in legal]
            if stale:
                check_unchanged(state, seat, stale[-1], IllegalAction)
            idle = [s for s in range(seats) if s not in to_act]
            if idle:
                check_unchanged(state, idle[0], sorted(legal)[0], IllegalAction)
        elif seen:
            check_unchanged(state, seat, seen[-1], IllegalAction)
        seen.extend(a for s in to_act for a in state.legal_actions(s)[:5])

    for seed in SEEDS[:3]:
        playout = play(game, seats, seed, probe)
        probe(playout.final, 0)
        # bad seat numbers are errors too, never a crash of another kind
        with pytest.raises(EngineError):
            playout.final.apply(seats, "%%%")


def _rng_attributes(state: GameState) -> list[str]:
    names = set(getattr(state, "__dict__", {}))
    for klass in type(state).__mro__:
        names.update(getattr(klass, "__slots__", ()))
    return sorted(n for n in names if isinstance(getattr(state, n, None), Rng))


def test_observations_do_not_depend_on_the_random_generator(case: tuple[GameDef, int]) -> None:
    game, seats = case
    first = game.new(seats, 1)
    names = _rng_attributes(first)
    assert names, (
        f"{game.id}: the state must hold its arena.rng.Rng in an attribute "
        "(see the hooks in this module's docstring)"
    )

    def probe(state: GameState, step: int) -> None:
        if step % 4:
            return
        other = state.clone()
        for name in names:
            rng = getattr(other, name)
            assert rng is not getattr(state, name), "clone() shares the generator"
            rng.state = (rng.state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        assert other.snapshot() != state.snapshot(), "the snapshot must hold the generator"
        for seat in range(seats):
            assert other.observation(seat) == state.observation(seat), f"seat {seat} sees the RNG"
        assert other.spectator_view() == state.spectator_view()

    for seed in SEEDS[:3]:
        play(game, seats, seed, probe)


def test_views_and_snapshots_are_json(case: tuple[GameDef, int]) -> None:
    game, seats = case

    def probe(state: GameState, step: int) -> None:
        if step % 5:
            return
        for seat in range(seats):
            obs = state.observation(seat)
            assert isinstance(obs, dict)
            assert json.loads(json.dumps(obs)) == obs
        assert json.loads(json.dumps(state.spectator_view())) == state.spectator_view()
        assert json.loads(json.dumps(state.snapshot())) == state.snapshot()
        assert isinstance(state.render(), str) and state.render()
        for seat in state.to_act():
            for action in state.legal_actions(seat)[:3]:
                assert isinstance(state.describe_action(seat, action), str)

    for seed in SEEDS[:2]:
        playout = play(game, seats, seed, probe)
        probe(playout.final, 0)


def test_restore_rejects_a_foreign_snapshot(case: tuple[GameDef, int]) -> None:
    game, _ = case
    from arena.engine import SnapshotError

    with pytest.raises(SnapshotError):
        game.restore({"game": "no-such-game"})
