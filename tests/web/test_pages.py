"""Public pages: home, leaderboard (sorting, paging), bot, match, replay, queue."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from arena import replay_from_bytes
from ladder.bots import create_bot
from ladder.models import Bot, Match, Rating, WorkerHeartbeat
from ladder.templatetags.ladder_tags import elo, signed
from tests.web.conftest import make_bot, play

pytestmark = pytest.mark.django_db


def names_in_order(html: str) -> list[str]:
    return re.findall(r'<a href="/bots/\d+/">([^<]+)</a>', html)


@pytest.fixture
def ladder(alice, bob):
    """alice-a beats bob-b twice, then bob-b wins once with alice-a crashing."""
    a, b = make_bot(alice, "alice-a"), make_bot(bob, "bob-b")
    play([a, b], [1, 2], notes={0: "alice secret plan", 1: "bob secret plan"})
    play([b, a], [2, 1])
    last = play([a, b], [2, 1], faults={0: "crash"}, stderr={0: "Traceback: alice oops"})
    Rating.objects.filter(bot=a).update(
        fitted=1560, fitted_low=1500, fitted_high=1620, fitted_rank=1
    )
    Rating.objects.filter(bot=b).update(
        fitted=1440, fitted_low=1380, fitted_high=1500, fitted_rank=2
    )
    return a, b, last


def test_home_shows_games_top_bots_running_and_queue(client: Client, ladder) -> None:
    a, b, _ = ladder
    running = Match.objects.create(
        game="splendor-duel", seat_count=2, seed=1, rules_version="x", status=Match.Status.RUNNING
    )
    running.seats.create(seat=0, version=a.active_version)
    Match.objects.create(game="splendor-duel", seat_count=2, seed=2, rules_version="x")
    text = client.get("/").content.decode()
    assert "Splendor Duel" in text and "Edel, Stein" in text
    assert "alice-a" in text and "bob-b" in text
    assert f'href="/matches/{running.pk}/"' in text
    assert "1 queued" in text


def test_home_says_what_the_question_mark_after_a_rating_means(client: Client, ladder) -> None:
    """QA: the home page's top 5 marked provisional ratings with a "?" that only a
    mouse's hover explained; the leaderboard has a legend, and now so has the home page."""
    legend = "marks a provisional rating (fewer than 20 rated matches, or a wide interval)"
    text = client.get("/").content.decode()
    assert text.count('class="prov"') == 3  # two ratings and the legend
    assert legend in re.sub(r"<[^>]+>", "", text)
    Rating.objects.update(provisional=False)
    text = client.get("/").content.decode()
    assert 'class="prov"' not in text and legend not in text


def test_home_and_queue_count_every_running_match(client: Client, ladder) -> None:
    """QA: the home page's "N running" counted its list, which stops at 10."""
    Match.objects.bulk_create(
        Match(game="splendor-duel", seat_count=2, seed=i, rules_version="x", status="running")
        for i in range(53)
    )
    home = client.get("/").content.decode()
    assert "53 running" in home and "… and 43 more" in home
    queue = client.get("/queue/").content.decode()
    assert re.search(r'Running</span><span class="value">53<', queue)
    assert "… and 3 more." in queue


def test_leaderboard_columns_and_house_values_note(client: Client, ladder) -> None:
    text = client.get("/games/splendor-duel/").content.decode()
    assert names_in_order(text)[:2] == ["alice-a", "bob-b"]
    assert "±60" in text  # half of the 95 % interval
    assert "67%" in text  # alice won 2 of 3
    assert "never" not in text  # both played
    from arena import get_game

    notice = get_game("edel-stein-reich").notice
    assert notice
    esr = client.get("/games/edel-stein-reich/").content.decode()
    assert notice[:40] in esr.replace("&#x27;", "'")


def test_edel_stein_reich_bot_and_match_pages_say_house_values(client: Client, alice) -> None:
    from arena import get_game

    notice = get_game("edel-stein-reich").notice[:40]
    esr = make_bot(alice, "baron", game="edel-stein-reich")
    sd = make_bot(alice, "duelist")
    for game, bot, shown in (("edel-stein-reich", esr, True), ("splendor-duel", sd, False)):
        match = Match.objects.create(game=game, seat_count=3, seed=1, rules_version="x")
        for url in (f"/bots/{bot.pk}/", f"/matches/{match.pk}/"):
            text = client.get(url).content.decode().replace("&#x27;", "'")
            assert (notice in text) == shown, url


