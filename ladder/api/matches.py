"""Matches: lists, details, replay downloads, and challenges (unrated matches on request)."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime, timedelta
from typing import Annotated

from django.db.models import Prefetch
from django.http import HttpRequest, HttpResponse
from ninja import Field, Query, Router, Schema, Status
from pydantic import BeforeValidator, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from arena import read_time, replay_to_bytes, write_time
from ladder.api.auth import PUBLIC, PUBLIC_OPENAPI, SIGNED_IN, caller, require_user, sees_private
from ladder.api.bots import get_or_404
from ladder.api.errors import NO_NUL, ApiError, binary_response, errors
from ladder.api.schemas import (
    MAX_ID,
    ChallengeIn,
    MatchDetail,
    MatchKind,
    MatchPage,
    MatchStatus,
    PageQuery,
    match_out,
)
from ladder.challenges import ChallengeError, create_challenge
from ladder.csv_export import csv_response
from ladder.models import Match, MatchSeat
from ladder.results import ReplayUnavailable, stored_replay

router = Router(tags=["matches"], auth=PUBLIC)


def matches_queryset():
    seats = MatchSeat.objects.select_related("version__bot__owner").order_by("seat")
    return Match.objects.select_related("requested_by").prefetch_related(
        Prefetch("seats", queryset=seats)
    )


def moment(value: object) -> object:
    """A query's ISO 8601 date-time or date as an aware datetime in UTC
    (`arena.read_time`, which `arena matches` checks its options with), or
    the API's message saying what is wrong with it."""
    if not isinstance(value, str):
        return value  # a default, or not text: pydantic says what is wrong
    # the message quotes the value: a page of text is cut short there
    shown = repr(value if len(value) <= 40 else value[:40] + "…")
    try:
        return read_time(value)  # what `arena matches` checks too
    except ValueError:
        pass
    except OverflowError:  # 9999-12-31T23:00-05:00 lies after the last datetime
        raise PydanticCustomError(
            "datetime_range", "{value} lies outside the years 1 to 9999", {"value": shown}
        ) from None
    spaced = " " in value.strip()
    hint = " (a '+' in a query string reads as a space: send it as %2B)" if spaced else ""
    raise PydanticCustomError(
        "datetime_iso",
        "not an ISO 8601 date-time or date: {value} (e.g. 2026-11-30T13:31:49Z "
        "or 2026-11-30){hint}",
        {"value": shown, "hint": hint},
    )


#: a time filter's value: ISO 8601, UTC without an offset
Moment = Annotated[datetime | None, BeforeValidator(moment)]


class MatchSelection(Schema):
    """The filters of the match list and its CSV."""

    game: str | None = Field(None, max_length=40, pattern=NO_NUL)
    bot: int | None = Field(None, ge=1, le=MAX_ID, description="only matches this bot played")
    kind: MatchKind | None = None
    tournament: int | None = Field(
        None, ge=1, le=MAX_ID, description="only matches of this tournament (its id)"
    )
    before: int | None = Field(
        None,
        ge=1,
        le=MAX_ID,
        description="only matches listed after this one (older): the `next` of the "
        "previous answer; `page` then counts from it",
    )
    finished_after: Moment = Field(
        None,
        description="only matches finished at or after this time (ISO 8601 date-time, "
        "or a date: its midnight; UTC unless an offset is given)",
    )
    finished_before: Moment = Field(
        None,
        description="only matches finished before this time (not at it), as `finished_after`",
    )

    @field_validator("finished_before")
    @classmethod
    def _after_the_start(cls, end: datetime | None, info: ValidationInfo) -> datetime | None:
        start = info.data.get("finished_after")
        if end is not None and start is not None and start >= end:
            raise PydanticCustomError(
                "empty_time_range",
                "must be later than finished_after ({start}): matches are selected "
                "from finished_after (included) up to finished_before (left out)",
                {"start": write_time(start)},
            )
        return end


class MatchFilters(PageQuery, MatchSelection):
    status: MatchStatus | None = None


#: how much later than it finished a match may say it was created: the two
#: times come from different hosts' clocks (the scheduler's, the worker's)
CLOCK_SLACK = timedelta(hours=1)


def selected(filters: MatchSelection, matches):
    """The matches `game`, `bot`, `kind`, `tournament` and the finishing times
    select, newest first; the cursor (`before`) is the caller's to apply (the list counts
    before it). A time filter leaves out the matches not finished (no
    `finished_at`)."""
    matches = matches.order_by("-created_at", "-pk")
    if filters.game:
        matches = matches.filter(game=filters.game)
    if filters.finished_after is not None:
        matches = matches.filter(finished_at__gte=filters.finished_after)
    if filters.finished_before is not None:
        # A match is created before it finishes, so the newest-first index can
        # start at finished_before (+ CLOCK_SLACK): without that bound the
        # database walked it from the newest match on, through every match
        # finished later (0.8 s for a day 19 days back at 700,000 matches)
        matches = matches.filter(
            finished_at__lt=filters.finished_before,
            created_at__lt=filters.finished_before + CLOCK_SLACK,
        )
    if filters.bot:
        # reads every match of the bot: the list's order (created_at, id) is in
        # no index of the seats, and a semi-join was slower (docs/web.md,
        # "Why the bot filter does not walk the bot page's index")
        matches = matches.filter(seats__version__bot_id=filters.bot).distinct()
    if filters.kind:
        matches = matches.filter(kind=filters.kind)
    if filters.tournament:
        # its own index (the foreign key's); an unknown id selects nothing, as `bot`
        matches = matches.filter(tournament_id=filters.tournament)
    return matches


