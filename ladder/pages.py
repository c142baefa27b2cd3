"""The numbers behind the pages: leaderboard rows, trends, head-to-head, queue
positions. Each function costs a fixed number of queries, whatever the size
of the ladder (docs/web.md has the measurements).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.db import connection
from django.db.models import (
    Case,
    F,
    FloatField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.expressions import RawSQL
from django.db.models.functions import Cast, Coalesce

from ladder.models import Bot, BotVersion, Match, MatchSeat, RatingHistory

#: the trend column: rating change over a bot's last N rated matches
TREND_MATCHES = 10
#: head-to-head counts cover a bot's most recent matches only, so a bot page
#: costs the same for a bot with a hundred matches and one with a million
H2H_MATCHES = 1000
#: the rating chart shows a bot's most recent rated matches
CHART_MATCHES = 500
RECENT_MATCHES = 20


def can_see_private(user, bot: Bot) -> bool:
    """The bot's owner and staff see its source, stderr and fault details."""
    return bool(user.is_authenticated and (user.pk == bot.owner_id or user.is_staff))


# -- leaderboard -------------------------------------------------------------------


@dataclass(frozen=True)
class SortKey:
    label: str
    #: order_by() arguments for the natural direction (best first)
    natural: tuple
    reverse: tuple
    #: the natural direction is A→Z / 1→n (rank, names), not highest first
    ascending: bool = False


def _desc(name: str) -> F:
    return F(name).desc(nulls_last=True)


def _asc(name: str) -> F:
    return F(name).asc(nulls_last=True)


SORTS: dict[str, SortKey] = {
    # bots the fit has not placed yet come last, by incremental Elo (as the API says)
    "rank": SortKey(
        "#",
        (_asc("rating__fitted_rank"), _desc("rating__elo"), "name", "pk"),
        (_desc("rating__fitted_rank"), _asc("rating__elo"), "-name", "-pk"),
        True,
    ),
    "bot": SortKey("bot", ("name",), ("-name",), True),
    "owner": SortKey("owner", ("owner__username", "name"), ("-owner__username", "-name"), True),
    "rating": SortKey("rating", (_desc("rating__fitted"), "pk"), (_asc("rating__fitted"), "-pk")),
    "elo": SortKey("Elo", (_desc("rating__elo"), "pk"), (_asc("rating__elo"), "-pk")),
    "games": SortKey(
        "games", (_desc("rating__elo_games"), "pk"), (_asc("rating__elo_games"), "-pk")
    ),
    "winrate": SortKey("win rate", (_desc("win_rate"), "pk"), (_asc("win_rate"), "-pk")),
    "played": SortKey(
        "last played", (_desc("last_played_at"), "pk"), (_asc("last_played_at"), "-pk")
    ),
}
DEFAULT_SORT = "rank"


def parse_sort(raw: str | None) -> tuple[str, bool, str]:
    """(key, reversed, problem) for a ?sort= value such as "games" or "-games"."""
    raw = (raw or DEFAULT_SORT).strip()
    reverse = raw.startswith("-")
    key = raw.lstrip("-")
    if key not in SORTS:
        known = ", ".join(SORTS)
        return DEFAULT_SORT, False, f"unknown sort {raw!r} (known: {known}); sorted by rank"
    return key, reverse, ""


#: Who is on a leaderboard: bots with an accepted version or rated games (not
#: a bot that was only named, or whose every upload was rejected).
ON_LEADERBOARD = Q(active_version__isnull=False) | Q(rating__elo_games__gt=0)


