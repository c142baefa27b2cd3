"""The numbers behind the tournament pages and the API's tournament list:
which tournaments come first, their progress and winners a page at a time,
a tournament's matches with the names their bots played as. The standings
themselves are `ladder.tournament_table.standings`'.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import reduce
from operator import or_

from django.db.models import Case, Count, IntegerField, Q, QuerySet, Value, When

from ladder.matches import seat_label
from ladder.models import Match, MatchSeat, Tournament, TournamentEntry
from ladder.tournament_table import Progress, Row, figures

#: the list's order: running tournaments first, then the others, newest first
RUNNING_FIRST = Case(
    When(status=Tournament.Status.RUNNING, then=Value(0)),
    default=Value(1),
    output_field=IntegerField(),
)


def listed_tournaments(game: str | None = None, status: str | None = None) -> QuerySet:
    """Tournaments as the page and `GET /api/tournaments` list them: running
    ones first, then finished and cancelled ones together, newest first."""
    found = Tournament.objects.all()
    if game:
        found = found.filter(game=game)
    if status:
        found = found.filter(status=status)
    return found.order_by(RUNNING_FIRST, "-created_at", "-pk")


@dataclass(frozen=True)
class Winner:
    """The first of a finished tournament's standings."""

    label: str
    bot_id: int | None


@dataclass(frozen=True)
class Summary:
    """One tournament of a list: how many bots, how far it is, who won."""

    tournament: Tournament
    bots: int
    progress: Progress
    #: once the tournament is finished; else None
    winner: Winner | None

    @property
    def line(self) -> str:
        return progress_line(self.progress)


def summaries(tournaments: Iterable[Tournament]) -> list[Summary]:
    """The list's rows for a page of tournaments: a query each for the bots,
    the matches and the winners of the whole page (the first of each
    finished one's stored table, `ladder.tournament_table.figures`)."""
    tournaments = list(tournaments)
    ids = [t.pk for t in tournaments]
    bots = dict(
        TournamentEntry.objects.filter(tournament_id__in=ids)
        .values_list("tournament_id")
        .annotate(n=Count("pk"))
        .order_by()
    )
    counts: dict[int, dict[str, int]] = defaultdict(dict)
    for tournament_id, status, n in (
        Match.objects.filter(tournament_id__in=ids)
        .values_list("tournament_id", "status")
        .annotate(n=Count("pk"))
        .order_by()
    ):
        counts[tournament_id][status] = n
    progress = {}
    for t in tournaments:
        by_status = counts[t.pk]
        progress[t.pk] = Progress(
            total=sum(by_status.values()),
            **{s: by_status.get(s, 0) for s in Match.Status.values},
        )
    firsts = [
        Q(tournament=t, position=figures(t, progress[t.pk])[0]["position"])
        for t in tournaments
        if t.status == Tournament.Status.FINISHED
    ]
    winners = {
        e.tournament_id: Winner(e.label, e.version.bot_id)
        for e in (
            TournamentEntry.objects.filter(reduce(or_, firsts)).select_related("version")
            if firsts
            else []
        )
    }
    return [Summary(t, bots.get(t.pk, 0), progress[t.pk], winners.get(t.pk)) for t in tournaments]


def winner_of(tournament: Tournament, rows: list[Row]) -> Winner | None:
    """The first of a finished tournament's standings `rows`; None for the others."""
    if tournament.status != Tournament.Status.FINISHED or not rows:
        return None
    return Winner(rows[0].label, rows[0].bot_id)


def progress_line(progress: Progress) -> str:
    """ "41 of 60 matches played, 2 running, 1 errored" (the parts that are not
    zero); "0 of 1 match played" for a tournament of one match."""
    noun = "match" if progress.total == 1 else "matches"
    line = f"{progress.finished} of {progress.total} {noun} played"
    for name in ("running", "errored", "cancelled"):
        count = getattr(progress, name)
        if count:
            line += f", {count} {name}"
    return line


def with_renames(entries: list[TournamentEntry]) -> list[TournamentEntry]:
    """Each entry with `renamed`: its bot's name now if staff renamed the bot
    since the tournament started (the entry's label keeps the old one), else
    empty. The versions' bots must be loaded."""
    for e in entries:
        e.renamed = e.version.bot.name if e.label != seat_label(e.version) else ""
    return entries


def entries_by_id(tournament: Tournament) -> dict[int, TournamentEntry]:
    """The tournament's entries with their versions and bots (`with_renames`), by id."""
    found = TournamentEntry.objects.filter(tournament=tournament).select_related("version__bot")
    return {e.pk: e for e in with_renames(list(found))}


@dataclass(frozen=True)
class MatchRow:
    match: Match
    #: the entries at the table, by seat
    seats: list[TournamentEntry]
    #: each seat's rank and fault, by seat (empty until the match is over)
    ranks: list[int | None]
    faults: list[str]

    @property
    def winners(self) -> list[TournamentEntry]:
        return [e for e, rank in zip(self.seats, self.ranks, strict=True) if rank == 1]

    @property
    def faulted(self) -> list[tuple[TournamentEntry, str]]:
        return [(e, f) for e, f in zip(self.seats, self.faults, strict=True) if f]


def match_rows(matches: list[Match], entries: Iterable[TournamentEntry]) -> list[MatchRow]:
    """A page of a tournament's matches with the entry at each seat, one query."""
    by_version = {e.version_id: e for e in entries}
    seats: dict[int, list[MatchSeat]] = defaultdict(list)
    for seat in (
        MatchSeat.objects.filter(match_id__in=[m.pk for m in matches])
        .only("match_id", "seat", "version_id", "rank", "fault")
        .order_by("match_id", "seat")
    ):
        seats[seat.match_id].append(seat)
    return [
        MatchRow(
            m,
            [by_version[s.version_id] for s in seats[m.pk]],
            [s.rank for s in seats[m.pk]],
            [s.fault for s in seats[m.pk]],
        )
        for m in matches
    ]


def played_in(bot_id: int, limit: int) -> list[TournamentEntry]:
    """The bot's entries in tournaments, newest tournament first."""
    return with_renames(
        list(
            TournamentEntry.objects.filter(version__bot_id=bot_id)
            .select_related("tournament", "version__bot")
            .order_by("-tournament__created_at", "-tournament_id")[:limit]
        )
    )
