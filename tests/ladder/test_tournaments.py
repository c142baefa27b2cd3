"""Server tournaments (ladder/tournaments.py): the rules of creating one,
its schedule, its standings against arena's own table, finishing,
cancelling, and how its matches share the workers with the ladder."""

from __future__ import annotations

import random

import pytest
from django.db import transaction

from arena import (
    Fault,
    FaultKind,
    MatchResult,
    Outcome,
    Standing,
    count_game,
    pair_results,
    schedule,
    standings_rows,
)
from ladder import matches as ladder_matches
from ladder import tournaments
from ladder.bots import add_version, create_bot
from ladder.models import Bot, BotVersion, Match
from ladder.results import record_result
from ladder.tournaments import (
    create_tournament,
    standings,
)
from tests.ladder.conftest import RANDOM_BOT

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def no_broker(monkeypatch) -> list[int]:
    """The match ids sent to the workers, in order (no broker needed)."""
    sent: list[int] = []
    monkeypatch.setattr(
        ladder_matches,
        "enqueue",
        lambda match_id, kind, countdown=0: transaction.on_commit(lambda: sent.append(match_id)),
    )
    monkeypatch.setattr(
        tournaments,
        "enqueue",
        lambda match_id, kind, countdown=0: transaction.on_commit(lambda: sent.append(match_id)),
    )
    return sent


def make_bots(owner, count: int, game: str = "splendor-duel", prefix: str = "bot") -> list[Bot]:
    bots = []
    for i in range(count):
        bot = create_bot(owner, game, f"{prefix}{i}")
        add_version(bot, "main.py", RANDOM_BOT + f"# {prefix}{i}\n".encode(), validate=False)
        bot.refresh_from_db()
        bots.append(bot)
    return bots


def versions(bots: list[Bot]) -> list[BotVersion]:
    return [b.active_version for b in bots]


def runner_result(match: Match, ranks: list[int], faulted: set[int] = frozenset()) -> MatchResult:
    seats = match.seat_count
    faults = [
        Fault(FaultKind.CRASH, "exit status 3", 0) if s in faulted else None for s in range(seats)
    ]
    outcome = Outcome(tuple(ranks), tuple(float(-r) for r in ranks), "test result")
    replay = {
        "format": "gemarena-replay",
        "version": 1,
        "game": match.game,
        "rules_version": match.rules_version,
        "seed": match.seed,
        "options": match.options,
        "seats": [f"seat{i}" for i in range(seats)],
        "time": {},
        "steps": [],
        "engine_outcome": None,
        "outcome": {"ranks": ranks, "scores": list(outcome.scores), "reason": outcome.reason},
        "faults": [f.to_json() if f else None for f in faults],
    }
    return MatchResult(
        game=match.game,
        seed=match.seed,
        labels=replay["seats"],
        outcome=outcome,
        faults=faults,
        replay=replay,
        stderr_tails=[""] * seats,
        think_ms=[1.0] * seats,
        seat_timings=[],
        timings={},
        exits=[],
        sandbox="process",
    )


def play(match: Match, ranks: list[int], faulted: set[int] = frozenset()) -> None:
    """Record a result the way a worker does: claim, then `record_result`."""
    claim = match.claim_for("test-worker")
    assert claim is not None
    assert record_result(match.pk, claim, runner_result(match, ranks, faulted))


def random_ranks(rng: random.Random, seats: int) -> list[int]:
    scores = [rng.choice([0, 1, 1, 2, 3]) for _ in range(seats)]
    return [1 + sum(1 for t in scores if t > s) for s in scores]


def test_the_schedule_is_arenas(alice) -> None:
    bots = make_bots(alice, 4, game="edel-stein-reich")
    tournament = create_tournament(
        game="edel-stein-reich", versions=versions(bots), games=4, players=3, name="t", seed=77
    )
    plan = schedule(4, 3, 4, 77)
    played = list(tournament.matches.order_by("pk"))
    assert len(played) == len(plan) == 16
    position = {e.version_id: e.position for e in tournament.entries.all()}
    for match, pairing in zip(played, plan, strict=True):
        seats = [position[s.version_id] for s in match.seats.order_by("seat")]
        assert tuple(seats) == pairing.seats and match.seed == pairing.seed
        assert match.kind == Match.Kind.TOURNAMENT and match.rated is False
        assert match.seat_count == 3 and match.game == "edel-stein-reich"
    labels = [e.label for e in tournament.entries.order_by("position")]
    assert labels == [f"bot{i} v1" for i in range(4)]


def test_standings_are_arenas_table(alice) -> None:
    """Results recorded through ladder/results.py give the numbers arena's
    own table code gives for the same results."""
    bots = make_bots(alice, 5, game="edel-stein-reich")
    tournament = create_tournament(
        game="edel-stein-reich", versions=versions(bots), games=3, players=3, name="t", seed=5
    )
    rng = random.Random(3)
    expected = [Standing() for _ in bots]
    games = []
    plan = schedule(5, 3, 3, 5)
    played = list(tournament.matches.order_by("pk"))
    for index, (match, pairing) in enumerate(zip(played, plan, strict=True)):
        if index % 7 == 6:
            continue  # not played yet: counts nowhere
        ranks = random_ranks(rng, 3)
        faulted = {0} if index % 5 == 0 else set()
        play(match, ranks, faulted)
        count_game(expected, pairing.seats, ranks, [s in faulted for s in range(3)])
        games.append([(pairing.seats[a], pairing.seats[b], s) for a, b, s in pair_results(ranks)])
    arena_rows = standings_rows([f"bot{i} v1" for i in range(5)], expected, games)
    table = standings(tournament)
    assert [r.label for r in table.rows] == [r["bot"] for r in arena_rows]
    for row, want in zip(table.rows, arena_rows, strict=True):
        assert row.games == want["games"] and row.faults == want["faults"]
        assert row.win_rate == pytest.approx(want["win_rate"])
        assert row.first_alone == pytest.approx(want["first_alone"])
        assert [row.first_low, row.first_high] == pytest.approx(want["first_alone_ci95"])
        assert row.avg_rank == pytest.approx(want["avg_rank"])
        assert row.elo == pytest.approx(want["elo"])
        half = want["elo_ci95_half_width"]
        assert [row.elo_low, row.elo_high] == pytest.approx(
            [want["elo"] - half, want["elo"] + half]
        )
        assert row.win_low <= row.win_rate <= row.win_high
        assert row.bot_id == bots[int(row.label[3])].pk
    assert tournaments.table_rows(tournament) == arena_rows
    progress = table.progress
    assert progress.total == len(plan) and progress.finished == len(games)
    assert progress.queued == len(plan) - len(games)