def test_leaderboard_sorts_server_side(client: Client, ladder) -> None:
    by_rank = names_in_order(client.get("/games/splendor-duel/?sort=rank").content.decode())
    assert by_rank[:2] == ["alice-a", "bob-b"]
    reversed_ = names_in_order(client.get("/games/splendor-duel/?sort=-rank").content.decode())
    assert reversed_[:2] == ["bob-b", "alice-a"]
    by_name = names_in_order(client.get("/games/splendor-duel/?sort=-bot").content.decode())
    assert by_name[:2] == ["bob-b", "alice-a"]
    winrate = names_in_order(client.get("/games/splendor-duel/?sort=winrate").content.decode())
    assert winrate[:2] == ["alice-a", "bob-b"]
    bad = client.get("/games/splendor-duel/?sort=colour")
    assert bad.status_code == 200
    assert "unknown sort" in bad.content.decode()


def test_leaderboard_pages(client: Client, alice, monkeypatch) -> None:
    monkeypatch.setattr("ladder.views.LEADERBOARD_PAGE_SIZE", 3)
    bots = Bot.objects.bulk_create(
        Bot(owner=alice, game="splendor-duel", name=f"bot-{i:02d}") for i in range(7)
    )
    Rating.objects.bulk_create(
        Rating(
            bot=b,
            elo_games=5,
            fitted=2000 - i,
            fitted_low=1900 - i,
            fitted_high=2100 - i,
            fitted_rank=i + 1,
        )
        for i, b in enumerate(bots)
    )
    page1 = names_in_order(client.get("/games/splendor-duel/").content.decode())
    page3 = client.get("/games/splendor-duel/?page=3").content.decode()
    assert page1 == ["bot-00", "bot-01", "bot-02"]
    assert names_in_order(page3) == ["bot-06"]
    assert "page 3 of 3" in page3
    # the sort survives paging
    sorted_page2 = client.get("/games/splendor-duel/?sort=-rank&page=2").content.decode()
    assert names_in_order(sorted_page2) == ["bot-03", "bot-02", "bot-01"]
    assert "sort=-rank" in sorted_page2 and "page=3" in sorted_page2


def test_leaderboards_leave_out_bots_that_never_had_code(client: Client, ladder, alice) -> None:
    named_only = create_bot(alice, "splendor-duel", "just-a-name")
    played = Bot.objects.get(name="alice-a")
    Bot.objects.filter(pk=played.pk).update(active_version=None)  # its versions were rejected
    web = names_in_order(client.get("/games/splendor-duel/").content.decode())
    api = [
        r["bot"]["name"]
        for r in client.get("/api/games/splendor-duel/leaderboard").json()["results"]
    ]
    for names in (web, api):
        assert named_only.name not in names and "alice-a" in names


def test_favicon_and_head_requests(client: Client) -> None:
    icon = client.get("/favicon.ico")
    assert icon.status_code == 301 and icon["Location"].endswith("favicon.svg")
    assert client.head("/matches/999999/frames.json").status_code == 404  # not 405


def test_unknown_game_is_404(client: Client) -> None:
    response = client.get("/games/chess/")
    assert response.status_code == 404


@pytest.mark.parametrize("bot_id", ["9223372036854775808", "99999999999999999999999"])
@pytest.mark.parametrize(
    "page",
    ["/bots/{}/versions/1/", "/bots/{}/versions/1/status.json", "/bots/{}/versions/1/source"],
)
def test_ids_beyond_the_database_range_are_404(client: Client, alice, page, bot_id) -> None:
    client.force_login(alice)  # signed in: the version pages look the bot up first
    assert client.get(page.format(bot_id)).status_code == 404


def test_bot_page_public_parts(client: Client, ladder) -> None:
    a, b, _ = ladder
    text = client.get(f"/bots/{a.pk}/").content.decode()
    assert "alice" in text and "<svg" in text and 'class="elo"' in text
    assert "v1" in text
    # head to head: 2 wins, 1 loss against bob-b
    h2h = text.split("Head to head")[1]
    row = re.search(r"bob-b</a></td>(.*?)</tr>", h2h, re.S).group(1)
    assert re.findall(r'<td class="num[^"]*">([^<]+)</td>', row)[:4] == ["3", "2", "1", "0"]
    # private parts stay hidden
    assert "Traceback: alice oops" not in text
    assert f"/bots/{a.pk}/versions/1/source" not in text
    assert "Faults" not in text