def leaderboard_queryset(
    game: str, key: str = DEFAULT_SORT, reverse: bool = False
) -> QuerySet[Bot]:
    """The leaderboard's bots with their ratings, in the order of `key`: the
    one query behind the page, GET /api/games/{game}/leaderboard and its CSV
    (the API's two leave out disabled bots)."""
    spec = SORTS[key]
    win_rate = Case(
        When(rating__elo_games=0, then=Value(None)),
        default=Cast("rating__wins", FloatField()) / Cast("rating__elo_games", FloatField()),
        output_field=FloatField(),
    )
    return (
        Bot.objects.filter(ON_LEADERBOARD, game=game, rating__isnull=False)
        .select_related("owner", "rating")
        .only(
            "name",
            "game",
            "owner__username",
            "enabled",
            "withdrawn",
            "paused_reason",
            "is_builtin",
            "last_played_at",
            "active_version_id",
            "rating__elo",
            "rating__elo_games",
            "rating__wins",
            "rating__fitted",
            "rating__fitted_low",
            "rating__fitted_high",
            "rating__provisional",
            "rating__fitted_rank",
        )
        .annotate(win_rate=win_rate)
        .order_by(*(spec.reverse if reverse else spec.natural))
    )


def with_trend(bots: QuerySet[Bot], last: int = TREND_MATCHES) -> QuerySet[Bot]:
    """Annotate `trend`: the Elo change over each bot's last `last` rated matches.

    A correlated subquery per row, walking the (bot, seq) index backwards, so
    a page of 50 bots costs the same whether they played ten matches or ten
    thousand.
    """
    history = RatingHistory.objects.filter(bot_id=OuterRef("pk")).values("elo_before")
    start = Coalesce(
        Subquery(history.order_by("-seq")[last - 1 : last]),
        Subquery(history.order_by("seq")[:1]),
    )
    return bots.annotate(trend=F("rating__elo") - start)


def trends(bot_ids: list[int]) -> dict[int, float]:
    """The trend of a page of bots, in one query of its own: annotating the
    sorted leaderboard query instead would compute it for every row the sort
    reads (and every row an OFFSET skips), not just the page's."""
    rows = with_trend(Bot.objects.filter(pk__in=bot_ids)).values_list("pk", "trend")
    return dict(rows) if bot_ids else {}


# -- bot page ----------------------------------------------------------------------


def bot_seats(
    bot: Bot,
    kind: str | None = None,
    first: int | None = None,
    before: int | None = None,
    after: int | None = None,
) -> QuerySet[MatchSeat]:
    """The bot's seats, newest match first; only matches of `kind` if given,
    else all but validation matches (trials against the random bot, whose
    page would otherwise list nothing else). Page it, then `with_tables`.
    With `before`, only the seats of older matches (a smaller match id);
    with `after`, only those of newer ones, and then oldest first (the page
    just above a cursor: `bot_seat_page`).

    With `first`, only (a few more than) the first `first` of them: on
    PostgreSQL each of the bot's versions' seats are then read from the
    (version, match) index, from the cursor on, `first` at most per version.
    Without that the database found a page by walking every bot's seats from
    the newest match backwards until enough were the bot's: fast for a bot
    that plays all the time, but 190 ms at 200,000 matches for a bot whose
    matches lie far back in the history (a bot disabled long ago), and
    growing with the history."""
    seats = MatchSeat.objects.filter(version__bot=bot)
    if kind:
        seats = seats.filter(match__kind=kind)
    else:
        seats = seats.exclude(match__kind=Match.Kind.VALIDATION)
    if before is not None:
        seats = seats.filter(match_id__lt=before)
    if after is not None:
        seats = seats.filter(match_id__gt=after)
    if first is not None and connection.vendor == "postgresql":
        seats = seats.filter(pk__in=RawSQL(*_first_seats_sql(bot, kind, first, before, after)))
    order = "match_id" if after is not None else "-match_id"
    return seats.select_related("match", "version").order_by(order)


