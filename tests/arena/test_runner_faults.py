"""The fault matrix, end to end through the real sandboxes: every bot fault,
at the first decision and mid-game, for 2 seats (Splendor Duel) and 5 seats
(Edel, Stein & Reich). The result must name the right seat and fault, the
replay must verify, and nothing may be left running.

The matches of one backend are played concurrently by a module fixture;
each parametrized test then checks one of them.
"""

from __future__ import annotations

import itertools
import secrets
from concurrent.futures import ThreadPoolExecutor

import pytest

from arena import BotSpec, FaultKind, MatchRequest, TimeControl, play_match, verify_replay
from arena.registry import all_games
from tests.arena.bots import BASE, bot_dir, containers_labelled, processes_mentioning

KINDS = ["timeout", "crash", "memory", "illegal", "protocol"]
WHEN = {"first": 0, "mid": 2}
GAMES = {2: "splendor-duel", 5: "edel-stein-reich"}
FAULTY_SEAT = {2: 1, 5: 2}
# Room for a slow OOM kill, and for the well-behaved seats of four 5-seat
# matches at once on a loaded 2-core host (at 1.5 s one of them once timed out).
TIME = TimeControl(startup_ms=20_000, move_ms=3000, bank_ms=500)
# an OOM kill can take seconds to be reported on a loaded host: give it time
TIME_MEMORY = TimeControl(startup_ms=20_000, move_ms=10_000, bank_ms=0)
CASES = list(itertools.product(KINDS, WHEN, GAMES))
BACKENDS = [
    pytest.param("process", id="process"),
    pytest.param("docker", id="docker", marks=pytest.mark.docker),
]


def _registered(game: str) -> bool:
    return game in {g.id for g in all_games()}


@pytest.fixture(scope="module", params=BACKENDS)
def matrix(request) -> dict:
    backend = request.param
    tag = f"faults-{secrets.token_hex(3)}"
    jobs = []
    for kind, when, seats in CASES:
        if not _registered(GAMES[seats]):
            continue
        bots = [BotSpec(f"first-legal-{s}", bot_dir("faulty", fault="none")) for s in range(seats)]
        bots[FAULTY_SEAT[seats]] = BotSpec("faulty", bot_dir("faulty", fault=kind, at=WHEN[when]))
        jobs.append(
            (
                (kind, when, seats),
                MatchRequest(
                    game=GAMES[seats],
                    bots=bots,
                    seed=7,
                    time=TIME_MEMORY if kind == "memory" else TIME,
                    sandbox=backend,
                    match_id=f"{tag}-{kind}-{when}-{seats}",
                ),
            )
        )

    def run(job):
        key, req = job
        try:
            return key, play_match(req)
        except Exception as exc:  # reported by the test of this case
            return key, exc

    with ThreadPoolExecutor(4) as pool:
        results = dict(pool.map(run, jobs))
    return {"backend": backend, "tmp": BASE, "tag": tag, "results": results}


@pytest.mark.parametrize("kind, when, seats", CASES)
def test_fault_is_reported_and_forfeits(matrix, kind: str, when: str, seats: int) -> None:
    if (kind, when, seats) not in matrix["results"]:
        pytest.skip(f"{GAMES[seats]} is not registered yet")
    result = matrix["results"][(kind, when, seats)]
    if isinstance(result, Exception):
        raise result
    bad = FAULTY_SEAT[seats]
    fault = result.faults[bad]
    assert fault is not None, result.outcome
    assert fault.kind == FaultKind(kind), fault
    assert [s for s, f in enumerate(result.faults) if f is not None] == [bad], result.faults
    # the faulty seat ranks last, alone
    assert result.outcome.ranks[bad] == seats
    assert sorted(result.outcome.ranks).count(seats) == 1
    # it faulted on its (at+1)-th request: exactly `at` answered steps before
    answered = [s for s in result.replay["steps"] if s["seat"] == bad and not s.get("forced")]
    assert len(answered) == WHEN[when]
    if seats > 2:
        # the others played on; the forfeited seat was played by the fallback
        assert any(s.get("forced") for s in result.replay["steps"] if s["seat"] == bad)
        assert result.replay["engine_outcome"] is not None
    assert verify_replay(result.replay) == []
    if kind == "timeout":
        # the decision that timed out counts in the seat's think time: its
        # whole wait (docs/bots.md), at least the move's own allowance
        assert result.think_ms[bad] >= TIME.move_ms, result.think_ms
    if kind == "crash":
        assert "deliberate crash" in result.stderr_tails[bad]
        assert "deliberate crash" not in fault.detail  # public; stderr is private


def test_nothing_left_running(matrix) -> None:
    assert matrix["results"], "no match was played"
    assert processes_mentioning(str(matrix["tmp"])) == []
    if matrix["backend"] == "docker":
        for key in matrix["results"]:
            kind, when, seats = key
            assert containers_labelled(f"{matrix['tag']}-{kind}-{when}-{seats}") == []


def test_fault_at_start_up() -> None:
    bots = [
        BotSpec("ok", bot_dir("faulty", fault="none")),
        BotSpec("mute", bot_dir("faulty", fault="protocol", at="start")),
    ]
    result = play_match(MatchRequest("splendor-duel", bots, seed=1, time=TIME, sandbox="process"))
    assert result.faults[0] is None
    assert result.faults[1].kind == FaultKind.PROTOCOL and result.faults[1].step == 0
    assert "start" in result.faults[1].detail
    assert result.outcome.ranks == (1, 2)
    assert result.replay["steps"] == []
    assert verify_replay(result.replay) == []


def test_a_bot_that_never_starts_the_sdk_is_told_so() -> None:
    """main.py defines decide and ends (the newcomer forgot `run(decide)`):
    exit code 0 before the start message, which alone said nothing."""
    import tempfile
    from pathlib import Path

    folder = Path(tempfile.mkdtemp(prefix="norun-", dir=BASE))
    (folder / "main.py").write_text("def decide(observation, legal):\n    return legal[0]\n")
    for path in (folder, folder / "main.py"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    bots = [BotSpec("norun", folder), BotSpec("ok", bot_dir("faulty", fault="none"))]
    result = play_match(MatchRequest("splendor-duel", bots, seed=1, time=TIME, sandbox="process"))
    assert result.faults[0].kind == FaultKind.CRASH
    assert result.faults[0].detail == (
        "closed its output before answering the start message (exit code 0): main.py ended "
        "without answering; a bot that uses the SDK ends with run(decide)"
    )
