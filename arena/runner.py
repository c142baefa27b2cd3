"""The match runner: plays one match between sandboxed bots and the trusted
engine, and returns plain data (docs/protocol.md, docs/replays.md).

Bot faults (timeout, crash, memory, illegal, protocol) make the seat forfeit
and are part of the result; a failure of the platform (sandbox or engine)
raises SystemFault and gives no result. Every sandbox is torn down on every
path, exceptions included.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import fields
from pathlib import Path
from typing import Any

import sandbox
from arena.engine import GameState, Outcome
from arena.protocol import (
    READY,
    FaultKind,
    Reply,
    ReplyError,
    encode,
    end_message,
    parse_reply,
    request_message,
    start_message,
)
from arena.registry import get_game
from arena.replay import build_replay
from arena.runner_types import (
    BotSpec,
    Fault,
    MatchRequest,
    MatchResult,
    SeatTiming,
    SystemFault,
    TimeControl,
    final_outcome,
)
from arena.sandboxes import sandbox_labels
from sandbox.base import BotProcess, ExitKind, ExitReport, Limits, ReadStatus, SandboxError

log = logging.getLogger(__name__)

__all__ = [
    "BotSpec",
    "Fault",
    "MatchRequest",
    "MatchResult",
    "SystemFault",
    "TimeControl",
    "play_match",
]

StepCallback = Callable[[dict[str, Any]], None]
_READY = frozenset([READY])
_END_SEND_TIMEOUT_S = 0.5
#: after an interruption, how long teardown waits for the start and ask
#: threads that still launch bots or wait for them (see _Match._teardown)
_HELPERS_WAIT_S = 30.0
#: after the end message, how long bots get (all together) to read it, run
#: their on_end and exit by themselves before they are stopped
END_GRACE_MS = 150


def play_match(request: MatchRequest, on_step: StepCallback | None = None) -> MatchResult:
    """Play one match. `on_step` gets every applied step as it happens (a
    dict: step, seat, action, think_ms, note, forced, description, secret, view;
    `secret`: the game reveals this action only later, see GameState.secret_action).

    Raises OptionError / ValueError for a bad request (unknown game or
    option, wrong seat count, bad limits) and SystemFault when the platform
    fails; an exception from `on_step` propagates after teardown.
    """
    return _Match(request, on_step).play()


def sandbox_limits(overrides: Mapping[str, Any], time_control: TimeControl) -> Limits:
    """Limits from a plain mapping; the reply size cap is the protocol's."""
    from arena.protocol import MAX_REPLY_BYTES

    known = {f.name for f in fields(Limits)}
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise ValueError(
            f"unknown sandbox limit {unknown[0]!r} (known: {', '.join(sorted(known))})"
        )
    values: dict[str, Any] = {
        "max_line_bytes": MAX_REPLY_BYTES,
        "startup_ms": time_control.startup_ms,
    }
    values.update(overrides)
    return Limits(**values)


class _Seat:
    def __init__(self, index: int, bot: BotSpec, bank_ms: int) -> None:
        self.index = index
        self.label = bot.label
        self.path = Path(bot.path)
        self.proc: BotProcess | None = None
        self.bank_ms = float(bank_ms)
        self.fault: Fault | None = None
        self.report: ExitReport | None = None
        self.timing = SeatTiming()

    @property
    def live(self) -> bool:
        return self.fault is None


