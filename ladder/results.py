"""Recording a finished match: seats, replay, ratings, validation, fault streaks.

Everything for one match happens in one transaction. Only the holder of the
match's current claim may record it, and the database refuses a second
rating row for the same bot and match, so a result can never count twice.
Rows are locked in a fixed order (the rating counter, then ratings by bot id)
so concurrent workers cannot deadlock.
"""

from __future__ import annotations

import logging
import uuid

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import DatabaseError, transaction
from django.db.models import Q
from django.utils import timezone

from arena import MatchResult as RunnerResult
from arena import ReplayError, get_game, replay_from_bytes, replay_to_bytes
from ladder import notify
from ladder.models import (
    Bot,
    BotVersion,
    Counter,
    LiveStep,
    Match,
    MatchSeat,
    Rating,
    RatingHistory,
    Tournament,
)
from ladder.ratings.elo import EloRating, apply_elo
from ladder.ratings.results import MatchResult
from ladder.tournament_table import fitted

STDERR_KEEP = 16 * 1024
#: the MatchSeat columns a result fills in (in this order where order matters)
SEAT_RESULT_FIELDS = (
    "rank",
    "score",
    "fault",
    "fault_detail",
    "think_ms",
    "stderr_tail",
    "elo_before",
    "elo_change",
)

log = logging.getLogger(__name__)

#: what users are told about a replay file that is gone or damaged (the
#: server's path and error are for the log only)
REPLAY_UNAVAILABLE = "the replay file of this match is missing or damaged on the server"


class ReplayUnavailable(Exception):
    """A match's replay file cannot be read (lost in a restore, damaged)."""


def stored_replay(match: Match) -> tuple[bytes, dict]:
    """The replay file of a match that has one, as stored and decoded;
    ReplayUnavailable (logged with the cause for the operator) when it is
    missing or cannot be read."""
    try:
        with match.replay.open("rb") as handle:
            data = handle.read()
        return data, replay_from_bytes(data)
    except (OSError, ReplayError) as exc:
        log.error("match %s: its replay %s cannot be read: %s", match.pk, match.replay.name, exc)
        raise ReplayUnavailable(REPLAY_UNAVAILABLE) from exc


def replay_present(match: Match) -> bool:
    """Whether the match's replay file is where its row says (one stat)."""
    return bool(match.replay) and match.replay.storage.exists(match.replay.name)


#: control characters a bot may write, shown as visible pictures: PostgreSQL
#: text refuses NUL, and escape sequences in a stored text would reach the
#: terminal of whoever prints it (`arena matches`, curl of the API)
_CONTROLS = {
    **{c: chr(0x2400 + c) for c in range(0x20) if chr(c) not in "\t\n"},
    0x00: "\ufffd",  # as any other byte that is not UTF-8
    0x7F: "\u2421",
    **{c: "\ufffd" for c in range(0x80, 0xA0)},  # C1 controls (CSI is 0x9b)
}


def storable(text: str) -> str:
    """Text from a bot (its stderr, a quoted reply) as the database holds it
    and pages and terminals can show it: tabs and line ends stay (a CR-LF or
    a lone CR is a line end), every other control character becomes a
    visible picture (ESC is U+241B), NUL and C1 controls U+FFFD. A refused or
    misleading text would otherwise cost the match or fool a reader."""
    return text.replace("\r\n", "\n").replace("\r", "\n").translate(_CONTROLS)


def record_result(match_id: int, claim: uuid.UUID, result: RunnerResult) -> bool:
    """Store a runner result; False when this claim no longer owns the match.

    The replay file is written inside the transaction under a name fixed by
    the match. If the transaction fails, the file is removed again when the
    database can confirm nothing points to it; when it cannot (it is down and
    the caller retries), the retry overwrites the same name. Either way no
    orphaned replay files pile up.
    """
    name = replay_name(match_id)
    try:
        return _record(match_id, claim, result, name)
    except BaseException:
        _discard_unreferenced(match_id, name)
        raise