@pytest.mark.postgres
def test_head_to_head_reads_the_rating_history_index_not_every_match(ladder) -> None:
    """QA (200,000 matches): the bot page's head-to-head found the bot's last
    1,000 rated matches among its seats, looking up every match it ever played
    to see whether it was rated and sorting them all: 20 ms for the busiest
    bot, linear in its matches. Its rating history's (bot, seq) index gives
    them in order, and the match table is not read at all."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from ladder.pages import head_to_head

    a, _, _ = ladder
    with CaptureQueriesContext(connection) as ctx:
        head_to_head(a)
    (sql,) = [q["sql"] for q in ctx.captured_queries]
    with connection.cursor() as cursor:
        for scan in ("seqscan", "bitmapscan"):  # the tables are tiny here
            cursor.execute(f"SET LOCAL enable_{scan} = off")
        cursor.execute("EXPLAIN " + sql)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "Index Scan Backward using ladder_rati_bot_id_dd32ba_idx" in plan, plan
    assert not re.search(r" on ladder_match\b(?!seat)", plan), plan


def bot_matches(client: Client, url: str) -> tuple[str, list[int], dict[str, str]]:
    """The bot page's match section, the match ids it lists and its pager's
    links ("newer", "older": their query strings)."""
    response = client.get(url)
    assert response.status_code == 200, response.status_code
    text = response.content.decode()
    section = text.split('<h2 id="matches">')[1].split("Head to head")[0]
    listed = [int(n) for n in re.findall(r'<a href="/matches/(\d+)/">', section)]
    links = {
        word: href.replace("&amp;", "&")
        for href, word in re.findall(r'<a href="(\?[^"#]*)#matches">(?:← )?(newer|older)', section)
    }
    return section, listed, links


def test_a_bots_matches_are_paged(client: Client, alice, bob) -> None:
    """Only the last 20 used to be reachable: ladder play soon pushed an
    interesting match out of sight."""
    from ladder.matches import create_match

    a, b = make_bot(alice, "pager-a"), make_bot(bob, "pager-b")
    ids = [create_match(a.game, [a.active_version, b.active_version]).pk for _ in range(23)]
    ids.append(
        create_match(
            a.game, [a.active_version, b.active_version], kind=Match.Kind.CHALLENGE, rated=False
        ).pk
    )
    newest_first = ids[::-1]
    url = f"/bots/{a.pk}/"
    section, listed, links = bot_matches(client, url)
    assert listed == newest_first[:20] and links == {"older": f"?before={newest_first[19]}"}
    assert "newest first, #" in section  # the caption says which matches are shown
    section, listed, links = bot_matches(client, url + links["older"])
    assert listed == newest_first[20:] and links == {"newer": f"?after={newest_first[20]}"}
    assert f"#{newest_first[20]} to #{newest_first[-1]}" in section
    assert bot_matches(client, url + links["newer"])[1] == newest_first[:20]
    # the pager keeps the filter
    _, listed, links = bot_matches(client, url + "?kind=ladder")
    assert listed == ids[:23][::-1][:20] and links["older"] == f"?before={ids[3]}&kind=ladder"
    assert bot_matches(client, url + links["older"])[1] == ids[:3][::-1]
    # a cursor above the newest match: the first page, with nothing newer to link to
    _, listed, links = bot_matches(client, url + f"?before={ids[-1] + 1}")
    assert listed == newest_first[:20] and links == {"older": f"?before={newest_first[19]}"}
    section, listed, links = bot_matches(client, url + f"?before={ids[0]}")
    assert listed == [] and links == {} and f"No matches older than #{ids[0]}" in section


def test_old_page_numbers_lead_to_the_same_matches(client: Client, alice, bob) -> None:
    """Links from before the cursors (?page=N) are sent to the page they showed."""
    from ladder.matches import create_match

    a, b = make_bot(alice, "old-a"), make_bot(bob, "old-b")
    ids = [create_match(a.game, [a.active_version, b.active_version]).pk for _ in range(45)]
    newest_first = ids[::-1]
    url = f"/bots/{a.pk}/"
    for query, target, shown in [
        ("?page=2", f"?before={newest_first[19]}", newest_first[20:40]),
        ("?kind=ladder&page=3", f"?kind=ladder&before={newest_first[39]}", newest_first[40:]),
        ("?page=1", "", newest_first[:20]),
        ("?page=x", "", newest_first[:20]),
        ("?page=-4", "", newest_first[:20]),
        ("?page=99", "?after=0", ids[:20][::-1]),  # past the end: the oldest matches
        ("?page=99999999999999999999999", "?after=0", ids[:20][::-1]),
        ("?page=2&before=5&after=7", f"?before={newest_first[19]}", newest_first[20:40]),
    ]:
        response = client.get(url + query)
        assert response.status_code == 302 and response["Location"] == url + target, query
        assert bot_matches(client, response["Location"])[1] == shown, query


@pytest.mark.parametrize(
    "query,field",
    [("?before=x", "before"), ("?after=-1", "after"), ("?before=" + "9" * 30, "before")],
)
def test_a_bad_match_cursor_is_refused_by_name(client: Client, alice, query, field) -> None:
    bot = make_bot(alice, "cursor-bad")
    response = client.get(f"/bots/{bot.pk}/{query}")
    assert response.status_code == 400
    assert f"{field}: not a match number" in response.content.decode()
    both = client.get(f"/bots/{bot.pk}/?before=3&after=1")
    assert both.status_code == 400 and "before and after: give one" in both.content.decode()


def test_a_bots_match_walk_is_in_order_across_versions_and_kinds(
    client: Client, alice, bob
) -> None:
    """Older and newer links walk the bot's matches page by page: each match
    once, newest first, across all its versions (played in turns), with the
    kind shown; and a page costs as many queries however deep it lies."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from ladder.bots import add_version
    from ladder.matches import create_match

    a, b = make_bot(alice, "walk3-a"), make_bot(bob, "walk3-b")
    versions = [a.active_version]
    for n in (2, 3):
        versions.append(add_version(a, "main.py", f"print({n})\n".encode(), validate=False))
    made: list[tuple[int, str]] = []
    for i in range(60):  # 3 full pages (and no empty 4th), versions and kinds interleaved
        kind = Match.Kind.CHALLENGE if i % 6 == 3 else Match.Kind.LADDER
        lineup = [versions[i % 3], b.active_version][:: 1 if i % 2 else -1]
        made.append((create_match(a.game, lineup, kind=kind, rated=kind == "ladder").pk, kind))
    # another bot's matches in between change nothing
    create_match(b.game, [b.active_version, make_bot(bob, "walk3-c").active_version])
    url = f"/bots/{a.pk}/"
    for kind in ("", "ladder", "challenge"):
        expected = [pk for pk, k in made if not kind or k == kind][::-1]
        query = f"?kind={kind}" if kind else ""
        pages, counts = [], []
        while True:
            with CaptureQueriesContext(connection) as ctx:
                _, listed, links = bot_matches(client, url + query)
            pages.append(listed)
            counts.append(len(ctx.captured_queries))
            if "older" not in links:
                break
            assert links["older"] == f"?before={listed[-1]}" + (f"&kind={kind}" if kind else "")
            query = links["older"]
        assert [pk for page in pages for pk in page] == expected, kind
        assert [len(p) for p in pages[:-1]] == [20] * (len(pages) - 1) and pages[-1]
        assert len(set(counts[1:])) <= 1 and counts[-1] <= counts[0] + 1, counts
        # and back up with "newer": the same pages
        back = [pages[-1]]
        while "newer" in links:
            _, listed, links = bot_matches(client, url + links["newer"])
            back.append(listed)
        assert back[::-1] == pages, kind


