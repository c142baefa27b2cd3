"""Server tournaments (ladder/tournaments.py, ladder/tournament_table.py):
the rules of creating one, its schedule, its standings against arena's own
table, finishing, cancelling, the final table stored once, and how its
matches share the workers with the ladder."""

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
from ladder import tournament_table, tournaments
from ladder.bots import add_version, create_bot, rename_bot
from ladder.models import Bot, BotVersion, Match, Tournament
from ladder.results import record_result
from ladder.tournament_table import standings, table_rows
from ladder.tournaments import TournamentError, cancel_tournament, create_tournament
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
    rows = table_rows(table)  # what `manage.py tournament show` prints
    assert [r["bot"] for r in rows] == [r["bot"] for r in arena_rows]
    for row, want in zip(rows, arena_rows, strict=True):
        assert row == {
            k: pytest.approx(v) if isinstance(v, float | list) else v for k, v in want.items()
        }
    progress = table.progress
    assert progress.total == len(plan) and progress.finished == len(games)
    assert progress.queued == len(plan) - len(games)


def test_the_rejection_matrix(alice, settings) -> None:
    """Bad input: a clear message, and nothing stored."""
    sd = make_bots(alice, 3)
    esr = make_bots(alice, 1, game="edel-stein-reich", prefix="esr")
    pending = create_bot(alice, "splendor-duel", "pending")
    add_version(pending, "main.py", RANDOM_BOT + b"# pending\n", validate=False)
    later = BotVersion.objects.get(bot=pending)
    BotVersion.objects.filter(pk=later.pk).update(status=BotVersion.Status.PENDING)
    later.refresh_from_db()
    disabled = make_bots(alice, 1, prefix="off")[0]
    Bot.objects.filter(pk=disabled.pk).update(enabled=False)
    disabled.refresh_from_db()
    settings.TOURNAMENT_MAX_MATCHES = 5
    good = {"game": "splendor-duel", "versions": versions(sd[:2]), "games": 2, "players": 2}
    cases = [
        ({"game": "chess"}, "unknown game 'chess'"),
        ({"players": 3}, "splendor-duel is played by 2 players, not 3"),
        ({"games": 0}, "games per table must be at least 1, not 0"),
        ({"name": "  "}, "give the tournament a name"),
        ({"name": "x" * 81}, "the name is 81 characters; the limit is 80"),
        ({"seed": -1}, "the seed must be between 0 and 2**62 - 1, not -1"),
        ({"versions": versions(sd[:1])}, "2 players per match need at least 2 bots, not 1"),
        ({"versions": [sd[0].active_version, sd[0].active_version]}, "bot bot0 is entered twice"),
        (
            {"versions": [sd[0].active_version, esr[0].active_version]},
            "bot esr0 plays edel-stein-reich, not splendor-duel",
        ),  # fmt: skip
        ({"versions": [sd[0].active_version, later]}, "pending v1 is not ready (validating)"),
        ({"versions": [sd[0].active_version, disabled.active_version]}, "bot off0 is disabled"),
        ({"options": {"no_such_option": 1}}, "options: "),
        (
            {"versions": versions(sd), "games": 2},
            "3 bots at 2 players and 2 games per table make 6 matches; the limit is 5 "
            "(TOURNAMENT_MAX_MATCHES)",
        ),  # fmt: skip
    ]
    for change, message in cases:
        with pytest.raises(TournamentError) as caught:
            create_tournament(**{**good, "name": "cup", **change})
        assert message in caught.value.message, (change, caught.value.message)
    assert not Tournament.objects.exists() and not Match.objects.exists()
    ok = create_tournament(**good, name=" cup ", options={"step_cap": 300})
    assert ok.name == "cup" and ok.matches.count() == 2 and ok.options["step_cap"] == 300


