"""The tournament pages: the list, one tournament's standings, progress and
matches, and the links to them from the header, match and bot pages. The
numbers on the page are `ladder.tournament_table.standings`' (tested for
agreeing with `arena tournament` in tests/ladder)."""

from __future__ import annotations

import re

import pytest
from django.core.files.base import ContentFile
from django.test import Client
from django.utils import timezone

from ladder import tournament_table, views_tournament
from ladder.models import Bot, Match, Tournament
from ladder.tournament_table import standings
from ladder.tournaments import cancel_tournament, create_tournament
from tests.web.conftest import fake_replay, make_bot
from tests.web.page_html import Page

pytestmark = pytest.mark.django_db

SD = "splendor-duel"
ESR = "edel-stein-reich"


def start(bots: list[Bot], name: str = "Winter cup", games: int = 2, players: int = 2):
    return create_tournament(
        game=bots[0].game,
        versions=[b.active_version for b in bots],
        games=games,
        players=players,
        name=name,
        seed=7,
    )


def finish(match: Match, ranks: list[int], faults: dict[int, str] | None = None) -> None:
    """Record a result as a worker would (for the pages: ranks, faults, a replay)."""
    faults = faults or {}
    for seat in match.seats.order_by("seat"):
        seat.rank = ranks[seat.seat]
        seat.score = float(len(ranks) - seat.rank)
        seat.fault = faults.get(seat.seat, "")
        seat.save()
    match.status = Match.Status.FINISHED
    match.started_at = match.finished_at = timezone.now()
    match.reason = "the game ended"
    match.replay.save(f"match-{match.pk}.json.gz", ContentFile(fake_replay(match)), save=False)
    match.save()


def names_at(match: Match) -> list[str]:
    return [s.version.bot.name for s in match.seats.select_related("version__bot").order_by("seat")]


@pytest.fixture
def cup(alice, bob):
    """Three Splendor Duel bots, two games a pair (6 matches): four played
    (ruby wins all of its, bob's crashes once), one running, one queued."""
    bots = [make_bot(alice, "ruby"), make_bot(bob, "opal"), make_bot(alice, "jade")]
    tournament = start(bots)
    matches = list(tournament.matches.order_by("pk"))
    for match in matches[:4]:
        names = names_at(match)
        ranks = [1 if n == "ruby" else 2 for n in names] if "ruby" in names else [1, 2]
        faults = {names.index("opal"): "crash"} if match is matches[0] and "opal" in names else {}
        finish(match, ranks, faults)
    Match.objects.filter(pk=matches[4].pk).update(status=Match.Status.RUNNING)
    return tournament, bots, matches


def cells(page: Page, caption: str) -> list[list[str]]:
    (table,) = [t for t in page.find_all("table") if t.find_all("caption")[0].text() == caption]
    return [[td.text() for td in tr.find_all("td")] for tr in table.find_all("tr")[1:]]


def test_the_list_is_empty_until_a_tournament_starts(client: Client) -> None:
    response = client.get("/tournaments/")
    assert response.status_code == 200
    html = Page(response.content)
    assert html.find_all("title")[0].text() == "Tournaments · Gem Arena"
    assert "No tournaments yet." in html.root.text()
    assert not html.find_all("table")
    (nav,) = html.find_all("nav", aria_label="Site")
    (link,) = nav.find_all("a", href="/tournaments/")
    assert link.attrs["aria-current"] == "page"


@pytest.mark.parametrize("tournament_id", ["999999", "9223372036854775808"])
def test_an_unknown_tournament_is_404(client: Client, tournament_id: str) -> None:
    response = client.get(f"/tournaments/{tournament_id}/")
    assert response.status_code == 404
    if len(tournament_id) <= 18:  # a longer one is no address at all
        assert "No such tournament." in response.content.decode()


