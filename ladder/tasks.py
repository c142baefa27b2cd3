"""Celery tasks. Tasks take ids, are safe to run twice, and are enqueued after commit."""

from __future__ import annotations

import hashlib
import logging
import resource
import time
from datetime import timedelta

from billiard.pool import EX_RECYCLE
from celery import shared_task
from celery.signals import (
    celeryd_init,
    worker_process_shutdown,
    worker_ready,
    worker_shutdown,
    worker_shutting_down,
)
from django.conf import settings
from django.db import (
    DatabaseError,
    close_old_connections,
    connection,
)
from django.db.models import F
from django.utils import timezone

from arena import SystemFault, play_match, reap_sandboxes, secret_description
from ladder import beats, selftest, throttle
from ladder.health import DATABASE_AWAY
from ladder.logging import match_context, set_worker_name
from ladder.matches import enqueue, plays_matches, runner_request, take_unsent
from ladder.models import (
    Counter,
    LadderSettings,
    LiveStep,
    Match,
    SeenBeat,
    WorkerHeartbeat,
)
from ladder.results import (
    discard_stray_replays,
    finish_tournaments,
    give_up_validation,
    record_result,
    storable,
)
from ladder.tournaments import send_matches

log = logging.getLogger(__name__)

#: seconds to wait before retrying after a system fault: attempt 1, 2, ...
RETRY_BACKOFF_S = (5, 30, 120, 300)
#: a worker whose self-test fails sends its matches back with this delay (and
#: waits as long itself, so it does not drain the queue into refusals)
REFUSED_DELAY_S = 5
#: how long a finished match's result is retried while the database is away
RECORD_RETRY_S = 180
#: the Redis key whose disappearance means the broker lost its messages
BROKER_MARKER_KEY = "gemarena:broker-marker"
#: when this process loaded its tasks: a worker claims nothing before that
PROCESS_STARTED = timezone.now()
#: added to the longest a playing match can go without a live-step write
QUIET_MARGIN_S = 15
#: A leaderboard fit reads every rated match of its game, so it costs more as
#: the ladder's history grows (18 s for both games at 300,000 matches on the
#: busy 2-core test machine, docs/scale.md). A game is refitted at most once
#: per this many times its last fit's duration: refits take at most about a
#: tenth of a core however long the platform runs, and never pile up behind
#: each other in the housekeeper.
REFIT_SPACING = 10
#: a worker not seen for this long is forgotten (its heartbeat row deleted):
#: in compose every new worker container has a new name, so each deployment
#: would otherwise leave rows on /queue/ for ever
FORGET_WORKER_AFTER = timedelta(days=7)


def retry_database(what: str, fn, budget_s: float):
    """Call fn() until it gets through a database outage (PostgreSQL restarted),
    for at most budget_s; the last error is raised after that. Only a lost or
    refused connection is an outage: data the database refuses (DataError,
    IntegrityError) would be refused again, so it is raised at once."""
    deadline = time.monotonic() + budget_s
    pause = 0.5
    while True:
        try:
            return fn()
        except DATABASE_AWAY as exc:
            if time.monotonic() + pause > deadline:
                raise
            log.warning("%s: database unavailable (%s), retrying in %.1f s", what, exc, pause)
            connection.close()  # the next try opens a fresh connection
            time.sleep(pause)
            pause = min(pause * 2, 10.0)


@shared_task(bind=True, ignore_result=True)
def heartbeat(self) -> str:
    """Record that the worker that runs this task is alive, its sandbox and
    its self-test (each worker also beats on its own, see ladder.selftest)."""
    hostname = self.request.hostname or "unknown"
    selftest.run_self_test(hostname)
    return hostname


@celeryd_init.connect
def name_worker(sender, **kwargs) -> None:
    """The node name (w1@host) for every record of this worker. Sent in the
    main process before the prefork pool starts, so the pool processes, which
    play the matches, inherit it; `worker_ready` comes after the fork, too
    late for them (their records carried the bare host name)."""
    set_worker_name(sender)