@pytest.mark.postgres
def test_a_bots_match_page_walks_its_own_seats_not_everyones(alice, bob) -> None:
    """QA (200,000 matches): the first page of a bot's matches walked every
    bot's seats from the newest match backwards until 20 were the bot's:
    190 ms for a bot whose matches lay far back in the history. Each of its
    versions' seats are now read newest first from the (version, match)
    index, and the list is the same."""
    from django.db import connection

    from ladder.matches import create_match
    from ladder.pages import bot_seats
    from tests.conftest import leave_only_indexes

    a, b = make_bot(alice, "walk-a"), make_bot(bob, "walk-b")
    ids = [create_match(a.game, [a.active_version, b.active_version]).pk for _ in range(5)]
    for kind in (None, "ladder", "challenge"):
        assert list(bot_seats(a, kind, first=2)[:2]) == list(bot_seats(a, kind)[:2])
        for cursor in ({"before": ids[3]}, {"after": ids[1]}):  # from the cursor on
            walked = list(bot_seats(a, kind, first=2, **cursor)[:2])
            assert walked == list(bot_seats(a, kind, **cursor)[:2]), cursor
    for cursor, direction in (({"before": ids[3]}, "Backward "), ({"after": ids[1]}, "")):
        page = bot_seats(a, first=20, **cursor)[:20]
        with connection.cursor() as db:
            for scan in ("seqscan", "bitmapscan"):  # the tables are tiny here
                db.execute(f"SET LOCAL enable_{scan} = off")
            # on these few rows the planner walked match_id's index after some
            # earlier tests' statistics: with the (version, match) index the only
            # one left (tests/conftest.py), the plan shows the query can walk it
            # from the cursor, newest first
            leave_only_indexes(db, "ladder_matchseat", {"ladder_matc_version_1725cb_idx"})
            plan = page.explain()
        assert f"Index Scan {direction}using ladder_matc_version_1725cb_idx" in plan, plan


