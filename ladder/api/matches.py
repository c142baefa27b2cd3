"""Matches: lists, details, replay downloads, and challenges (unrated matches on request)."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.db.models import Prefetch
from django.http import HttpRequest, HttpResponse
from ninja import Field, Query, Router, Status

from arena import OptionError, ReplayError, get_game, replay_from_bytes, replay_to_bytes
from ladder.api.auth import PUBLIC, PUBLIC_OPENAPI, SIGNED_IN, caller, require_user, sees_private
from ladder.api.bots import get_or_404
from ladder.api.errors import NO_NUL, ApiError, binary_response, errors
from ladder.api.pages import paginate
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
from ladder.game_options import check_options
from ladder.matches import create_match
from ladder.models import Bot, LadderSettings, Match, MatchSeat, lock_user

router = Router(tags=["matches"], auth=PUBLIC)


def matches_queryset():
    seats = MatchSeat.objects.select_related("version__bot__owner").order_by("seat")
    return Match.objects.select_related("requested_by").prefetch_related(
        Prefetch("seats", queryset=seats)
    )


class MatchFilters(PageQuery):
    game: str | None = Field(None, max_length=40, pattern=NO_NUL)
    bot: int | None = Field(None, ge=1, le=MAX_ID, description="only matches this bot played")
    status: MatchStatus | None = None
    kind: MatchKind | None = None


@router.get(
    "/matches",
    response={200: MatchPage, **errors(401)},
    openapi_extra=PUBLIC_OPENAPI,
    url_name="matches",
)
def list_matches(request: HttpRequest, filters: Query[MatchFilters]):
    """Matches, newest first."""
    matches = matches_queryset().order_by("-created_at", "-pk")
    if filters.game:
        matches = matches.filter(game=filters.game)
    if filters.bot:
        matches = matches.filter(seats__version__bot_id=filters.bot).distinct()
    if filters.status:
        matches = matches.filter(status=filters.status)
    if filters.kind:
        matches = matches.filter(kind=filters.kind)
    viewer = caller(request)
    return paginate(matches, filters, lambda m: match_out(m, viewer))


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
    with match.replay.open("rb") as stream:
        data = stream.read()
    viewer = caller(request)
    seats = list(match.seats.all())
    hidden = {s.seat for s in seats if not sees_private(viewer, s.version.bot)}
    if hidden:
        data = _without_notes(data, hidden)
    response = HttpResponse(data, content_type="application/gzip")
    response["Content-Disposition"] = f'attachment; filename="match-{match.pk}.replay.json.gz"'
    return response


def _without_notes(data: bytes, seats: set[int]) -> bytes:
    try:
        replay = replay_from_bytes(data)
    except ReplayError as exc:
        raise ApiError(500, f"the stored replay cannot be read: {exc}") from None
    for step in replay.get("steps", []):
        if step.get("seat") in seats:
            step.pop("note", None)
    return replay_to_bytes(replay)


def refuse_over_challenge_limit(user) -> None:
    """429 when `user` has MAX_OPEN_CHALLENGES challenges queued or running."""
    open_count = Match.objects.filter(
        kind=Match.Kind.CHALLENGE,
        requested_by=user,
        status__in=[Match.Status.QUEUED, Match.Status.RUNNING],
    ).count()
    limit = settings.MAX_OPEN_CHALLENGES
    if open_count >= limit:
        raise ApiError(
            429,
            f"you have {open_count} challenges queued or running; the limit is "
            f"{limit}. Wait for one to finish.",
        )


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
    # First, unlocked: a request over the limit costs no option check (a large
    # `components` takes seconds). Checked again under the lock below.
    refuse_over_challenge_limit(user)
    bot = get_or_404(Bot.objects.select_related("active_version"), data.bot, "bot", field="bot")
    if bot.owner_id != user.pk:
        raise ApiError(403, "you can challenge only with a bot of your own", field="bot")
    game = get_game(bot.game)
    seat_count = 1 + len(data.opponents)
    if seat_count not in game.seat_counts:
        allowed = ", ".join(str(n - 1) for n in game.seat_counts)
        raise ApiError(
            422,
            f"{game.id} is played by {', '.join(map(str, game.seat_counts))} seats: "
            f"choose {allowed} opponents, not {len(data.opponents)}",
            field="opponents",
        )
    ids = [bot.pk, *data.opponents]
    if len(set(ids)) != len(ids):
        raise ApiError(422, "each bot may take only one seat", field="opponents")
    found = {b.pk: b for b in Bot.objects.select_related("active_version").filter(pk__in=ids)}
    lineup = []
    for bot_id in ids:
        entry = found.get(bot_id)
        field = "bot" if bot_id == bot.pk else "opponents"
        if entry is None:
            raise ApiError(404, f"no bot with id {bot_id}", field=field)
        if entry.game != game.id:
            raise ApiError(422, f"bot {entry.name} plays {entry.game}, not {game.id}", field=field)
        if not entry.enabled:
            raise ApiError(409, f"bot {entry.name} is disabled", field=field)
        if entry.active_version is None:
            raise ApiError(409, f"bot {entry.name} has no ready version yet", field=field)
        lineup.append(entry.active_version)
    # The ladder's rules, with the request's options replacing them key by key.
    ladder_options = LadderSettings.get().options_for(game.id)
    wanted = {**ladder_options, **data.options}
    try:
        # Sets this table up once: options that suit the game but not this many
        # seats (components that do not deal out) fail here, not on a worker.
        options = check_options(game, wanted, [seat_count])
        longest = game.max_steps(game.validate_options(ladder_options))
    except OptionError as exc:
        raise ApiError(422, str(exc), field="options") from None
    if game.max_steps(options) > longest:
        # a longer game only holds a worker longer (and its replay grows)
        raise ApiError(
            422,
            f"a challenge may shorten {game.id} but not lengthen it: at most {longest} "
            "steps, as on the ladder (option step_cap)",
            field="options",
        )
    with transaction.atomic():
        lock_user(user)
        refuse_over_challenge_limit(user)  # again: another request may have won the race
        match = create_match(
            game.id,
            lineup,
            kind=Match.Kind.CHALLENGE,
            rated=False,
            options=options,
            requested_by=user,
        )
    return Status(201, match_out(matches_queryset().get(pk=match.pk), user, True))