@worker_ready.connect
def announce_worker(sender, **kwargs) -> None:
    """A worker shows up on the status page as soon as it starts, with the
    result of its self-test; then keeps its own heartbeat. The housekeeper
    plays no match: it has no sandbox to test and adds nothing to the
    queue depth, so it writes no heartbeat row."""
    set_worker_name(sender.hostname)
    if not plays_matches(sender.app.amqp.queues.consume_from):
        log.info("%s takes no matches: no self-test, no heartbeat row", sender.hostname)
        return
    try:
        release_matches_of_earlier_run(sender.hostname, PROCESS_STARTED)
    except DatabaseError as exc:  # the reaper gets them later
        log.warning("matches of this worker's previous run not released yet: %s", exc)
        connection.close()
    selftest.run_self_test(sender.hostname)
    selftest.start_heartbeat_thread(
        sender.hostname,
        on_beat=lambda: release_matches_of_earlier_run(sender.hostname, PROCESS_STARTED),
    )


@worker_shutting_down.connect
def no_new_self_tests(sender, **kwargs) -> None:
    """Sent from the signal handler, long before worker_shutdown."""
    selftest.stop_starting_self_tests()


@worker_shutdown.connect
def stop_heartbeat(sender, **kwargs) -> None:
    selftest.stop_heartbeat_threads()


@worker_process_shutdown.connect
def say_why_a_pool_process_is_replaced(pid: int, exitcode: int, **kwargs) -> None:
    """A pool process whose peak memory passed WORKER_MAX_MEMORY_MIB leaves
    after its match and a fresh one takes its place. Billiard's own warning
    goes to a logger Celery keeps at ERROR, so without this line a leak that
    trips the safety net would go unseen. Sent in the pool process itself."""
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    cap_kib = settings.CELERY_WORKER_MAX_MEMORY_PER_CHILD
    if exitcode == EX_RECYCLE and peak_kib > cap_kib:
        log.warning(
            "pool process %s replaced: its peak resident memory, %d MiB, passed "
            "WORKER_MAX_MEMORY_MIB (%d)",
            pid,
            peak_kib // 1024,
            cap_kib // 1024,
        )


@shared_task(bind=True, ignore_result=True, acks_late=True)
def run_match(self, match_id: int) -> str:
    """Play one match. A second delivery of the same id finds it claimed and does nothing."""
    with match_context(match_id):
        return _run_match(self, match_id)


def worker_stopping() -> bool:
    """Whether this process belongs to a worker that was told to stop: Celery
    sets the flag in the process that got the signal, and a pool process
    forked afterwards inherits it."""
    from celery.worker import state

    return any(
        flag is not None and flag is not False
        for flag in (state.should_stop, state.should_terminate)
    )


