"""Public pages: home, status, leaderboards, bots, matches, the queue.

Plain function views. Each page costs a fixed number of queries whatever the
size of the ladder; the helpers that make sure of it live in ladder/pages.py.
"""

from __future__ import annotations

import re
import sys
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.paginator import Paginator
from django.db import DatabaseError
from django.db.models import Count, Q
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template import loader
from django.utils import timezone
from django.views import defaults
from django.views.decorators.http import require_safe

from arena import OptionError, get_game, replay_to_bytes
from ladder.api.errors import database_away
from ladder.api.matches import MAX_CSV_MATCHES
from ladder.challenges import MAX_ID
from ladder.charts import ChartPoint, rating_chart, rating_summary
from ladder.game_options import game_rules, ladder_rules, ladder_rules_of
from ladder.health import DATABASE_AWAY, DATABASE_AWAY_RETRY_S, all_checks
from ladder.matches import names_played_as
from ladder.models import (
    PLAYS_ON_LADDER,
    Bot,
    BotVersion,
    GameFit,
    Match,
    MatchSeat,
    WorkerHeartbeat,
)
from ladder.pages import (
    H2H_SHOWN,
    RECENT_MATCHES,
    SORTS,
    bot_seat_page,
    can_see_private,
    chart_history,
    head_to_head,
    leaderboard_queryset,
    page_number_cursor,
    parse_sort,
    queue_plan,
    trends,
    with_tables,
)
from ladder.results import ReplayUnavailable, replay_present, stored_replay
from ladder.tournament_pages import played_in

LEADERBOARD_PAGE_SIZE = 50
HOME_TOP = 5
#: the bot page's match filter (?kind=): value → label; "" is the default list
MATCH_KINDS = {
    "": "ladder, challenges and tournaments",
    Match.Kind.LADDER: "ladder",
    Match.Kind.CHALLENGE: "challenges",
    Match.Kind.TOURNAMENT: "tournaments",
    Match.Kind.VALIDATION: "validation",
}


def game_or_404(game_id: str):
    try:
        return get_game(game_id)
    except OptionError:
        raise Http404(f"There is no game called “{game_id}”.") from None


def found_or_404(query, what: str, **lookup):
    """get_object_or_404 whose page says "No such bot." rather than Django's
    "No Bot matches the given query."."""
    try:
        return get_object_or_404(query, **lookup)
    except Http404:
        raise Http404(f"No such {what}.") from None


def live_counts() -> dict[str, int]:
    """How many matches are queued and running, in one query (the lists the
    pages show are capped)."""
    return Match.objects.filter(status__in=[Match.Status.QUEUED, Match.Status.RUNNING]).aggregate(
        queued=Count("pk", filter=Q(status=Match.Status.QUEUED)),
        running=Count("pk", filter=Q(status=Match.Status.RUNNING)),
    )


def running_matches(limit: int = 10) -> list[Match]:
    matches = list(
        Match.objects.filter(status=Match.Status.RUNNING).order_by("-started_at")[:limit]
    )
    tables: dict[int, list[MatchSeat]] = {m.pk: [] for m in matches}
    for seat in (
        MatchSeat.objects.filter(match_id__in=list(tables))
        .select_related("version__bot")
        .order_by("match_id", "seat")
    ):
        tables[seat.match_id].append(seat)
    for m in matches:
        m.table = tables[m.pk]
    return matches


def home(request: HttpRequest) -> HttpResponse:
    games = []
    for rules in ladder_rules():
        game = rules.game
        top = leaderboard_queryset(game.id, "rank", False).filter(rating__fitted_rank__isnull=False)
        games.append({"game": game, "rules": rules, "top": list(top[:HOME_TOP])})
    running = running_matches()
    counts = live_counts()
    ctx = {
        "games": games,
        # the "?" after a rating needs its legend on the page (ladder/_prov.html)
        "provisional": any(bot.rating.provisional for entry in games for bot in entry["top"]),
        "running": running,
        "running_count": counts["running"],
        "running_more": counts["running"] - len(running),
        "queued": counts["queued"],
    }
    return render(request, "ladder/home.html", ctx)


