"""Server tournaments: the list and one tournament's standings (read only;
operators start them, docs/operations.md). What they send is declared here,
next to the only two operations that send it."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema

from ladder.api.auth import PUBLIC, PUBLIC_OPENAPI
from ladder.api.bots import get_or_404
from ladder.api.errors import NO_NUL, errors
from ladder.api.schemas import PageMeta, PageQuery, VersionRef
from ladder.models import Tournament
from ladder.tournament_pages import (
    Summary,
    entries_by_id,
    listed_tournaments,
    summaries,
    winner_of,
)
from ladder.tournament_table import Progress, Row, standings

router = Router(tags=["tournaments"], auth=PUBLIC)

TournamentStatus = Literal["running", "finished", "cancelled"]


class ProgressOut(Schema):
    total: int = Field(description="matches of the schedule")
    queued: int
    running: int
    finished: int
    errored: int = Field(description="the platform failed to play them: they count for no one")
    cancelled: int


class WinnerOut(Schema):
    label: str = Field(description="the name the bot played as")
    bot: int | None = Field(description="the bot's id; null if it was deleted")


class TournamentOut(Schema):
    id: int
    name: str
    game: str
    players: int = Field(description="seats a match")
    games: int = Field(description="games a table of the schedule")
    seed: int | None = Field(
        description="the first game's seed, once the tournament is over (it gives every "
        "match's deal)"
    )
    options: dict[str, Any]
    status: TournamentStatus
    reason: str = Field(description="why it was cancelled; empty otherwise")
    created_at: datetime
    finished_at: datetime | None
    bots: int
    progress: ProgressOut
    winner: WinnerOut | None = Field(description="the first of the standings, once finished")


class TournamentPage(PageMeta):
    results: list[TournamentOut]


class EntryOut(Schema):
    position: int = Field(description="the bot's index in the schedule")
    label: str = Field(description="the name it plays as (kept if the bot is renamed)")
    bot: int | None = Field(description="the bot's id; null if it was deleted")
    version: VersionRef = Field(description="the version it plays, pinned at the start")


class StandingOut(Schema):
    rank: int
    position: int = Field(description="the entry's position (`entries`)")
    label: str
    bot: int | None
    games: int = Field(description="finished matches it played")
    wins: float = Field(description="first places; a shared one split between its seats")
    win_rate: float | None
    win_low: float | None = Field(description="Wilson 95% interval of the win rate, low end")
    win_high: float | None
    first_alone: float | None = Field(
        description="rate of first places alone, ahead of every other seat"
    )
    first_low: float | None = Field(description="Wilson 95% interval of `first_alone`, low end")
    first_high: float | None
    avg_rank: float | None
    elo: float | None = Field(description="Bradley–Terry fit over the finished matches, mean 1500")
    elo_low: float | None = Field(description="95% interval, low end")
    elo_high: float | None
    faults: int = Field(description="matches it forfeited")


class TournamentDetail(TournamentOut):
    created_by: str | None
    entries: list[EntryOut]
    standings: list[StandingOut] = Field(description="best first: `arena tournament`'s order")


class TournamentFilters(PageQuery):
    game: str | None = Field(None, max_length=40, pattern=NO_NUL)
    status: TournamentStatus | None = None


def progress_out(progress: Progress) -> dict:
    return {name: getattr(progress, name) for name in ProgressOut.model_fields}


def standing_out(rank: int, row: Row) -> dict:
    out = {name: getattr(row, name) for name in StandingOut.model_fields if hasattr(row, name)}
    return {**out, "rank": rank, "position": row.entry.position, "bot": row.bot_id}


def tournament_out(summary: Summary) -> dict:
    t, winner = summary.tournament, summary.winner
    return {
        "id": t.pk,
        "name": t.name,
        "game": t.game,
        "players": t.players,
        "games": t.games,
        # before the end the seed would tell everyone the deals still to come
        "seed": t.seed if t.status != Tournament.Status.RUNNING else None,
        "options": t.options,
        "status": t.status,
        "reason": t.reason,
        "created_at": t.created_at,
        "finished_at": t.finished_at,
        "bots": summary.bots,
        "progress": progress_out(summary.progress),
        "winner": {"label": winner.label, "bot": winner.bot_id} if winner else None,
    }


@router.get(
    "/tournaments",
    response={200: TournamentPage, **errors()},
    openapi_extra=PUBLIC_OPENAPI,
    url_name="tournaments",
)
def list_tournaments(request: HttpRequest, filters: Query[TournamentFilters]):
    """Tournaments, running ones first, then the others, newest first."""
    found = listed_tournaments(filters.game, filters.status)
    start = (filters.page - 1) * filters.page_size
    page = summaries(found[start : start + filters.page_size])
    return {
        "count": found.count(),
        "page": filters.page,
        "page_size": filters.page_size,
        "results": [tournament_out(s) for s in page],
    }


@router.get(
    "/tournaments/{int:tournament_id}",
    response={200: TournamentDetail, **errors(404)},
    openapi_extra=PUBLIC_OPENAPI,
    url_name="tournament",
)
def tournament_detail(request: HttpRequest, tournament_id: int):
    """One tournament: its entries, standings (the site's and `arena tournament`'s
    numbers) and progress."""
    tournament = get_or_404(
        Tournament.objects.select_related("created_by"), tournament_id, "tournament"
    )
    table = standings(tournament)
    entries = entries_by_id(tournament).values()
    summary = Summary(tournament, len(entries), table.progress, winner_of(tournament, table.rows))
    return {
        **tournament_out(summary),
        "created_by": tournament.created_by.username if tournament.created_by else None,
        "entries": [
            {
                "position": e.position,
                "label": e.label,
                "bot": e.version.bot_id,
                "version": {"id": e.version_id, "number": e.version.number},
            }
            for e in sorted(entries, key=lambda e: e.position)
        ],
        "standings": [standing_out(i, row) for i, row in enumerate(table.rows, 1)],
    }