def _run_match(task, match_id: int) -> str:
    worker = task.request.hostname or "worker"
    try:
        match = Match.objects.filter(pk=match_id).first()
        if match is None:
            return "missing"
        if worker_stopping():
            # A pool process forked after the worker was told to stop (Celery
            # respawns them during a warm shutdown): the process manager will
            # kill it soon, mid-match and leaving containers. Not claimed: the
            # match goes back for the next worker, no attempt counted.
            log.warning("match %s: not started, this worker is stopping", match_id)
            enqueue(match_id, match.kind)
            return "worker stopping"
        refused = selftest.refuses_matches(worker)
        if refused:
            # not claimed, so no attempt is counted; another worker takes it
            log.warning("match %s: refused, self-test failing: %s", match_id, refused)
            enqueue(match_id, match.kind, countdown=REFUSED_DELAY_S)
            time.sleep(REFUSED_DELAY_S)
            return "refused"
        claim = match.claim_for(worker)
    except DatabaseError as exc:  # PostgreSQL away: keep the message alive, try again
        connection.close()
        log.warning("match %s: database unavailable before the claim: %s", match_id, exc)
        raise task.retry(countdown=5, max_retries=None) from exc
    if claim is None:
        return "not queued"
    log.info(
        "match %s: playing (%s, attempt %s) on %s", match_id, match.game, match.attempts + 1, worker
    )
    live = LiveRecorder(match_id, claim)
    try:
        result = play_match(runner_request(match), on_step=live.on_step)
    except SystemExit:
        # A prefork pool process turns SIGTERM into SystemExit (billiard), so
        # the runner's `finally` has stopped the bots. Celery signals only its
        # main process, which lets matches finish; this is a process manager
        # stopping the whole group (honcho, when `make run` is stopped). The
        # match goes straight back to the queue, its attempt not counted.
        log.warning("match %s: the worker process was stopped mid-match", match_id)
        try:
            release_after_fault(match_id, claim, "worker stopped mid-match", count_attempt=False)
        except Exception:  # the reaper gives it back later
            log.exception("match %s: could not give the match back", match_id)
        raise
    except Exception as exc:  # SystemFault or anything unexpected: never the bots' fault
        kind = (
            "system fault"
            if isinstance(exc, SystemFault)
            else f"platform error {type(exc).__name__}"
        )
        log.warning("match %s: %s: %s", match_id, kind, exc)
        return after_system_fault(match_id, claim, worker, f"{kind}: {exc}")
    trouble = sandbox_trouble(result)
    if trouble:
        # A seat "crashed" but the engine could not confirm how it ended (the
        # daemon went away mid-match): never rate that as the bot's fault.
        log.warning("match %s: sandbox failed during the match: %s", match_id, trouble)
        return after_system_fault(match_id, claim, worker, f"sandbox failed: {trouble}")
    try:
        recorded = retry_database(
            f"match {match_id}: recording the result",
            lambda: record_result(match_id, claim, result),
            RECORD_RETRY_S,
        )
    except DATABASE_AWAY:
        raise  # the database stayed away: the reaper gives the match back later
    except Exception as exc:  # a bug or broken data: count an attempt, never loop for ever
        log.exception("match %s: recording the result failed", match_id)
        error = f"platform error recording the result: {type(exc).__name__}: {exc}"
        return after_system_fault(match_id, claim, worker, error)
    if not recorded:
        log.info("match %s: result discarded, the claim was lost", match_id)
        return "claim lost"
    log.info("match %s: finished (%s)", match_id, result.outcome.reason)
    if match.tournament_id is not None:
        send_matches()  # the tournament's next match, without waiting for the beat
    return "finished"


def sandbox_trouble(result) -> str:
    """Why a faulted seat's ending cannot be trusted ("" when it can): its
    sandbox reported trouble talking to the engine while tearing down."""
    for seat, (fault, exit_report) in enumerate(zip(result.faults, result.exits, strict=False)):
        detail = (exit_report or {}).get("detail", "")
        if fault is not None and detail:
            return f"seat {seat} ({fault.kind}): {detail[:500]}"
    return ""


def after_system_fault(match_id: int, claim, worker: str, error: str) -> str:
    """Clean up after a failed attempt and hand the match back (or error it)."""
    # the containers go first: once released, the next attempt's carry the same label
    selftest.discard_match_sandboxes(str(match_id))
    close_old_connections()
    ok, _detail = selftest.run_self_test(worker)
    return retry_database(
        f"match {match_id}: releasing",
        lambda: release_after_fault(match_id, claim, error, count_attempt=ok),
        RECORD_RETRY_S,
    )


class LiveRecorder:
    """Writes the steps of a running match in small batches for live viewers,
    and doubles as the match's proof of life for the reaper."""

    FLUSH_EVERY_S = 1.0

    def __init__(self, match_id: int, claim) -> None:
        self.match_id = match_id
        self.claim = claim
        self.pending: list[LiveStep] = []
        self.last_flush = time.monotonic()

    def on_step(self, step: dict) -> None:
        keys = ("step", "seat", "action", "description", "view", "forced", "note")
        data = {k: step.get(k) for k in keys}
        if step.get("secret"):
            # a secret choice (revealed later by the game, in the view): watchers
            # see that the seat chose, not what; the replay keeps the action.
            # `secret_action` stays in the row, never sent as it is: the seat
            # views of a running match (ladder/views_replay.py) re-simulate with it.
            data.update(
                action=None,
                description=secret_description(step["seat"]),
                secret_action=step["action"],
            )
        self.pending.append(LiveStep(match_id=self.match_id, step=step["step"], data=data))
        if time.monotonic() - self.last_flush >= self.FLUSH_EVERY_S:
            self.flush()

    def flush(self) -> None:
        self.last_flush = time.monotonic()
        # Only while we still hold the claim: a reaped match must not be touched.
        try:
            if Match.objects.filter(pk=self.match_id, claim=self.claim).update(
                heartbeat_at=timezone.now(),
                steps=self.pending[-1].step + 1 if self.pending else F("steps"),
            ):
                LiveStep.objects.bulk_create(self.pending, ignore_conflicts=True)
        except DatabaseError as exc:
            # Live steps are for watchers: a database blip must not abort the
            # match. Keep them for the next flush (which opens a new connection).
            log.warning("match %s: live steps not written yet: %s", self.match_id, exc)
            connection.close()
            return
        self.pending = []


