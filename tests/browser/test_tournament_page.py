"""A tournament's page and the tournament list in a real browser, on a
desktop (1280 px) and a phone (360 px): the standings, progress and
matches are all there and the page never scrolls sideways, long bot names
included. Screenshots go to test-artifacts/screenshots/ (tournament-*)."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import Browser, expect, horizontal_overflow, shoot, widest_elements
from tests.ladder.conftest import alice, bob  # noqa: F401 (fixtures)
from tests.web.conftest import make_bot
from tests.web.test_tournaments import finish, names_at, start

pytestmark = pytest.mark.browser

LONG = "a-very-long-bot-name-that-fills-forty-ch"  # 40 characters, the most a name may have


@pytest.fixture
def cup(alice, bob):  # noqa: F811 (the fixtures imported above)
    """Four Splendor Duel bots (two with the longest names allowed), two
    games a pair: 12 matches, 7 played (one with a crash), 1 running."""
    bots = [
        make_bot(alice, "ruby"),
        make_bot(bob, LONG),
        make_bot(alice, "jade"),
        make_bot(bob, LONG[:-1] + "x"),
    ]
    tournament = start(bots, name="The long-named winter championship of gems", games=2)
    matches = list(tournament.matches.order_by("pk"))
    for i, match in enumerate(matches[:7]):
        names = names_at(match)
        ranks = [1, 2] if names[0] < names[1] else [2, 1]
        finish(match, ranks, {ranks.index(2): "crash"} if i == 3 else None)
    matches[7].status = "running"
    matches[7].save(update_fields=["status"])
    return tournament


@pytest.mark.parametrize("width", [1280, 360])
def test_a_tournament_page_fits_desktop_and_phone(browser: Browser, cup, width: int) -> None:
    page = browser.page if width == 1280 else browser.phone()
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"/tournaments/{cup.pk}/")
    expect(page.locator("h1")).to_contain_text("The long-named winter championship of gems")
    expect(page.locator("#progress-text")).to_have_text("7 of 12 matches played, 1 running")
    expect(page.locator("table.standings tbody tr")).to_have_count(4)
    expect(page.get_by_role("link", name=re.compile(r"^Match #\d+$"))).to_have_count(12)
    replays = page.get_by_role("link", name=re.compile(r"^replay of match #\d+$"))
    expect(replays).to_have_count(7)
    shoot(page, f"tournament-page-{width}px")
    assert horizontal_overflow(page) == 0, widest_elements(page)
    # the standings scroll in their frame when they must, every column kept
    hidden = page.evaluate(
        """() => [...document.querySelectorAll("table.standings th, table.standings td")]
             .filter((c) => getComputedStyle(c).display === "none").length"""
    )
    assert hidden == 0
    page.goto("/tournaments/")
    expect(page.get_by_role("link", name=cup.name)).to_be_visible()
    shoot(page, f"tournament-list-{width}px")
    assert horizontal_overflow(page) == 0, widest_elements(page)
