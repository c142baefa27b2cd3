"""Creating matches and turning them into runner requests.

A match is created queued with its seats; its `run_match` task is enqueued
only after the creating transaction commits, so a worker never sees a match
that is not in the database yet. A send that fails (the broker is down) is
counted (`UNSENT`), and the reaper sends every queued match again.
"""

from __future__ import annotations

import logging
import secrets
import uuid
from collections.abc import Sequence

from django.conf import settings
from django.db import transaction

from arena import BotSpec, MatchRequest, TimeControl, get_game
from ladder.models import BotVersion, Counter, LadderSettings, Match, MatchSeat
from ladder.results import ReplayUnavailable, stored_replay

log = logging.getLogger(__name__)

#: the Counter of sends that failed since the reaper last looked
UNSENT = "unsent-matches"


def new_seed() -> int:
    return secrets.randbits(62)


def create_match(
    game: str,
    lineup: Sequence[BotVersion],
    *,
    kind: str = Match.Kind.LADDER,
    rated: bool = True,
    seed: int | None = None,
    options: dict | None = None,
    group: uuid.UUID | None = None,
    validates: BotVersion | None = None,
    requested_by=None,
) -> Match:
    """A queued match with one seat per entry of `lineup` (seat order)."""
    definition = get_game(game)
    definition.check_seats(len(lineup))
    clean_options = definition.validate_options(options or {})
    with transaction.atomic():
        match = Match.objects.create(
            game=game,
            seat_count=len(lineup),
            seed=new_seed() if seed is None else seed,
            options=clean_options,
            rules_version=definition.rules_version,
            kind=kind,
            rated=rated,
            group=group,
            validates=validates,
            requested_by=requested_by,
        )
        MatchSeat.objects.bulk_create(
            MatchSeat(match=match, seat=i, version=v) for i, v in enumerate(lineup)
        )
        enqueue(match.pk, kind)
    return match


def queue_for(kind: str) -> str:
    """The broker queue of a match of this kind. An upload's validation goes
    to the platform's queue, which workers empty first (config/settings.py,
    LADDER_QUEUE_SUFFIX): its author waits, and uploads are limited per hour.
    Every other match waits in "<queue>.ladder", oldest first: challenges
    too, which anybody can ask for in numbers (5 open per account, accounts
    are free), so they take turns with the ladder's matches instead of
    starving it. Read at call time: tests send to a queue of their own."""
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    return queue if kind == Match.Kind.VALIDATION else queue + settings.LADDER_QUEUE_SUFFIX


def housekeeping_queue() -> str:
    """Where the beat sends its database-only chores (config/settings.py,
    HOUSEKEEPING_QUEUE_SUFFIX): the housekeeper's only queue."""
    return settings.CELERY_TASK_DEFAULT_QUEUE + settings.HOUSEKEEPING_QUEUE_SUFFIX


#: the beat's chores that need only the database and the broker; the others
#: (heartbeat with its self-test, the reaper with its containers) need a
#: worker with the sandbox and go to the platform's queue
HOUSEKEEPING_TASKS = frozenset(
    {"ladder.tasks.fill_queue", "ladder.tasks.refit_ratings", "ladder.tasks.prune_records"}
)


def route_task(name, args, kwargs, options, task=None, **kw) -> dict | None:
    """Celery router (CELERY_TASK_ROUTES): housekeeping chores to their queue;
    a queue given when sending still wins."""
    return {"queue": housekeeping_queue()} if name in HOUSEKEEPING_TASKS else None


def worker_queues() -> list[str]:
    """What a match worker consumes (`celery worker -Q ...`): all three queues."""
    return [queue_for(Match.Kind.VALIDATION), housekeeping_queue(), queue_for(Match.Kind.LADDER)]


def plays_matches(queues) -> bool:
    """Whether a worker consuming `queues` (names) is a match worker."""
    return bool({queue_for(Match.Kind.VALIDATION), queue_for(Match.Kind.LADDER)} & set(queues))


def enqueue(match_id: int, kind: str, countdown: float = 0) -> None:
    """Send the match to a worker once the current transaction has committed."""
    from ladder.tasks import run_match  # tasks import this module

    queue = queue_for(kind)

    def send() -> None:
        try:
            run_match.apply_async((match_id,), countdown=countdown or None, queue=queue)
        except Exception as exc:
            # The match is stored: raising would tell its author (an upload, a
            # challenge) that nothing happened, and a retry would store it twice.
            log.error(
                "match %s not sent to a worker (%s); the reaper sends it again", match_id, exc
            )
            try:
                with transaction.atomic():
                    Counter.next(UNSENT)
            except Exception:
                log.exception("match %s: the failed send could not be noted either", match_id)

    transaction.on_commit(send)


def take_unsent() -> bool:
    """Whether a send failed since the last call (which clears the count)."""
    with transaction.atomic():
        row = Counter.lock(UNSENT)
        failed = row.value > 0
        if failed:
            row.value = 0
            row.save(update_fields=["value"])
    return failed


def seat_label(version: BotVersion) -> str:
    """A seat's label for the runner, kept in the replay's `seats`: the bot's
    name as it is when the match is played, and the version's number."""
    return f"{version.bot.name} v{version.number}"


def names_played_as(match: Match, seats: Sequence[MatchSeat]) -> dict[int, str]:
    """Seat → the name its bot played `match` under, for the bots renamed since
    (staff rename bots in the admin). Read back from the seat labels of the
    stored replay (`seat_label`): the replay is history and is never rewritten,
    so the pages show a bot's current name and say what it was called then.
    Empty for a match without a readable replay (not played yet, or the file
    is lost: that is logged); a label `seat_label` did not write is skipped."""
    if not match.replay:
        return {}
    try:
        _, replay = stored_replay(match)
    except ReplayUnavailable:
        return {}
    labels = replay["seats"]
    names = {}
    for seat in seats:
        label = labels[seat.seat] if seat.seat < len(labels) else None
        number = f" v{seat.version.number}"
        if isinstance(label, str) and label.endswith(number):
            then = label.removesuffix(number)
            if then and then != seat.version.bot.name:
                names[seat.seat] = then
    return names


def runner_request(match: Match) -> MatchRequest:
    """The plain data the runner needs; nothing Django crosses this line."""
    seats = list(match.seats.select_related("version__bot").order_by("seat"))
    bots = [BotSpec(label=seat_label(s.version), path=str(s.version.code_dir)) for s in seats]
    return MatchRequest(
        game=match.game,
        seed=match.seed,
        options=dict(match.options),
        bots=bots,
        time=TimeControl(
            startup_ms=settings.STARTUP_MS, move_ms=settings.MOVE_MS, bank_ms=settings.BANK_MS
        ),
        memory_mib=settings.BOT_MEMORY_MIB,
        sandbox=settings.SANDBOX_BACKEND,
        match_id=str(match.pk),
        instance=LadderSettings.instance_id(),
    )