def release_after_fault(match_id: int, claim, error: str, count_attempt: bool = True) -> str:
    """Retry with backoff up to MATCH_MAX_ATTEMPTS, then mark the match errored (unrated).

    With count_attempt=False (this worker's own sandbox failed its self-test
    right after the fault) the attempt is given back: the match goes to
    another worker and is never errored for a broken worker.
    """
    error = storable(error)  # it may quote a bot
    match = Match.objects.get(pk=match_id)
    LiveStep.objects.filter(match_id=match_id).delete()  # the next attempt starts afresh
    if not count_attempt:
        requeued = Match.objects.filter(
            pk=match_id, claim=claim, status=Match.Status.RUNNING
        ).update(
            status=Match.Status.QUEUED,
            error=f"worker fault, attempt not counted: {error}"[:4000],
            claim=None,
            worker="",
            attempts=F("attempts") - 1,
        )
        if requeued:
            enqueue(match_id, match.kind, countdown=REFUSED_DELAY_S)
        return "retry (worker fault)"
    if match.attempts >= settings.MATCH_MAX_ATTEMPTS:
        errored = Match.objects.filter(
            pk=match_id, claim=claim, status=Match.Status.RUNNING
        ).update(
            status=Match.Status.ERRORED, error=error[:4000], finished_at=timezone.now(), claim=None
        )
        if errored:
            errored_aftermath(
                match_id,
                match.tournament_id,
                f"could not be played after {match.attempts} attempts ({error[:300]})",
            )
        return "errored"
    requeued = Match.objects.filter(pk=match_id, claim=claim, status=Match.Status.RUNNING).update(
        status=Match.Status.QUEUED, error=error[:4000], claim=None, worker=""
    )
    if requeued:
        delay = RETRY_BACKOFF_S[min(match.attempts, len(RETRY_BACKOFF_S)) - 1]
        enqueue(match_id, match.kind, countdown=delay)
    return "retry"


def errored_aftermath(match_id: int, tournament_id: int | None, why: str) -> None:
    """What follows a match just marked errored: no replay file of an earlier
    attempt stays, its tournament may be over, and a validation match rejects
    its version without blame (`why` says what happened)."""
    discard_stray_replays([match_id])
    finish_tournaments([tournament_id])
    give_up_validation([match_id], why)


@shared_task(bind=True, ignore_result=True)
def reap_stale_matches(self, older_than_s: float | None = None) -> int:
    """Return matches whose worker died to the queue; remove orphaned bot
    containers. Not twice per interval (a second beat's tick does nothing)."""
    if not beats.chore_due(self):
        return 0
    cutoff = timezone.now() - timedelta(seconds=stale_after_s())
    stale = release_lost_matches({"heartbeat_at__lt": cutoff}, "worker lost")
    # Queued matches whose message was lost (broker restarted without
    # persistence) or never sent (the broker was down when they were made).
    # Sending one twice is harmless: the second delivery finds it claimed.
    forgot = broker_forgot_messages()
    unsent = take_unsent()
    resend_all = forgot or unsent
    long_ago = timezone.now() - timedelta(seconds=2 * settings.MATCH_STALE_SECONDS)
    sent = resend_queued(None if resend_all else long_ago)
    if resend_all and sent:
        why = "the broker lost its messages" if forgot else "sends failed while the broker was down"
        log.warning("%s: sent %s queued matches again", why, sent)
    # Containers older than a stale heartbeat, but never those of a match
    # still being played: a long match is not a lost one, and removing its
    # containers would have charged the seat being waited on with a crash.
    playing = Match.objects.filter(status=Match.Status.RUNNING).values_list("pk", flat=True)
    reap_sandboxes(
        settings.MATCH_STALE_SECONDS if older_than_s is None else older_than_s,
        instance=LadderSettings.instance_id(),
        playing={str(pk) for pk in playing},
    )
    return stale