def replay_name(match_id: int) -> str:
    """The storage name of a match's replay: one per match, fixed."""
    return Match._meta.get_field("replay").generate_filename(None, f"match-{match_id}.json.gz")


def discard_stray_replays(match_ids) -> None:
    """Matches that ended without a result (errored, cancelled) keep no replay
    file that an earlier attempt wrote while the database was away."""
    for match_id in match_ids:
        _discard_unreferenced(match_id, replay_name(match_id))


def _discard_unreferenced(match_id: int, name: str) -> None:
    """Delete a replay file (if any) that no stored match points to. When the database
    cannot tell (it is the thing that failed), keep the file: an orphan is
    better than a finished match without its replay."""
    try:
        if Match.objects.filter(replay=name).exists():
            return
    except DatabaseError:
        log.warning("match %s: could not check replay %s, keeping it", match_id, name)
        return
    Match._meta.get_field("replay").storage.delete(name)


def _record(match_id: int, claim: uuid.UUID, result: RunnerResult, name: str) -> bool:
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        if match.status != Match.Status.RUNNING or match.claim != claim:
            return False
        seats = list(match.seats.select_related("version__bot").order_by("seat"))
        for row in seats:
            fault = result.faults[row.seat]
            row.rank = result.outcome.ranks[row.seat]
            row.score = result.outcome.scores[row.seat]
            row.fault = str(fault.kind) if fault else ""
            row.fault_detail = storable(fault.detail) if fault else ""
            row.think_ms = int(result.think_ms[row.seat])
            row.stderr_tail = storable(result.stderr_tails[row.seat][-STDERR_KEEP:])
        # One name per match: a file left by an earlier attempt that failed
        # while the database was away is replaced, not joined by a sibling.
        match.replay.storage.delete(name)
        match.replay.save(
            name.rsplit("/", 1)[-1], ContentFile(replay_to_bytes(result.replay)), save=False
        )
        match.status = Match.Status.FINISHED
        match.finished_at = timezone.now()
        match.reason = storable(result.outcome.reason[:200])
        match.steps = len(result.replay.get("steps", []))
        match.first_mover = get_game(match.game).first_to_act(
            match.seat_count, match.seed, match.options
        )
        match.error = ""
        if match.rated and match.kind == Match.Kind.LADDER:
            apply_ratings(match, seats)
        MatchSeat.objects.bulk_update(seats, SEAT_RESULT_FIELDS)
        match.save()
        ladder = match.kind == Match.Kind.LADDER and match.rated  # not an admin's unrated copy
        if ladder:
            # the ladder's clock: the scheduler seats who waited longest first,
            # so a bot fresh from validation (or a challenge) is not put back
            Bot.objects.filter(pk__in={s.version.bot_id for s in seats}).update(
                last_played_at=match.finished_at
            )
        LiveStep.objects.filter(match=match).delete()  # the replay holds every step now
        if match.kind == Match.Kind.VALIDATION:
            decide_validation(match)
        elif ladder:
            # only the ladder's: a tournament's or a challenge's schedule is
            # fixed, and pausing the bot would not spare its opponents them
            count_faults(seats)
        finish_tournaments([match.tournament_id])
    return True


def finish_tournaments(tournament_ids) -> int:
    """The tournaments among these with no match left to play (each is
    finished, errored or cancelled) store their final table
    (`ladder.tournament_table`), each once, and the running ones become
    finished. The tournament's row lock orders the workers that record its
    last matches at the same moment, so the last of them sees all the
    others' results. Called after every recorded result, errored or
    cancelled match; returns how many finished."""
    finished = 0
    for tournament_id in sorted({t for t in tournament_ids if t is not None}):
        with transaction.atomic():
            tournament = (
                Tournament.objects.select_for_update()
                .filter(pk=tournament_id, final_table__isnull=True)
                .first()
            )
            if tournament is None:
                continue
            if Match.objects.filter(
                tournament_id=tournament_id,
                status__in=[Match.Status.QUEUED, Match.Status.RUNNING],
            ).exists():
                continue
            if tournament.status == Tournament.Status.RUNNING:
                tournament.status = Tournament.Status.FINISHED
                tournament.finished_at = timezone.now()
                finished += 1
            tournament.final_table = fitted(tournament)
            tournament.save(update_fields=["status", "finished_at", "final_table"])
    return finished


