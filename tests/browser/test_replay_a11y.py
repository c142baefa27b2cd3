"""The replay viewer for keyboard, screen-reader and colour-blind users
(accessibility audit, docs/replay-viewer.md): what each key does and where,
what the live regions say and when, the board as text, letters beside
colours, contrast, narrow screens and reduced motion.

Matches are played in this process (see conftest.py).
"""

from __future__ import annotations

import re

import pytest

from ladder import tasks
from ladder.matches import create_match
from ladder.models import Match
from tests.browser.conftest import Browser, Page, expect
from tests.browser.test_match_page import ESR, SD, builtin_lineup, finished, with_names
from tests.web.conftest import random_steps

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


# Counts the changes of every live region in the page, by id, in window.__said.
COUNT_LIVE_REGIONS = """() => {
    (window.__observers || []).forEach((observer) => observer.disconnect());
    window.__observers = [];
    window.__said = {};
    window.__texts = [];
    const regions = document.querySelectorAll(
        '[aria-live]:not([aria-live="off"]), [role="status"], [role="alert"], [role="log"]');
    for (const region of regions) {
        const observer = new MutationObserver(() => {
            window.__said[region.id] = (window.__said[region.id] || 0) + 1;
            window.__texts.push(region.id + ": " + region.textContent);
        });
        observer.observe(region, {childList: true, characterData: true, subtree: true});
        window.__observers.push(observer);
    }
}"""


def live_match_with_steps(steps: int) -> Match:
    """A running match whose worker has played `steps` steps so far."""
    match = create_match(SD, builtin_lineup(SD, ["ruby-random", "opal-random"]))
    recorder = tasks.LiveRecorder(match.pk, match.claim_for("worker@test"))
    for step in random_steps(SD, match.seat_count, match.seed, match.options, steps, rng_seed=1):
        recorder.on_step(step)
    recorder.flush()
    return match


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


def test_the_step_is_said_after_a_users_move_never_during_playback(
    browser: Browser, process_sandbox
) -> None:
    """#replay-action is no live region (it said 23 steps in 3 s at 10×,
    audit #8): #replay-announce says the step once the user has moved, and
    "Playing." / "Paused. Step N: …" around playback, nothing while it plays."""
    match = sd_match()
    page = browser.page
    open_replay(page, match, 0)
    action, announce = page.locator("#replay-action"), page.locator("#replay-announce")
    assert action.get_attribute("aria-live") is None and action.get_attribute("role") is None
    expect(announce).to_have_attribute("role", "status")
    page.evaluate(COUNT_LIVE_REGIONS)

    page.locator("#replay-next").click()
    expect(announce).to_have_text(re.compile(r"^Step 1: \S"))
    expect(announce).to_have_text(action.inner_text())
    page.locator("#replay-slider").focus()
    for _ in range(5):  # a held key: said once, where it stopped
        page.keyboard.press("ArrowRight")
    expect(announce).to_have_text(re.compile(r"^Step 6: \S"))
    page.wait_for_timeout(400)
    assert page.evaluate("() => window.__said") == {"replay-announce": 2}, page.evaluate(
        "() => window.__texts"
    )

    page.evaluate(COUNT_LIVE_REGIONS)
    page.locator("#replay-speed").select_option("100")
    page.locator("#replay-play").click()
    expect(announce).to_have_text("Playing.")
    page.wait_for_function("() => +document.getElementById('replay').dataset.step >= 30")
    assert page.evaluate("() => window.__texts") == ["replay-announce: Playing."]
    page.locator("#replay-play").click()
    step = page.locator("#replay").get_attribute("data-step")
    expect(announce).to_have_text(re.compile(rf"^Paused\. Step {step}: \S"))