def quiet_limit_s() -> float:
    """The longest a match that is being played goes without a live-step write
    (its heartbeat): the bots' start-up, then a move that uses the whole bank."""
    return (settings.STARTUP_MS + settings.MOVE_MS + settings.BANK_MS) / 1000 + QUIET_MARGIN_S


def stale_after_s() -> float:
    """How long a running match must have been quiet before the reaper takes
    it for lost: MATCH_STALE_SECONDS, but never less than `quiet_limit_s()`.
    Found by QA: with time limits longer than MATCH_STALE_SECONDS (a move
    of a minute and a bank of one, stale after 30 s), a losing bot that
    thought for 50 s had its live match sent back to the queue and played
    again from the start, as often as it liked: its losses were never rated."""
    return max(settings.MATCH_STALE_SECONDS, quiet_limit_s())


def release_matches_of_earlier_run(worker: str, started) -> int:
    """Matches an earlier process of this worker's name claimed before
    `started` (it was stopped or killed mid-match) go back to the queue as
    soon as they have been quiet for `quiet_limit_s()`, rather than after the
    reaper's MATCH_STALE_SECONDS. Called when the worker starts and with every
    heartbeat. A match still writing steps is left alone: it belongs to a live
    worker that was given the same name by mistake."""
    cutoff = timezone.now() - timedelta(seconds=quiet_limit_s())
    return release_lost_matches(
        {"worker": worker, "started_at__lt": started, "heartbeat_at__lt": cutoff},
        "worker restarted",
    )


def release_lost_matches(lost: dict, reason: str) -> int:
    """Return running matches that match the `lost` filter to the queue; their
    containers and live steps go. The filter is repeated in the conditional
    update, so a match that moved on meanwhile is left alone. A match lost
    on its MATCH_MAX_ATTEMPTS-th attempt is errored (unrated) instead, as
    after system faults: one that takes its worker down every time (found
    by QA at attempt 4 and counting) must not be played for ever."""
    running = Match.objects.filter(status=Match.Status.RUNNING, **lost)
    released = 0
    for match_id, kind, attempts, tournament in list(
        running.values_list("pk", "kind", "attempts", "tournament_id")
    ):
        last = attempts >= settings.MATCH_MAX_ATTEMPTS
        if last:
            error = f"{reason} on each of its {attempts} attempts"
            done = running.filter(pk=match_id).update(
                status=Match.Status.ERRORED, claim=None, error=error, finished_at=timezone.now()
            )
        else:
            done = running.filter(pk=match_id).update(
                status=Match.Status.QUEUED, claim=None, worker="", error=reason
            )
        if not done:
            continue
        released += 1
        # its bot containers (if the engine is this worker's; each worker
        # host also runs `python -m sandbox reap` for the rest)
        selftest.discard_match_sandboxes(str(match_id))
        LiveStep.objects.filter(match_id=match_id).delete()
        if last:
            log.error("match %s: %s, errored", match_id, error)
            errored_aftermath(match_id, tournament, f"could not be played: {error}")
            continue
        log.warning("match %s: %s, back to the queue", match_id, reason)
        enqueue(match_id, kind)
    return released


def resend_queued(created_before=None, limit: int = 5000) -> int:
    """Send the queued matches (those created before `created_before`, when
    given; the oldest `limit`) to the broker again; how many. Harmless for a
    match whose message is still there: its second delivery finds it
    claimed. Also `manage.py resend_queued`, after a database restore.
    A tournament's matches that were never sent are left to `send_matches`."""
    queued = Match.objects.filter(status=Match.Status.QUEUED).exclude(
        # a tournament's matches not sent yet wait for `send_matches`
        tournament__isnull=False,
        pk__gt=F("tournament__sent_through"),
    )
    if created_before is not None:
        queued = queued.filter(created_at__lt=created_before)
    forgotten = list(queued.order_by("pk").values_list("pk", "kind")[:limit])
    for match_id, kind in forgotten:
        enqueue(match_id, kind)
    return len(forgotten)