class _Match:
    def __init__(self, request: MatchRequest, on_step: StepCallback | None) -> None:
        self.request = request
        self.on_step = on_step
        self.game = get_game(request.game)
        self.seat_count = len(request.bots)
        self.game.check_seats(self.seat_count)
        self.options = self.game.validate_options(request.options)
        self.time = request.time
        limits = dict(request.limits)
        if request.memory_mib is not None:
            limits["memory_mib"] = request.memory_mib
        self.limits = sandbox_limits(limits, request.time)
        self.tag = request.match_id or secrets.token_hex(4)
        self.labels = sandbox_labels(self.tag, request.instance)
        self.seats = [_Seat(i, bot, self.time.bank_ms) for i, bot in enumerate(request.bots)]
        self.steps: list[dict[str, Any]] = []
        self.overheads_ms: list[float] = []
        self._last_think: dict[int, float] = {}
        self._busy = 0  # start and ask calls under way, in any thread
        self._busy_lock = threading.Lock()
        try:
            self.backend = sandbox.get_backend(request.sandbox)
        except SandboxError as exc:
            raise SystemFault(f"sandbox {request.sandbox!r} unavailable: {exc}") from exc
        if self.backend.name == "process" and getattr(self.backend, "extra_lib", "") is None:
            # bots import arena.sdk (and the engines) from here; the Docker
            # image has the same directory built in (arena/sdk_lib.py)
            from arena.sdk_lib import bot_lib

            self.backend.extra_lib = bot_lib()

    # -- the whole match ---------------------------------------------------

    def play(self) -> MatchResult:
        t0 = time.monotonic()
        try:
            state = self.game.new(self.seat_count, self.request.seed, self.options)
        except Exception as exc:
            raise SystemFault(f"engine failed to create the game: {exc!r}") from exc
        engine_outcome: Outcome | None = None
        timings: dict[str, float] = {}
        try:
            self._check_bot_dirs()
            self._start_all()
            t1 = time.monotonic()
            timings["startup_ms"] = (t1 - t0) * 1000
            self._play(state)
            try:
                engine_outcome = state.outcome() if state.is_over() else None
            except Exception as exc:
                raise SystemFault(f"engine failed to score the game: {exc!r}") from exc
            outcome = final_outcome(self.seat_count, engine_outcome, [s.fault for s in self.seats])
            t2 = time.monotonic()
            timings["play_ms"] = (t2 - t1) * 1000
            self._send_end(outcome)
            timings["end_ms"] = (time.monotonic() - t2) * 1000
        finally:
            t3 = time.monotonic()
            self._teardown()
            timings["teardown_ms"] = (time.monotonic() - t3) * 1000
        timings["wall_ms"] = (time.monotonic() - t0) * 1000
        timings["decisions"] = sum(s.timing.decisions for s in self.seats)
        timings["referee_ms"] = sum(self.overheads_ms)
        if self.overheads_ms:
            ordered = sorted(self.overheads_ms)
            timings["referee_ms_median"] = ordered[len(ordered) // 2]
        return self._result(engine_outcome, outcome, {k: round(v, 3) for k, v in timings.items()})

    def _result(
        self, engine: Outcome | None, outcome: Outcome, timings: dict[str, float]
    ) -> MatchResult:
        faults = [s.fault for s in self.seats]
        for seat in self.seats:
            seat.timing.bank_left_ms = max(0.0, seat.bank_ms)
        replay = build_replay(
            game=self.game,
            seed=self.request.seed,
            options=self.options,
            labels=[s.label for s in self.seats],
            time_control=self.time.to_json(),
            steps=self.steps,
            engine_outcome=engine,
            outcome=outcome,
            faults=faults,
        )
        return MatchResult(
            game=self.game.id,
            seed=self.request.seed,
            labels=[s.label for s in self.seats],
            outcome=outcome,
            faults=faults,
            replay=replay,
            stderr_tails=[s.report.stderr_tail if s.report else "" for s in self.seats],
            think_ms=[round(s.timing.think_ms, 3) for s in self.seats],
            seat_timings=[s.timing for s in self.seats],
            timings=timings,
            exits=[s.report.to_json() if s.report else {} for s in self.seats],
            sandbox=self.backend.name,
        )

    # -- start-up and teardown ---------------------------------------------

    def _check_bot_dirs(self) -> None:
        """Every seat's directory must be usable by the sandbox before any bot
        starts: a directory the sandbox user cannot read is the platform's
        fault, and started otherwise the bot would seem to crash."""
        for seat in self.seats:
            try:
                self.backend.check_bot_dir(seat.path)
            except SandboxError as exc:
                raise SystemFault(f"seat {seat.index} ({seat.label}): {exc}") from exc

    def _start_all(self) -> None:
        with ThreadPoolExecutor(self.seat_count, thread_name_prefix=f"start-{self.tag}") as pool:
            futures = [pool.submit(self._start, seat) for seat in self.seats]
        errors = [f.exception() for f in futures if f.exception() is not None]
        for exc in errors:
            if isinstance(exc, SandboxError):
                raise SystemFault(f"sandbox failed to start a bot: {exc}") from exc
        if errors:
            raise errors[0]  # a bug of ours: surface it unchanged
        if all(
            seat.fault is not None and seat.fault.kind == FaultKind.TIMEOUT for seat in self.seats
        ):
            # No bot answered in time, the built-in ones included: far more
            # likely an overloaded worker than every bot at fault. Never rated.
            raise SystemFault(
                f"no seat answered the start message within {self.time.startup_ms} ms: "
                "the worker is too slow"
            )

    @contextmanager
    def _helping(self) -> Iterator[None]:
        """Counts a start or ask call while it runs (see _teardown)."""
        with self._busy_lock:
            self._busy += 1
        try:
            yield
        finally:
            with self._busy_lock:
                self._busy -= 1

    def _teardown(self) -> None:
        """Stop every seat. Normally the start and ask threads are done by now.
        After an interruption (a signal raised out of a wait, as SIGTERM is in
        a Celery pool process) they may still be launching bots or waiting
        for their replies. A bot is not for two threads at once, so each bot
        they have is killed as it appears, which ends their waits, and the
        seats are stopped once they are done: no container or bot process is
        left behind."""
        killed: set[int] = set()
        deadline = time.monotonic() + _HELPERS_WAIT_S
        while self._busy and time.monotonic() < deadline:
            for seat in self.seats:
                if seat.proc is not None and seat.index not in killed:
                    killed.add(seat.index)
                    seat.proc.kill()
            time.sleep(0.02)
        self._stop_all()

    def _start(self, seat: _Seat) -> None:
        with self._helping():
            self._start_seat(seat)

    def _start_seat(self, seat: _Seat) -> None:
        seat.proc = self.backend.launch(
            seat.path,
            self.limits,
            name=f"{self.tag}-s{seat.index}",
            labels=self.labels | {"gemarena.seat": str(seat.index)},
        )
        # The allowance starts once the sandbox runs: creating it (seconds
        # for a container on a busy worker) is the platform's time, not the bot's.
        t0 = time.monotonic()
        message = start_message(
            game=self.game.id,
            rules_version=self.game.rules_version,
            seat=seat.index,
            seats=self.seat_count,
            options=self.options,
            time=self.time.to_json(),
        )
        self._exchange(
            seat, encode(message), _READY, t0, self.time.startup_ms, step=0, startup=True
        )
        seat.timing.startup_ms = (time.monotonic() - t0) * 1000

    def _stop_all(self) -> None:
        running = [s for s in self.seats if s.proc is not None and s.report is None]
        if not running:
            return

        def stop(seat: _Seat) -> None:
            try:
                seat.report = seat.proc.stop()  # type: ignore[union-attr]
            except Exception:  # stop() must not raise; never let teardown skip a seat
                log.exception("teardown of seat %s (%s) failed", seat.index, seat.label)

        if len(running) == 1:
            stop(running[0])
            return
        with ThreadPoolExecutor(len(running), thread_name_prefix=f"stop-{self.tag}") as pool:
            list(pool.map(stop, running))

    def _send_end(self, outcome: Outcome) -> None:
        """Send the end message to every live seat, then wait up to
        END_GRACE_MS in all for them to exit by themselves (the SDK returns
        after `end`, so on_end runs and its log reaches the stderr tail).
        Whatever a bot does then cannot change the result."""
        told = []
        for seat in self.seats:
            if seat.live and seat.proc is not None:
                message = end_message(seat=seat.index, outcome=outcome.to_json(), fault=None)
                if seat.proc.send_line(encode(message), timeout_s=_END_SEND_TIMEOUT_S):
                    told.append(seat)
        deadline = time.monotonic() + END_GRACE_MS / 1000
        for seat in told:
            try:
                while seat.proc.read_line(deadline).status == ReadStatus.LINE:  # type: ignore[union-attr]
                    pass  # anything said after the end is ignored
            except SandboxError as exc:  # the match is decided: only teardown is left
                log.info("seat %s: reading after the end failed: %s", seat.index, exc)

    # -- the decisions -------------------------------------------------------

    def _over_early(self) -> bool:
        """A forfeit ends the match once at most one seat is left playing."""
        live = sum(s.live for s in self.seats)
        return live < self.seat_count and live <= 1

    def _play(self, state: GameState) -> None:
        pool: ThreadPoolExecutor | None = None
        cap = self.game.max_steps(self.options)
        try:
            while not self._over_early():
                t_iter = time.monotonic()
                try:
                    if state.is_over():
                        return
                    step = state.step
                    if step > cap:
                        raise SystemFault(f"engine passed its step cap ({cap}) without ending")
                    to_act = state.to_act()
                    if not to_act:
                        raise SystemFault(f"no seat to act at step {step} of an unfinished game")
                    legal = {s: state.legal_actions(s) for s in to_act}
                    asks = [
                        (self.seats[s], self._request(state, s, step, legal[s]), legal[s])
                        for s in to_act
                        if self.seats[s].live
                    ]
                except SystemFault:
                    raise
                except Exception as exc:
                    raise SystemFault(f"engine failure at step {state.step}: {exc!r}") from exc
                t_ask = time.monotonic()
                if len(asks) == 1:
                    replies = [self._ask(*asks[0], step)]
                else:
                    if pool is None:
                        pool = ThreadPoolExecutor(
                            self.seat_count, thread_name_prefix=f"ask-{self.tag}"
                        )
                    replies = list(
                        pool.map(self._ask, *zip(*asks, strict=True), [step] * len(asks))
                    )
                waited = time.monotonic() - t_ask
                if self._over_early():
                    return
                answer = {a[0].index: r for a, r in zip(asks, replies, strict=True)}
                for seat in to_act:
                    self._apply(state, seat, legal[seat], answer.get(seat))
                self.overheads_ms.append((time.monotonic() - t_iter - waited) * 1000)
        finally:
            if pool is not None:
                # Its asks are answered by now, unless a signal cut the wait
                # short: then _teardown ends them by killing the bots.
                pool.shutdown(wait=False, cancel_futures=True)

    def _request(self, state: GameState, seat: int, step: int, legal: list[str]) -> bytes:
        if not legal:
            raise SystemFault(f"engine gave seat {seat} no legal action at step {step}")
        bot = self.seats[seat]
        message = request_message(
            step=step,
            seat=seat,
            observation=state.observation(seat),
            legal=legal,
            move_ms=self.time.move_ms,
            bank_ms=int(max(0.0, bot.bank_ms)),
        )
        return encode(message)

    def _apply(self, state: GameState, seat: int, legal: list[str], reply: Reply | None) -> None:
        forced = reply is None
        action = legal[0] if reply is None else reply.action
        description, secret = "", False
        try:
            if self.on_step is not None:
                description = state.describe_action(seat, action)
                secret = state.secret_action(seat, action)
            state.apply(seat, action)
        except Exception as exc:
            raise SystemFault(
                f"engine rejected legal action {action!r} of seat {seat}: {exc!r}"
            ) from exc
        record: dict[str, Any] = {"seat": seat, "action": action}
        if forced:
            record["forced"] = True
        else:
            record["think_ms"] = round(self._last_think[seat], 1)
            if reply.note:
                record["note"] = reply.note
        self.steps.append(record)
        if self.on_step is not None:
            try:
                view = state.spectator_view()
            except Exception as exc:
                raise SystemFault(f"engine failed to show step {len(self.steps)}: {exc!r}") from exc
            event = {
                "step": len(self.steps) - 1,
                "seat": seat,
                "action": action,
                "think_ms": record.get("think_ms", 0.0),
                "note": record.get("note", ""),
                "forced": forced,
                "description": description,
                "secret": secret,
                "view": view,
            }
            self.on_step(event)

    def _ask(self, seat: _Seat, message: bytes, legal: list[str], step: int) -> Reply | None:
        allowed_ms = self.time.move_ms + max(0.0, seat.bank_ms)
        with self._helping():
            return self._exchange(seat, message, legal, time.monotonic(), allowed_ms, step=step)

    def _exchange(
        self,
        seat: _Seat,
        message: bytes,
        legal: list[str] | frozenset[str],
        t0: float,
        allowed_ms: float,
        *,
        step: int,
        startup: bool = False,
    ) -> Reply | None:
        """Send one message and read the reply; on any bot fault record it,
        stop the bot and return None. The clock starts after the write."""
        proc = seat.proc
        assert proc is not None
        if not proc.send_line(message):
            self._exited(seat, step, "stopped reading its input")
            return None
        if not startup:
            t0 = time.monotonic()
        try:
            result = proc.read_line(t0 + allowed_ms / 1000)
        except SandboxError as exc:
            raise SystemFault(f"sandbox failed reading seat {seat.index}: {exc}") from exc
        elapsed_ms = (time.monotonic() - t0) * 1000
        what = "the start message" if startup else f"step {step}"
        if not startup:
            seat.timing.think_ms += elapsed_ms
            seat.timing.decisions += 1
            seat.timing.max_move_ms = max(seat.timing.max_move_ms, elapsed_ms)
            self._last_think[seat.index] = elapsed_ms
        status = result.status
        if status == ReadStatus.LINE and elapsed_ms > allowed_ms:
            status = ReadStatus.TIMEOUT  # arrived, but after the deadline
        if status == ReadStatus.TIMEOUT:
            limit = (
                f"start-up allowance of {self.time.startup_ms} ms"
                if startup
                else f"{self.time.move_ms} ms per move plus {max(0, int(seat.bank_ms))} ms of bank"
            )
            self._fault(
                seat,
                FaultKind.TIMEOUT,
                f"no reply to {what} within the {limit}",
                step,
                ExitKind.TIMEOUT,
            )
            return None
        if status == ReadStatus.EOF:
            self._exited(seat, step, f"closed its output before answering {what}")
            return None
        if status == ReadStatus.TOO_LARGE:
            self._fault(
                seat, FaultKind.PROTOCOL, f"reply to {what} longer than {self.limits.max_line_bytes} bytes",
                step, ExitKind.OUTPUT_TOO_LARGE,
            )  # fmt: skip
            return None
        try:
            reply = parse_reply(result.line, legal)
        except ReplyError as exc:
            kind = FaultKind.PROTOCOL if startup else exc.kind
            detail = f"{what}: {exc.detail}" + (' (expected "ready")' if startup else "")
            self._fault(seat, kind, detail, step)
            return None
        if not startup and elapsed_ms > self.time.move_ms:
            seat.bank_ms -= elapsed_ms - self.time.move_ms
        return reply

    def _exited(self, seat: _Seat, step: int, what: str) -> None:
        report = self._stop(seat)
        if report is not None and report.kind == ExitKind.MEMORY:
            self._fault(
                seat,
                FaultKind.MEMORY,
                f"killed for exceeding {self.limits.memory_mib} MiB ({what})",
                step,
            )
            return
        code = report.exit_code if report is not None else None
        # The detail is public (match pages, replays): the bot's stderr stays
        # in its private stderr tail.
        detail = f"{what} (exit code {code})"
        if code == 0 and what.endswith("the start message"):
            # no error, no answer: main.py defines decide but never starts the SDK
            detail += (
                ": main.py ended without answering; a bot that uses the SDK ends with run(decide)"
            )
        self._fault(seat, FaultKind.CRASH, detail, step)

    def _fault(
        self, seat: _Seat, kind: FaultKind, detail: str, step: int, reason: ExitKind | None = None
    ) -> None:
        report = self._stop(seat, reason)
        if kind == FaultKind.TIMEOUT and report is not None and report.kind == ExitKind.MEMORY:
            kind, detail = FaultKind.MEMORY, f"killed for exceeding {self.limits.memory_mib} MiB"
        if seat.fault is None:
            seat.fault = Fault(kind, detail, step)
            log.info("seat %s (%s) forfeits: %s: %s", seat.index, seat.label, kind, detail)

    def _stop(self, seat: _Seat, reason: ExitKind | None = None) -> ExitReport | None:
        if seat.report is None and seat.proc is not None:
            seat.report = seat.proc.stop(reason)
        return seat.report
