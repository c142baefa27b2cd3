"""Bots, their versions (uploads) and their rating history."""

from __future__ import annotations

from django.conf import settings
from django.http import FileResponse, HttpRequest, HttpResponse
from ninja import Field, File, Query, Router, Status, UploadedFile

from ladder import bots as bot_service
from ladder.api.auth import PUBLIC, PUBLIC_OPENAPI, SIGNED_IN, caller, require_user, sees_private
from ladder.api.errors import NO_NUL, ApiError, binary_response, errors
from ladder.api.pages import paginate
from ladder.api.schemas import (
    MAX_ID,
    BotIn,
    BotOut,
    BotPage,
    BotPatch,
    PageQuery,
    RatingHistoryPage,
    VersionOut,
    VersionPage,
    bot_out,
    version_out,
)
from ladder.models import Bot, BotVersion, RatingHistory

router = Router(tags=["bots"], auth=PUBLIC)


def get_or_404(queryset, pk: int, what: str, field: str | None = None):
    obj = queryset.filter(pk=pk).first() if 0 < pk <= MAX_ID else None
    if obj is None:
        raise ApiError(404, f"no {what} with id {pk}", field=field)
    return obj


def bots_queryset():
    return Bot.objects.select_related("owner", "active_version", "rating")


class BotFilters(PageQuery):
    game: str | None = Field(
        None, max_length=40, pattern=NO_NUL, description="only bots of this game"
    )
    owner: str | None = Field(
        None, max_length=150, pattern=NO_NUL, description="only this user's bots"
    )
    name: str | None = Field(
        None,
        max_length=40,
        pattern=NO_NUL,
        description="the bot's name, capitals ignored and _ as - (spelling only: 0 does not "
        "find o, unlike the look-alike rule for new names)",
    )
    mine: bool = Field(False, description="only the caller's bots (needs a signed-in caller)")
    enabled: bool | None = None


@router.get(
    "/bots",
    response={200: BotPage, **errors(401)},
    openapi_extra=PUBLIC_OPENAPI,
    url_name="bots",
)
def list_bots(request: HttpRequest, filters: Query[BotFilters]):
    """Bots by game and name, with their ratings."""
    bots = bots_queryset().order_by("game", "name")
    if filters.game:
        bots = bots.filter(game=filters.game)
    if filters.owner:
        bots = bots.filter(owner__username=filters.owner)
    if filters.name:
        bots = bot_service.named(bots, filters.name)  # capitals, '_' = '-'
    if filters.mine:
        bots = bots.filter(owner=require_user(request))
    if filters.enabled is not None:
        bots = bots.filter(enabled=filters.enabled)
    return paginate(bots, filters, bot_out)


@router.post(
    "/bots",
    response={201: BotOut, **errors(401, 403, 404, 409, 429)},
    auth=SIGNED_IN,
    url_name="bot_create",
)
def create_bot(request: HttpRequest, data: BotIn):
    """A new, empty bot of yours; upload its code with POST /api/bots/{id}/versions."""
    user = require_user(request)
    name = data.name  # the schema checked its characters and length; data.game is known
    try:
        bot = bot_service.create_bot(user, data.game, name, data.description.strip())
    except bot_service.NameTakenError as exc:
        raise ApiError(409, str(exc), field="name") from None
    return Status(201, bot_out(bots_queryset().get(pk=bot.pk)))


@router.delete(
    "/bots/{int:bot_id}",
    response={204: None, **errors(401, 403, 404, 409)},
    auth=SIGNED_IN,
    url_name="bot_delete",
)
def delete_bot(request: HttpRequest, bot_id: int):
    """Delete a bot of yours that has no upload yet (e.g. one whose first
    upload was refused); a bot with versions stays (409)."""
    user = require_user(request)
    bot = get_or_404(Bot.objects.all(), bot_id, "bot")
    if bot.owner_id != user.pk:
        raise ApiError(403, "only the bot's owner may delete it")
    try:
        bot_service.delete_empty_bot(bot)
    except bot_service.UploadError as exc:
        raise ApiError(409, str(exc)) from None
    return HttpResponse(status=204)


@router.patch(
    "/bots/{int:bot_id}",
    response={200: BotOut, **errors(401, 403, 404)},
    auth=SIGNED_IN,
    url_name="bot_patch",
)
def patch_bot(request: HttpRequest, bot_id: int, data: BotPatch):
    """Take a bot of yours off the ladder (`{"withdrawn": true}`) or put it back."""
    user = require_user(request)
    bot = get_or_404(Bot.objects.all(), bot_id, "bot")
    if bot.owner_id != user.pk:
        raise ApiError(403, "only the bot's owner may take it off the ladder or put it back")
    bot_service.set_withdrawn(bot, data.withdrawn)
    return bot_out(get_or_404(bots_queryset(), bot_id, "bot"))