def broker_forgot_messages() -> bool:
    """True when the Redis broker lost its data since the last look (a restart
    without persistence, a flush): a marker key we keep there is gone, though
    this platform had set it (a counter in the database remembers that, so a
    new platform or queue name is no false alarm). Always False for the
    filesystem broker, whose messages are files."""
    from config.celery import app
    from ladder.health import redis_client_url

    if not redis_client_url(settings.CELERY_BROKER_URL):  # the filesystem broker
        return False
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    try:
        with app.connection_for_write() as conn:
            client = conn.default_channel.client
            # one marker per queue: platforms sharing a Redis each notice the loss
            missing = client.set(f"{BROKER_MARKER_KEY}:{queue}", str(time.time()), nx=True)
        # The row says "this platform has seen its marker": made at the first
        # look, whether the marker was there (a database made anew) or not.
        name = "broker-marker:" + hashlib.sha256(queue.encode()).hexdigest()[:16]
        _, first_look = Counter.objects.get_or_create(name=name)
        return bool(missing) and not first_look
    except Exception as exc:  # broker down now: the next run will see the marker missing
        log.warning("cannot check the broker's marker: %s", exc)
        return False


@shared_task(bind=True, ignore_result=True)
def fill_queue(self) -> int:
    """Beat: keep the ladder's queue filled (does nothing while the ladder is
    paused, or for a second beat's tick)."""
    if not beats.chore_due(self):
        return 0
    from ladder.scheduler import fill_queue as fill

    # tournaments are sent whether or not the ladder is paused
    return fill() + send_matches()


@shared_task(bind=True, ignore_result=True)
def refit_ratings(self) -> dict[str, int]:
    """Beat: refit each game's leaderboard when rated results arrived since the
    last fit, and its last fit was at least REFIT_SPACING times its own
    duration ago (not for a second beat's tick)."""
    if not beats.chore_due(self):
        return {}
    from arena import all_games
    from ladder.leaderboard import rated_match_count, refit
    from ladder.models import GameFit

    done = {}
    for game in all_games():
        last = GameFit.objects.filter(game=game.id).values("matches", "seconds", "fitted_at")
        last = last.first() or {"matches": None, "seconds": None, "fitted_at": None}
        if last["seconds"] and last["fitted_at"]:
            wait = timedelta(seconds=REFIT_SPACING * last["seconds"])
            if timezone.now() < last["fitted_at"] + wait:
                continue
        if last["matches"] != rated_match_count(game.id):
            done[game.id] = refit(game.id)
    return done


@shared_task(bind=True, ignore_result=True)
def prune_records(self) -> dict[str, int]:
    """Beat (hourly): delete rows nothing reads any more, which would otherwise
    pile up on a platform that runs for months: expired logins (Django keeps
    its session rows until told to delete them), the heartbeat rows of
    workers gone for FORGET_WORKER_AFTER, the sightings of beats gone as
    long (each restart of the beat is a new one) and the sign-in and sign-up
    attempts older than every limit's window (`ladder.throttle`). Not for a second beat's tick."""
    from django.contrib.sessions.models import Session

    if not beats.chore_due(self):
        return {}
    now = timezone.now()
    sessions, _ = Session.objects.filter(expire_date__lt=now).delete()
    workers, _ = WorkerHeartbeat.objects.filter(last_seen__lt=now - FORGET_WORKER_AFTER).delete()
    gone_beats, _ = SeenBeat.objects.filter(last_seen__lt=now - FORGET_WORKER_AFTER).delete()
    attempts = throttle.prune(now)
    if sessions or workers or gone_beats or attempts:
        log.info(
            "pruned %d expired session(s), %d gone worker(s), %d gone beat(s), "
            "%d sign-in or sign-up attempt(s) no limit counts",
            sessions,
            workers,
            gone_beats,
            attempts,
        )
    return {"sessions": sessions, "workers": workers, "beats": gone_beats, "attempts": attempts}