def _first_seats_sql(
    bot: Bot, kind: str | None, first: int, before: int | None, after: int | None
) -> tuple[str, list]:
    """The ids of each version's first `first` seats of the kind in the order
    of `bot_seats` (LATERAL: PostgreSQL only). Its own index walk per
    version, starting at the cursor and stopping at `first`."""
    seat, match, version = (m._meta.db_table for m in (MatchSeat, Match, BotVersion))
    # The match's kind is tested in a subquery per seat, not a join: joined,
    # the planner walked the whole match table backwards alongside (a merge
    # join). And the test is the subquery's boolean, which the planner takes
    # to pass half the rows: `(SELECT kind ...) = 'ladder'` it expected to pass
    # 0.5 %, and read and sorted all the version's seats instead of the index.
    kind_test = "=" if kind else "<>"
    params: list = [kind or Match.Kind.VALIDATION.value]
    cursor = ""
    for test, value in (("<", before), (">", after)):
        if value is not None:
            cursor += f"AND s.match_id {test} %s "
            params.append(value)
    sql = (
        f'SELECT s.id FROM "{version}" v CROSS JOIN LATERAL ('
        f'SELECT s.id FROM "{seat}" s WHERE s.version_id = v.id AND '
        f'(SELECT m.kind {kind_test} %s FROM "{match}" m WHERE m.id = s.match_id) {cursor}'
        f"ORDER BY s.match_id {'ASC' if after is not None else 'DESC'} LIMIT %s) s "
        "WHERE v.bot_id = %s"
    )
    return sql, [*params, max(first, 0), bot.pk]


@dataclass
class SeatPage:
    """A page of the bot's matches (its seats, newest first) and the cursors
    of its neighbours: `newer` the `after` of the page above (None on the
    first page), `older` the `before` of the page below (None on the last)."""

    seats: list[MatchSeat]
    newer: int | None = None
    older: int | None = None

    @property
    def span(self) -> str:
        """The matches shown: "#120 to #101"."""
        return f"#{self.seats[0].match_id} to #{self.seats[-1].match_id}" if self.seats else ""


def bot_seat_page(
    bot: Bot,
    kind: str | None = None,
    *,
    before: int | None = None,
    after: int | None = None,
    size: int = RECENT_MATCHES,
) -> SeatPage:
    """The page of the bot's matches just below match `before` (older ones),
    just above match `after` (newer ones), or else the first page.

    Keyset paging: a page is a walk of the (version, match) index from the
    cursor on (`bot_seats(first=size + 1)`, one more than the page to see
    whether another follows), plus one step the other way to see whether a
    page lies there, so a deep page costs what the first does. Page numbers
    (OFFSET) read every seat before the page: `?page=300` of the busiest bot
    at 200,000 matches took 133 ms. A page above `after` that would reach the
    newest match is the first page, so the first page is always the same."""

    def walk(count: int, **cursor: int) -> list[MatchSeat]:
        return list(bot_seats(bot, kind, first=count, **cursor)[:count])

    if after is not None:
        rows = walk(size + 1, after=after)
        if len(rows) > size:
            seats = rows[:size][::-1]
            oldest = seats[-1].match_id
            return SeatPage(seats, seats[0].match_id, oldest if walk(1, before=oldest) else None)
        before = None  # the first page
    rows = walk(size + 1) if before is None else walk(size + 1, before=before)
    seats = rows[:size]
    older = seats[-1].match_id if len(rows) > size else None
    newer = None
    if seats and before is not None and walk(1, after=seats[0].match_id):
        newer = seats[0].match_id
    return SeatPage(seats, newer, older)


def page_number_cursor(bot: Bot, kind: str | None, number: object, size: int) -> dict[str, int]:
    """The cursor (`before` or `after`) of an old page-numbered link
    (`?page=N`): the page below the last match of page N - 1; past the end
    the oldest page; for page 1, or a number that is none, the first page.
    Found with OFFSET, once: the page's links go on with cursors."""
    try:
        number = min(int(str(number)), 10**9)
    except ValueError:
        return {}
    if number <= 1:
        return {}
    skipped = (number - 1) * size
    last = bot_seats(bot, kind, first=skipped)[skipped - 1 : skipped].first()
    return {"before": last.match_id} if last else {"after": 0}