@router.get(
    "/bots/{int:bot_id}",
    response={200: BotOut, **errors(401, 404)},
    openapi_extra=PUBLIC_OPENAPI,
    url_name="bot",
)
def bot_detail(request: HttpRequest, bot_id: int):
    return bot_out(get_or_404(bots_queryset(), bot_id, "bot"))


@router.get(
    "/bots/{int:bot_id}/versions",
    response={200: VersionPage, **errors(401, 404)},
    openapi_extra=PUBLIC_OPENAPI,
    url_name="bot_versions",
)
def bot_versions(request: HttpRequest, bot_id: int, query: Query[PageQuery]):
    """A bot's versions, newest first (paged: a bot may be sent 20 uploads an hour
    for as long as it lives)."""
    bot = get_or_404(bots_queryset(), bot_id, "bot")
    viewer = caller(request)
    rows = bot.versions.select_related("bot").order_by("-number")
    return {"bot": bot.pk, **paginate(rows, query, lambda v: version_out(v, viewer))}


@router.post(
    "/bots/{int:bot_id}/versions",
    response={201: VersionOut, **errors(401, 403, 404, 413, 429, 503)},
    auth=SIGNED_IN,
    url_name="version_upload",
)
def upload_version(request: HttpRequest, bot_id: int, file: File[UploadedFile]):
    """Upload a new version: one .py file, or a .zip with main.py at its root (multipart
    field `file`). It starts `pending` and plays validation matches; poll
    GET /api/versions/{id} for `ready` or `rejected` with the reason. A refused upload
    (422, among others a main.py that needs more than the server's time or memory to
    compile) stores nothing; 503 (with Retry-After) means the server could not check
    or store it just now: nothing was stored or counted, try again later."""
    user = require_user(request)
    parts = len(request.FILES.getlist("file"))
    if parts > 1:  # ninja would silently take the last one
        raise ApiError(
            422, f"send one file: the request has {parts} parts named 'file'", field="file"
        )
    bot = get_or_404(bots_queryset(), bot_id, "bot")
    if bot.owner_id != user.pk:
        raise ApiError(403, "only the bot's owner may upload versions of it")
    limit = settings.BOT_UPLOAD_MAX_BYTES
    if file.size is not None and file.size > limit:
        raise ApiError(
            413, f"the file is {file.size:,} bytes; the limit is {limit:,} bytes", field="file"
        )
    data = file.read(limit + 1)
    # UploadError (→ 422 with the reason), LimitError (→ 429) and StorageFailure
    # (→ 503) are mapped in errors.py
    try:
        version = bot_service.add_version(bot, file.name or "main.py", data)
    except bot_service.UploadError as exc:
        bot_service.remember_refused_upload(user, exc)
        raise
    return Status(
        201, version_out(BotVersion.objects.select_related("bot").get(pk=version.pk), user)
    )


@router.get(
    "/versions/{int:version_id}",
    response={200: VersionOut, **errors(401, 404)},
    openapi_extra=PUBLIC_OPENAPI,
    url_name="version",
)
def version_detail(request: HttpRequest, version_id: int):
    """A version's status (pending, ready, rejected) and, when rejected, the reason."""
    version = get_or_404(BotVersion.objects.select_related("bot"), version_id, "version")
    return version_out(version, caller(request))


@router.get(
    "/versions/{int:version_id}/source",
    response=errors(401, 403, 404),
    auth=SIGNED_IN,
    url_name="version_source",
    openapi_extra=binary_response("the uploaded file as it was sent", "application/octet-stream"),
)
def version_source(request: HttpRequest, version_id: int):
    """The uploaded file; only for the bot's owner and staff."""
    user = require_user(request)
    version = get_or_404(BotVersion.objects.select_related("bot"), version_id, "version")
    if not sees_private(user, version.bot):
        raise ApiError(403, "only the bot's owner and staff may download its source")
    return FileResponse(
        version.upload.open("rb"),
        as_attachment=True,
        filename=version.original_name,
        content_type="application/octet-stream",
    )


@router.get(
    "/bots/{int:bot_id}/ratings",
    response={200: RatingHistoryPage, **errors(401, 404)},
    openapi_extra=PUBLIC_OPENAPI,
    url_name="bot_ratings",
)
def rating_history(request: HttpRequest, bot_id: int, query: Query[PageQuery]):
    """The bot's rating after each rated match, oldest first."""
    bot = get_or_404(Bot.objects.all(), bot_id, "bot")
    rows = RatingHistory.objects.filter(bot=bot).order_by("seq")
    page = paginate(
        rows,
        query,
        lambda h: {
            "seq": h.seq,
            "match": h.match_id,
            "version": h.version_id,
            "elo_before": h.elo_before,
            "elo_after": h.elo_after,
            "fitted": h.fitted,
            "fitted_low": h.fitted_low,
            "fitted_high": h.fitted_high,
            "created_at": h.created_at,
        },
    )
    return {"bot": bot.pk, **page}