def test_finished_exactly_once_when_the_last_match_is_recorded(alice) -> None:
    bots = make_bots(alice, 3)
    tournament = create_tournament(
        game="splendor-duel", versions=versions(bots), games=1, players=2, name="t", seed=1
    )
    first, second, third = tournament.matches.order_by("pk")
    play(first, [1, 2])
    # an errored match counts as played (it will never be): not the last yet
    claim = second.claim_for("test-worker")
    Match.objects.filter(pk=second.pk, claim=claim).update(status=Match.Status.ERRORED)
    from ladder.results import finish_tournaments

    assert finish_tournaments([tournament.pk]) == 0
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING and tournament.finished_at is None
    assert tournament.final_table is None
    play(third, [2, 1])
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED and tournament.finished_at
    stamp = tournament.finished_at
    assert finish_tournaments([tournament.pk]) == 0  # never twice
    tournament.refresh_from_db()
    assert tournament.finished_at == stamp


def test_the_final_table_is_stored_with_the_last_result(alice, monkeypatch) -> None:
    """Stored in the transaction of the last result, then read, never refitted."""
    bots = make_bots(alice, 3)
    tournament = create_tournament(
        game="splendor-duel", versions=versions(bots), games=2, players=2, name="t", seed=1
    )
    *first, last = tournament.matches.order_by("pk")
    for match in first:
        play(match, [1, 2])
    tournament.refresh_from_db()
    assert tournament.final_table is None
    live = standings(tournament).rows
    play(last, [2, 1])
    tournament.refresh_from_db()
    assert tournament.final_table == tournament_table.fitted(tournament)
    fits = []
    monkeypatch.setattr(tournament_table, "fitted", lambda t: fits.append(t) or [])
    rows = standings(tournament).rows
    assert fits == []
    assert sum(r.games for r in rows) == 2 * len(first) + 2 != sum(r.games for r in live)
    assert rows[0].bot_id == bots[int(rows[0].label[3])].pk


def test_a_running_tournament_is_refitted_only_after_a_new_result(alice, monkeypatch) -> None:
    bots = make_bots(alice, 3)
    tournament = create_tournament(
        game="splendor-duel", versions=versions(bots), games=2, players=2, name="t", seed=1
    )
    first, second, *_ = tournament.matches.order_by("pk")
    play(first, [1, 2])
    fits = []
    fit = tournament_table.fitted
    monkeypatch.setattr(tournament_table, "fitted", lambda t: fits.append(t) or fit(t))
    assert standings(tournament).rows == standings(tournament).rows
    assert len(fits) == 1
    play(second, [2, 1])
    assert sum(r.games for r in standings(tournament).rows) == 4
    assert len(fits) == 2


def test_the_last_match_errored_by_the_worker_finishes_it(alice, settings) -> None:
    from ladder.tasks import release_after_fault

    settings.MATCH_MAX_ATTEMPTS = 1
    bots = make_bots(alice, 2)
    tournament = create_tournament(
        game="splendor-duel", versions=versions(bots), games=1, players=2, name="t"
    )
    match = tournament.matches.get()
    claim = match.claim_for("test-worker")
    assert release_after_fault(match.pk, claim, "system fault: daemon gone") == "errored"
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert standings(tournament).progress.errored == 1


def test_cancel(alice) -> None:
    bots = make_bots(alice, 3)
    tournament = create_tournament(
        game="splendor-duel", versions=versions(bots), games=2, players=2, name="t"
    )
    played, running, *queued = tournament.matches.order_by("pk")
    play(played, [1, 2])
    assert running.claim_for("test-worker")
    assert cancel_tournament(tournament, "wrong bots") == len(queued) == 4
    assert tournament.status == Tournament.Status.CANCELLED and tournament.reason == "wrong bots"
    assert tournament.finished_at is not None
    progress = standings(tournament).progress
    assert (progress.finished, progress.running, progress.cancelled) == (1, 1, 4)
    reasons = set(tournament.matches.filter(status="cancelled").values_list("reason", flat=True))
    assert reasons == {"not played: tournament cancelled (wrong bots)"}
    with pytest.raises(TournamentError, match="is cancelled, not running"):
        cancel_tournament(tournament, "again")
    # the running match still finishes and counts; the tournament stays cancelled
    assert tournament.final_table is None, "a match is still being played"
    play_claimed = Match.objects.get(pk=running.pk)
    from ladder.results import record_result as record

    assert record(running.pk, play_claimed.claim, runner_result(running, [2, 1]))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    # stored with that result: the results at cancel time and that match's
    assert sum(line["games"] for line in tournament.final_table) == 4
    assert sum(r.games for r in standings(tournament).rows) == 4


