"""Replays: one versioned JSON document, stored gzip-compressed
(docs/replays.md). A replay is seed + options + actions; positions and
spectator frames are derived by re-simulating with the same rules version.
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.engine import GameDef, GameState, Outcome
from arena.registry import get_game

if TYPE_CHECKING:
    from arena.runner_types import Fault

FORMAT = "gemarena-replay"
VERSION = 1
#: a replay never legitimately expands past this (guards `replay show` on odd files)
MAX_REPLAY_BYTES = 64 * 1024 * 1024


class ReplayError(ValueError):
    """A replay that cannot be read or re-simulated."""


def build_replay(
    *,
    game: GameDef,
    seed: int,
    options: Mapping[str, Any],
    labels: Sequence[str],
    time_control: Mapping[str, int],
    steps: Sequence[Mapping[str, Any]],
    engine_outcome: Outcome | None,
    outcome: Outcome,
    faults: Sequence[Fault | None],
) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": game.id,
        "rules_version": game.rules_version,
        "seed": seed,
        "options": dict(options),
        "seats": list(labels),
        "time": dict(time_control),
        "steps": [dict(s) for s in steps],
        "engine_outcome": engine_outcome.to_json() if engine_outcome is not None else None,
        "outcome": outcome.to_json(),
        "faults": [f.to_json() if f is not None else None for f in faults],
    }


# -- bytes and files ---------------------------------------------------------


def replay_to_bytes(replay: Mapping[str, Any]) -> bytes:
    """gzip JSON; mtime 0 so the same replay always gives the same bytes."""
    raw = json.dumps(replay, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return gzip.compress(raw, compresslevel=6, mtime=0)


def replay_from_bytes(data: bytes) -> dict[str, Any]:
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
            raw = stream.read(MAX_REPLAY_BYTES + 1)
    except (OSError, EOFError) as exc:
        raise ReplayError(f"not a gzip replay: {exc}") from None
    if len(raw) > MAX_REPLAY_BYTES:
        raise ReplayError(f"replay expands past {MAX_REPLAY_BYTES} bytes")
    try:
        replay = json.loads(raw.decode("utf-8"))
    except ValueError as exc:
        raise ReplayError(f"replay is not UTF-8 JSON: {exc}") from None
    check_header(replay)
    return replay


def save_replay(path: str | Path, replay: Mapping[str, Any]) -> None:
    Path(path).write_bytes(replay_to_bytes(replay))


def load_replay(path: str | Path) -> dict[str, Any]:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ReplayError(f"cannot read {path}: {exc.strerror or exc}") from None
    return replay_from_bytes(data)


def check_header(replay: Any) -> None:
    if not isinstance(replay, dict) or replay.get("format") != FORMAT:
        raise ReplayError(f"not a {FORMAT} document")
    if replay.get("version") != VERSION:
        raise ReplayError(
            f"replay format version {replay.get('version')!r} (this arena reads {VERSION})"
        )
    for key in ("game", "rules_version", "seed", "options", "seats", "steps", "outcome", "faults"):
        if key not in replay:
            raise ReplayError(f"replay lacks {key!r}")
    check_fields(replay)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check_outcome(name: str, outcome: Any, seats: int) -> None:
    if not isinstance(outcome, dict):
        raise ReplayError(f"replay {name!r} must be an object, not {type(outcome).__name__}")
    for key, ok, what in (("ranks", _is_int, "whole numbers"), ("scores", _is_number, "numbers")):
        values = outcome.get(key)
        if not isinstance(values, list) or len(values) != seats or not all(map(ok, values)):
            raise ReplayError(f"replay {name}.{key} must be {seats} {what} (one per seat)")
    if not isinstance(outcome.get("reason"), str):
        raise ReplayError(f"replay {name}.reason must be a string")


def check_fields(replay: Mapping[str, Any]) -> None:
    """ReplayError naming the first field whose type or length is wrong, so a
    damaged or hand-edited file is refused with a clear message instead of
    failing somewhere inside re-simulation. Unknown keys are left alone."""
    for key in ("game", "rules_version"):
        if not isinstance(replay[key], str):
            raise ReplayError(f"replay {key!r} must be a string")
    if not _is_int(replay["seed"]):
        raise ReplayError(f"replay 'seed' must be a whole number, not {replay['seed']!r}")
    if not isinstance(replay["options"], dict):
        raise ReplayError("replay 'options' must be an object")
    labels = replay["seats"]
    if not isinstance(labels, list) or not labels or not all(isinstance(x, str) for x in labels):
        raise ReplayError("replay 'seats' must be a non-empty list of bot labels")
    seats = len(labels)
    steps = replay["steps"]
    if not isinstance(steps, list):
        raise ReplayError("replay 'steps' must be a list")
    for i, step in enumerate(steps):
        if not isinstance(step, dict):
            raise ReplayError(f"replay step {i} must be an object")
        seat = step.get("seat")
        if not _is_int(seat) or not 0 <= seat < seats:
            raise ReplayError(f"replay step {i}: 'seat' must be a seat number 0..{seats - 1}")
        if not isinstance(step.get("action"), str):
            raise ReplayError(f"replay step {i}: 'action' must be a string")
        if "think_ms" in step and not _is_number(step["think_ms"]):
            raise ReplayError(f"replay step {i}: 'think_ms' must be a number")
        if "note" in step and not isinstance(step["note"], str):
            raise ReplayError(f"replay step {i}: 'note' must be a string")
        if "forced" in step and not isinstance(step["forced"], bool):
            raise ReplayError(f"replay step {i}: 'forced' must be true or false")
    _check_outcome("outcome", replay["outcome"], seats)
    if replay.get("engine_outcome") is not None:
        _check_outcome("engine_outcome", replay["engine_outcome"], seats)
    faults = replay["faults"]
    if not isinstance(faults, list) or len(faults) != seats:
        raise ReplayError(f"replay 'faults' must be a list of {seats} entries (one per seat)")
    for seat, fault in enumerate(faults):
        if fault is None:
            continue
        if (
            not isinstance(fault, dict)
            or not isinstance(fault.get("kind"), str)
            or not isinstance(fault.get("detail"), str)
            or not _is_int(fault.get("step"))
        ):
            raise ReplayError(
                f"replay 'faults' entry of seat {seat} must be null or "
                "{kind: string, detail: string, step: whole number}"
            )


# -- re-simulation -----------------------------------------------------------


def new_state(replay: Mapping[str, Any]) -> tuple[GameDef, GameState]:
    check_header(replay)
    game = get_game(replay["game"])
    if game.rules_version != replay["rules_version"]:
        raise ReplayError(
            f"replay of {game.id} rules {replay['rules_version']!r}; this engine is {game.rules_version!r}"
        )
    return game, game.new(len(replay["seats"]), int(replay["seed"]), replay["options"])


def positions(replay: Mapping[str, Any]) -> Any:
    """Yields (index, step record or None, description, state) for the start
    and after every step; the state object is reused, copy it to keep it."""
    _game, state = new_state(replay)
    yield 0, None, "start", state
    for i, step in enumerate(replay["steps"]):
        seat, action = int(step["seat"]), str(step["action"])
        try:
            description = state.describe_action(seat, action)
            state.apply(seat, action)
        except ValueError as exc:
            raise ReplayError(f"step {i}: seat {seat} {action!r}: {exc}") from None
        yield i + 1, step, description, state


def verify_replay(replay: Mapping[str, Any]) -> list[str]:
    """Re-simulate and compare; the list of differences (empty = verified)."""
    from arena.runner_types import Fault, final_outcome

    try:
        game, state = new_state(replay)
    except (ReplayError, ValueError) as exc:
        return [str(exc)]
    seats = len(replay["seats"])
    try:
        faults = [Fault.from_json(f) for f in replay["faults"]]
    except (KeyError, TypeError, ValueError) as exc:
        return [f"bad faults entry: {exc!r}"]
    if len(faults) != seats:
        return [f"{len(faults)} fault entries for {seats} seats"]
    problems: list[str] = []
    for i, step in enumerate(replay["steps"]):
        seat, action = int(step["seat"]), str(step["action"])
        if state.is_over():
            return problems + [f"step {i}: the game was already over"]
        if seat not in state.to_act():
            return problems + [f"step {i}: seat {seat} is not to act (to act: {state.to_act()})"]
        legal = state.legal_actions(seat)
        if action not in legal:
            return problems + [f"step {i}: {action!r} is not legal for seat {seat}"]
        fault = faults[seat]
        should_force = fault is not None and fault.step <= state.step
        if bool(step.get("forced")) != should_force:
            problems.append(
                f"step {i}: 'forced' is {bool(step.get('forced'))}, expected {should_force}"
            )
        if step.get("forced") and action != legal[0]:
            problems.append(f"step {i}: a forced step must play the first legal action")
        state.apply(seat, action)
    engine = state.outcome() if state.is_over() else None
    recorded = replay.get("engine_outcome")
    if (engine.to_json() if engine else None) != recorded:
        problems.append(
            f"engine outcome {engine.to_json() if engine else None} != recorded {recorded}"
        )
    if engine is None and not any(faults):
        problems.append("the game is not over and nobody forfeited")
    try:
        final = final_outcome(seats, engine, faults).to_json()
    except (ValueError, IndexError) as exc:
        return problems + [f"cannot compute the outcome: {exc}"]
    if final != replay["outcome"]:
        problems.append(f"outcome {final} != recorded {replay['outcome']}")
    del game
    return problems


def secret_description(seat: int) -> str:
    """The words shown for a secret choice to those who may not see it yet."""
    return f"seat {seat} chooses in secret"


def spectator_frames(
    replay: Mapping[str, Any], notes_for: Collection[int] = (), seat: int | None = None
) -> list[dict[str, Any]]:
    """What the web viewer shows: the start and one frame per step, each with
    the view after it and the action in words. Debug notes are private to a
    bot's owner: only those of the seats in `notes_for` appear.

    `seat=None` gives the public view (`spectator_view`), with every action
    named (the match is over). `seat=N` gives what seat N could know at each
    step: its own `observation(N)`, and another seat's secret choice
    (`GameState.secret_action`) as `action: null` with
    `secret_description`, as the live feed shows it; only seat N's notes."""
    if seat is not None and not (isinstance(seat, int) and 0 <= seat < len(replay["seats"])):
        raise ReplayError(f"seat must be a seat number 0..{len(replay['seats']) - 1}")
    frames = []
    hidden = False
    for index, step, description, state in positions(replay):
        action = None if step is None else step["action"]
        if hidden:  # the secret choice of the step just applied
            action, description = None, secret_description(step["seat"])
        frame: dict[str, Any] = {
            "step": index,
            "seat": None if step is None else step["seat"],
            "action": action,
            "description": description,
            "view": state.spectator_view() if seat is None else state.observation(seat),
        }
        if step is not None:
            frame["think_ms"] = step.get("think_ms", 0.0)
            frame["forced"] = bool(step.get("forced"))
            if step["seat"] in notes_for and step.get("note") and seat in (None, step["seat"]):
                frame["note"] = step["note"]
        frames.append(frame)
        # asked before the next step is applied, as the runner asks
        nxt = index < len(replay["steps"]) and replay["steps"][index]
        hidden = bool(
            nxt
            and seat is not None
            and nxt["seat"] != seat
            and state.secret_action(int(nxt["seat"]), str(nxt["action"]))
        )
    return frames


def render_at(replay: Mapping[str, Any], step: int | None = None) -> str:
    """The position after `step` steps (None: the last) as text."""
    last = len(replay["steps"])
    target = last if step is None else step
    if not 0 <= target <= last:
        raise ReplayError(f"step {target} is outside 0..{last}")
    for index, _step, _description, state in positions(replay):
        if index == target:
            return state.render()
    raise AssertionError("unreachable")