def test_bot_page_says_how_many_versions_it_leaves_out(client: Client, alice, monkeypatch) -> None:
    from ladder import views
    from ladder.bots import add_version

    bot = make_bot(alice, "many")  # v1
    for n in (2, 3):
        add_version(bot, "main.py", f"print({n})\n".encode(), validate=False)
    monkeypatch.setattr(views, "VERSIONS_SHOWN", 2)
    text = client.get(f"/bots/{bot.pk}/").content.decode()
    assert "v3" in text and "v2" in text and ">v1<" not in text
    assert (
        f"The 2 newest of 3 versions. The API lists them all: <code>GET /api/bots/{bot.pk}/versions</code>"
        in text
    )
    monkeypatch.setattr(views, "VERSIONS_SHOWN", 3)
    assert "newest of" not in client.get(f"/bots/{bot.pk}/").content.decode()


def test_bot_page_with_only_validation_matches_says_so(client: Client, alice) -> None:
    """QA: "No matches yet." under the bot's matches while the Faults section
    below listed the bot's validation matches."""
    from ladder.matches import create_match

    bot = make_bot(alice, "rejected")
    match = create_match(
        bot.game,
        [bot.active_version, make_bot(alice, "opponent").active_version],
        kind=Match.Kind.VALIDATION,
        rated=False,
        validates=bot.active_version,
    )
    match.seats.filter(seat=0).update(fault="crash")
    client.force_login(alice)
    text = client.get(f"/bots/{bot.pk}/").content.decode()
    assert f'href="/matches/{match.pk}/"' in text.split("Faults")[1]
    recent = text.split('<h2 id="matches">')[1].split("Head to head")[0]
    assert "No matches yet" not in recent
    assert "No ladder, challenge or tournament matches yet (validation matches" in recent


@pytest.mark.parametrize("who", ["owner", "staff"])
def test_bot_page_private_parts(client: Client, ladder, alice, carol, who) -> None:
    a, _, _ = ladder
    client.force_login(alice if who == "owner" else carol)
    text = client.get(f"/bots/{a.pk}/").content.decode()
    assert "Traceback: alice oops" in text
    assert f"/bots/{a.pk}/versions/1/source" in text
    assert "Faults" in text


@pytest.mark.parametrize("who", ["owner", "staff"])
def test_private_labels_say_who_sees_them(client: Client, ladder, alice, carol, who) -> None:
    """QA: staff read "only its owner sees this" over a stderr they see, and
    "only you and staff" over a bot that is not theirs."""
    a, _, last = ladder
    client.force_login(alice if who == "owner" else carol)
    label = "only you and staff see this" if who == "owner" else "only its owner and staff see this"
    bot = client.get(f"/bots/{a.pk}/").content.decode()
    assert f'Faults <span class="tag">{label}</span>' in bot
    match = client.get(f"/matches/{last.pk}/").content.decode()
    assert "Traceback: alice oops" in match
    assert f'(seat 0) <span class="tag">{label}</span>' in match
    for text in (bot, match):
        assert "only its owner sees this" not in text
        assert ("only you" in text) == (who == "owner")


def test_source_download_owner_only(client: Client, ladder, alice, bob, carol) -> None:
    a, _, _ = ladder
    url = f"/bots/{a.pk}/versions/1/source"
    assert client.get(url).status_code == 404
    client.force_login(bob)
    assert client.get(url).status_code == 404
    for user in (alice, carol):
        client.force_login(user)
        response = client.get(url)
        assert response.status_code == 200
        assert b"# alice-a" in b"".join(response.streaming_content)


def test_match_page_and_stderr_privacy(client: Client, ladder, alice) -> None:
    a, b, last = ladder
    text = client.get(f"/matches/{last.pk}/").content.decode()
    assert "alice-a" in text and "bob-b" in text
    assert "crash" in text and "crash at step 3" in text  # the fault, for everyone
    assert 'id="replay"' in text or "replay" in text  # the viewer's slot
    assert "Traceback: alice oops" not in text
    assert 'data-notes-seats=""' in text or "viewer_is_owner_of_seats" not in text
    client.force_login(alice)
    text = client.get(f"/matches/{last.pk}/").content.decode()
    assert "Traceback: alice oops" in text
    assert response_context_seats(client, last.pk) == [0]