def test_a_tournament_cancelled_with_none_being_played_stores_its_table_at_once(alice) -> None:
    bots = make_bots(alice, 2)
    tournament = create_tournament(
        game="splendor-duel", versions=versions(bots), games=2, players=2, name="t"
    )
    play(tournament.matches.order_by("pk").first(), [1, 2])
    cancel_tournament(tournament, "enough")
    assert tournament.status == Tournament.Status.CANCELLED
    assert [line["games"] for line in tournament.final_table] == [1, 1]


def test_faults_in_tournaments_neither_count_nor_pause(alice, settings) -> None:
    """A fault loses the game as on the ladder (ranked last, counted in the
    table's faults), but the ladder's streak of faults is the ladder's own:
    a tournament's schedule is fixed, and pausing the bot would spare nobody."""
    settings.FAULTS_BEFORE_PAUSE = 1
    bots = make_bots(alice, 2)
    tournament = create_tournament(
        game="splendor-duel", versions=versions(bots), games=2, players=2, name="t", seed=3
    )
    first, second = tournament.matches.order_by("pk")
    play(first, [2, 1], faulted={0})
    bots[0].refresh_from_db()
    assert bots[0].consecutive_faults == 0 and bots[0].paused_reason == ""
    assert Match.objects.get(pk=second.pk).status == Match.Status.QUEUED
    rows = {r.label: r for r in standings(tournament).rows}
    assert rows["bot0 v1"].faults == 1 and rows["bot1 v1"].faults == 0


def test_a_bot_paused_or_withdrawn_on_the_ladder_still_plays_its_tournament(alice) -> None:
    from ladder.bots import set_withdrawn
    from ladder.results import cancel_queued_matches_of

    bots = make_bots(alice, 2)
    tournament = create_tournament(
        game="splendor-duel", versions=versions(bots), games=2, players=2, name="t"
    )
    set_withdrawn(bots[0], True)
    cancel_queued_matches_of([bots[1].pk], "not played: paused")  # as a fault pause does
    assert tournament.matches.filter(status=Match.Status.QUEUED).count() == 2


def test_disabling_a_bot_cancels_its_tournament_matches_and_may_finish_it(alice) -> None:
    from ladder.admin import DISABLED, STOPPED_BY_DISABLING
    from ladder.results import cancel_queued_matches_of

    bots = make_bots(alice, 2)
    tournament = create_tournament(
        game="splendor-duel", versions=versions(bots), games=2, players=2, name="t"
    )
    first, _ = tournament.matches.order_by("pk")
    play(first, [1, 2])
    assert cancel_queued_matches_of([bots[0].pk], DISABLED, STOPPED_BY_DISABLING) == 1
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED


def test_renamed_bot_and_new_version(alice) -> None:
    """A bot renamed keeps the label it played as; a new version uploaded
    during the tournament does not replace the pinned one. The versions are
    protected like a match seat's: a bot with uploads is never deleted
    (ladder/moderation.py), so an entry's bot is always there."""
    from django.db.models import ProtectedError

    bots = make_bots(alice, 2)
    tournament = create_tournament(
        game="splendor-duel", versions=versions(bots), games=2, players=2, name="t", seed=9
    )
    pinned = bots[0].active_version
    rename_bot(bots[0], "renamed")
    newer = add_version(bots[0], "main.py", RANDOM_BOT + b"# v2\n", validate=False)
    bots[0].refresh_from_db()
    assert bots[0].active_version == newer
    first, second = tournament.matches.order_by("pk")
    play(first, [1, 2])
    seats = second.seats.filter(version__bot=bots[0])
    assert [s.version_id for s in seats] == [pinned.pk]
    rows = {r.label: r for r in standings(tournament).rows}
    assert set(rows) == {"bot0 v1", "bot1 v1"}
    assert rows["bot0 v1"].bot_id == bots[0].pk and rows["bot0 v1"].games == 1
    with pytest.raises(ProtectedError):
        pinned.delete()


