"""The pages for screen readers and keyboards, read from their HTML (the
site-wide defects of the accessibility audit; the forms are
test_forms_a11y.py's)."""

from __future__ import annotations

import pytest
from django.test import Client

from ladder.bots import add_version
from ladder.models import Rating
from ladder.tokens import create_token
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
    play([b, a], [2, 1])
    Rating.objects.filter(bot=a).update(
        fitted=1560, fitted_low=1500, fitted_high=1620, fitted_rank=1, provisional=True
    )
    create_token(alice, "laptop CLI")
    pending = add_version(a, "main.py", RANDOM_BOT + b"# v2\n")
    client.force_login(alice)
    return {
        "bot": a,
        "esr": esr,
        "pending": pending,
        "pages": [
            "/",
            "/games/splendor-duel/",
            "/games/edel-stein-reich/",
            f"/bots/{a.pk}/",
            f"/bots/{esr.pk}/",
            f"/bots/{a.pk}/versions/{pending.number}/",
            f"/bots/{a.pk}/challenge/",
            "/queue/",
            "/status/",
            "/accounts/",
            "/accounts/tokens/",
            "/accounts/challenges/",
            "/accounts/password/",
            "/upload/",
            "/docs/",
            "/docs/faq/",
            "/docs/protocol/",
        ],
    }


def page(client: Client, url: str) -> Page:
    response = client.get(url)
    assert response.status_code == 200, url
    return Page(response.content)


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