def response_context_seats(client: Client, match_id: int) -> list[int]:
    return client.get(f"/matches/{match_id}/").context["viewer_is_owner_of_seats"]


def test_rating_changes_on_match_page(client: Client, ladder) -> None:
    first = Match.objects.order_by("pk").first()
    text = client.get(f"/matches/{first.pk}/").content.decode()
    seat0 = first.seats.get(seat=0)
    assert seat0.elo_change > 0
    assert f"+{seat0.elo_change:.1f}" in text


def test_match_page_says_how_to_play_the_match_again(client: Client, ladder) -> None:
    """A QA bot author downloaded a replay to play the match again locally and
    found no word on how; the page links the section that says it."""
    first = Match.objects.order_by("pk").first()
    text = client.get(f"/matches/{first.pk}/").content.decode()
    assert 'href="/docs/bots/#replaying-a-ladder-match-locally"' in text
    assert 'id="replaying-a-ladder-match-locally"' in client.get("/docs/bots/").content.decode()


def test_replay_download_keeps_only_own_notes(client: Client, ladder, alice, carol) -> None:
    first = Match.objects.order_by("pk").first()
    url = f"/matches/{first.pk}/replay.json.gz"

    def notes() -> set[str]:
        response = client.get(url)
        assert response.status_code == 200
        return {s["note"] for s in replay_from_bytes(response.content)["steps"] if "note" in s}

    assert notes() == set()
    client.force_login(alice)
    assert notes() == {"alice secret plan"}
    client.force_login(carol)
    assert notes() == {"alice secret plan", "bob secret plan"}


def test_replay_of_unfinished_match_is_404(client: Client, ladder) -> None:
    a, b, _ = ladder
    queued = Match.objects.create(game="splendor-duel", seat_count=2, seed=1, rules_version="x")
    assert client.get(f"/matches/{queued.pk}/replay.json.gz").status_code == 404
    assert client.get(f"/matches/{queued.pk}/").status_code == 200
    assert client.get("/matches/999999/").status_code == 404


@pytest.mark.parametrize(
    "status, reason, says",
    [
        ("cancelled", "cancelled by an administrator", "it was cancelled before it was played"),
        ("errored", "", "the platform could not play it"),
    ],
)
def test_match_without_replay_says_why_and_shows_no_viewer(
    client: Client, ladder, status, reason, says
) -> None:
    match = Match.objects.create(
        game="splendor-duel", seat_count=2, seed=1, rules_version="x", status=status, reason=reason
    )
    text = client.get(f"/matches/{match.pk}/").content.decode()
    assert f"This match has no replay: {says}" in text
    assert "frames.json" not in text and 'id="replay-play"' not in text
    assert reason in text


def test_the_owner_takes_a_bot_off_the_ladder_from_its_page_and_puts_it_back(
    client: Client, ladder, alice, bob, carol
) -> None:
    a, b, _ = ladder
    url = f"/bots/{a.pk}/ladder/"
    client.force_login(bob)  # not his: the same answer as no bot, and nothing changes
    assert "Take off the ladder" not in client.get(f"/bots/{a.pk}/").content.decode()
    assert client.post(url, {"withdrawn": "1"}).status_code == 404
    client.force_login(carol)  # staff disable bots in the admin; this is the owner's switch
    assert client.post(url, {"withdrawn": "1"}).status_code == 404
    a.refresh_from_db()
    assert not a.withdrawn

    client.force_login(alice)
    page = client.get(f"/bots/{a.pk}/").content.decode()
    assert f'action="{url}"' in page and "Take off the ladder" in page
    assert client.get(url).status_code == 405  # a form's address, not a page
    response = client.post(url, {"withdrawn": "yes"}, follow=True)
    assert "Nothing changed" in response.content.decode()
    response = client.post(url, {"withdrawn": "1"}, follow=True)
    assert response.redirect_chain == [(f"/bots/{a.pk}/", 302)]
    text = response.content.decode()
    assert "alice-a is off the ladder: it gets no new ladder matches." in text
    assert '<span class="tag">off the ladder</span>' in text and "Put back on the ladder" in text
    board = client.get("/games/splendor-duel/").content.decode()
    row = board.split("alice-a</a>")[1].split("</tr>")[0]
    assert "off the ladder" in row
    assert "off the ladder" in client.get("/accounts/").content.decode()
    assert "alice-a" not in client.get("/queue/").content.decode().split("<h2>Bots</h2>")[1]

    text = client.post(url, {"withdrawn": "0"}, follow=True).content.decode()
    assert "alice-a is back on the ladder." in text and "Take off the ladder" in text
    a.refresh_from_db()
    assert a.plays


