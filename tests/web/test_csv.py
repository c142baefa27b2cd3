"""CSV downloads: the leaderboard and finished matches (ladder/csv_export.py,
the `.csv` endpoints of ladder/api/games.py and matches.py) say what the JSON
says, hide what it hides, take its filters and its error messages, and walk a
long export with a cursor."""

from __future__ import annotations

import csv
import gc
import io

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from ladder.api.games import LEADERBOARD_CSV
from ladder.api.matches import MATCHES_CSV
from ladder.csv_export import BUSY_RETRY_AFTER_S, MAX_STREAMS, cell
from ladder.matches import create_match
from ladder.models import Bot, Match, Rating
from tests.web.conftest import make_bot, play
from tests.web.test_pages import names_in_order

pytestmark = pytest.mark.django_db


def read_csv(response) -> list[dict[str, str]]:
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith('attachment; filename="')
    assert response.streaming
    text = b"".join(response.streaming_content).decode("utf-8")
    return list(csv.DictReader(io.StringIO(text)))


def header_of(response) -> list[str]:
    text = b"".join(response.streaming_content).decode("utf-8")
    return next(csv.reader(io.StringIO(text)))


def as_cell(value) -> str:
    """A JSON value as its CSV cell."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@pytest.fixture
def ladder(alice, bob):
    """alice-a and bob-b placed by the fit; two unplaced bots whose Elo order
    is not their creation order; a disabled and a withdrawn, paused bot."""
    a, b = make_bot(alice, "alice-a"), make_bot(bob, "bob-b")
    play([a, b], [1, 2])
    play([b, a], [2, 1])
    last = play([a, b], [2, 1], faults={0: "crash"}, stderr={0: "Traceback: alice oops"})
    Rating.objects.filter(bot=a).update(
        fitted=1560.25, fitted_low=1500, fitted_high=1620.5, fitted_rank=1
    )
    Rating.objects.filter(bot=b).update(
        fitted=1440, fitted_low=1380, fitted_high=1500, fitted_rank=2
    )
    low, high = make_bot(alice, "unplaced-low"), make_bot(bob, "unplaced-high")
    Rating.objects.filter(bot=low).update(elo=1400)
    Rating.objects.filter(bot=high).update(elo=1600)
    gone = make_bot(bob, "disabled-one")
    Bot.objects.filter(pk=gone.pk).update(enabled=False)
    off = make_bot(alice, "off-ladder")
    Bot.objects.filter(pk=off.pk).update(withdrawn=True, paused_reason="5 faults in a row")
    return a, b, last


def test_leaderboard_csv_is_the_json_leaderboard_in_its_order(client: Client, ladder) -> None:
    response = client.get("/api/games/splendor-duel/leaderboard.csv")
    assert response["Content-Disposition"] == (
        'attachment; filename="splendor-duel-leaderboard.csv"'
    )
    rows = read_csv(response)
    assert list(rows[0]) == list(LEADERBOARD_CSV)
    board = client.get("/api/games/splendor-duel/leaderboard").json()["results"]
    assert len(rows) == len(board) == 5
    for row, json_row in zip(rows, board, strict=True):
        flat = {**json_row, **{f"bot_{k}": v for k, v in json_row.pop("bot").items()}}
        flat["owner"] = flat.pop("bot_owner")
        assert row == {name: as_cell(flat[name]) for name in LEADERBOARD_CSV}
    names = [r["bot_name"] for r in rows]
    # placed by rank, then the unplaced by incremental Elo (not by creation)
    assert names[:4] == ["alice-a", "bob-b", "unplaced-high", "off-ladder"]
    assert names[4] == "unplaced-low"
    assert rows[0]["rank"] == "1" and rows[0]["fitted_high"] == "1620.5"
    off = rows[3]
    assert (off["withdrawn"], off["paused_reason"]) == ("true", "5 faults in a row")
    # the page: the same bots in the same order, the disabled one besides
    page = names_in_order(client.get("/games/splendor-duel/").content.decode())
    assert [n for n in page if n != "disabled-one"] == names
    assert "disabled-one" in page and "disabled-one" not in names


def test_leaderboard_page_links_its_csv(client: Client, ladder) -> None:
    html = client.get("/games/splendor-duel/").content.decode()
    assert 'href="/api/games/splendor-duel/leaderboard.csv" download>Download CSV</a>' in html
    empty = client.get("/api/games/edel-stein-reich/leaderboard.csv")
    assert header_of(empty) == list(LEADERBOARD_CSV)


def test_matches_csv_rows_are_the_json_details_without_private_parts(
    client: Client, ladder, alice, carol
) -> None:
    a, b, _ = ladder
    queued = create_match("splendor-duel", [a.active_version, b.active_version])
    rows = read_csv(client.get("/api/matches.csv"))
    assert list(rows[0]) == list(MATCHES_CSV)
    finished = list(Match.objects.filter(status="finished").order_by("-created_at", "-pk"))
    assert [int(r["match_id"]) for r in rows[::2]] == [m.pk for m in finished]
    assert str(queued.pk) not in {r["match_id"] for r in rows}  # finished matches only
    for row in rows:
        detail = client.get(f"/api/matches/{row['match_id']}").json()
        seat = detail["seats"][int(row["seat"])]
        expected = {
            **{k: detail[k] for k in ("game", "kind", "tournament", "rated", "seat_count")},
            "rules_version": detail["rules_version"],
            **{k: detail[k] for k in ("created_at", "finished_at", "steps", "seed")},
            **{k: seat[k] for k in ("seat", "rank", "score", "fault", "think_ms")},
            **{k: seat[k] for k in ("elo_before", "elo_change")},
            "match_id": detail["id"],
            "bot_id": seat["bot"]["id"],
            "bot_name": seat["bot"]["name"],
            "owner": seat["bot"]["owner"],
            "version_id": seat["version"]["id"],
            "version_number": seat["version"]["number"],
        }
        assert row == {k: as_cell(v) for k, v in expected.items()}
    assert any(r["fault"] == "crash" for r in rows)
    assert all(r["elo_change"] for r in rows)  # rated ladder matches
    # the owner and staff see stderr in the JSON; a CSV is the same for everyone
    for user in (alice, carol):
        client.force_login(user)
        body = b"".join(client.get("/api/matches.csv").streaming_content).decode()
        assert "alice oops" not in body and "Traceback" not in body
        assert body.count("\r\n") == len(rows) + 1


def test_matches_csv_takes_the_json_lists_filters(client: Client, ladder, alice, bob) -> None:
    a, b, _ = ladder
    c, d = make_bot(alice, "third"), make_bot(bob, "fourth")
    play([c, d], [1, 2])
    challenge = play([a, d], [1, 2])
    Match.objects.filter(pk=challenge.pk).update(kind="challenge")

    def ids(query: str) -> list[int]:
        return [int(r["match_id"]) for r in read_csv(client.get(f"/api/matches.csv?{query}"))]

    def json_ids(query: str) -> list[int]:
        page = client.get(f"/api/matches?status=finished&page_size=100&{query}").json()
        return [m["id"] for m in page["results"] for _ in m["seats"]]

    for query in (f"bot={a.pk}", f"bot={d.pk}", "kind=challenge", "kind=ladder", "game=x"):
        assert ids(query) == json_ids(query), query
    assert set(ids(f"bot={d.pk}")) == {challenge.pk, challenge.pk - 1}
    assert ids("kind=challenge") == [challenge.pk, challenge.pk]
    assert ids("game=edel-stein-reich") == []
    assert ids(f"bot={c.pk}&kind=challenge") == []
    named = client.get(f"/api/matches.csv?bot={a.pk}&kind=ladder")
    assert f'filename="matches-bot-{a.pk}-ladder.csv"' in named["Content-Disposition"]
    assert header_of(named) == list(MATCHES_CSV)  # read: its stream is given back


def test_matches_csv_walks_with_a_cursor_without_offset(
    client: Client, ladder, monkeypatch
) -> None:
    a, b, _ = ladder
    for _ in range(4):
        play([a, b], [1, 2])
    # created at the same moment: the cursor's tie-break is the id
    Match.objects.filter(pk__in=list(Match.objects.values_list("pk", flat=True))[:4]).update(
        created_at=Match.objects.order_by("pk").first().created_at
    )
    monkeypatch.setattr("ladder.api.matches.CSV_CHUNK", 2)  # several keyset steps a file
    everything = [int(r["match_id"]) for r in read_csv(client.get("/api/matches.csv"))][::2]
    assert len(everything) == 7 == len(set(everything))
    walked, before = [], None
    with CaptureQueriesContext(connection) as queries:
        while True:
            query = "limit=3" + (f"&before={before}" if before else "")
            got = [int(r["match_id"]) for r in read_csv(client.get(f"/api/matches.csv?{query}"))]
            assert len(got) <= 6  # at most 3 matches (2 seats each)
            walked += got[::2]
            if len(got) < 6:
                break
            before = got[-1]
    assert walked == everything
    assert not [q for q in queries.captured_queries if "OFFSET" in q["sql"].upper()]


@pytest.mark.parametrize(
    "query",
    [
        "bot=0",
        "bot=x",
        "kind=friendly",
        f"before={10**19}",
        "game=" + "g" * 41,
        "before=-1",
        "tournament=0",
        "tournament=x",
        f"tournament={10**19}",
    ],
)
def test_bad_parameters_get_the_json_lists_error(client: Client, query: str) -> None:
    response = client.get(f"/api/matches.csv?{query}")
    json_list = client.get(f"/api/matches?{query}")
    assert response.status_code == json_list.status_code == 422
    assert response["Content-Type"] == "application/json"
    assert response.json() == json_list.json()
    assert response.json()["error"]["message"].startswith("query.")


def test_bad_limit_unknown_cursor_and_unknown_game(client: Client) -> None:
    for limit in ("0", "10001", "many"):
        error = client.get(f"/api/matches.csv?limit={limit}").json()["error"]
        assert (error["code"], error["field"]) == ("invalid", "query.limit")
    too_many = client.get("/api/matches.csv?limit=10001").json()["error"]["message"]
    assert too_many == "query.limit: Input should be less than or equal to 10000"
    unknown = client.get("/api/matches.csv?before=987654")
    assert unknown.status_code == 404
    assert unknown.json()["error"] == client.get("/api/matches?before=987654").json()["error"]
    game = client.get("/api/games/chess/leaderboard.csv")
    assert game.status_code == 404 and "chess" in game.json()["error"]["message"]


def test_cells_that_start_like_a_formula_get_an_apostrophe() -> None:
    for text in ("=1+2", "+1", "-2+3", "@SUM(A1)", "\tx", "\rx"):
        assert cell(text) == "'" + text
    assert cell("a=b") == "a=b" and cell("") == ""
    assert cell(-16.0) == "-16.0" and cell(-3) == "-3"  # numbers are numbers
    assert (cell(True), cell(None)) == ("true", "")


def test_user_names_cannot_inject_formulas(client: Client, django_user_model) -> None:
    evil = django_user_model.objects.create_user("=HYPERLINK(1)", "e@example.org", "pw-123456")
    at = django_user_model.objects.create_user("@evil", "a@example.org", "pw-123456")
    x, y = make_bot(evil, "x-bot"), make_bot(at, "y-bot")
    play([x, y], [1, 2])
    Rating.objects.filter(bot=x).update(elo=1600)
    board = read_csv(client.get("/api/games/splendor-duel/leaderboard.csv"))
    assert [r["owner"] for r in board] == ["'=HYPERLINK(1)", "'@evil"]
    matches = read_csv(client.get("/api/matches.csv"))
    assert [r["owner"] for r in matches] == ["'=HYPERLINK(1)", "'@evil"]
    assert matches[1]["elo_change"].startswith("-")  # a number stays a number


def test_bot_page_links_its_matches_csv(client: Client, ladder) -> None:
    a, _, _ = ladder
    html = client.get(f"/bots/{a.pk}/").content.decode()
    assert f'href="/api/matches.csv?bot={a.pk}" download>' in html
    assert "at most 10,000 matches a file" in html
    ladder_only = client.get(f"/bots/{a.pk}/?kind=ladder").content.decode()
    assert f'href="/api/matches.csv?bot={a.pk}&amp;kind=ladder" download>' in ladder_only


@pytest.mark.parametrize(
    "game, filename",
    [
        # a quote would end the file name and add a parameter of the caller's
        ('x"; filename="evil.bat', "matches-x_filename_evil.bat.csv"),
        # CR/LF in a header made Django raise (a 500) instead of answering
        ("x\r\nSet-Cookie: a=1", "matches-x_Set-Cookie_a_1.csv"),
        ("../../etc/passwd", "matches-.._.._etc_passwd.csv"),
    ],
)
def test_the_file_name_keeps_only_safe_characters_of_the_query(
    client: Client, game: str, filename: str
) -> None:
    """The matches CSV names its file after the query, whose `game` is the
    caller's text: a link could otherwise choose the name (and its extension)
    that a victim's browser saves."""
    response = client.get("/api/matches.csv", {"game": game})
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="{filename}"'
    assert header_of(response) == list(MATCHES_CSV)  # read, and closed: the stream given back


