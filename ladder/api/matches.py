"""Matches: lists, details, replay downloads, and challenges (unrated matches on request)."""

from __future__ import annotations

from django.db.models import Prefetch
from django.http import HttpRequest, HttpResponse
from ninja import Field, Query, Router, Schema, Status

from arena import replay_to_bytes
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


class MatchSelection(Schema):
    """The filters of the match list and its CSV."""

    game: str | None = Field(None, max_length=40, pattern=NO_NUL)
    bot: int | None = Field(None, ge=1, le=MAX_ID, description="only matches this bot played")
    kind: MatchKind | None = None
    before: int | None = Field(
        None,
        ge=1,
        le=MAX_ID,
        description="only matches listed after this one (older): the `next` of the "
        "previous answer; `page` then counts from it",
    )


class MatchFilters(PageQuery, MatchSelection):
    status: MatchStatus | None = None


def selected(filters: MatchSelection, matches):
    """The matches `game`, `bot` and `kind` select, newest first; the cursor
    (`before`) is the caller's to apply (the list counts before it)."""
    matches = matches.order_by("-created_at", "-pk")
    if filters.game:
        matches = matches.filter(game=filters.game)
    if filters.bot:
        matches = matches.filter(seats__version__bot_id=filters.bot).distinct()
    if filters.kind:
        matches = matches.filter(kind=filters.kind)
    return matches


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
    count = matches.count()  # of the filters, whatever the cursor
    if filters.before is not None:
        matches = after(matches, filters.before)
    # one row more than the page says whether any follow (`next`)
    start = (filters.page - 1) * filters.page_size
    rows = list(matches[start : start + filters.page_size + 1])
    page, more = rows[: filters.page_size], len(rows) > filters.page_size
    viewer = caller(request)
    return {
        "count": count,
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

#: a CSV row per seat: the match's fields, then the seat's (the JSON detail's
#: names; `bot` and `version` spelled out)
MATCHES_CSV = (
    "match_id",
    "game",
    "kind",
    "rated",
    "seat_count",
    "rules_version",
    "created_at",
    "finished_at",
    "steps",
    "seed",
    "seat",
    "bot_id",
    "bot_name",
    "owner",
    "version_id",
    "version_number",
    "rank",
    "score",
    "fault",
    "think_ms",
    "elo_before",
    "elo_change",
)


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
    response=errors(401, 404),
    openapi_extra={
        **PUBLIC_OPENAPI,
        **binary_response("finished matches, newest first, one row per seat", "text/csv"),
    },
    url_name="matches_csv",
)
def matches_csv(request: HttpRequest, filters: Query[MatchCsvQuery]):
    """Finished matches as CSV, one row per seat, newest first: at most `limit`
    matches; the next file starts with `before` = the last row's match_id."""
    matches = selected(filters, matches_queryset()).filter(status=Match.Status.FINISHED)
    if filters.before is not None:
        matches = after(matches, filters.before)  # a bad cursor is refused before streaming
    name = "-".join(
        ["matches"]
        + ([filters.game] if filters.game else [])
        + ([f"bot-{filters.bot}"] if filters.bot else [])
        + ([filters.kind] if filters.kind else [])
        + ([f"before-{filters.before}"] if filters.before else [])
    )
    return csv_response(f"{name}.csv", MATCHES_CSV, _seat_rows(matches, filters.limit))


def _seat_rows(matches, limit: int):
    """The matches' seats as CSV rows, `CSV_CHUNK` matches per query, each query
    a keyset step from the last match read (never OFFSET): memory and the cost
    of each step stay the same however long the export. Built by `match_out`
    as for an anonymous caller: the JSON's numbers, none of its private parts."""
    sent, last = 0, None
    while sent < limit:
        step = matches if last is None else older(matches, *last)
        want = min(CSV_CHUNK, limit - sent)
        chunk = list(step[:want])
        for match in chunk:
            out = match_out(match, None, detail=True)
            for seat in out["seats"]:
                yield [
                    out["id"],
                    out["game"],
                    out["kind"],
                    out["rated"],
                    out["seat_count"],
                    out["rules_version"],
                    out["created_at"],
                    out["finished_at"],
                    out["steps"],
                    out["seed"],
                    seat["seat"],
                    seat["bot"]["id"],
                    seat["bot"]["name"],
                    seat["bot"]["owner"],
                    seat["version"]["id"],
                    seat["version"]["number"],
                    seat["rank"],
                    seat["score"],
                    seat["fault"],
                    seat["think_ms"],
                    seat["elo_before"],
                    seat["elo_change"],
                ]
        if len(chunk) < want:
            return
        sent += len(chunk)
        last = (chunk[-1].created_at, chunk[-1].pk)


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