def apply_ratings(match: Match, seats: list[MatchSeat]) -> None:
    """Incremental Elo for one match, appended to the rating history."""
    match.rating_seq = Counter.next("rating")
    bot_ids = [s.version.bot_id for s in seats]
    locked = {
        r.bot_id: r
        for r in Rating.objects.select_for_update().filter(bot_id__in=bot_ids).order_by("bot_id")
    }
    state = {bid: EloRating(locked[bid].elo, locked[bid].elo_games) for bid in bot_ids}
    update = apply_elo(state, MatchResult(tuple(bot_ids), tuple(s.rank for s in seats)))
    history = []
    for row, before, after, change in zip(
        seats, update.before, update.after, update.changes, strict=True
    ):
        rating = locked[row.version.bot_id]
        rating.elo, rating.elo_games = after.rating, after.games
        if row.rank == 1 and not row.fault:
            rating.wins += 1
        row.elo_before, row.elo_change = before.rating, change
        history.append(
            RatingHistory(
                bot_id=rating.bot_id,
                match=match,
                version_id=row.version_id,
                seq=match.rating_seq,
                elo_before=before.rating,
                elo_after=after.rating,
                fitted=rating.fitted,
                fitted_low=rating.fitted_low,
                fitted_high=rating.fitted_high,
            )
        )
    Rating.objects.bulk_update(locked.values(), ["elo", "elo_games", "wins"])
    RatingHistory.objects.bulk_create(history)


def count_faults(seats: list[MatchSeat]) -> None:
    """A version that faults N ladder matches in a row pauses its bot."""
    limit = settings.FAULTS_BEFORE_PAUSE
    for row in seats:
        bot = Bot.objects.select_for_update().get(pk=row.version.bot_id)
        if bot.active_version_id != row.version_id:
            continue
        if not row.fault:
            if bot.consecutive_faults:
                Bot.objects.filter(pk=bot.pk).update(consecutive_faults=0)
            continue
        faults = bot.consecutive_faults + 1
        reason = ""
        if faults >= limit:
            reason = (
                f"paused after {faults} faulted matches in a row (last: {row.fault}: "
                f"{row.fault_detail[:150]}); upload a fixed version to play again"
            )
        Bot.objects.filter(pk=bot.pk).update(consecutive_faults=faults, paused_reason=reason)
        if reason and not bot.paused_reason:
            cancel_queued_matches_of([bot.pk], f"not played: {bot.name} was paused")
            notify.bot_paused(bot, reason)


def cancel_queued_matches_of(bot_ids, why: str, kinds=(Match.Kind.LADDER,)) -> int:
    """A bot that can no longer play (paused after faults, disabled) plays
    none of the matches of `kinds` already queued for it: they are
    cancelled, unrated, rather than forfeited one by one. Returns how many.
    (An owner's withdrawal cancels nothing: `ladder.bots.set_withdrawn`.)"""
    ids = list(
        Match.objects.filter(
            status=Match.Status.QUEUED,
            kind__in=kinds,
            seats__version__bot_id__in=bot_ids,
        )
        .values_list("pk", flat=True)
        .distinct()
    )
    cancelled = Match.objects.filter(pk__in=ids, status=Match.Status.QUEUED).update(
        status=Match.Status.CANCELLED, reason=why[:200]
    )
    transaction.on_commit(lambda: discard_stray_replays(ids))
    finish_tournaments(tournaments_of(ids))
    return cancelled


def tournaments_of(match_ids) -> list[int]:
    """The tournaments these matches belong to."""
    return list(
        Match.objects.filter(pk__in=list(match_ids), tournament__isnull=False)
        .values_list("tournament_id", flat=True)
        .distinct()
    )