def test_queue_page(client: Client, ladder) -> None:
    a, b, _ = ladder
    from ladder.matches import create_match

    first = create_match("splendor-duel", [a.active_version, b.active_version])
    WorkerHeartbeat.beat("worker-1@test", "process")
    WorkerHeartbeat.objects.update(self_test_ok=True)
    text = client.get("/queue/").content.decode()
    assert "worker 1" in text and "passed" in text
    assert f'href="/matches/{first.pk}/"' in text
    assert "#1 in the queue" in text
    assert "≈" in text  # 3 matches finished in the last hour give an estimate


def test_queue_page_names_hosts_to_staff_only(client: Client, ladder, django_user_model) -> None:
    """As on /status/: anyone sees how many workers there are and whether
    they pass their self-test; host names and raw self-test errors (paths)
    are for staff."""
    a, b, _ = ladder
    from ladder.matches import create_match

    running = create_match("splendor-duel", [a.active_version, b.active_version])
    Match.objects.filter(pk=running.pk).update(
        status=Match.Status.RUNNING, worker="w2@host-secret", started_at=timezone.now()
    )
    WorkerHeartbeat.beat("w1@host-secret", "process")
    WorkerHeartbeat.objects.update(self_test_ok=False, self_test_detail="cannot start /opt/py")
    ordinary = django_user_model.objects.create_user("ann", "ann@example.org", "pw")
    staff = django_user_model.objects.create_user("op", "op@example.org", "pw", is_staff=True)
    for who in (None, ordinary, staff):
        client.logout()
        if who is not None:
            client.force_login(who)
        text = client.get("/queue/").content.decode()
        assert "failed" in text and f'href="/matches/{running.pk}/"' in text
        for internal in ("w1@host-secret", "w2@host-secret", "/opt/py"):
            assert (internal in text) == (who is staff), (who, internal)
        assert ("worker 1" in text) == (who is not staff)


def test_queue_page_puts_validation_first_and_challenges_in_turn(
    client: Client, ladder, carol
) -> None:
    """Workers take validation matches first, then ladder matches and
    challenges together, oldest first (ladder.matches.queue_for)."""
    a, b, _ = ladder
    c = make_bot(carol, "carol-c")
    from ladder.matches import create_match

    older = create_match("splendor-duel", [a.active_version, b.active_version])
    challenge = create_match(
        "splendor-duel", [c.active_version, b.active_version], kind="challenge", rated=False
    )
    validation = create_match(
        "splendor-duel", [c.active_version, a.active_version], kind="validation", rated=False
    )
    text = client.get("/queue/").content.decode()
    listed = re.findall(r'href="/matches/(\d+)/"', text)
    order = [listed.index(str(m.pk)) for m in (validation, older, challenge)]
    assert order == sorted(order), listed
    rows = {name: row for name, row in re.findall(r">([\w-]+)</a>(.*?)</tr>", text, re.S)}
    assert "#1 in the queue" in rows[c.name] and "#1 in the queue" in rows[a.name]
    assert "#2 in the queue" in rows[b.name]  # its first: the older ladder match


def test_queue_page_says_which_bots_are_playing_now(client: Client, ladder, carol) -> None:
    a, b, _ = ladder
    c = make_bot(carol, "carol-c")
    from ladder.matches import create_match

    running = create_match("splendor-duel", [a.active_version, b.active_version])
    Match.objects.filter(pk=running.pk).update(status=Match.Status.RUNNING)
    text = client.get("/queue/").content.decode()
    rows = {name: row for name, row in re.findall(r">([\w-]+)</a>(.*?)</tr>", text, re.S)}
    assert "playing now" in rows[a.name] and "playing now" in rows[b.name]
    assert "playing now" not in rows[c.name] and "not queued yet" in rows[c.name]


