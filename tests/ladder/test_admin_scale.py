"""The admin on a long history: no query per row, no filter that reads a
whole table, and platform rows that cannot be edited by hand."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from ladder.bots import install_builtin
from ladder.models import Bot, BotVersion, Match, MatchSeat, RatingHistory, WorkerHeartbeat
from tests.ladder.test_admin import played, url

pytestmark = pytest.mark.django_db

GAME = "splendor-duel"


def test_changelists_stay_cheap_as_rows_grow(admin_client, alice) -> None:
    """No query per row, and no filter that reads a whole table for its values."""
    pages = [url(m, "changelist") for m in (Bot, BotVersion, Match, MatchSeat, RatingHistory)]

    def queries(page: str) -> list[str]:
        with CaptureQueriesContext(connection) as captured:
            assert admin_client.get(page).status_code == 200
        return [q["sql"] for q in captured]

    other = install_builtin(GAME, "random", bot_name="opponent")

    def add_bots(names) -> None:
        for name in names:
            bot = install_builtin(GAME, "random", owner=alice, bot_name=name)
            played([bot.active_version, other.active_version])

    add_bots(["row-a", "row-b"])
    few = {page: len(queries(page)) for page in pages}
    add_bots([f"row-{i}" for i in range(8)])
    for page in pages:
        sql = queries(page)
        assert len(sql) == few[page], page
        assert not [q for q in sql if "SELECT DISTINCT" in q], page
    # the game and fault filters still filter
    assert (
        "10 matches"
        in admin_client.get(url(Match, "changelist") + f"?game={GAME}").content.decode()
    )
    other_game = admin_client.get(url(Match, "changelist") + "?game=edel-stein-reich")
    assert "0 matches" in other_game.content.decode()
    faulted = admin_client.get(url(MatchSeat, "changelist") + "?fault=crash").content.decode()
    assert "0 match seats" in faulted
    # a match is found by its number; other text finds nothing instead of failing
    match = Match.objects.first()
    sql = queries(url(Match, "changelist") + f"?q={match.pk}")
    assert not [q for q in sql if "::text" in q or "UPPER(" in q]  # the key's index, not a cast
    found = admin_client.get(url(Match, "changelist") + f"?q={match.pk}").content.decode()
    assert f"/admin/ladder/match/{match.pk}/change/" in found and "1 match" in found
    assert admin_client.get(url(Match, "changelist") + "?q=abc").status_code == 200


def test_worker_heartbeats_are_not_edited_by_hand(admin_client) -> None:
    row = WorkerHeartbeat.objects.create(hostname="w1", self_test_ok=False, self_test_detail="x")
    page = admin_client.get(url(WorkerHeartbeat, "change", row.pk)).content.decode()
    assert 'name="self_test_ok"' not in page and 'name="self_test_detail"' not in page


@pytest.mark.postgres  # the estimate is PostgreSQL's (pg_class); SQLite counts
def test_big_unfiltered_lists_estimate_their_total(admin_client, monkeypatch) -> None:
    from ladder.admin_filters import EstimatedCountPaginator

    other = install_builtin(GAME, "random", bot_name="opponent")
    bot = install_builtin(GAME, "random", bot_name="counted")
    for _ in range(3):
        played([bot.active_version, other.active_version])
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE ladder_match")  # what autovacuum keeps up to date
    monkeypatch.setattr(EstimatedCountPaginator, "ESTIMATE_ABOVE", 0)  # 3 rows are "big"

    def counts(page: str) -> list[str]:
        with CaptureQueriesContext(connection) as captured:
            response = admin_client.get(page)
        assert "3 matches" in response.content.decode()
        return [
            q["sql"] for q in captured if 'COUNT(*) AS "__count" FROM "ladder_match"' in q["sql"]
        ]

    assert counts(url(Match, "changelist")) == []  # the estimate
    assert len(counts(url(Match, "changelist") + f"?game={GAME}")) == 1  # filtered: exact
