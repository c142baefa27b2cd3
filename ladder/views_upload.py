"""Uploading a bot and following its validation."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from ladder.bots import (
    StorageFailure,
    add_version,
    counts_against_limit,
    create_bot,
    remember_refused_upload,
)
from ladder.forms import UploadForm
from ladder.models import BotVersion, Match, MatchSeat
from ladder.pages import can_see_private
from ladder.uploads import CheckUnavailable, UploadError
from ladder.views import found_or_404, reason_with_names


@login_required
def upload(request: HttpRequest) -> HttpResponse:
    form = UploadForm(request.user, request.POST or None, request.FILES or None)
    file_refused = True
    status = 400 if request.method == "POST" else 200
    if request.method == "GET" and request.GET.get("bot"):
        form.initial["bot"] = request.GET["bot"]
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        upload = data["file"]
        try:
            bot = data["bot"]
            if bot is not None:  # outside a transaction: it holds a place in the hourly limit
                version = add_version(bot, upload.name, upload.read())
            else:  # one transaction: a refused first upload leaves no empty new bot behind
                with transaction.atomic():
                    bot = create_bot(request.user, data["game"], data["name"])
                    version = add_version(bot, upload.name, upload.read())
        except (UploadError, ValueError) as exc:
            remember_refused_upload(request.user, exc)  # the transaction is rolled back by now
            form.add_error(None, str(exc))
            # a limit, a name or a bot deleted meanwhile is not the file's
            # fault: "fix the file" would mislead
            file_refused = counts_against_limit(exc)
        except (StorageFailure, CheckUnavailable) as exc:  # the server's fault: nothing counted
            form.add_error(None, str(exc))
            file_refused = False
            status = 503
        else:
            messages.success(request, f"{bot.name} v{version.number} uploaded; validating now.")
            return redirect("version", bot_id=bot.pk, number=version.number)
    # a 503's message says itself that nothing was stored or counted and to try
    # later: not "Refused:", nor "Nothing was stored." a second time
    ctx = {"form": form, "file_refused": file_refused, "server_fault": status == 503}
    return render(request, "ladder/upload.html", ctx, status=status)


def _own_version(request: HttpRequest, bot_id: int, number: int) -> BotVersion:
    version = found_or_404(
        BotVersion.objects.select_related("bot__owner"), "version", bot_id=bot_id, number=number
    )
    if not can_see_private(request.user, version.bot):
        raise Http404("No such version.")
    return version


def version_state(version: BotVersion) -> dict:
    """The validation as the page, status.json and static/js/upload.js show it;
    match reasons name the bots, as on the match page."""
    matches = list(version.validation_matches.order_by("pk").values("pk", "status", "reason"))
    seats: dict[int, list[MatchSeat]] = {m["pk"]: [] for m in matches}
    for seat in (
        MatchSeat.objects.filter(match_id__in=list(seats))
        .select_related("version__bot")
        .only("match_id", "seat", "version__bot__name")
    ):
        seats[seat.match_id].append(seat)
    counts = {s: 0 for s in Match.Status.values}
    for m in matches:
        counts[m["status"]] += 1
    return {
        "bot": version.bot.name,
        "version": version.number,
        "status": version.status,
        "status_label": version.get_status_display(),
        "done": version.status != BotVersion.Status.PENDING,
        "reject_reason": version.reject_reason,
        "stderr_tail": version.stderr_tail,
        "validation_matches": counts,
        "matches": [
            {
                "id": m["pk"],
                "status": m["status"],
                "reason": reason_with_names(m["reason"], seats[m["pk"]]),
            }
            for m in matches
        ],
        "bot_url": reverse("bot", args=[version.bot_id]),
    }


@login_required
def version_detail(request: HttpRequest, bot_id: int, number: int) -> HttpResponse:
    version = _own_version(request, bot_id, number)
    ctx = {"version": version, "state": version_state(version)}
    return render(request, "ladder/version.html", ctx)


@login_required
def version_status(request: HttpRequest, bot_id: int, number: int) -> JsonResponse:
    version = _own_version(request, bot_id, number)
    return JsonResponse(version_state(version))