#: the list counts the matches its filters select only this far past the
#: start of the page asked for (`count_is_exact` false beyond): the exact count
#: read every match of the filters on each request (docs/scale.md)
COUNT_AHEAD = 10_000


@router.get(
    "/matches",
    response={200: MatchPage, **errors(401, 404)},
    openapi_extra=PUBLIC_OPENAPI,
    url_name="matches",
)
def list_matches(request: HttpRequest, filters: Query[MatchFilters]):
    """Matches, newest first."""
    matches = selected(filters, matches_queryset())
    if filters.status:
        matches = matches.filter(status=filters.status)
    # of the filters, whatever the cursor, and only this far past the page's start
    start = (filters.page - 1) * filters.page_size
    bound = start + COUNT_AHEAD
    # unordered, so that the database stops at bound + 1 rows
    counted = matches.order_by().values("pk")[: bound + 1].count()
    if filters.before is not None:
        matches = after(matches, filters.before)
    # one row more than the page says whether any follow (`next`)
    rows = list(matches[start : start + filters.page_size + 1])
    page, more = rows[: filters.page_size], len(rows) > filters.page_size
    viewer = caller(request)
    return {
        "count": min(counted, bound),
        "count_is_exact": counted <= bound,
        "page": filters.page,
        "page_size": filters.page_size,
        "next": page[-1].pk if more else None,
        "results": [match_out(m, viewer) for m in page],
    }


def after(matches, before: int):
    """The matches listed after match `before` (newest first: created earlier,
    or at the same moment with a smaller id). The newest-first index reads
    from there on, so a deep step of a walk costs what the first page does;
    OFFSET read and skipped every match before it (0.2-0.8 s at page 2,000
    of 100 with 200,000 matches)."""
    created = Match.objects.filter(pk=before).values_list("created_at", flat=True).first()
    if created is None:
        raise ApiError(404, f"match {before} not found", field="query.before")
    return older(matches, created, before)


def older(matches, created, pk: int):
    """The matches after (created, pk) in the newest-first order: a keyset step."""
    return matches.filter(created_at__lte=created).exclude(created_at=created, pk__gte=pk)


#: the most matches one CSV download lists: a longer export continues with
#: `before` (the last row's match_id)
MAX_CSV_MATCHES = 10_000
#: matches read per query while a CSV streams
CSV_CHUNK = 200

#: a CSV row per seat: the match's fields, then the seat's, each header (the
#: JSON detail's name; `bot` and `version` spelled out) with the column it
#: is read from. Read as plain values: building a match, its seats and their
#: versions, bots and owners as models (match_out) cost 9 objects and 0.5 ms
#: of CPU per match, 5.2 s for a file of 10,000 (docs/api.md). The fields and
#: values are the JSON detail's (tests/web/test_csv.py compares every row
#: with it), for a finished match (the seed is shown) and an anonymous caller
#: (no stderr tail, no error).
CSV_MATCH_COLUMNS = {
    "match_id": "pk",
    "game": "game",
    "kind": "kind",
    "tournament": "tournament_id",
    "rated": "rated",
    "seat_count": "seat_count",
    "rules_version": "rules_version",
    "created_at": "created_at",
    "finished_at": "finished_at",
    "steps": "steps",
    "seed": "seed",
}
CSV_SEAT_COLUMNS = {
    "seat": "seat",
    "bot_id": "version__bot_id",
    "bot_name": "version__bot__name",
    "owner": "version__bot__owner__username",
    "version_id": "version_id",
    "version_number": "version__number",
    "rank": "rank",
    "score": "score",
    "fault": "fault",
    "think_ms": "think_ms",
    "elo_before": "elo_before",
    "elo_change": "elo_change",
}
MATCHES_CSV = (*CSV_MATCH_COLUMNS, *CSV_SEAT_COLUMNS)


class MatchCsvQuery(MatchSelection):
    before: int | None = Field(
        None,
        ge=1,
        le=MAX_ID,
        description="only matches listed after this one (older): the match_id of the "
        "previous file's last row",
    )
    limit: int = Field(
        MAX_CSV_MATCHES,
        ge=1,
        le=MAX_CSV_MATCHES,
        description=f"at most this many matches (at most {MAX_CSV_MATCHES:,})",
    )


