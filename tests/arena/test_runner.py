"""The runner on the process sandbox: results, callback, time bank, errors."""

from __future__ import annotations

import os
import time

import pytest

from arena import (
    BotSpec,
    MatchRequest,
    OptionError,
    SystemFault,
    TimeControl,
    builtin_bot_dir,
    play_match,
    verify_replay,
)
from tests.arena.bots import BASE, bot_dir, processes_mentioning


def first_legal(label: str = "first") -> BotSpec:
    return BotSpec(label, bot_dir("faulty", fault="none"))


def test_random_match_gives_a_complete_result() -> None:
    events = []
    bots = [BotSpec("r0", builtin_bot_dir("splendor-duel", "random")), first_legal()]
    result = play_match(
        MatchRequest("splendor-duel", bots, seed=3, sandbox="process"), on_step=events.append
    )
    assert result.faults == [None, None]
    assert sorted(result.outcome.ranks) in ([1, 2], [1, 1])
    steps = result.replay["steps"]
    assert len(events) == len(steps) == result.timings["decisions"] > 10
    assert [e["action"] for e in events] == [s["action"] for s in steps]
    assert events[0]["description"] and isinstance(events[0]["view"], dict)
    assert not any(e["secret"] for e in events)  # Splendor Duel has no secret choice
    assert all(t > 0 for t in result.think_ms)
    # the first-legal bot (seat 1) notes every reply; the random bot (seat 0,
    # unseeded, so the game differs run to run) notes nothing
    notes = [s.get("note") for s in steps if s["seat"] == 1]
    assert notes and notes == [f"request {i}" for i in range(1, len(notes) + 1)]
    assert all("note" not in s for s in steps if s["seat"] == 0)
    assert verify_replay(result.replay) == []
    assert result.replay["outcome"] == result.outcome.to_json()


def test_a_step_cap_option_above_the_default_is_the_matchs_cap() -> None:
    """Two bots that never buy stall the game; with step_cap 2100 (the
    default is 2000) it must end by the engine's cap, not as a system fault."""
    stall = {"fault": "none", "prefer": ["take", "discard", "replenish", "pass"]}
    bots = [BotSpec(f"stall{s}", bot_dir("faulty", **stall)) for s in range(2)]
    request = MatchRequest(
        "splendor-duel", bots, seed=4, sandbox="process", options={"step_cap": 2100}
    )
    result = play_match(request)
    assert result.faults == [None, None]
    assert len(result.replay["steps"]) == 2100
    assert "step cap 2100 reached" in result.outcome.reason


def test_stdout_prints_are_diverted_and_notes_capped() -> None:
    bots = [BotSpec("chatty", bot_dir("chatty")), first_legal()]
    result = play_match(MatchRequest("splendor-duel", bots, seed=1, sandbox="process"))
    assert result.faults == [None, None]
    assert "thinking about step" in result.stderr_tails[0]
    notes = [s["note"] for s in result.replay["steps"] if s["seat"] == 0]
    assert notes and all(len(n) == 300 for n in notes)


def test_time_bank_pays_for_a_slow_move() -> None:
    tc = TimeControl(move_ms=300, bank_ms=1000)
    bots = [BotSpec("slow", bot_dir("faulty", fault="slow", at=1, ms=700)), first_legal()]
    result = play_match(MatchRequest("splendor-duel", bots, seed=1, time=tc, sandbox="process"))
    assert result.faults == [None, None]
    left = result.seat_timings[0].bank_left_ms
    assert 450 < left < 650, left  # 1000 - (700 - 300), less scheduling noise
    assert result.seat_timings[1].bank_left_ms == 1000


def test_slow_move_beyond_the_bank_times_out() -> None:
    tc = TimeControl(move_ms=200, bank_ms=200)
    bots = [first_legal(), BotSpec("slow", bot_dir("faulty", fault="slow", at=1, ms=700))]
    result = play_match(MatchRequest("splendor-duel", bots, seed=1, time=tc, sandbox="process"))
    assert result.faults[0] is None
    assert result.faults[1].kind == "timeout"
    assert result.outcome.ranks == (1, 2)