def test_queue_and_home_say_when_a_match_started_in_words(client: Client, ladder) -> None:
    """QA: the queue listed a running match as "· 0 minutes" (0 minutes of what?)
    and every page said "0 minutes ago" for what had just happened."""
    a, b, _ = ladder
    from ladder.matches import create_match

    queued = create_match("splendor-duel", [a.active_version, b.active_version])
    running = create_match("splendor-duel", [b.active_version, a.active_version])
    Match.objects.filter(pk=running.pk).update(
        status=Match.Status.RUNNING, started_at=timezone.now() - timedelta(minutes=5, seconds=3)
    )

    def said(html: str, match: Match) -> str:
        line = re.search(
            rf'href="/matches/{match.pk}/".*?<span class="muted">([^<]*)</span>', html, re.S
        )
        return " ".join(line.group(1).split()) if line else ""

    queue = client.get("/queue/").content.decode()
    assert said(queue, running) == "· started 5 minutes ago"
    assert said(queue, queued) == "· queued just now"
    assert "0 minutes" not in queue
    assert said(client.get("/").content.decode(), running) == "· started 5 minutes ago"
    Match.objects.filter(pk=running.pk).update(started_at=timezone.now())
    assert said(client.get("/queue/").content.decode(), running) == "· started just now"
    assert "0 minutes" not in client.get(f"/bots/{a.pk}/").content.decode()


def test_match_page_names_the_seats_in_the_result_reason(client: Client, ladder) -> None:
    _, _, last = ladder  # seat 0 alice-a, seat 1 bob-b
    raw = "seat 1 reached 20 prestige points; forfeit: seat 0 (crash)"
    Match.objects.filter(pk=last.pk).update(reason=raw)
    text = client.get(f"/matches/{last.pk}/").content.decode()
    said = re.search(r'<p class="result-reason">(.*?)</p>', text)
    assert said and said.group(1) == (
        "<strong>bob-b wins</strong> — bob-b reached 20 prestige points; forfeit: alice-a (crash)"
    )
    assert client.get(f"/api/matches/{last.pk}").json()["reason"] == raw  # the API keeps it raw


def test_match_page_says_which_elo_the_change_started_from(client: Client, ladder) -> None:
    """QA: the seat table's "Elo change" column read "1584 +12.3", a number
    without its meaning; the change now comes first, then where it started."""
    _, _, last = ladder
    text = client.get(f"/matches/{last.pk}/").content.decode()
    cells = [
        " ".join(re.sub(r"<[^>]+>", " ", cell).split())
        for cell in re.findall(r'<td class="num trend[^"]*">(.*?)</td>', text, re.S)
    ]
    seats = list(last.seats.order_by("seat"))
    assert cells == [f"{signed(s.elo_change, 1)} from {elo(s.elo_before)}" for s in seats], cells


def result_line(client: Client, match: Match) -> str:
    text = client.get(f"/matches/{match.pk}/").content.decode()
    said = re.search(r'<p class="result-reason">(.*?)</p>', text)
    return re.sub(r"<[^>]+>", "", said.group(1)) if said else ""


def test_match_page_says_who_won_when_the_reason_names_nobody(client: Client, ladder) -> None:
    """QA: an Edel, Stein & Reich match's page said only "three phases scored";
    the replay viewer's last step says who won, and so does the page now."""
    _, _, last = ladder
    Match.objects.filter(pk=last.pk).update(reason="three phases scored")
    assert result_line(client, last) == "bob-b wins — three phases scored"
    last.seats.update(rank=1)
    assert result_line(client, last) == "Shared win: alice-a and bob-b — three phases scored"
    Match.objects.filter(pk=last.pk).update(status=Match.Status.ERRORED, reason="", rating_seq=None)
    assert result_line(client, last) == ""  # nobody won a match the platform failed


def test_match_page_marks_what_a_finished_live_match_refreshes(client: Client, ladder) -> None:
    _, _, last = ladder
    text = client.get(f"/matches/{last.pk}/").content.decode()
    refreshed = re.findall(r'data-refresh="([a-z]+)"', text)
    assert refreshed == ["heading", "result", "seats", "faults", "download", "stderr"]
    # in page order, the viewer (kept while they are swapped) between faults and download
    order = [text.index(f'data-refresh="{name}"') for name in refreshed]
    assert order == sorted(order)
    assert order[0] < text.index("<h1>") < order[1]
    assert order[3] < text.index('id="replay"') < order[4]


def test_debug_note_label_for_owner_and_staff(client: Client, ladder, alice, carol) -> None:
    _, _, last = ladder
    client.force_login(alice)
    text = client.get(f"/matches/{last.pk}/").content.decode().replace("&#x27;", "'")
    assert 'data-own-seats="0"' in text and "Your bot's debug note:" in text
    assert "Debug notes are shown for your own bots only." in text
    client.force_login(carol)  # staff: reads every seat's notes, owns none of these bots
    text = client.get(f"/matches/{last.pk}/").content.decode().replace("&#x27;", "'")
    assert 'data-notes-seats="0,1"' in text and 'data-own-seats=""' in text
    assert "Your bot's debug note" not in text and "Debug note:" in text
    assert "Debug notes are shown for every bot (you are staff)." in text
