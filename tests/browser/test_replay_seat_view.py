"""The replay viewer's "View as" control (docs/replay-viewer.md): a seat's
view shows what that seat could observe and nothing another seat kept
hidden.

The matches are recorded from scripted replays (tests/arena/playout.py), so
a blind reservation and a secret choice happen at known steps.
"""

from __future__ import annotations

import re

import pytest

from ladder.models import Match
from tests.arena.playout import scripted_replay
from tests.browser.conftest import Browser, Page, expect, shoot
from tests.browser.test_match_page import ESR, SD, builtin_lineup
from tests.web.conftest import recorded

pytestmark = pytest.mark.browser

SD_NAMES = ["ruby-random", "opal-random"]
ESR_NAMES = ["ruby-random-player", "opal-random-player", "jade-random-player"]


def sd_blind_match() -> tuple[Match, str]:
    """Seat 0 (ruby-random) reserves a level 1 card blind at step 1; the card's id."""
    replay = scripted_replay(SD, 2, 4, first=("reserve b3 deck1",))
    match = recorded(builtin_lineup(SD, SD_NAMES), replay)
    from arena import spectator_frames

    card = spectator_frames(replay, seat=0)[1]["view"]["players"][0]["reserved"][0]["card"]
    return match, card


def esr_secret_match() -> tuple[Match, dict]:
    """Three seats, money hidden (`money_visible` off); step 1 is the first secret choice."""
    replay = scripted_replay(ESR, 3, 3, {"money_visible": False})
    return recorded(builtin_lineup(ESR, ESR_NAMES), replay), replay["steps"][0]


def choose_seat(page: Page, seat: str, step: int) -> None:
    """Picks "View as" `seat` ("" = everyone) with the keyboard, as a user would."""
    select = page.locator("#replay-seat")
    select.focus()
    for _ in range(4):
        if select.input_value() == seat:
            break
        current = select.input_value()
        page.keyboard.press("ArrowDown" if (current or "-1") < (seat or "-1") else "ArrowUp")
    expect(select).to_have_value(seat)
    expect(page.locator("#replay")).to_have_attribute("data-view-seat", seat)
    expect(page.locator("#replay")).to_have_attribute("data-step", str(step))
    expect(select).to_be_focused()


def test_a_seat_view_shows_its_own_blind_reservation_only(
    browser: Browser, process_sandbox
) -> None:
    match, card = sd_blind_match()
    page = browser.page
    page.goto(f"/matches/{match.pk}/#step=1")
    replay = page.locator("#replay")
    expect(replay).to_have_attribute("data-state", "replay")
    expect(replay).to_have_attribute("data-step", "1")
    ruby = page.locator('.sd-player[data-seat="0"] .sd-reserved')
    # everyone: the back of a level 1 card; the card itself is nowhere on the board
    expect(ruby.locator(".sd-back")).to_have_count(1)
    expect(page.locator(f'#replay-board [data-card="{card}"]')).to_have_count(0)

    choose_seat(page, "0", 1)
    assert re.search(r"\?seat=0#step=1$", page.url), page.url
    expect(ruby.locator(f'.sd-card.sd-blind[data-card="{card}"]')).to_be_visible()
    expect(ruby.locator(".sd-back")).to_have_count(0)
    shoot(page, "replay-seat-view-splendor-duel-desktop")

    choose_seat(page, "1", 1)
    assert re.search(r"\?seat=1#step=1$", page.url), page.url
    expect(ruby.locator(".sd-back")).to_have_count(1)
    expect(page.locator(f'#replay-board [data-card="{card}"]')).to_have_count(0)
    choose_seat(page, "", 1)
    assert "seat=" not in page.url

    # the address is shareable: it opens the same seat's view
    page.goto(f"/matches/{match.pk}/?seat=0#step=1")
    expect(replay).to_have_attribute("data-view-seat", "0")
    expect(page.locator("#replay-seat")).to_have_value("0")
    expect(ruby.locator(f'.sd-card.sd-blind[data-card="{card}"]')).to_be_visible()


def test_a_seat_view_hides_the_others_secret_choices(browser: Browser, process_sandbox) -> None:
    match, first = esr_secret_match()
    chooser, choice = first["seat"], first["action"].split()[1]
    other = (chooser + 1) % 3
    words = {"money": "Money", "event": "Event", "gems": "Gems", "free": "Free Choice"}[choice]
    page = browser.page
    page.goto(f"/matches/{match.pk}/#step=1")
    replay = page.locator("#replay")
    expect(replay).to_have_attribute("data-state", "replay")
    action = page.locator("#replay-action")
    panel = page.locator(f'.esr-seat[data-seat="{chooser}"]')
    # everyone: the finished match names the choice; nobody's money is shown
    expect(action).to_contain_text(f"{ESR_NAMES[chooser]} chooses the {words} action card")
    expect(page.locator(".esr-money").first).to_contain_text("hidden")

    choose_seat(page, str(other), 1)
    expect(action).to_have_text(f"Step 1: {ESR_NAMES[chooser]} chooses in secret")
    expect(panel).to_contain_text("chosen (secret)")
    expect(panel.locator(".esr-choice-badge")).to_have_count(0)
    expect(panel.locator(".esr-money")).to_have_text(re.compile("hidden"))
    expect(page.locator(f'.esr-seat[data-seat="{other}"] .esr-money')).to_have_text(
        re.compile(r"\d+ M")
    )
    expect(panel).to_have_attribute("data-choice", "")

    choose_seat(page, str(chooser), 1)
    expect(action).to_contain_text(f"{ESR_NAMES[chooser]} chooses the {words} action card")
    expect(panel.locator(".esr-secret-own .esr-choice-badge")).to_have_text(words)
    shoot(page, "replay-seat-view-edel-stein-reich-desktop")
