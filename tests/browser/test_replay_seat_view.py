"""The replay viewer's "View as" control and its letters' size
(docs/replay-viewer.md): a seat's view shows what that seat could observe
and nothing another seat kept hidden; every letter is 12 px at least, and
the bigger letters leave no owned card covered by the next in its stack.

The matches are recorded from scripted replays (tests/arena/playout.py), so
a blind reservation and a secret choice happen at known steps.
"""

from __future__ import annotations

import re

import pytest

from arena import spectator_frames
from ladder.bots import add_version, create_bot
from ladder.models import Match
from tests.arena.playout import scripted_replay
from tests.browser.conftest import (
    SCREENSHOTS,
    Browser,
    Page,
    expect,
    horizontal_overflow,
    shoot,
)
from tests.browser.test_match_page import ESR, SD, builtin_lineup, log_in
from tests.browser.test_replay_a11y import live_match_with_steps
from tests.web.conftest import live_from, noting_bot, recorded

pytestmark = pytest.mark.browser

SD_NAMES = ["ruby-random", "opal-random"]
ESR_NAMES = ["ruby-random-player", "opal-random-player", "jade-random-player"]


def sd_blind_match() -> tuple[Match, str]:
    """Seat 0 (ruby-random) reserves a level 1 card blind at step 1; the card's id."""
    replay = scripted_replay(SD, 2, 4, first=("reserve b3 deck1",))
    match = recorded(builtin_lineup(SD, SD_NAMES), replay)
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


def test_the_last_secret_choice_is_named_as_it_reveals_them_all(
    browser: Browser, process_sandbox
) -> None:
    """In a seat's view the step of the round's last choice read "jade chooses
    in secret", while the board beside it showed every choice revealed (and
    the last step of a match, its whole final round): that step now names it."""
    match, _ = esr_secret_match()
    replay = scripted_replay(ESR, 3, 3, {"money_visible": False})  # the match's own
    frames = spectator_frames(replay, seat=0)
    # the first step that ends the choosing: the round's last choice, another seat's
    last = next(
        f
        for f in frames[1:]
        if f["action"] is None
        and frames[f["step"] - 1]["view"]["phase"] == "commit"
        and f["view"]["phase"] != "commit"
    )
    step, seat = last["step"], last["seat"]
    words = {"money": "Money", "event": "Event", "gems": "Gems", "free": "Free Choice"}
    choice = words[replay["steps"][step - 1]["action"].split()[1]]
    page = browser.page
    page.goto(f"/matches/{match.pk}/?seat=0#step={step - 1}")
    replay_el = page.locator("#replay")
    expect(replay_el).to_have_attribute("data-view-seat", "0")
    action = page.locator("#replay-action")
    # a step before, that seat's own choice is still its secret
    if frames[step - 1]["action"] is None:
        expect(action).to_have_text(re.compile(r"chooses in secret$"))
    page.locator("#replay-next").click()
    expect(replay_el).to_have_attribute("data-step", str(step))
    expect(action).to_have_text(
        f"Step {step}: {ESR_NAMES[seat]} chooses the {choice} action card, the last to"
        " choose: every choice is revealed"
    )
    expect(page.locator(f'.esr-seat[data-seat="{seat}"]')).to_have_attribute(
        "data-choice", replay["steps"][step - 1]["action"].split()[1]
    )


def test_a_live_match_shows_only_everyones_view(browser: Browser, process_sandbox) -> None:
    """A seat's view of a running match would tell its opponents what it
    holds: while live, "View as" is disabled at everyone, even when the
    address asks for a seat."""
    match = live_match_with_steps(6)
    page = browser.page
    page.goto(f"/matches/{match.pk}/?seat=0")
    replay = page.locator("#replay")
    expect(replay).to_have_attribute("data-state", "live")
    expect(replay).to_have_attribute("data-step", "6")
    expect(page.locator("#replay-seat")).to_be_disabled()
    expect(page.locator("#replay-seat")).to_have_value("")
    expect(replay).to_have_attribute("data-view-seat", "")