def test_the_standings_are_the_tables_numbers_in_its_order(client: Client, cup) -> None:
    tournament, bots, matches = cup
    table = standings(tournament)
    html = Page(client.get(f"/tournaments/{tournament.pk}/").content)
    assert html.find_all("title")[0].text() == "Winter cup (tournament, Splendor Duel) · Gem Arena"
    rows = cells(html, "Standings of Winter cup, best first")
    assert [r[1] for r in rows] == [row.label for row in table.rows]
    assert rows[0][1] == "ruby v1"  # it won every match it finished
    for shown, row in zip(rows, table.rows, strict=True):
        win = f"{100 * row.win_rate:.0f}% {100 * row.win_low:.0f}%–{100 * row.win_high:.0f}%"
        elo = f"{row.elo:.0f} {row.elo_low:.0f}–{row.elo_high:.0f}"
        assert shown == [
            str(table.rows.index(row) + 1),
            row.label,
            str(row.games),
            f"{row.wins:g}",
            win,
            elo,
            str(row.faults),
        ]
    assert [r[6] for r in rows].count("1") == 1  # opal's crash
    # each entry links to its bot's page
    names = {a.text(): a.attrs["href"] for a in html.find_all("a") if "/bots/" in a.attrs["href"]}
    assert names == {f"{b.name} v1": f"/bots/{b.pk}/" for b in bots}


def test_the_page_says_how_far_the_tournament_is(client: Client, cup) -> None:
    tournament, _, _ = cup
    html = Page(client.get(f"/tournaments/{tournament.pk}/").content)
    (line,) = html.find_all(id="progress-text")
    assert line.text() == "4 of 6 matches played, 1 running"
    (bar,) = html.find_all("progress")
    assert (bar.attrs["value"], bar.attrs["max"]) == ("4", "6")
    assert "seed" not in html.find_all("main")[0].text(), "the seed tells the deals to come"


def test_the_match_list_links_every_match_and_its_replay(client: Client, cup) -> None:
    tournament, _, matches = cup
    played = {m.pk for m in matches[:4]}
    html = Page(client.get(f"/tournaments/{tournament.pk}/").content)
    rows = cells(html, "Matches of Winter cup in the order they were scheduled")
    (table,) = [t for t in html.find_all("table") if "tournament-matches" in t.classes]
    assert [
        [a.text() for a in tr.find_all("td")[0].find_all("a")] for tr in table.find_all("tr")[1:]
    ] == [
        [f"Match #{m.pk}", f"replay of match #{m.pk}"] if m.pk in played else [f"Match #{m.pk}"]
        for m in matches
    ]
    links = {a.attrs["href"] for a in html.find_all("a")}
    assert {f"/matches/{m.pk}/" for m in matches} <= links
    replays = {f"/matches/{m.pk}/replay.json.gz" for m in matches}
    assert replays & links == {f"/matches/{m.pk}/replay.json.gz" for m in matches[:4]}
    first = rows[0]
    assert first[1] == " vs ".join(f"{name} v1" for name in names_at(matches[0]))
    assert "won" in first[2] and "crash" in first[2]
    assert [r[2] for r in rows[4:]] == ["running", "queued"]


def test_the_match_list_is_paged(client: Client, cup, monkeypatch) -> None:
    tournament, _, matches = cup
    monkeypatch.setattr(views_tournament, "MATCHES_PAGE_SIZE", 4)
    first = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    second = client.get(f"/tournaments/{tournament.pk}/?page=2").content.decode()
    link = 'href="/matches/{}/"'.format
    assert link(matches[3].pk) in first and link(matches[4].pk) not in first
    assert link(matches[4].pk) in second and link(matches[3].pk) not in second
    assert "page 1 of 2" in first and "?page=2" in first


def test_the_list_puts_running_tournaments_first_and_names_winners(
    client: Client, cup, alice
) -> None:
    running, bots, _ = cup
    done = start(bots[:2], name="Autumn cup", games=1)
    for match in done.matches.all():
        finish(match, [1, 2] if names_at(match)[0] == "opal" else [2, 1])
    done.refresh_from_db()
    Tournament.objects.filter(pk=done.pk).update(status=Tournament.Status.FINISHED)
    stopped = start(bots[1:], name="Spring cup", games=1)
    cancel_tournament(stopped, "a bot misbehaved")
    html = Page(client.get("/tournaments/").content)
    rows = cells(html, "Tournaments, running ones first")
    assert [r[0].rsplit(" ", 1) for r in rows] == [
        ["Winter cup", "running"],
        ["Spring cup", "cancelled"],
        ["Autumn cup", "finished"],
    ]
    assert [r[2] for r in rows] == ["3", "2", "2"]
    assert rows[0][3] == "4 of 6 matches played, 1 running"
    assert rows[1][3] == "0 of 1 match played, 1 cancelled"
    assert [r[4] for r in rows] == ["—", "cancelled", "opal v1"]
    assert rows[2][1] == "Splendor Duel"
    finished_page = client.get(f"/tournaments/{done.pk}/").content.decode()
    assert f"seed {done.seed}" in finished_page
    cancelled_page = client.get(f"/tournaments/{stopped.pk}/").content.decode()
    assert "Cancelled: a bot misbehaved." in cancelled_page