def with_tables(own: list[MatchSeat]) -> list[MatchSeat]:
    """Each seat with every seat of its match as `.table`, in one query."""
    others: dict[int, list[MatchSeat]] = defaultdict(list)
    for seat in (
        MatchSeat.objects.filter(match_id__in=[s.match_id for s in own])
        .select_related("version__bot")
        .only("match_id", "seat", "rank", "fault", "version__number", "version__bot__name")
        .order_by("match_id", "seat")
    ):
        others[seat.match_id].append(seat)
    for seat in own:
        seat.table = others[seat.match_id]
    return own


@dataclass
class HeadToHead:
    bot_id: int
    name: str = ""
    wins: int = 0  # this bot ranked ahead of the opponent
    losses: int = 0
    draws: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def score(self) -> float:
        return (self.wins + self.draws / 2) / self.games if self.games else 0.0


def head_to_head(bot: Bot, last: int = H2H_MATCHES) -> list[HeadToHead]:
    """Pairwise results against every opponent over the bot's last rated matches.

    They are the bot's last rating-history rows (one per rated match), read
    from the (bot, seq) index backwards: finding them among its seats instead
    looked up every match the bot ever played to see whether it was rated,
    and sorted them all (20 ms for 7,800 matches; linear in the bot's matches)."""
    recent = RatingHistory.objects.filter(bot=bot).order_by("-seq").values("match_id")[:last]
    rows = (
        MatchSeat.objects.filter(match_id__in=recent)
        .values_list("match_id", "version__bot_id", "version__bot__name", "rank")
        .order_by()
    )
    tables: dict[int, list[tuple[int, str, int | None]]] = defaultdict(list)
    for match_id, bot_id, name, rank in rows:
        tables[match_id].append((bot_id, name, rank))
    result: dict[int, HeadToHead] = {}
    for table in tables.values():
        mine = [rank for b, _, rank in table if b == bot.pk]
        if not mine or mine[0] is None:
            continue
        for other, name, rank in table:
            if other == bot.pk or rank is None:
                continue
            row = result.setdefault(other, HeadToHead(other, name))
            if mine[0] < rank:
                row.wins += 1
            elif mine[0] > rank:
                row.losses += 1
            else:
                row.draws += 1
    return sorted(result.values(), key=lambda r: (-r.games, r.name))


H2H_SHOWN = 20


def chart_history(bot: Bot, last: int = CHART_MATCHES) -> list[RatingHistory]:
    rows = list(
        RatingHistory.objects.filter(bot=bot)
        .select_related("version")
        .only(
            "seq",
            "elo_after",
            "fitted",
            "fitted_low",
            "fitted_high",
            "created_at",
            "version__number",
        )
        .order_by("-seq")[:last]
    )
    rows.reverse()
    return rows


# -- queue -------------------------------------------------------------------------


@dataclass
class QueuePlan:
    """Where each bot stands in the queue: the position of its first queued match."""

    matches: list[Match] = field(default_factory=list)
    position: dict[int, int] = field(default_factory=dict)


def queue_plan(limit: int = 2000) -> QueuePlan:
    """Queued matches in the order workers take them, 2 queries: validation
    matches first, then the others (ladder, challenges) together, each oldest
    first (ladder.matches.queue_for)."""
    validation_first = Case(When(kind=Match.Kind.VALIDATION, then=Value(0)), default=Value(1))
    matches = list(
        Match.objects.filter(status=Match.Status.QUEUED).order_by(
            validation_first, "created_at", "pk"
        )[:limit]
    )
    index = {m.pk: i + 1 for i, m in enumerate(matches)}
    seats: dict[int, list[MatchSeat]] = defaultdict(list)
    plan = QueuePlan(matches)
    for seat in (
        MatchSeat.objects.filter(match_id__in=list(index))
        .select_related("version__bot")
        .only("match_id", "seat", "version__number", "version__bot__name")
        .order_by("match_id", "seat")
    ):
        seats[seat.match_id].append(seat)
        pos = index[seat.match_id]
        bot_id = seat.version.bot_id
        if bot_id not in plan.position or pos < plan.position[bot_id]:
            plan.position[bot_id] = pos
    for m in matches:
        m.table = seats[m.pk]
    return plan