def test_a_live_match_keeps_the_focus_and_says_its_status_once(
    browser: Browser, process_sandbox, monkeypatch
) -> None:
    """queued → running → finished: the seats table is swapped in anew each
    time, and the focus on a bot's link stays on that link (it fell to
    <body>, audit #7); each change is said once, the steps that arrive while
    the view follows the match are not (audit #8)."""
    match = create_match(SD, builtin_lineup(SD, ["ruby-random", "opal-random"]))
    page = browser.page
    page.goto(f"/matches/{match.pk}/")
    replay = page.locator("#replay")
    expect(replay).to_have_attribute("data-state", "waiting")
    for button in ("first", "prev", "play", "next", "last"):  # nothing to play yet (audit #14)
        expect(page.locator(f"#replay-{button}")).to_be_disabled()
    link = page.locator("table.seats a").first
    href = link.get_attribute("href")
    link.focus()
    page.evaluate(COUNT_LIVE_REGIONS)
    news = page.locator("#replay-news")
    focus_on_link = f"""() => {{
        const el = document.activeElement;
        return el.isConnected && el.closest("table.seats") !== null
            && el.getAttribute("href") === {href!r};
    }}"""

    original = tasks.LiveRecorder.on_step
    problems: list[AssertionError] = []

    def on_step(recorder, step) -> None:
        original(recorder, step)
        if step["step"] != 10:
            return
        recorder.flush()
        try:
            expect(page.locator("h1 .status")).to_have_text("running")
            expect(news).to_have_text("The match has started.")
            expect(replay).to_have_attribute("data-steps", "11")
            assert page.evaluate(focus_on_link), page.evaluate(
                "() => document.activeElement.outerHTML.slice(0, 80)"
            )
            # following the newest step is playing: the button offers Pause (audit #14)
            expect(replay).to_have_attribute("data-following", "true")
            expect(page.locator("#replay-play")).to_have_text("Pause")
            expect(page.locator("#replay-play")).to_be_enabled()
        except AssertionError as exc:
            problems.append(exc)

    monkeypatch.setattr(tasks.LiveRecorder, "on_step", on_step)
    assert tasks.run_match.run(match.pk) == "finished"
    assert not problems, problems[0]
    match.refresh_from_db()
    expect(replay).to_have_attribute("data-state", "replay")
    expect(page.locator("h1 .status")).to_have_text("finished")
    expect(news).to_have_text(f"The match is over. {with_names(match)}.")
    assert page.evaluate(focus_on_link)
    page.wait_for_timeout(500)
    assert page.evaluate("() => window.__said") == {"replay-news": 2}, page.evaluate(
        "() => window.__texts"
    )


def test_pause_stops_following_a_live_match(browser: Browser, process_sandbox) -> None:
    """A followed live match moves by itself: its button says Pause and
    pausing stays at the step (it said Play, and only ◀ stopped it, audit
    #14); End follows again. One state, one label: no aria-pressed."""
    match = live_match_with_steps(8)
    page = browser.page
    page.goto(f"/matches/{match.pk}/")
    replay, play = page.locator("#replay"), page.locator("#replay-play")
    expect(replay).to_have_attribute("data-state", "live")
    expect(replay).to_have_attribute("data-step", "8")
    expect(replay).to_have_attribute("data-following", "true")
    expect(play).to_have_text("Pause")
    expect(replay).to_have_attribute("data-playing", "true")
    play.click()
    expect(play).to_have_text("Play")
    expect(replay).to_have_attribute("data-following", "false")
    expect(replay).to_have_attribute("data-playing", "false")
    expect(page).to_have_url(re.compile(r"#step=8$"))
    assert play.get_attribute("aria-pressed") is None
    page.keyboard.press("End")
    expect(replay).to_have_attribute("data-following", "true")
    expect(play).to_have_text("Pause")
    assert play.get_attribute("aria-pressed") is None


def test_the_live_badge_pulses_only_its_dot_and_not_for_reduced_motion(
    browser: Browser, process_sandbox
) -> None:
    """The badge's word faded to 55 % (about 2:1) and pulsed for everyone
    (audit #10, #14): now only the dot pulses, and not at all when the
    system asks for reduced motion."""
    match = live_match_with_steps(3)
    page = browser.page
    badge_style = """() => {
        const badge = document.getElementById("replay-live");
        const own = getComputedStyle(badge), dot = getComputedStyle(badge, "::before");
        return {own: own.animationName, opacity: own.opacity, dot: dot.animationName};
    }"""
    page.goto(f"/matches/{match.pk}/")
    expect(page.locator("#replay-live")).to_be_visible()
    expect(page.locator("#replay")).to_have_attribute("data-state", "live")
    assert page.evaluate(badge_style) == {"own": "none", "opacity": "1", "dot": "replay-pulse"}
    page.emulate_media(reduced_motion="reduce")
    assert page.evaluate(badge_style) == {"own": "none", "opacity": "1", "dot": "none"}


def test_a_refreshed_block_without_the_focused_control_takes_the_focus(
    browser: Browser, process_sandbox
) -> None:
    """When the new block has no counterpart of the focused element, the
    block itself takes the focus rather than <body> (audit #7)."""
    match = sd_match()
    page = browser.page
    open_replay(page, match, 0)
    refresh = """() => new Promise((resolve) => {
        const news = document.getElementById("replay-news");
        new MutationObserver(resolve).observe(news, {childList: true});
        document.getElementById("replay").gemReplay.refreshPage("finished");
    })"""
    page.locator("h1").evaluate("(h1) => { h1.tabIndex = -1; h1.focus(); }")
    page.evaluate(refresh)
    focused = page.evaluate(
        "() => [document.activeElement.isConnected, document.activeElement.dataset.refresh]"
    )
    assert focused == [True, "heading"]
    page.get_by_role("link", name="Download the replay").focus()
    page.evaluate(refresh)
    assert page.evaluate("() => document.activeElement.textContent") == "Download the replay"
    assert page.evaluate("() => document.activeElement.isConnected")