def cancel_queued_matches(match_ids, reason: str, why: str) -> tuple[int, int]:
    """Cancel those of `match_ids` still queued (any kind; the others are left
    as they are), with `reason` on each. A version waiting for a cancelled
    validation match is rejected without blame, "validation match N {why}"
    (`give_up_validation`).
    Returns (matches cancelled, versions rejected)."""
    ids = list(
        Match.objects.filter(pk__in=list(match_ids), status=Match.Status.QUEUED).values_list(
            "pk", flat=True
        )
    )
    cancelled = Match.objects.filter(pk__in=ids, status=Match.Status.QUEUED).update(
        status=Match.Status.CANCELLED, reason=reason[:200]
    )
    transaction.on_commit(lambda: discard_stray_replays(ids))
    finish_tournaments(tournaments_of(ids))
    rejected = give_up_validation(ids, why)
    return cancelled, rejected


def decide_validation(match: Match) -> None:
    """Accept the version once all its validation matches finished cleanly;
    reject it at its first fault."""
    if match.validates_id is None:  # a copy made by hand of a version's validation
        return
    version = BotVersion.objects.select_for_update().get(pk=match.validates_id)
    if version.status != BotVersion.Status.PENDING:
        return
    own = [s for s in match.seats.all() if s.version_id == version.pk]
    faulted = next((s for s in own if s.fault), None)
    if faulted is not None:
        version.status = BotVersion.Status.REJECTED
        version.reject_reason = (
            f"validation match {match.pk}: {faulted.fault} — {faulted.fault_detail}"
        )[:2000]
        version.stderr_tail = faulted.stderr_tail
        version.decided_at = timezone.now()
        version.save(update_fields=["status", "reject_reason", "stderr_tail", "decided_at"])
        cancel_unneeded_validation(version)
        notify.version_rejected(version)
        return
    pending = version.validation_matches.exclude(status=Match.Status.FINISHED).exclude(pk=match.pk)
    if pending.exists():
        return
    version.status = BotVersion.Status.READY
    version.stderr_tail = own[0].stderr_tail if own else ""
    version.decided_at = timezone.now()
    version.save(update_fields=["status", "stderr_tail", "decided_at"])
    activate(version)


def cancel_unneeded_validation(version: BotVersion) -> None:
    """The version is rejected: its queued validation matches need not be played."""
    queued = version.validation_matches.filter(status=Match.Status.QUEUED)
    ids = list(queued.values_list("pk", flat=True))
    queued.filter(pk__in=ids).update(
        status=Match.Status.CANCELLED,
        reason=f"not played: {version.bot.name} v{version.number} was rejected already",
    )
    transaction.on_commit(lambda: discard_stray_replays(ids))


def activate(version: BotVersion) -> None:
    """Make a ready version its bot's active one, unless a newer one is active
    already (an older upload can finish its validation last)."""
    Bot.objects.filter(pk=version.bot_id).filter(
        Q(active_version__isnull=True) | Q(active_version__number__lt=version.number)
    ).update(active_version=version, paused_reason="", consecutive_faults=0)


def give_up_validation(match_ids, why: str) -> int:
    """Validation matches that will never finish (errored after their retries,
    or cancelled) cannot decide their version: a version still pending is
    rejected, saying it was not its fault, and the same file may be uploaded
    again. Returns how many versions were rejected."""
    rejected = 0
    matches = Match.objects.filter(
        pk__in=match_ids,
        kind=Match.Kind.VALIDATION,
        status__in=[Match.Status.ERRORED, Match.Status.CANCELLED],
    )
    for match_id, version_id in matches.values_list("pk", "validates_id").order_by("pk"):
        with transaction.atomic():
            version = BotVersion.objects.select_for_update().get(pk=version_id)
            if version.status != BotVersion.Status.PENDING:
                continue
            version.status = BotVersion.Status.REJECTED
            version.reject_reason = (
                f"validation match {match_id} {why}. This says nothing about your bot: "
                "upload the same file again to have it validated."
            )[:2000]
            version.decided_at = timezone.now()
            version.save(update_fields=["status", "reject_reason", "decided_at"])
            cancel_unneeded_validation(version)
            notify.version_rejected(version)
            rejected += 1
    return rejected
