"""Server tournaments on the site: the list and one tournament's standings.

An operator starts a tournament (ladder/tournaments.py); these pages only
read it. The numbers of the standings are `ladder.tournament_table.standings`',
the same as the API's and `arena tournament`'s for the same results.
"""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from ladder.api.matches import MAX_CSV_MATCHES
from ladder.game_options import game_rules
from ladder.models import Match, Tournament
from ladder.tournament_pages import (
    entries_by_id,
    listed_tournaments,
    match_rows,
    progress_line,
    summaries,
)
from ladder.tournament_table import standings
from ladder.views import found_or_404, game_or_404

TOURNAMENTS_PAGE_SIZE = 25
MATCHES_PAGE_SIZE = 50


def tournaments(request: HttpRequest) -> HttpResponse:
    page = Paginator(listed_tournaments(), TOURNAMENTS_PAGE_SIZE).get_page(request.GET.get("page"))
    return render(
        request, "ladder/tournaments.html", {"page": page, "rows": summaries(page.object_list)}
    )


def tournament_detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = found_or_404(
        Tournament.objects.select_related("created_by"), "tournament", pk=tournament_id
    )
    game = game_or_404(tournament.game)
    table = standings(tournament)
    entries = entries_by_id(tournament)
    matches = Paginator(
        Match.objects.filter(tournament=tournament).order_by("pk"), MATCHES_PAGE_SIZE
    ).get_page(request.GET.get("page"))
    ctx = {
        "tournament": tournament,
        "game": game,
        "rules": game_rules(game, tournament.options),
        # each row with its entry's version and bot (the bot's page, its name now)
        "rows": [(row, entries[row.entry.pk]) for row in table.rows],
        "progress": table.progress,
        "progress_line": progress_line(table.progress),
        "page": matches,
        "matches": match_rows(list(matches.object_list), entries.values()),
        "csv_max_matches": f"{MAX_CSV_MATCHES:,}",
    }
    return render(request, "ladder/tournament.html", ctx)
