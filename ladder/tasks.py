"""Celery tasks. Tasks take ids, are safe to run twice, and are enqueued after commit."""

from __future__ import annotations

import logging
import time
from datetime import timedelta

from celery import shared_task
from celery.signals import worker_ready
from django.conf import settings
from django.db.models import F
from django.utils import timezone

from arena import SystemFault, play_match, reap_sandboxes, sandbox_status
from ladder.matches import enqueue, runner_request
from ladder.models import LiveStep, Match, WorkerHeartbeat
from ladder.results import record_result

log = logging.getLogger(__name__)

#: seconds to wait before retrying after a system fault: attempt 1, 2, ...
RETRY_BACKOFF_S = (5, 30, 120, 300)


@shared_task(bind=True, ignore_result=True)
def heartbeat(self) -> str:
    """Record that the worker that runs this task is alive, and its sandbox."""
    status = sandbox_status(settings.SANDBOX_BACKEND)
    hostname = self.request.hostname or "unknown"
    WorkerHeartbeat.beat(hostname, status.backend, status.problem)
    return hostname


@worker_ready.connect
def announce_worker(sender, **kwargs) -> None:
    """A worker shows up on the status page as soon as it starts."""
    status = sandbox_status(settings.SANDBOX_BACKEND)
    WorkerHeartbeat.beat(sender.hostname, status.backend, status.problem)


@shared_task(bind=True, ignore_result=True, acks_late=True)
def run_match(self, match_id: int) -> str:
    """Play one match. A second delivery of the same id finds it claimed and does nothing."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        return "missing"
    worker = self.request.hostname or "worker"
    claim = match.claim_for(worker)
    if claim is None:
        return "not queued"
    log.info(
        "match %s: playing (%s, attempt %s) on %s", match_id, match.game, match.attempts + 1, worker
    )
    live = LiveRecorder(match_id, claim)
    try:
        result = play_match(runner_request(match), on_step=live.on_step)
    except Exception as exc:  # SystemFault or anything unexpected: never the bots' fault
        kind = (
            "system fault"
            if isinstance(exc, SystemFault)
            else f"platform error {type(exc).__name__}"
        )
        log.warning("match %s: %s: %s", match_id, kind, exc)
        return release_after_fault(match_id, claim, f"{kind}: {exc}")
    if not record_result(match_id, claim, result):
        log.info("match %s: result discarded, the claim was lost", match_id)
        return "claim lost"
    log.info("match %s: finished (%s)", match_id, result.outcome.reason)
    return "finished"


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
        data = {k: step.get(k) for k in ("step", "seat", "action", "description", "view", "forced")}
        self.pending.append(LiveStep(match_id=self.match_id, step=step["step"], data=data))
        if time.monotonic() - self.last_flush >= self.FLUSH_EVERY_S:
            self.flush()

    def flush(self) -> None:
        self.last_flush = time.monotonic()
        # Only while we still hold the claim: a reaped match must not be touched.
        if Match.objects.filter(pk=self.match_id, claim=self.claim).update(
            heartbeat_at=timezone.now(),
            steps=self.pending[-1].step + 1 if self.pending else F("steps"),
        ):
            LiveStep.objects.bulk_create(self.pending, ignore_conflicts=True)
        self.pending = []


def release_after_fault(match_id: int, claim, error: str) -> str:
    """Retry with backoff up to MATCH_MAX_ATTEMPTS, then mark the match errored (unrated)."""
    match = Match.objects.get(pk=match_id)
    LiveStep.objects.filter(match_id=match_id).delete()  # the next attempt starts afresh
    if match.attempts >= settings.MATCH_MAX_ATTEMPTS:
        Match.objects.filter(pk=match_id, claim=claim, status=Match.Status.RUNNING).update(
            status=Match.Status.ERRORED, error=error[:4000], finished_at=timezone.now(), claim=None
        )
        return "errored"
    requeued = Match.objects.filter(pk=match_id, claim=claim, status=Match.Status.RUNNING).update(
        status=Match.Status.QUEUED, error=error[:4000], claim=None, worker=""
    )
    if requeued:
        delay = RETRY_BACKOFF_S[min(match.attempts, len(RETRY_BACKOFF_S)) - 1]
        enqueue(match_id, countdown=delay)
    return "retry"


@shared_task(ignore_result=True)
def reap_stale_matches(older_than_s: float | None = None) -> int:
    """Return matches whose worker died to the queue; remove orphaned bot containers."""
    cutoff = timezone.now() - timedelta(seconds=settings.MATCH_STALE_SECONDS)
    stale = list(
        Match.objects.filter(status=Match.Status.RUNNING, heartbeat_at__lt=cutoff).values_list(
            "pk", flat=True
        )
    )
    for match_id in stale:
        released = Match.objects.filter(
            pk=match_id, status=Match.Status.RUNNING, heartbeat_at__lt=cutoff
        ).update(status=Match.Status.QUEUED, claim=None, worker="", error="worker lost")
        if released:
            LiveStep.objects.filter(match_id=match_id).delete()
            log.warning("match %s: worker lost, back to the queue", match_id)
            enqueue(match_id)
    # Queued matches whose message was lost (broker restarted without persistence).
    # Sending one twice is harmless: the second delivery finds it claimed.
    long_ago = timezone.now() - timedelta(seconds=2 * settings.MATCH_STALE_SECONDS)
    forgotten = Match.objects.filter(
        status=Match.Status.QUEUED, created_at__lt=long_ago
    ).values_list("pk", flat=True)[:500]
    for match_id in forgotten:
        enqueue(match_id)
    reap_sandboxes(settings.MATCH_STALE_SECONDS if older_than_s is None else older_than_s)
    return len(stale)


@shared_task(ignore_result=True)
def fill_queue() -> int:
    """Beat: keep the ladder's queue filled (does nothing while the ladder is paused)."""
    from ladder.scheduler import fill_queue as fill

    return fill()


@shared_task(ignore_result=True)
def refit_ratings() -> dict[str, int]:
    """Beat: refit each game's leaderboard when rated results arrived since the last fit."""
    from arena import all_games
    from ladder.leaderboard import rated_match_count, refit
    from ladder.models import GameFit

    done = {}
    for game in all_games():
        fitted = GameFit.objects.filter(game=game.id).values_list("matches", flat=True).first()
        if fitted != rated_match_count(game.id):
            done[game.id] = refit(game.id)
    return done