def test_a_web_process_streams_at_most_max_streams_downloads(client: Client, ladder) -> None:
    """A 10,000-match export holds a thread for seconds: callers asking for
    many at once get 503 beyond MAX_STREAMS, and a stream is given back when
    the server closes it, sent or not (a HEAD)."""
    gc.collect()  # a response an earlier test dropped unread gives its stream back
    for _ in range(MAX_STREAMS + 1):  # HEADs and finished downloads hold nothing
        head = client.head("/api/matches.csv")
        # never read, but closed (the test client closes a response once
        # its content is read, here none)
        assert head.status_code == 200 and not b"".join(head.streaming_content)
        read_csv(client.get("/api/games/splendor-duel/leaderboard.csv"))
    sending = [client.get("/api/matches.csv") for _ in range(MAX_STREAMS)]
    busy = client.get("/api/games/splendor-duel/leaderboard.csv")
    assert busy.status_code == 503
    assert busy["Retry-After"] == str(BUSY_RETRY_AFTER_S)
    assert busy.json()["error"] == {
        "code": "unavailable",
        "message": f"the server is sending {MAX_STREAMS} other CSV downloads just now; "
        f"try again in {BUSY_RETRY_AFTER_S} s",
        "field": None,
    }
    assert read_csv(sending.pop())  # one is sent: its stream is free
    rows = read_csv(client.get("/api/matches.csv"))
    assert rows and all(row["match_id"] for row in rows)
    for response in sending:
        read_csv(response)