def test_request_errors_are_not_system_faults() -> None:
    bots = [first_legal(), first_legal()]
    with pytest.raises(OptionError, match="unknown game"):
        play_match(MatchRequest("chess", bots, sandbox="process"))
    with pytest.raises(OptionError, match="unknown option"):
        play_match(MatchRequest("splendor-duel", bots, options={"nope": 1}, sandbox="process"))
    with pytest.raises(OptionError, match="seats"):
        play_match(MatchRequest("splendor-duel", bots * 2, sandbox="process"))
    with pytest.raises(ValueError, match="sandbox limit"):
        play_match(MatchRequest("splendor-duel", bots, limits={"gpus": 1}, sandbox="process"))


def test_a_bad_bot_directory_is_a_system_fault_and_nothing_is_left() -> None:
    missing = BASE / "no-such-bot"
    bots = [first_legal(), BotSpec("missing", missing)]
    with pytest.raises(SystemFault, match="no-such-bot|main.py"):
        play_match(MatchRequest("splendor-duel", bots, sandbox="process"))
    with pytest.raises(SystemFault, match="backend"):
        play_match(MatchRequest("splendor-duel", bots, sandbox="vm"))
    assert processes_mentioning(str(BASE)) == []


def _private_copy(mode_parent: int, mode_main: int):
    """A first-legal bot inside a parent directory with `mode_parent`."""
    import shutil
    import tempfile
    from pathlib import Path

    parent = Path(tempfile.mkdtemp(prefix="private-", dir=BASE))
    target = parent / "bot"
    shutil.copytree(bot_dir("faulty", fault="none"), target)
    target.chmod(0o755)
    (target / "main.py").chmod(mode_main)
    parent.chmod(mode_parent)
    return target


@pytest.mark.skipif(os.geteuid() != 0, reason="bots run as another user only when run as root")
def test_an_unreachable_bot_directory_is_a_system_fault_not_a_crash() -> None:
    # the bot's own directory is fine, but its parent is private (0700): as
    # root the sandbox runs as a slot uid that cannot walk into it, and
    # bubblewrap failed with "Can't find source path … Permission denied",
    # which looked like a crash of the bot in seat 1
    hidden = _private_copy(0o700, 0o644)
    bots = [first_legal(), BotSpec("hidden", hidden)]
    with pytest.raises(SystemFault, match=r"seat 1 \(hidden\).*not searchable"):
        play_match(MatchRequest("splendor-duel", bots, seed=1, sandbox="process"))
    assert processes_mentioning(str(BASE)) == []


def test_an_unreadable_main_py_is_a_system_fault_before_any_bot_starts() -> None:
    unreadable = _private_copy(0o755, 0o600)
    events = []
    bots = [BotSpec("unreadable", unreadable), first_legal()]
    with pytest.raises(SystemFault, match=r"seat 0 \(unreadable\).*readable by others"):
        play_match(MatchRequest("splendor-duel", bots, sandbox="process"), on_step=events.append)
    assert events == []
    assert processes_mentioning(str(BASE)) == []


ON_END_BOT = """
import sys, time
from gemarena_sdk import run

def on_end(match):
    time.sleep(0.02)
    print("on_end saw ranks", match.outcome["ranks"], file=sys.stderr, flush=True)
    if "{hang}" == "yes":
        time.sleep(600)

run(lambda observation, legal: legal[0], on_end=on_end)
"""


def _on_end_bot(hang: bool) -> BotSpec:
    target = _private_copy(0o755, 0o644)
    (target / "main.py").write_text(ON_END_BOT.replace("{hang}", "yes" if hang else "no"))
    return BotSpec("hangs" if hang else "polite", target)


def test_bots_get_a_grace_to_run_on_end_and_exit() -> None:
    bots = [_on_end_bot(hang=False), _on_end_bot(hang=True)]
    result = play_match(MatchRequest("splendor-duel", bots, seed=4, sandbox="process"))
    assert result.faults == [None, None]
    ranks = list(result.outcome.ranks)
    for tail in result.stderr_tails:
        assert f"on_end saw ranks {ranks}" in tail
    # the polite bot left by itself; the one still in on_end was stopped
    assert result.exits[0]["kind"] == "exited"
    assert result.exits[1]["kind"] == "running_at_stop"
    assert processes_mentioning(str(BASE)) == []


def test_sandboxes_are_torn_down_when_the_callback_fails() -> None:
    class Stop(Exception):
        pass

    def explode(event: dict) -> None:
        if event["step"] == 5:
            raise Stop

    bots = [first_legal(), first_legal()]
    with pytest.raises(Stop):
        play_match(MatchRequest("splendor-duel", bots, sandbox="process"), on_step=explode)
    assert processes_mentioning(str(BASE)) == []