#: every element of the viewer with letters of its own, and its font size below 12 px
SMALL_TEXT = """() => [...document.querySelectorAll("#replay *")]
    .filter((el) => el.getBoundingClientRect().width > 0 && !el.closest(".r-vh"))
    .filter((el) => [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()))
    .map((el) => [el.className || el.tagName, el.textContent.trim().slice(0, 12),
                  parseFloat(getComputedStyle(el).fontSize)])
    .filter(([, , size]) => size < 12)"""


def test_every_letter_of_the_viewer_is_12_px_at_least(browser: Browser, process_sandbox) -> None:
    """Tokens', prices', bonuses' and gems' letters were 8-11 px; now none of
    the viewer's text is under 12 px, on a desktop and on phones, and the
    page still fits the phone's width."""
    sd, _ = sd_blind_match()
    esr, _ = esr_secret_match()
    phone = browser.phone()
    for page, label in ((browser.page, "desktop"), (phone, "phone")):
        for match in (sd, esr):
            step = match.steps // 2
            page.goto(f"/matches/{match.pk}/?seat=0#step={step}")
            expect(page.locator("#replay")).to_have_attribute("data-view-seat", "0")
            expect(page.locator("#replay")).to_have_attribute("data-step", str(step))
            assert page.locator("#replay-board *").count() > 50
            assert page.evaluate(SMALL_TEXT) == [], (match.game, label)
            if page is phone:
                assert horizontal_overflow(page) == 0, match.game
                phone.set_viewport_size({"width": 360, "height": 740})
                assert page.evaluate(SMALL_TEXT) == [], (match.game, 360)
                assert horizontal_overflow(page) == 0, (match.game, 360)
                phone.set_viewport_size({"width": 390, "height": 844})
            shoot(page, f"replay-letters-{match.game}-{label}")


#: each owned card in a stack whose own drawing (points, crowns, bonus, ×N) is
#: covered by the next card of the stack or cut off by its own edge
COVERED_IN_STACKS = """() => {
    const out = [];
    const apart = (a, b) => a.right <= b.left + .5 || b.right <= a.left + .5
        || a.bottom <= b.top + .5 || b.bottom <= a.top + .5;
    for (const card of document.querySelectorAll("#replay-board .sd-stack-cards > .sd-card")) {
        const box = card.getBoundingClientRect();
        const next = card.nextElementSibling;
        for (const part of card.querySelectorAll(".sd-card-top > *")) {
            const r = part.getBoundingClientRect();
            if (!r.width) continue;
            const what = card.dataset.card + " " + part.className;
            if (next && !apart(r, next.getBoundingClientRect())) out.push(what + " under the next card");
            if (r.bottom > box.bottom + .5 || r.right > box.right + .5) out.push(what + " cut off");
        }
    }
    return out;
}"""


def test_owned_cards_in_a_stack_show_their_crowns_and_bonus(
    browser: Browser, process_sandbox
) -> None:
    """A small owned card with a crown pushes its bonus to a second line
    (since the letters are 12 px): the next card of the stack covered it. Now
    each card's points, crowns and bonus stay in sight, on a desktop and on
    phones (390 and 360 px)."""
    replay = scripted_replay(SD, 2, 1)
    match = recorded(builtin_lineup(SD, SD_NAMES), replay)
    phone = browser.phone()
    for page, label in ((browser.page, "desktop"), (phone, "phone")):
        page.goto(f"/matches/{match.pk}/#step={match.steps}")
        expect(page.locator("#replay")).to_have_attribute("data-step", str(match.steps))
        # the case that was covered: a crowned card with another card on it
        crowned = page.locator(".sd-stack-cards > .sd-card:has(.sd-crowns):not(:last-child)")
        assert crowned.count() >= 2, label
        widths = [None, 360] if page is phone else [None]
        for width in widths:
            if width:
                page.set_viewport_size({"width": width, "height": 740})
            assert page.evaluate(COVERED_IN_STACKS) == [], (label, width)
            assert horizontal_overflow(page) == 0, (label, width)
            name = f"replay-owned-stacks-{label}{width or ''}.png"
            page.locator(".sd-players").screenshot(path=str(SCREENSHOTS / name))