def test_matches_are_sent_a_queue_depth_at_a_time(alice, settings, no_broker) -> None:
    settings.QUEUE_DEPTH_PER_WORKER = 3  # no live worker: the depth of one
    bots = make_bots(alice, 4)
    tournament = create_tournament(
        game="splendor-duel", versions=versions(bots), games=2, players=2, name="t"
    )
    ids = list(tournament.matches.order_by("pk").values_list("pk", flat=True))
    assert len(ids) == 12 and no_broker == ids[:3]
    tournament.refresh_from_db()
    assert tournament.sent_through == ids[2]
    assert tournaments.send_matches() == 0  # the queue holds its depth
    play(Match.objects.get(pk=ids[0]), [1, 2])
    play(Match.objects.get(pk=ids[1]), [1, 2])
    assert tournaments.send_matches() == 2 and no_broker == ids[:5]


def test_the_reaper_resends_only_matches_that_were_sent(alice, settings, no_broker) -> None:
    from ladder import tasks

    settings.QUEUE_DEPTH_PER_WORKER = 2
    bots = make_bots(alice, 3)
    tournament = create_tournament(
        game="splendor-duel", versions=versions(bots), games=2, players=2, name="t"
    )
    ids = list(tournament.matches.order_by("pk").values_list("pk", flat=True))
    resent = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tasks, "enqueue", lambda match_id, kind, countdown=0: resent.append(match_id))
        assert tasks.resend_queued() == 2
    assert resent == ids[:2]


def test_a_big_tournament_and_the_ladder_take_turns(alice, bob, settings, no_broker) -> None:
    """The queue of "<queue>.ladder" simulated oldest first, with the beat's
    fill between matches: a tournament of 190 matches leaves the ladder
    playing, and the ladder (kept full by the scheduler) leaves the
    tournament playing. Uploads' validation goes to the platform's own
    queue, which workers empty first."""
    from ladder import scheduler
    from ladder.matches import queue_for

    settings.QUEUE_DEPTH_PER_WORKER = 2
    settings.MAX_BOTS_PER_USER = 20
    assert queue_for(Match.Kind.TOURNAMENT) == queue_for(Match.Kind.LADDER)
    assert queue_for(Match.Kind.VALIDATION) == settings.CELERY_TASK_DEFAULT_QUEUE
    assert queue_for(Match.Kind.VALIDATION) != queue_for(Match.Kind.TOURNAMENT)
    entrants = make_bots(alice, 20)
    ladder_bots = make_bots(bob, 4, game="edel-stein-reich", prefix="esr")
    assert ladder_bots
    create_tournament(
        game="splendor-duel", versions=versions(entrants), games=1, players=2, name="big"
    )
    rng = random.Random(1)
    played_kinds = []
    for _ in range(60):
        scheduler.fill_queue(rng)
        tournaments.send_matches()
        oldest = next(
            pk for pk in no_broker if Match.objects.get(pk=pk).status == Match.Status.QUEUED
        )
        match = Match.objects.get(pk=oldest)
        play(match, list(range(1, match.seat_count + 1)))
        played_kinds.append(match.kind)
    # both kinds in every stretch of 15 matches played (about 27 % tournament
    # here: the ladder queues whole rotated tables of 3-5 matches)
    for start in range(0, len(played_kinds), 15):
        stretch = played_kinds[start : start + 15]
        assert Match.Kind.TOURNAMENT in stretch and Match.Kind.LADDER in stretch, played_kinds
    tournament_share = played_kinds.count(Match.Kind.TOURNAMENT) / len(played_kinds)
    assert 0.15 <= tournament_share <= 0.85, played_kinds