def status(request: HttpRequest) -> HttpResponse:
    try:
        request.user.is_staff  # noqa: B018  (the session is read from the database)
    except DatabaseError:
        request.user = AnonymousUser()  # the database is away: answer anyway, as anyone
    checks = all_checks()
    ok = all(c.ok for c in checks)
    if request.GET.get("format") == "json" or request.headers.get("Accept") == "application/json":
        data = {
            "ok": ok,
            "checks": [c.as_json(request.user.is_staff) for c in checks],
        }
        return JsonResponse(data, status=200 if ok else 503)
    # the same status for people: a monitor that reads the page sees the outage
    return render(
        request, "ladder/status.html", {"checks": checks, "ok": ok}, status=200 if ok else 503
    )


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500. A database outage is no bug of the page: it gets a 503
    that says so (templates/503.html, or the API's JSON error) with a
    Retry-After, instead of "Server error". Django has logged the exception
    already; it is still being handled here, so sys.exc_info() names it."""
    if not isinstance(sys.exc_info()[1], DATABASE_AWAY):
        return defaults.server_error(request)
    if request.path_info.startswith("/api/"):
        return database_away()
    # no request context: its processors would read the database again
    response = HttpResponse(loader.get_template("503.html").render(), status=503)
    response["Retry-After"] = str(DATABASE_AWAY_RETRY_S)
    return response


def leaderboard(request: HttpRequest, game: str) -> HttpResponse:
    definition = game_or_404(game)
    key, reverse, problem = parse_sort(request.GET.get("sort"))
    paginator = Paginator(leaderboard_queryset(game, key, reverse), LEADERBOARD_PAGE_SIZE)
    page = paginator.get_page(request.GET.get("page"))
    bots = list(page.object_list)
    trend = trends([b.pk for b in bots])
    for bot in bots:
        bot.trend = trend.get(bot.pk)
    columns = []
    for name, spec in SORTS.items():
        active = name == key
        # a header link sorts best-first; on the active column it flips the direction
        target = f"-{name}" if active and not reverse else name
        columns.append(
            {
                "key": name,
                "label": spec.label,
                "active": active,
                # what the values do down the column (aria-sort and the arrow)
                "ascending": spec.ascending != reverse,
                "href": f"?sort={target}",
            }
        )
    rules = ladder_rules_of(definition)
    ctx = {
        "game": definition,
        "rules": rules,
        "fit": GameFit.objects.filter(game=game).first(),
        "page": page,
        "bots": bots,
        "columns": {c["key"]: c for c in columns},
        "sort": f"-{key}" if reverse else key,
        "sort_problem": problem,
    }
    return render(request, "ladder/leaderboard.html", ctx)


#: the bot page lists this many of a bot's newest versions
VERSIONS_SHOWN = 30
#: and the tournaments it played in, newest first
TOURNAMENTS_SHOWN = 20


def bot_detail(request: HttpRequest, bot_id: int) -> HttpResponse:
    bot = found_or_404(
        Bot.objects.select_related("owner", "rating", "active_version"), "bot", pk=bot_id
    )
    kind = request.GET.get("kind", "")
    kind = kind if kind in MATCH_KINDS else ""
    if "page" in request.GET:  # a link from before the cursors
        query = request.GET.copy()
        number = query.pop("page")[-1]
        for name in ("before", "after"):
            query.pop(name, None)
        for name, value in page_number_cursor(bot, kind or None, number, RECENT_MATCHES).items():
            query[name] = str(value)
        return redirect(f"{request.path}?{query.urlencode()}" if query else request.path)
    private = can_see_private(request.user, bot)
    history = chart_history(bot)
    h2h = head_to_head(bot)
    points = [
        ChartPoint(
            elo=h.elo_after,
            fitted=h.fitted,
            low=h.fitted_low,
            high=h.fitted_high,
            version=h.version.number,
            label=timezone.localtime(h.created_at).strftime("%Y-%m-%d %H:%M"),
        )
        for h in history
    ]
    game = game_or_404(bot.game)
    rules = ladder_rules_of(game)
    cursor, problem = match_cursor(request)
    matches = bot_seat_page(bot, kind or None, **cursor)
    ctx = {
        "bot": bot,
        "game": game,
        "rules": rules,
        "rating": getattr(bot, "rating", None),
        "versions": list(bot.versions.order_by("-number")[:VERSIONS_SHOWN]),
        # the API lists all of them; the page says how many it leaves out
        "versions_total": bot.versions.count(),
        "chart": rating_chart(points, f"Rating history of {bot.name}"),
        "chart_summary": rating_summary(points),
        "chart_size": len(points),
        "chart_has_band": any(p.low is not None for p in points),
        "recent": with_tables(matches.seats),
        "matches_page": matches,
        "cursor_problem": problem,
        "cursor": cursor,
        "kind": kind,
        "match_kinds": MATCH_KINDS.items(),
        "tournaments": played_in(bot.pk, TOURNAMENTS_SHOWN),
        "tournaments_shown": TOURNAMENTS_SHOWN,
        "h2h": h2h[:H2H_SHOWN],
        "h2h_more": max(0, len(h2h) - H2H_SHOWN),
        "private": private,
        "csv_max_matches": f"{MAX_CSV_MATCHES:,}",
    }
    if private:
        ctx["faults"] = list(
            MatchSeat.objects.filter(version__bot=bot)
            .exclude(fault="")
            .select_related("match", "version")
            .order_by("-match_id")[:20]
        )
    return render(request, "ladder/bot.html", ctx, status=400 if problem else 200)


def match_cursor(request: HttpRequest) -> tuple[dict[str, int], str]:
    """The bot page's cursor (`before` or `after`: a match id) and what is
    wrong with it, if anything (the page then shows the newest matches)."""
    given = {name: request.GET[name] for name in ("before", "after") if name in request.GET}
    if len(given) > 1:
        return {}, "before and after: give one of them, not both; showing the newest matches"
    for name, text in given.items():
        if not re.fullmatch(r"[0-9]{1,19}", text.strip()) or int(text) > MAX_ID:
            shown = text if len(text) <= 20 else text[:20] + "…"
            return {}, f"{name}: not a match number: {shown!r}; showing the newest matches"
        return {name: int(text)}, ""
    return {}, ""


def version_source(request: HttpRequest, bot_id: int, number: int) -> HttpResponse:
    """The uploaded file of one version: its owner and staff only."""
    # the same words whether the version is missing or not the viewer's:
    # others do not learn that a version exists
    version = found_or_404(
        BotVersion.objects.select_related("bot"), "file", bot_id=bot_id, number=number
    )
    if not can_see_private(request.user, version.bot):
        raise Http404("No such file.")
    try:
        handle = version.upload.open("rb")
    except (FileNotFoundError, ValueError):
        raise Http404("The uploaded file is missing from storage.") from None
    return FileResponse(handle, as_attachment=True, filename=version.original_name)


def reason_with_names(reason: str, seats: list[MatchSeat]) -> str:
    """The reason with bot names for the 0-based "seat N" of engines and the runner
    ("seat 1 reached 20 prestige points"), as the replay viewer says it."""
    names = {s.seat: s.version.bot.name for s in seats}

    def name(found: re.Match[str]) -> str:
        return names.get(int(found.group(1)), found.group(0))

    return re.sub(r"\bseat (\d+)\b", name, reason)


def winners_line(match: Match, seats: list[MatchSeat]) -> str:
    """Who won a finished match, as the replay viewer's last step says it: an
    engine's reason ("three phases scored") need not name anybody."""
    if match.status != Match.Status.FINISHED:
        return ""
    names = [s.version.bot.name for s in seats if s.rank == 1]
    if len(names) == 1:
        return f"{names[0]} wins"
    if names:
        return "Shared win: " + ", ".join(names[:-1]) + " and " + names[-1]
    return ""


def match_detail(request: HttpRequest, match_id: int) -> HttpResponse:
    match = found_or_404(
        Match.objects.select_related("validates__bot", "tournament"), "match", pk=match_id
    )
    seats = list(match.seats.select_related("version__bot__owner").order_by("seat"))
    mine = [s.seat for s in seats if can_see_private(request.user, s.version.bot)]
    # a finished match whose file is gone (lost in a restore, say)
    replay_missing = match.is_done and bool(match.replay) and not replay_present(match)
    then = {} if replay_missing else names_played_as(match, seats)
    for seat in seats:
        seat.private = seat.seat in mine
        seat.played_as = then.get(seat.seat)
    user = request.user
    game = game_or_404(match.game)
    ctx = {
        "match": match,
        "game": game,
        # the rules this match was created with, not the ladder's current ones
        "rules": game_rules(game, match.options),
        "seats": seats,
        # the API keeps the raw reason; the page names the bots
        "reason": reason_with_names(match.reason, seats),
        "winners": winners_line(match, seats),
        "viewer_is_owner_of_seats": mine,
        # staff read every seat's notes; these are the ones they are told are theirs
        "viewer_owns_seats": [
            s.seat for s in seats if user.is_authenticated and s.version.bot.owner_id == user.pk
        ],
        "faults": [s for s in seats if s.fault],
        "replay_missing": replay_missing,
    }
    return render(request, "ladder/match.html", ctx)


@require_safe
def match_replay(request: HttpRequest, match_id: int) -> HttpResponse:
    """The replay file. Debug notes of seats the viewer does not own are removed."""
    match = found_or_404(Match, "match", pk=match_id)
    if not match.replay:
        raise Http404("This match has no replay (it has not finished).")
    try:
        data, replay = stored_replay(match)
    except ReplayUnavailable as exc:
        raise Http404(f"Match {match.pk}: {exc}.") from None
    user = request.user
    owners = MatchSeat.objects.filter(match=match).values_list("seat", "version__bot__owner_id")
    allowed = {
        seat
        for seat, owner_id in owners
        if user.is_authenticated and (user.is_staff or owner_id == user.pk)
    }
    hidden = [s for s in replay["steps"] if s.get("note") and s.get("seat") not in allowed]
    if hidden:
        for step in hidden:
            del step["note"]
        data = replay_to_bytes(replay)
    response = HttpResponse(data, content_type="application/gzip")
    response["Content-Disposition"] = (
        f'attachment; filename="{match.game}-match-{match.pk}.replay.json.gz"'
    )
    return response


def queue(request: HttpRequest) -> HttpResponse:
    plan = queue_plan()
    now = timezone.now()
    hour_ago = now - timedelta(hours=1)
    finished = Match.objects.filter(finished_at__gte=now - timedelta(hours=24)).aggregate(
        last_hour=Count("pk", filter=Q(finished_at__gte=hour_ago, status=Match.Status.FINISHED)),
        last_day=Count("pk", filter=Q(status=Match.Status.FINISHED)),
        errored=Count("pk", filter=Q(status=Match.Status.ERRORED)),
    )
    per_hour = finished["last_hour"]
    bots_page = Paginator(
        Bot.objects.filter(PLAYS_ON_LADDER)
        .select_related("owner")
        .only("name", "game", "owner__username", "last_played_at")
        .order_by("-last_played_at", "pk"),
        50,
    ).get_page(request.GET.get("page"))
    bots = list(bots_page.object_list)
    playing = set(
        MatchSeat.objects.filter(
            match__status=Match.Status.RUNNING, version__bot__in=[b.pk for b in bots]
        ).values_list("version__bot_id", flat=True)
    )
    for bot in bots:
        bot.playing = bot.pk in playing
        bot.queue_position = plan.position.get(bot.pk)
        if bot.queue_position and per_hour:
            bot.expected_in = timedelta(hours=bot.queue_position / per_hour)
    running = running_matches(limit=50)
    counts = live_counts()
    ctx = {
        "queued": plan.matches,
        "queued_count": counts["queued"],
        "running": running,
        "running_count": counts["running"],
        "running_more": counts["running"] - len(running),
        "workers": list(WorkerHeartbeat.objects.order_by("hostname")),
        "stale_seconds": settings.WORKER_STALE_SECONDS,
        "finished": finished,
        "bots": bots,
        "bots_page": bots_page,
    }
    return render(request, "ladder/queue.html", ctx)
