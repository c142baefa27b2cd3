"""The match list and its CSV by finishing time (`finished_after` included,
`finished_before` left out; UTC without an offset), their error messages,
and the list's bounded `count`."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta

import pytest

from ladder.matches import create_match
from ladder.models import Match
from tests.api.conftest import ready_bot
from tests.api.test_auth_errors import assert_error

pytestmark = pytest.mark.django_db

NOON = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@pytest.fixture
def timeline(alice, alpha, beta) -> dict[str, int]:
    """Matches finished at known times (created in the same order), alpha in all
    but `other`; `queued` never finished."""
    gamma = ready_bot(alice, "gamma")
    finished = {
        "day_before": NOON - timedelta(days=1),
        "midnight": datetime(2026, 11, 30, tzinfo=UTC),
        "noon": NOON,
        "other": NOON + timedelta(minutes=30),  # gamma vs beta
        "an_hour_on": NOON + timedelta(hours=1),
        "next_day": datetime(2026, 12, 1, tzinfo=UTC),
    }
    ids = {}
    for name, when in finished.items():
        first = gamma if name == "other" else alpha
        match = create_match("splendor-duel", [first.active_version, beta.active_version])
        Match.objects.filter(pk=match.pk).update(
            status="finished", created_at=when - timedelta(minutes=1), finished_at=when
        )
        ids[name] = match.pk
    ids["queued"] = create_match("splendor-duel", [alpha.active_version, beta.active_version]).pk
    return ids


def listed(client, query: str) -> list[int]:
    response = client.get(f"/api/matches?page_size=100&{query}")
    assert response.status_code == 200, response.content
    return [m["id"] for m in response.json()["results"]]


def in_csv(client, query: str) -> list[int]:
    response = client.get(f"/api/matches.csv?{query}")
    assert response.status_code == 200, response.content
    rows = csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode()))
    return list(dict.fromkeys(int(r["match_id"]) for r in rows))  # one row per seat


def names(ids: dict[str, int], *wanted: str) -> list[int]:
    return [ids[w] for w in wanted]


@pytest.mark.parametrize("endpoint", [listed, in_csv])
def test_finished_after_is_included_finished_before_left_out(client, timeline, endpoint) -> None:
    ids = timeline

    def got(query: str) -> list[int]:
        return endpoint(client, query)

    assert got("finished_after=2026-11-30T12:00:00Z") == names(
        ids, "next_day", "an_hour_on", "other", "noon"
    )
    assert got("finished_before=2026-11-30T12:00:00Z") == names(ids, "midnight", "day_before")
    # a date is its midnight, UTC: one day is [that date, the next)
    assert got("finished_after=2026-11-30&finished_before=2026-12-01") == names(
        ids, "an_hour_on", "other", "noon", "midnight"
    )
    # an offset is converted (13:00+01:00 is noon UTC); no offset is UTC
    assert got("finished_after=2026-11-30T13:00:00%2B01:00&finished_before=2026-11-30T12:00:01")[
        :1
    ] == names(ids, "noon")
    assert got("finished_after=2026-11-30t12:30z") == names(ids, "next_day", "an_hour_on", "other")
    # with the bot filter and the cursor
    alpha_day = "finished_after=2026-11-30&finished_before=2026-12-01&bot="
    bot = Match.objects.get(pk=ids["noon"]).seats.get(seat=0).version.bot_id
    assert got(alpha_day + str(bot)) == names(ids, "an_hour_on", "noon", "midnight")
    assert got(f"{alpha_day}{bot}&before={ids['an_hour_on']}") == names(ids, "noon", "midnight")
    assert got(f"finished_before=2026-11-30T12:00:01&before={ids['noon']}") == names(
        ids, "midnight", "day_before"
    )


def test_unfinished_matches_are_left_out_by_either_time_filter(client, timeline) -> None:
    everything = listed(client, "")
    assert timeline["queued"] in everything and len(everything) == 7
    assert timeline["queued"] not in listed(client, "finished_after=2000-01-01")
    assert timeline["queued"] not in listed(client, "finished_before=9999-12-31")
    assert len(listed(client, "finished_after=2000-01-01")) == 6
    page = client.get("/api/matches?finished_after=2026-11-30&page_size=2").json()
    assert (page["count"], page["count_is_exact"]) == (5, True)


@pytest.mark.parametrize(
    ("query", "field", "message"),
    [
        (
            "finished_after=yesterday",
            "query.finished_after",
            "not an ISO 8601 date-time or date: 'yesterday' (e.g. 2026-11-30T13:31:49Z or "
            "2026-11-30)",
        ),
        (
            "finished_before=1700000000",
            "query.finished_before",
            "not an ISO 8601 date-time or date: '1700000000' (e.g. 2026-11-30T13:31:49Z or "
            "2026-11-30)",
        ),
        (
            "finished_after=2026-11-30T13:00:00+01:00",  # the + arrives as a space
            "query.finished_after",
            "not an ISO 8601 date-time or date: '2026-11-30T13:00:00 01:00' (e.g. "
            "2026-11-30T13:31:49Z or 2026-11-30) (a '+' in a query string reads as a "
            "space: send it as %2B)",
        ),
        (
            "finished_before=" + "2026" * 1000,
            "query.finished_before",
            "not an ISO 8601 date-time or date: '" + "2026" * 10 + "…' (e.g. "
            "2026-11-30T13:31:49Z or 2026-11-30)",
        ),
        (
            "finished_before=2026-02-30",
            "query.finished_before",
            "not an ISO 8601 date-time or date: '2026-02-30' (e.g. 2026-11-30T13:31:49Z or "
            "2026-11-30)",
        ),
        (
            "finished_after=9999-12-31T23:00-05:00",
            "query.finished_after",
            "'9999-12-31T23:00-05:00' lies outside the years 1 to 9999",
        ),
        (
            "finished_after=2026-12-01&finished_before=2026-11-30T12:00%2B01:00",
            "query.finished_before",
            "must be later than finished_after (2026-12-01T00:00:00Z): matches are selected "
            "from finished_after (included) up to finished_before (left out)",
        ),
        (
            "finished_after=2026-11-30&finished_before=2026-11-30T00:00:00Z",
            "query.finished_before",
            "must be later than finished_after (2026-11-30T00:00:00Z): matches are selected "
            "from finished_after (included) up to finished_before (left out)",
        ),
    ],
)
def test_bad_times_are_refused_with_a_message(client, query, field, message) -> None:
    for url in ("/api/matches", "/api/matches.csv"):
        response = client.get(f"{url}?{query}")
        assert_error(response, 422, "invalid", field)
        assert response.json()["error"]["message"] == f"{field}: {message}"


def test_csv_file_name_names_the_times(client, timeline) -> None:
    response = client.get("/api/matches.csv?finished_after=2026-11-30T13:00%2B01:00")
    assert (
        'filename="matches-finished-after-20261130T120000Z.csv"'
        in (response["Content-Disposition"])
    )
    response = client.get("/api/matches.csv?kind=ladder&finished_before=2026-12-01")
    assert (
        'filename="matches-ladder-finished-before-20261201T000000Z.csv"'
        in (response["Content-Disposition"])
    )


def test_count_stops_past_the_page_and_says_so(client, timeline, monkeypatch) -> None:
    """The count reads at most COUNT_AHEAD matches past the start of the page
    asked for (the exact count read every match of the filters each time)."""
    monkeypatch.setattr("ladder.api.matches.COUNT_AHEAD", 3)

    def counted(query: str) -> tuple[int, bool]:
        page = client.get(f"/api/matches?{query}").json()
        return page["count"], page["count_is_exact"]

    assert counted("page_size=2") == (3, False)  # 7 matches: "3 or more"
    assert counted("page_size=2&page=2") == (5, False)  # counts 3 past the page's start
    assert counted("page_size=2&page=3") == (7, True)
    assert counted("page_size=2&finished_after=2026-11-30T12:00Z") == (3, False)
    assert counted("page_size=2&page=2&finished_after=2026-11-30T12:00Z") == (4, True)
    assert counted("page_size=2&page=4") == (7, True)  # past the end: exact, empty
    first = client.get("/api/matches?page_size=2").json()
    assert first["next"] is not None and len(first["results"]) == 2
    # the cursor does not move the count (it counts the filters' matches)
    assert counted(f"page_size=2&before={first['next']}") == (3, False)
    monkeypatch.setattr("ladder.api.matches.COUNT_AHEAD", 10_000)
    assert counted("page_size=2") == (7, True)


def test_finished_before_allows_for_clocks_that_disagree(client, timeline) -> None:
    """finished_before also bounds created_at (a match is created before it
    finishes), with CLOCK_SLACK for the scheduler's clock running ahead of
    the worker's."""
    skewed = timeline["midnight"]
    created = datetime(2026, 11, 30, 0, 50, tzinfo=UTC)  # 50 minutes after it finished
    Match.objects.filter(pk=skewed).update(created_at=created)
    assert skewed in listed(client, "finished_before=2026-11-30T00:00:01Z")
    assert skewed in in_csv(client, "finished_before=2026-11-30T00:00:01Z")


@pytest.mark.postgres
def test_time_filters_read_an_index() -> None:
    """`finished_after` (the usual "since my last download") and the bounded
    count read an index of the match table, not all of it."""
    from django.db import connection

    from ladder.api.matches import MatchFilters, matches_queryset, selected
    from tests.conftest import leave_only_indexes

    since = selected(MatchFilters(finished_after="2026-11-30"), matches_queryset())
    until = selected(MatchFilters(finished_before="2026-11-30"), matches_queryset())
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # the table is tiny here
        page = since[:51].explain()
        count = since.order_by().values("pk")[:10_001].explain()
        cursor.execute("SET LOCAL enable_bitmapscan = off")
        # with only the newest-first index left (tests/conftest.py says why),
        # the plan shows whether created_at bounds the walk at all
        leave_only_indexes(cursor, "ladder_match", {"match_newest_first"})
        older = until[:51].explain()
    assert "Index" in page and "Seq Scan" not in page, page
    assert "match_finished_at" in count and "Seq Scan" not in count, count
    # the walk starts at finished_before, not at the newest match (0.8 s at
    # 700,000 matches for a day 19 days back before created_at was bounded)
    assert "match_newest_first" in older and "Index Cond: (created_at <" in older, older