@router.get(
    "/matches.csv",
    response=errors(401, 404, 503),
    openapi_extra={
        **PUBLIC_OPENAPI,
        **binary_response("finished matches, newest first, one row per seat", "text/csv"),
    },
    url_name="matches_csv",
)
def matches_csv(request: HttpRequest, filters: Query[MatchCsvQuery]):
    """Finished matches as CSV, one row per seat, newest first: at most `limit`
    matches; the next file starts with `before` = the last row's match_id."""
    matches = selected(filters, Match.objects.all()).filter(status=Match.Status.FINISHED)
    if filters.before is not None:
        matches = after(matches, filters.before)  # a bad cursor is refused before streaming
    name = "-".join(
        ["matches"]
        + ([filters.game] if filters.game else [])
        + ([f"bot-{filters.bot}"] if filters.bot else [])
        + ([filters.kind] if filters.kind else [])
        + ([f"tournament-{filters.tournament}"] if filters.tournament else [])
        + ([f"before-{filters.before}"] if filters.before else [])
        + ([f"finished-after-{_stamp(filters.finished_after)}"] if filters.finished_after else [])
        + (
            [f"finished-before-{_stamp(filters.finished_before)}"]
            if filters.finished_before
            else []
        )
    )
    return csv_response(f"{name}.csv", MATCHES_CSV, _seat_rows(matches, filters.limit))


def _stamp(moment: datetime) -> str:
    """A time for a file name: no colons (Windows refuses them)."""
    return moment.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def _seat_rows(matches, limit: int):
    """The matches' seats as CSV rows, `CSV_CHUNK` matches per query (and one
    for their seats), each query a keyset step from the last match read
    (never OFFSET): memory and the cost of each step stay the same however
    long the export."""
    sent, last = 0, None
    while sent < limit:
        step = matches if last is None else older(matches, *last)
        want = min(CSV_CHUNK, limit - sent)
        chunk = list(step.values_list(*CSV_MATCH_COLUMNS.values())[:want])
        seats = defaultdict(list)
        for match_id, *seat in (
            MatchSeat.objects.filter(match_id__in=[m[0] for m in chunk])
            .order_by("match_id", "seat")
            .values_list("match_id", *CSV_SEAT_COLUMNS.values())
        ):
            seats[match_id].append(seat)
        for match in chunk:
            for seat in seats[match[0]]:
                yield [*match, *seat]
        if len(chunk) < want:
            return
        sent += len(chunk)
        created = chunk[-1][list(CSV_MATCH_COLUMNS).index("created_at")]
        last = (created, chunk[-1][0])


@router.get(
    "/matches/{int:match_id}",
    response={200: MatchDetail, **errors(401, 404)},
    openapi_extra=PUBLIC_OPENAPI,
    url_name="match",
)
def match_detail(request: HttpRequest, match_id: int):
    """Seats, ranks, faults and rating changes of one match."""
    return match_out(get_or_404(matches_queryset(), match_id, "match"), caller(request), True)


@router.get(
    "/matches/{int:match_id}/replay",
    response=errors(401, 404, 409),
    openapi_extra={
        **PUBLIC_OPENAPI,
        **binary_response("the replay: gzip-compressed JSON (docs/replays.md)", "application/gzip"),
    },
    url_name="match_replay",
)
def match_replay(request: HttpRequest, match_id: int):
    """The replay file. Bots' debug notes are kept only for the caller's own seats
    (all of them for staff)."""
    match = get_or_404(matches_queryset(), match_id, "match")
    if not match.replay:
        raise ApiError(409, f"match {match.pk} has no replay (status: {match.status})")
    try:
        data, replay = stored_replay(match)
    except ReplayUnavailable as exc:
        raise ApiError(404, f"match {match.pk}: {exc}") from None
    viewer = caller(request)
    seats = list(match.seats.all())
    hidden = {s.seat for s in seats if not sees_private(viewer, s.version.bot)}
    if hidden:
        data = _without_notes(replay, hidden)
    response = HttpResponse(data, content_type="application/gzip")
    response["Content-Disposition"] = f'attachment; filename="match-{match.pk}.replay.json.gz"'
    return response


def _without_notes(replay: dict, seats: set[int]) -> bytes:
    for step in replay.get("steps", []):
        if step.get("seat") in seats:
            step.pop("note", None)
    return replay_to_bytes(replay)


@router.post(
    "/challenges",
    response={201: MatchDetail, **errors(401, 403, 404, 409, 429)},
    auth=SIGNED_IN,
    url_name="challenge",
)
def challenge(request: HttpRequest, data: ChallengeIn):
    """Ask for an unrated match between your bot (seat 0) and the chosen bots.

    Every bot must be of the same game, enabled, and have a ready version; the
    number of seats must be one the game is played by."""
    user = require_user(request)
    try:
        match = create_challenge(user, data.bot, data.opponents, data.options)
    except ChallengeError as exc:
        raise ApiError(exc.status, exc.message, field=exc.field) from None
    return Status(201, match_out(matches_queryset().get(pk=match.pk), user, True))