def test_simultaneous_phase_asks_seats_concurrently() -> None:
    # five bots that each take 300 ms at their first request: asked one by
    # one this would take 1.5 s before anyone could move on
    tc = TimeControl(move_ms=2000, bank_ms=0)
    bots = [BotSpec(f"slow{s}", bot_dir("faulty", fault="slow", at=0, ms=300)) for s in range(5)]
    events = []
    result = play_match(
        MatchRequest("edel-stein-reich", bots, seed=2, time=tc, sandbox="process"),
        on_step=events.append,
    )
    assert result.faults == [None] * 5
    first_round = [e for e in events if e["step"] < 5]
    assert sorted(e["seat"] for e in first_round) == [0, 1, 2, 3, 4]
    # exactly the action-card choices are secret (revealed by the last of them)
    assert [e["step"] for e in events if e["secret"]] == [
        e["step"] for e in events if e["action"].startswith("play ")
    ]
    assert all(e["secret"] for e in first_round)
    assert result.timings["play_ms"] < 1200, result.timings
    assert verify_replay(result.replay) == []


@pytest.mark.parametrize("when", ["start", 0])
def test_a_signal_mid_match_leaves_no_bot_running(when) -> None:
    """A Celery pool process turns SIGTERM into SystemExit, raised wherever
    the main thread waits, while start or ask threads still wait on the bots
    (3 seats: they start and, in Edel, Stein & Reich's secret bids, answer
    at once). The match unwinds and no bot outlives it."""
    import signal

    dirs = [bot_dir("faulty", fault="timeout", at=when) for _ in range(3)]
    bots = [BotSpec(f"stuck{n}", d) for n, d in enumerate(dirs)]
    tc = TimeControl(startup_ms=20_000, move_ms=20_000, bank_ms=0)

    def interrupt(signum, frame):
        raise SystemExit(f"signal {signum}")

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 2.0)
    try:
        with pytest.raises(SystemExit, match="signal"):
            play_match(MatchRequest("edel-stein-reich", bots, seed=5, time=tc, sandbox="process"))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert [p for d in dirs for p in processes_mentioning(str(d))] == []


def test_the_start_up_allowance_does_not_pay_for_making_the_sandbox(monkeypatch) -> None:
    """On a busy worker, creating a container took most of the 10 s and bots
    that start in a second forfeited, rated (found by a QA bot author)."""
    import sandbox

    real = sandbox.get_backend

    class SlowToCreate:
        def __init__(self, backend) -> None:
            self._backend = backend

        def __getattr__(self, name):
            return getattr(self._backend, name)

        def launch(self, *args, **kwargs):
            time.sleep(1.2)  # > startup_ms below
            return self._backend.launch(*args, **kwargs)

    monkeypatch.setattr(sandbox, "get_backend", lambda name: SlowToCreate(real(name)))
    tc = TimeControl(startup_ms=1000, move_ms=2000, bank_ms=0)
    result = play_match(
        MatchRequest(
            "splendor-duel", [first_legal(), first_legal()], seed=2, time=tc, sandbox="process"
        )
    )
    assert result.faults == [None, None]


def test_a_seat_that_does_not_start_in_time_forfeits() -> None:
    tc = TimeControl(startup_ms=1000, move_ms=2000, bank_ms=0)
    bots = [BotSpec("mute", bot_dir("faulty", fault="timeout", at="start")), first_legal()]
    result = play_match(MatchRequest("splendor-duel", bots, seed=2, time=tc, sandbox="process"))
    assert result.faults[0].kind == "timeout" and "start message" in result.faults[0].detail
    assert result.faults[1] is None and result.outcome.ranks == (2, 1)


def test_when_no_seat_starts_in_time_the_platform_is_blamed() -> None:
    """Every seat silent at start-up, on the ladder the built-in bots of a
    validation match included: an overloaded worker, not a rated loss."""
    tc = TimeControl(startup_ms=800, move_ms=2000, bank_ms=0)
    bots = [BotSpec(f"mute{n}", bot_dir("faulty", fault="timeout", at="start")) for n in range(3)]
    with pytest.raises(SystemFault, match="no seat answered the start message within 800 ms"):
        play_match(MatchRequest("edel-stein-reich", bots, seed=2, time=tc, sandbox="process"))
