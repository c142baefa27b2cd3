"""A server tournament's standings: `arena tournament`'s table over its
finished matches (`count_game`, `ranked`, `wilson_interval`), so the numbers
are the ones `arena tournament` prints for the same results.

The Elo fit costs 0.3-0.4 s at a few thousand matches, so a table is fitted
once per state of its tournament. Once no match is left to play (finished,
or cancelled and its last running match over) the final table is stored in
`Tournament.final_table`, in the transaction that recorded the last result
(`ladder.results.finish_tournaments`, which calls `fitted`); a tournament
that ended before tables were stored gets its own at its first view. A
running tournament's table is kept in Django's cache under its count of
finished matches, which each recorded result moves on.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.cache import cache
from django.db.models import Count, Q

from arena import ROW_FIGURES, Standing, count_game, pair_results, ranked, wilson_interval
from ladder.models import Match, MatchSeat, Tournament, TournamentEntry

#: how long a running tournament's table stays in the cache (a new result
#: makes a new key before that)
LIVE_TABLE_SECONDS = 3600


@dataclass(frozen=True)
class Progress:
    """A tournament's matches by status."""

    total: int
    queued: int
    running: int
    finished: int
    errored: int
    cancelled: int


#: a standings line's figures: what is stored (`Tournament.final_table`) and
#: cached of a `Row`, with its entry's `position`
FIGURES = (
    "games",
    "wins",
    "win_rate",
    "win_low",
    "win_high",
    "first_alone",
    "first_low",
    "first_high",
    "avg_rank",
    "elo",
    "elo_low",
    "elo_high",
    "faults",
)


@dataclass(frozen=True)
class Row:
    """One bot's line of the standings. The figures are None while it has
    no finished match. `wins` counts first places, a shared one split
    between those who share it (as `arena tournament`'s win rate), and
    `win_low`/`win_high` bound the win rate (Wilson, 95 %); `first_alone`
    is the rate of first places ahead of every other seat, with arena's
    interval `first_low`/`first_high`. The Elo is a fit over this
    tournament's finished matches only (mean 1500, 95 % interval)."""

    entry: TournamentEntry
    bot_id: int | None
    label: str
    games: int
    wins: float
    win_rate: float | None
    win_low: float | None
    win_high: float | None
    first_alone: float | None
    first_low: float | None
    first_high: float | None
    avg_rank: float | None
    elo: float | None
    elo_low: float | None
    elo_high: float | None
    faults: int


@dataclass(frozen=True)
class Table:
    rows: list[Row]
    progress: Progress


def _counted(
    tournament: Tournament,
) -> tuple[list[TournamentEntry], list[Standing], list[list[tuple[int, int, float]]]]:
    """The entries by position, and the standings and pair results of the
    finished matches, as arena's table counts them."""
    entries = list(tournament.entries.select_related("version").order_by("position"))
    position = {e.version_id: e.position for e in entries}
    standings = [Standing() for _ in entries]
    games: list[list[tuple[int, int, float]]] = []
    seats = (
        MatchSeat.objects.filter(match__tournament=tournament, match__status=Match.Status.FINISHED)
        .order_by("match_id", "seat")
        .values_list("match_id", "version_id", "rank", "fault")
    )
    by_match: dict[int, list[tuple[int, int, str]]] = {}
    for match_id, version_id, rank, fault in seats:
        by_match.setdefault(match_id, []).append((position[version_id], rank, fault))
    for match_seats in by_match.values():
        bots = [b for b, _, _ in match_seats]
        ranks = [r for _, r, _ in match_seats]
        count_game(standings, bots, ranks, [bool(f) for _, _, f in match_seats])
        games.append([(bots[a], bots[b], s) for a, b, s in pair_results(ranks)])
    return entries, standings, games


def progress(tournament: Tournament) -> Progress:
    counts = tournament.matches.aggregate(
        total=Count("pk"),
        **{s: Count("pk", filter=Q(status=s)) for s in Match.Status.values},
    )
    return Progress(**counts)


def fitted(tournament: Tournament) -> list[dict]:
    """The standings' figures fitted over the finished matches now, best
    first (by Elo; bots with no finished match last): each line's entry
    `position` and its `FIGURES`, plain data for the database and the cache."""
    entries, table, games = _counted(tournament)
    lines = []
    for b, elo, half in ranked(table, games):
        st = table[b]
        played = elo is not None and half is not None
        win = wilson_interval(st.wins, st.games) if played else (None, None)
        first = wilson_interval(st.sole_firsts, st.games) if played else (None, None)
        lines.append(
            {
                "position": entries[b].position,
                "games": st.games,
                "wins": st.wins,
                "win_rate": st.win_rate if played else None,
                "win_low": win[0],
                "win_high": win[1],
                "first_alone": st.sole_first_rate if played else None,
                "first_low": first[0],
                "first_high": first[1],
                "avg_rank": st.rank_sum / st.games if played else None,
                "elo": elo,
                "elo_low": elo - half if played else None,
                "elo_high": elo + half if played else None,
                "faults": st.faults,
            }
        )
    return lines


def figures(tournament: Tournament, done: Progress) -> list[dict]:
    """`fitted`'s lines without fitting more than needed: the stored final
    table; for a tournament with no match left to play but no table stored
    (it ended before tables were), the table fitted and stored now; for a
    running one, the cached table of its `done.finished` finished matches."""
    if tournament.final_table is not None:
        return tournament.final_table
    if tournament.status != Tournament.Status.RUNNING and not (done.queued or done.running):
        lines = fitted(tournament)
        # a concurrent first view may have stored it: the same lines
        Tournament.objects.filter(pk=tournament.pk, final_table__isnull=True).update(
            final_table=lines
        )
        tournament.final_table = lines
        return lines
    # the creation time too: a test database may hand the same id out again
    key = f"tournament-table:{tournament.pk}:{tournament.created_at.timestamp()}:{done.finished}"
    lines = cache.get(key)
    if lines is None:
        lines = fitted(tournament)
        cache.set(key, lines, timeout=LIVE_TABLE_SECONDS)
    return lines


def standings(tournament: Tournament) -> Table:
    """The standings, best first (by Elo; bots with no finished match last),
    and the matches' progress: two queries besides `figures`' own."""
    done = progress(tournament)
    entries = {e.position: e for e in tournament.entries.select_related("version")}
    rows = []
    for line in figures(tournament, done):
        entry = entries[line["position"]]
        figures_of = {name: line[name] for name in FIGURES}
        rows.append(Row(entry=entry, bot_id=entry.version.bot_id, label=entry.label, **figures_of))
    return Table(rows=rows, progress=done)


def table_rows(table: Table) -> list[dict]:
    """`standings` in the rows `arena tournament` prints (`arena.table_lines`)
    and writes to --json, from the stored or cached figures: nothing is fitted
    again for a finished tournament."""
    rows = []
    for row in table.rows:
        line = {"bot": row.label, "games": row.games, "faults": row.faults}
        if row.elo is None:
            line |= dict.fromkeys(ROW_FIGURES)
        else:
            line |= {
                "win_rate": row.win_rate,
                "first_alone": row.first_alone,
                "first_alone_ci95": [row.first_low, row.first_high],
                "avg_rank": row.avg_rank,
                "elo": row.elo,
                "elo_ci95_half_width": (row.elo_high - row.elo_low) / 2,
            }
        rows.append(line)
    return rows