def test_match_and_bot_pages_lead_to_the_tournament(client: Client, cup) -> None:
    tournament, bots, matches = cup
    match_page = Page(client.get(f"/matches/{matches[0].pk}/").content)
    (link,) = [
        a for a in match_page.find_all("a") if a.attrs["href"] == f"/tournaments/{tournament.pk}/"
    ]
    assert link.parent.text() == "Tournament: Winter cup"
    bot_page = Page(client.get(f"/bots/{bots[1].pk}/").content)
    rows = cells(bot_page, "Tournaments opal played in, newest first")
    assert rows == [["Winter cup", "v1", "running", tournament.created_at.strftime("%Y-%m-%d")]]
    other = make_bot(bots[0].owner, "onyx")
    empty = Page(client.get(f"/bots/{other.pk}/").content).root.text()
    assert "It has played in no tournament." in empty
    # the bot's match filter has a tournament kind
    text = client.get(f"/bots/{bots[1].pk}/?kind=tournament").content.decode()
    shown = set(re.findall(r'<a href="/matches/(\d+)/">#', text))
    assert shown == {str(m.pk) for m in matches if "opal" in names_at(m)}


def test_edel_stein_reich_tournaments_say_house_values(client: Client, alice, bob) -> None:
    bots = [make_bot(alice if i % 2 else bob, f"esr-{i}", game=ESR) for i in range(3)]
    tournament = start(bots, name="Gem traders", games=3, players=3)
    text = Page(client.get(f"/tournaments/{tournament.pk}/").content).root.text()
    assert "house values" in text
    assert "3 seats a match · 3 games a table" in text
    assert "0 of 3 matches played" in text


def test_a_renamed_bot_is_listed_as_it_played(client: Client, cup) -> None:
    tournament, bots, _ = cup
    Bot.objects.filter(pk=bots[2].pk).update(name="jade-two")
    html = Page(client.get(f"/tournaments/{tournament.pk}/").content)
    (row,) = [r for r in cells(html, "Standings of Winter cup, best first") if "jade" in r[1]]
    assert row[1] == "jade v1 now called jade-two"
    bot_page = Page(client.get(f"/bots/{bots[2].pk}/").content)
    rows = cells(bot_page, "Tournaments jade-two played in, newest first")
    assert rows[0][0] == "Winter cup played as jade v1"


def test_a_tournament_that_ended_without_a_stored_table_is_fitted_once(
    client: Client, cup, monkeypatch
) -> None:
    """One that ended before final tables were stored gets its table at its
    first view, and every later view of the list, page or API reads it (a
    list of 25 refitted each one's Elo on every view: 0.7 s with two of a
    few thousand matches)."""
    _, bots, _ = cup
    done = start(bots[:2], name="Autumn cup", games=1)
    for match in done.matches.all():
        finish(match, [1, 2] if names_at(match)[0] == "ruby" else [2, 1])
    Tournament.objects.filter(pk=done.pk).update(
        status=Tournament.Status.FINISHED, finished_at=timezone.now()
    )
    fits = []
    fit = tournament_table.fitted
    monkeypatch.setattr(tournament_table, "fitted", lambda t: fits.append(t.pk) or fit(t))
    for _ in range(2):
        assert "ruby v1" in Page(client.get("/tournaments/").content).root.text()
        assert "ruby v1" in Page(client.get(f"/tournaments/{done.pk}/").content).root.text()
        assert client.get(f"/api/tournaments/{done.pk}").json()["winner"]["label"] == "ruby v1"
    assert fits.count(done.pk) == 1
    done.refresh_from_db()
    assert done.final_table == fit(done)
