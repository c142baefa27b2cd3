"""The replay viewer for keyboard, screen-reader and colour-blind users
(accessibility audit, docs/replay-viewer.md): what each key does and where,
what the live regions say and when, the board as text, letters beside
colours, contrast, narrow screens and reduced motion.

Matches are played in this process (see conftest.py).
"""

from __future__ import annotations

import pytest

from ladder.matches import create_match
from ladder.models import Match
from tests.browser.conftest import Browser, Page, expect
from tests.browser.test_match_page import ESR, SD, builtin_lineup, finished

pytestmark = pytest.mark.browser


def sd_match(seed: int = 4) -> Match:
    return finished(SD, builtin_lineup(SD, ["ruby-random", "opal-random"]), seed=seed)


def esr_match(seed: int = 3) -> Match:
    names = ["ruby-random-player", "opal-random-player", "jade-random-player"]
    return finished(ESR, builtin_lineup(ESR, names), seed=seed)


def open_replay(page: Page, match: Match, step: int = 0) -> None:
    page.goto(f"/matches/{match.pk}/#step={step}")
    expect(page.locator("#replay")).to_have_attribute("data-state", "replay")
    expect(page.locator("#replay")).to_have_attribute("data-step", str(step))


def test_space_and_enter_on_a_button_press_that_button(browser: Browser, process_sandbox) -> None:
    """Space on ▶ steps forward (it used to start playback, audit #5)."""
    match = sd_match()
    page = browser.page
    open_replay(page, match, 5)
    replay = page.locator("#replay")
    for button, key, step in (
        ("#replay-next", " ", 6),
        ("#replay-next", "Enter", 7),
        ("#replay-prev", " ", 6),
        ("#replay-last", " ", match.steps),
        ("#replay-first", " ", 0),
    ):
        page.locator(button).focus()
        page.keyboard.press(key)
        expect(replay).to_have_attribute("data-step", str(step))
        expect(replay).to_have_attribute("data-playing", "false")
    page.locator("#replay-play").focus()
    page.keyboard.press(" ")
    expect(replay).to_have_attribute("data-playing", "true")
    page.keyboard.press(" ")
    expect(replay).to_have_attribute("data-playing", "false")


def test_shortcuts_act_only_with_the_focus_in_the_viewer(browser: Browser, process_sandbox) -> None:
    """Outside the viewer Space, End, Home and the arrows are the page's
    (audit #6, WCAG 2.1.4); inside it, and after a click on the board, they
    are the viewer's."""
    match = sd_match()
    page = browser.page
    open_replay(page, match, 5)
    replay = page.locator("#replay")
    assert page.evaluate("() => document.scrollingElement.scrollHeight > innerHeight + 200")

    page.evaluate("() => { document.activeElement.blur(); window.scrollTo(0, 0); }")
    page.keyboard.press("End")
    page.wait_for_function("() => window.scrollY > 0")
    page.keyboard.press("Home")
    page.wait_for_function("() => window.scrollY === 0")
    page.keyboard.press(" ")
    page.wait_for_function("() => window.scrollY > 0")
    expect(replay).to_have_attribute("data-step", "5")
    expect(replay).to_have_attribute("data-playing", "false")

    page.locator(".crumbs a").focus()
    for key in ("ArrowRight", "ArrowLeft", "Home", "End"):
        page.keyboard.press(key)
    expect(replay).to_have_attribute("data-step", "5")

    page.locator("#replay-board").click(position={"x": 5, "y": 5})
    assert page.evaluate("() => document.activeElement.id") == "replay"
    page.keyboard.press("ArrowRight")
    expect(replay).to_have_attribute("data-step", "6")
    page.keyboard.press("End")
    expect(replay).to_have_attribute("data-step", str(match.steps))
    page.keyboard.press("Home")
    expect(replay).to_have_attribute("data-step", "0")
    page.keyboard.press(" ")
    expect(replay).to_have_attribute("data-playing", "true")
    page.keyboard.press(" ")
    expect(replay).to_have_attribute("data-playing", "false")
