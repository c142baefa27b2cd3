"""The pages for screen readers and keyboards, read from their HTML (the
site-wide defects of the accessibility audit; the forms are
test_forms_a11y.py's)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from ladder.bots import add_version
from ladder.email_change import make_token
from ladder.models import Match, Rating
from ladder.tokens import create_token
from ladder.tournaments import create_tournament
from tests.ladder.conftest import RANDOM_BOT
from tests.web.conftest import make_bot, play
from tests.web.page_html import Page

pytestmark = pytest.mark.django_db


@pytest.fixture
def site(client: Client, alice, bob):
    """alice (logged in) with a bot in each game that has played, a token, and
    a version being validated; the pages of the site as she sees them."""
    a, b = make_bot(alice, "alice-a"), make_bot(bob, "bob-b")
    esr = make_bot(alice, "alice-a", game="edel-stein-reich")
    play([a, b], [1, 2])
    match = play([b, a], [2, 1])
    Rating.objects.filter(bot=a).update(
        fitted=1560, fitted_low=1500, fitted_high=1620, fitted_rank=1, provisional=True
    )
    create_token(alice, "laptop CLI")
    cup = create_tournament(
        game=a.game, versions=[a.active_version, b.active_version], games=2, players=2, name="cup"
    )
    pending = add_version(a, "main.py", RANDOM_BOT + b"# v2\n")
    client.force_login(alice)
    return {
        "cup": cup,
        "bot": a,
        "esr": esr,
        "match": match,
        "pending": pending,
        "pages": [
            "/",
            "/games/splendor-duel/",
            "/games/edel-stein-reich/",
            f"/bots/{a.pk}/",
            f"/bots/{esr.pk}/",
            f"/bots/{a.pk}/versions/{pending.number}/",
            f"/bots/{a.pk}/challenge/",
            f"/matches/{match.pk}/",
            "/queue/",
            "/tournaments/",
            f"/tournaments/{cup.pk}/",
            "/status/",
            "/accounts/",
            "/accounts/tokens/",
            "/accounts/challenges/",
            "/accounts/password/",
            "/accounts/email/",
            f"/accounts/email/confirm/{make_token(alice, 'new@example.org')}/",
            "/upload/",
            "/docs/",
            "/docs/faq/",
            "/docs/protocol/",
        ],
    }


def page(client: Client, url: str) -> Page:
    response = client.get(url)
    # /status/ answers 503 while a part is down (here, maybe the bot image);
    # tests/ladder/test_status.py checks when
    assert response.status_code in ((200, 503) if url == "/status/" else (200,)), url
    return Page(response.content)


def test_every_page_starts_with_a_skip_link_to_main(client: Client, site) -> None:
    anonymous = Client()
    pages = [(client, url) for url in [*site["pages"], "/nowhere/"]]
    anonymous_pages = ["/accounts/login/", "/accounts/signup/", "/accounts/password/reset/"]
    anonymous_pages += ["/accounts/password/reset/sent/", "/accounts/password/reset/done/"]
    for visitor, url in [*pages, *((anonymous, url) for url in anonymous_pages)]:
        html = Page(visitor.get(url).content)
        (body,) = html.find_all("body")
        first = next(e for e in body.iter() if e.tag in ("a", "button", "input", "select"))
        assert first.attrs["href"] == "#main" and first.text() == "Skip to content", url
        (main,) = html.find_all("main")
        assert main.attrs["id"] == "main" and main.attrs["tabindex"] == "-1", url
        assert html.missing_references() == [], url


def current_links(client: Client, url: str) -> dict[str, str]:
    (nav,) = page(client, url).find_all("nav", aria_label="Site")
    return {a.text(): a.attrs["aria-current"] for a in nav.find_all("a", aria_current=True)}


def test_the_header_marks_the_current_page_and_section(client: Client, site) -> None:
    bot = site["bot"]
    assert current_links(client, "/queue/") == {"Queue": "page"}
    assert current_links(client, "/tournaments/") == {"Tournaments": "page"}
    assert current_links(client, f"/tournaments/{site['cup'].pk}/") == {"Tournaments": "true"}
    assert current_links(client, "/status/") == {"Status": "page"}
    assert current_links(client, "/docs/") == {"Docs": "page"}
    assert current_links(client, "/docs/faq/") == {"Docs": "true"}
    assert current_links(client, "/docs/games/splendor-duel/") == {"Docs": "true"}
    assert current_links(client, "/games/splendor-duel/") == {"Splendor Duel": "page"}
    assert current_links(client, f"/bots/{bot.pk}/") == {"Splendor Duel": "true"}
    assert current_links(client, "/") == {}
    assert current_links(client, "/accounts/") == {}


def test_bot_pages_of_the_same_name_have_different_titles(client: Client, site) -> None:
    bot, esr, pending = site["bot"], site["esr"], site["pending"]
    titles = {
        page(client, url).find_all("title")[0].text()
        for url in (f"/bots/{bot.pk}/", f"/bots/{esr.pk}/")
    }
    assert titles == {
        "alice-a (Splendor Duel) · Gem Arena",
        "alice-a (Edel, Stein & Reich) · Gem Arena",
    }
    version = page(client, f"/bots/{bot.pk}/versions/{pending.number}/")
    assert version.find_all("title")[0].text() == "alice-a v2 (Splendor Duel) · Gem Arena"
    challenge = page(client, f"/bots/{esr.pk}/challenge/")
    assert (
        challenge.find_all("title")[0]
        .text()
        .startswith("Challenge with alice-a (Edel, Stein & Reich)")
    )


def test_tables_have_captions_and_scroll_in_named_focusable_regions(client: Client, site) -> None:
    tables = 0
    for url in site["pages"]:
        html = page(client, url)
        for table in html.find_all("table"):
            if html.find_all("article", cls="doc"):
                break  # the docs' Markdown tables have no captions (a region names each)
            tables += 1
            captions = table.find_all("caption")
            assert len(captions) == 1 and captions[0].text(), f"{url}: a table without caption"
        for box in html.find_all(cls="table-wrap") + html.find_all(cls="chart-wrap"):
            assert box.attrs.get("tabindex") == "0" and box.attrs.get("role") == "region", url
            name = box.attrs.get("aria-label") or html.by_id[box.attrs["aria-labelledby"]].text()
            assert name, url
    assert tables >= 10


def test_docs_code_blocks_and_tables_can_be_reached_by_keyboard(client: Client, site) -> None:
    for url in ("/docs/protocol/", "/docs/getting-started/"):
        html = page(client, url)
        blocks = html.find_all("pre")
        assert blocks, url
        for block in blocks:
            assert block.attrs.get("tabindex") == "0" and block.attrs.get("aria-label"), url
    tables = page(client, "/docs/protocol/").find_all("table")
    assert tables and all(t.parent.attrs.get("tabindex") == "0" for t in tables)


def test_no_column_is_left_out_on_a_phone(client: Client, site) -> None:
    """Columns marked hide-phone vanished under 700 px (and at 200 % zoom); a
    narrow table now keeps them all and scrolls sideways in its frame."""
    bot = site["bot"]
    for url in site["pages"]:
        markup = client.get(url).content.decode()
        assert "hide-phone" not in markup, url
    leaderboard = page(client, "/games/splendor-duel/")
    headers = [th.text() for th in leaderboard.find_all("th")]
    assert [h.split(" (")[0].rstrip(" ▲▼") for h in headers] == [
        "#", "bot", "owner", "rating", "Elo", "games", "win rate", "last played", "trend",
    ]  # fmt: skip
    tokens = [th.text() for th in page(client, "/accounts/tokens/").find_all("th")]
    assert tokens == ["Name", "Prefix", "Created", "Last used", "Revoke"]
    account = [th.text() for th in page(client, "/accounts/").find_all("th")]
    assert account[:3] == ["Bot", "Game", "Active version"]
    versions = page(client, f"/bots/{bot.pk}/").find_all("th")
    assert "Uploaded" in [th.text() for th in versions]
    # the match page left out think time and the Elo before the match
    match = page(client, f"/matches/{site['match'].pk}/")
    seats = [th.text() for th in match.find_all("th")]
    assert seats == ["Seat", "Bot", "Rank", "Score", "Elo change", "Think time"]
    cells = [[td.text() for td in tr.find_all("td")] for tr in match.find_all("tr")[1:]]
    assert [row[5] for row in cells] == ["10 ms", "10 ms"]
    assert all(re.fullmatch(r"[+−-]\d+\.\d from 1\d{3}", row[4]) for row in cells), cells


def test_each_revoke_button_names_its_token(client: Client, site) -> None:
    (button,) = page(client, "/accounts/tokens/").find_all("button", cls="danger")
    assert button.text() == "Revoke “laptop CLI”"
    assert button.find_all("span", cls="visually-hidden"), "the name is for screen readers"


def test_leaderboard_says_in_text_what_its_marks_mean(client: Client, site) -> None:
    html = page(client, "/games/splendor-duel/")
    (row,) = [tr for tr in html.find_all("tr") if "alice-a" in tr.text()]
    (rating,) = row.find_all("td", cls="rating-cell")
    assert rating.text(spoken=True) == "1560 provisional ±60 (95% interval 1500–1620)"
    assert rating.text().startswith("1560?"), "on screen still the short mark"
    trend = html.find_all("th")[-1]
    assert trend.text(spoken=True) == "trend (Elo change over the last 10 rated matches)"
    home = page(client, "/")
    assert "1560 provisional" in home.root.text(spoken=True)


def test_the_rating_chart_has_a_text_summary(client: Client, site) -> None:
    html = page(client, f"/bots/{site['bot'].pk}/")
    (summary,) = html.find_all("p", cls="chart-summary")
    assert re.fullmatch(
        r"2 rated matches \(\S+ \S+ to \S+ \S+\): Elo 15\d\d after the first, 15\d\d after "
        r"the last, lowest 15\d\d, highest 15\d\d\.",
        summary.text(),
    ), summary.text()


def test_match_links_in_lists_say_which_match(client: Client, site) -> None:
    running = Match.objects.create(
        game="splendor-duel", seat_count=2, seed=1, rules_version="x", status=Match.Status.RUNNING
    )
    running.seats.create(seat=0, version=site["bot"].active_version)
    for url in ("/", "/queue/", f"/bots/{site['bot'].pk}/versions/{site['pending'].number}/"):
        html = page(client, url)
        links = [a.text() for a in html.find_all("a") if "/matches/" in a.attrs.get("href", "")]
        assert links and all(re.fullmatch(r"Match #\d+", t) for t in links), (url, links)


def test_version_page_announces_changes_in_one_small_live_region(client: Client, site) -> None:
    html = page(client, f"/bots/{site['bot'].pk}/versions/{site['pending'].number}/")
    live = html.find_all(aria_live=True) + html.find_all(role="status")
    assert [e.attrs.get("data-announce") for e in live] == [""], "one live region: data-announce"
    (box,) = html.find_all("section", cls="validation")
    assert "aria-live" not in box.attrs
