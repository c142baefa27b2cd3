"""The plain-data types of the match runner: what the ladder passes in and
what it gets back. No behaviour beyond validation and JSON conversion."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.engine import Outcome, ranks_from_keys
from arena.protocol import FaultKind


class SystemFault(Exception):
    """The platform failed (sandbox, engine, I/O): the match has no result and
    must not be rated; the ladder may retry it. Never a bot's fault."""


@dataclass(frozen=True)
class TimeControl:
    """Time limits of one match, per seat (docs/protocol.md "Time").

    startup_ms: from launching the sandbox to the bot's "ready" reply.
    move_ms: free time per decision. bank_ms: a per-match reserve spent by
    moves that run over move_ms; a bot times out when a move needs more than
    what is left of it.
    """

    startup_ms: int = 10_000
    move_ms: int = 1_000
    bank_ms: int = 10_000

    def __post_init__(self) -> None:
        for name in ("startup_ms", "move_ms", "bank_ms"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(
                    f"TimeControl.{name} must be a non-negative integer, not {value!r}"
                )
        if self.startup_ms == 0 or self.move_ms == 0:
            raise ValueError("TimeControl.startup_ms and move_ms must be positive")

    def to_json(self) -> dict[str, int]:
        return {"startup_ms": self.startup_ms, "move_ms": self.move_ms, "bank_ms": self.bank_ms}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> TimeControl:
        return TimeControl(**{k: int(v) for k, v in data.items()})


@dataclass(frozen=True)
class BotSpec:
    """One seat's bot: a label for people and a directory holding main.py."""

    label: str
    path: str | Path


@dataclass(frozen=True)
class MatchRequest:
    """Everything needed to play one match; the seat count is len(bots).

    limits: sandbox limits as a mapping of `sandbox.Limits` field names
    (memory_mib, cpus, pids, ...); missing fields keep their defaults.
    memory_mib: shorthand for limits["memory_mib"].
    sandbox: "auto", "docker" or "process".
    match_id: put on the sandboxes' names and labels, to find them.
    instance: the platform's id, put on the sandboxes' labels
    (`gemarena.instance`) so that clean-up never touches containers another
    platform started on a shared Docker engine (their match ids can be equal).
    """

    game: str
    bots: Sequence[BotSpec]
    seed: int = 0
    options: Mapping[str, Any] = field(default_factory=dict)
    time: TimeControl = field(default_factory=TimeControl)
    limits: Mapping[str, Any] = field(default_factory=dict)
    memory_mib: int | None = None
    sandbox: str = "auto"
    match_id: str = ""
    instance: str = ""


@dataclass(frozen=True)
class Fault:
    """A bot's forfeit: what went wrong, at which step, in words."""

    kind: FaultKind
    detail: str
    step: int  # the step the bot was asked to decide (0 also for start-up)

    def to_json(self) -> dict[str, Any]:
        return {"kind": str(self.kind), "detail": self.detail, "step": self.step}

    @staticmethod
    def from_json(data: Mapping[str, Any] | None) -> Fault | None:
        if data is None:
            return None
        return Fault(FaultKind(data["kind"]), str(data["detail"]), int(data["step"]))


@dataclass
class SeatTiming:
    startup_ms: float = 0.0  # launch → "ready"
    think_ms: float = 0.0  # total time waiting for this seat's replies
    max_move_ms: float = 0.0
    decisions: int = 0
    bank_left_ms: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {k: round(v, 3) if isinstance(v, float) else v for k, v in vars(self).items()}


@dataclass
class MatchResult:
    """The result of a match. `replay` is the versioned replay document
    (docs/replays.md); the other fields repeat what the ladder needs."""

    game: str
    seed: int
    labels: list[str]
    outcome: Outcome
    faults: list[Fault | None]
    replay: dict[str, Any]
    stderr_tails: list[str]
    think_ms: list[float]
    seat_timings: list[SeatTiming]
    timings: dict[str, float]  # wall_ms, startup_ms, play_ms, teardown_ms, referee_ms, decisions
    exits: list[dict[str, Any]]  # the sandbox's ExitReport per seat, as JSON
    sandbox: str  # the backend that ran the bots: "docker" or "process"

    @property
    def seats(self) -> int:
        return len(self.labels)


def final_outcome(seats: int, engine: Outcome | None, faults: Sequence[Fault | None]) -> Outcome:
    """The match outcome once forfeits are applied (docs/protocol.md "Faults").

    Seats that did not fault keep the engine's order above every seat that
    did; among faulted seats, a later fault ranks better and faults at the
    same step tie. `engine` is None when the match ended early because at
    most one seat was left; scores are then all 0.
    """
    if not any(faults):
        if engine is None:
            raise ValueError("a match without faults must have an engine outcome")
        return engine
    keys: list[tuple[int, int]] = []
    for seat in range(seats):
        fault = faults[seat]
        if fault is not None:
            keys.append((0, fault.step))
        else:
            keys.append((1, -engine.ranks[seat] if engine is not None else 0))
    forfeits = ", ".join(
        f"seat {seat} ({fault.kind})" for seat, fault in enumerate(faults) if fault is not None
    )
    base = engine.reason if engine is not None else "ended early"
    scores = engine.scores if engine is not None else tuple(0.0 for _ in range(seats))
    return Outcome(ranks_from_keys(keys), scores, f"{base}; forfeit: {forfeits}")