def test_a_live_match_as_the_users_own_seat(
    browser: Browser, process_sandbox, django_user_model
) -> None:
    """The owner of seat 0's bot may follow the running match as seat 0 sees
    it (its blind reservation face up), not as seat 1; everyone else keeps
    the disabled control (test above)."""
    alice = django_user_model.objects.create_user("alice", "alice@example.org", "pw-alice-123")
    mine = add_version(create_bot(alice, SD, "alice-sd"), "bot.py", noting_bot("mine"), False)
    replay = scripted_replay(SD, 2, 4, first=("reserve b3 deck1",))
    match = live_from(replay, [mine, builtin_lineup(SD, ["opal-random"])[0]], 6)
    card = spectator_frames(replay, seat=0)[1]["view"]["players"][0]["reserved"][0]["card"]
    page = browser.page
    log_in(page, "alice", "pw-alice-123")
    page.goto(f"/matches/{match.pk}/?seat=0")
    replay_el = page.locator("#replay")
    expect(replay_el).to_have_attribute("data-state", "live")
    expect(replay_el).to_have_attribute("data-step", "6")
    expect(replay_el).to_have_attribute("data-view-seat", "0")
    select = page.locator("#replay-seat")
    expect(select).to_be_enabled()
    expect(select).to_have_value("0")
    expect(select.locator('option[value="1"]')).to_be_disabled()
    mine_box = page.locator('.sd-player[data-seat="0"] .sd-reserved')
    expect(mine_box.locator(f'.sd-card.sd-blind[data-card="{card}"]')).to_be_visible()
    expect(mine_box.locator(".sd-back")).to_have_count(0)
    shoot(page, "replay-live-seat-view-desktop")

    # everyone's view: every blind reservation is the back of its level
    choose_seat(page, "", 6)
    assert "seat=" not in page.url
    expect(mine_box.locator(".sd-back").first).to_be_visible()
    expect(page.locator(f'#replay-board [data-card="{card}"]')).to_have_count(0)
    choose_seat(page, "0", 6)
    expect(mine_box.locator(f'.sd-card.sd-blind[data-card="{card}"]')).to_be_visible()
    assert re.search(r"\?seat=0$", page.url), page.url


#: gems drawn side by side (a gem card's, an offer's) that touch: less than 2 px
#: from one gem's count to the next gem's diamond
GEMS_TOUCHING = """() => {
    const out = [];
    for (const row of document.querySelectorAll("#replay-board .esr-gem-card, #replay-board .esr-offers li")) {
        const gems = [...row.querySelectorAll(".esr-gem")];
        for (let i = 1; i < gems.length; i++) {
            const a = gems[i - 1].getBoundingClientRect(), b = gems[i].getBoundingClientRect();
            if (a.top === b.top && b.left - a.right < 2) out.push(row.textContent.trim().slice(0, 40));
        }
    }
    return out;
}"""


def test_a_gem_cards_gems_keep_apart(browser: Browser, process_sandbox) -> None:
    """A gem card's gems sat flush ("G28 4 M Y1G2B1"), each count touching the
    next gem's diamond; now they are spaced like the seat's own gems."""
    match, _ = esr_secret_match()
    phone = browser.phone()
    for page, label in ((browser.page, "desktop"), (phone, "phone")):
        page.goto(f"/matches/{match.pk}/#step=0")
        expect(page.locator("#replay")).to_have_attribute("data-state", "replay")
        # every seat starts with a gem card; some give gems of two colours or more
        cards = page.locator(".esr-gem-card:has(.esr-gem + .esr-gem)")
        assert cards.count() >= 1, label
        assert page.evaluate(GEMS_TOUCHING) == [], label
        page.locator(".esr-seats").screenshot(
            path=str(SCREENSHOTS / f"replay-gem-cards-{label}.png")
        )
