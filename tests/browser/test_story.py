"""A new user's first hour, in a real browser against a live server.

Sign up, drop a bot on the upload form, watch it get validated without a
reload, step through one of its matches, see it on the leaderboard once it
has played; a refused and a rejected upload show why; the phone layout of the
leaderboard and the match page fits the screen. Every page visited is saved
under test-artifacts/screenshots/ at desktop and phone size.

Matches are played in this process while the pages poll (see conftest.py).
"""

from __future__ import annotations

import re

import pytest

from ladder import tasks
from ladder.bots import install_builtin
from ladder.leaderboard import refit
from ladder.matches import create_match
from ladder.models import Bot, BotVersion, Match, MatchSeat
from ladder.scheduler import fill_queue
from tests.browser.conftest import (
    Browser,
    Page,
    expect,
    horizontal_overflow,
    shoot,
    widest_elements,
)
from tests.ladder.conftest import CRASH_BOT, RANDOM_BOT

pytestmark = pytest.mark.browser

GAME = "splendor-duel"
BOT_NAME = "dora-random"


def run_queued(kind: str, **filters) -> list[int]:
    """Play every queued match of this kind, as a worker would; the ids played."""
    ids = list(
        Match.objects.filter(status=Match.Status.QUEUED, kind=kind, **filters)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    for match_id in ids:
        tasks.run_match.run(match_id)
    return ids


def both(visitor: Browser, name: str, path: str | None = None) -> Page:
    """Screenshot the desktop page, then the same address on a phone; the phone page."""
    shoot(visitor.page, f"desktop-{name}")
    phone = visitor.phone()
    phone.goto(path or visitor.page.url)
    phone.wait_for_load_state("load")
    shoot(phone, f"phone-{name}")
    return phone


def assert_fits_phone(phone: Page, what: str) -> None:
    overflow = horizontal_overflow(phone)
    assert overflow == 0, (
        f"{what} is {overflow}px wider than a 390px phone; widest: {widest_elements(phone)}"
    )


def sign_up(page: Page, username: str) -> None:
    page.goto("/")
    page.get_by_role("link", name="Sign up").click()
    expect(page).to_have_url(re.compile(r"/accounts/signup/$"))
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password", exact=True).fill("a-long-pass-phrase-42")
    page.get_by_label("Password confirmation").fill("a-long-pass-phrase-42")


def drop_file(page: Page, selector: str, name: str, data: bytes) -> None:
    """Drop a file on an element the way a desktop does: a drop event carrying a DataTransfer."""
    transfer = page.evaluate_handle(
        """([name, text]) => {
            const transfer = new DataTransfer();
            transfer.items.add(new File([text], name, {type: "text/x-python"}));
            return transfer;
        }""",
        [name, data.decode()],
    )
    page.dispatch_event(selector, "dragenter", {"dataTransfer": transfer})
    page.dispatch_event(selector, "drop", {"dataTransfer": transfer})


def replay_at(page: Page, step: int) -> None:
    expect(page.locator("#replay")).to_have_attribute("data-step", str(step))
    expect(page.locator("#replay-step")).to_have_attribute("data-step", str(step))
    expect(page.locator("#replay-slider")).to_have_value(str(step))
    action = page.locator("#replay-action")
    if step == 0:
        expect(action).to_have_text("Start of the game.")
    else:
        expect(action).to_have_text(re.compile(rf"^Step {step}: \S"))
        # the number the bot saw in its request, as the CLI prints it
        expect(action).to_have_attribute("title", re.compile(rf" · request step {step - 1}$"))


def test_story(browser: Browser, process_sandbox, settings) -> None:
    settings.QUEUE_DEPTH_PER_WORKER = 4
    page = browser.page

    page.goto("/")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Write a bot")
    both(browser, "01-home")

    # -- sign up ------------------------------------------------------------
    sign_up(page, "dora")
    both(browser, "02-signup")
    page.get_by_role("button", name="Create the account").click()
    expect(page).to_have_url(re.compile(r"/upload/$"))
    expect(page.locator(".messages")).to_contain_text("Welcome, dora")
    expect(page.locator(".nav-user")).to_contain_text("dora")

    # -- upload by drag and drop --------------------------------------------
    page.get_by_label("Game").select_option(GAME)
    page.get_by_label("Name").fill(BOT_NAME)
    drop_file(page, "[data-dropzone]", "main.py", RANDOM_BOT)
    expect(page.locator("[data-chosen]")).to_have_text(
        f"Chosen: main.py ({len(RANDOM_BOT):,} bytes)"
    )
    assert page.eval_on_selector("input[type=file]", "input => input.files[0].name") == "main.py"
    both(browser, "03-upload-form")
    page.get_by_role("button", name="Upload and validate").click()

    # -- validation: pending, then accepted without a reload ------------------
    expect(page).to_have_url(re.compile(r"/bots/\d+/versions/1/$"))
    version_url = page.url
    bot = Bot.objects.get(name=BOT_NAME, game=GAME)
    version = bot.versions.get(number=1)
    assert version.status == BotVersion.Status.PENDING
    assert version.upload.read() == RANDOM_BOT  # what was dropped is what was stored
    status = page.locator("[data-status]")
    expect(status).to_have_class("status pending")
    expect(status).to_have_text(BotVersion.Status.PENDING.label)
    expect(page.locator("[data-spinner]")).to_be_visible()
    expect(page.locator("[data-accepted]")).to_be_hidden()
    both(browser, "04-upload-pending")

    # A marker in the page's window is lost on any reload: it proves the
    # status changes by polling alone.
    page.evaluate("() => { window.__noReload = true; }")
    played = run_queued(Match.Kind.VALIDATION, validates=version)
    assert len(played) == settings.VALIDATION_MATCHES
    expect(status).to_have_class("status ready")
    expect(status).to_have_text(BotVersion.Status.READY.label)
    expect(page.locator("[data-accepted]")).to_be_visible()
    # the list of validation matches under the box follows without a reload too
    expect(page.locator("[data-match-status]")).to_have_text(["finished", "finished"])
    expect(page.locator("[data-spinner]")).to_be_hidden()
    expect(page.locator("[data-progress]")).to_contain_text(
        f"{len(played)} of {len(played)} validation matches finished"
    )
    assert page.evaluate("() => window.__noReload") is True
    assert page.url == version_url
    both(browser, "05-upload-accepted")

    # -- one of its matches, step by step -------------------------------------
    page.get_by_role("link", name=f"#{played[0]}").click()
    # the viewer writes #step=0 into the address once its frames have come
    expect(page).to_have_url(re.compile(rf"/matches/{played[0]}/(#step=0)?$"))
    replay = page.locator("#replay")
    expect(replay).to_have_attribute("data-state", "replay")
    steps = int(replay.get_attribute("data-steps"))
    assert steps == Match.objects.get(pk=played[0]).steps, "the viewer shows another game"
    assert steps > 6, f"a random game of {steps} steps is too short to step through"
    replay_at(page, 0)

    page.locator("#replay-next").click()
    replay_at(page, 1)
    first_action = page.locator("#replay-action").inner_text()
    page.locator("#replay-next").click()
    replay_at(page, 2)
    assert page.locator("#replay-action").inner_text() != first_action
    expect(page).to_have_url(re.compile(r"#step=2$"))
    page.locator("#replay-prev").click()
    replay_at(page, 1)
    page.locator("#replay-last").click()
    replay_at(page, steps)
    expect(page.locator("#replay-next")).to_be_disabled()
    page.locator("#replay-first").click()
    replay_at(page, 0)
    expect(page.locator("#replay-prev")).to_be_disabled()

    # the keyboard, with the focus on the viewer (a click on its board)
    page.locator("#replay-board").click(position={"x": 5, "y": 5})
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    replay_at(page, 3)
    page.keyboard.press("ArrowLeft")
    replay_at(page, 2)
    page.keyboard.press("End")
    replay_at(page, steps)
    page.keyboard.press("Home")
    replay_at(page, 0)
    page.keyboard.press(" ")
    expect(replay).to_have_attribute("data-playing", "true")
    expect(page.locator("#replay-play")).to_have_text("Pause")
    expect(replay).not_to_have_attribute("data-step", "0")  # it plays on by itself
    page.keyboard.press(" ")
    expect(replay).to_have_attribute("data-playing", "false")
    # after a click on a step button (it keeps the focus) Space presses it again
    page.locator("#replay-first").click()
    page.locator("#replay-next").click()
    replay_at(page, 1)
    page.keyboard.press(" ")
    replay_at(page, 2)
    expect(replay).to_have_attribute("data-playing", "false")
    page.locator("#replay-play").focus()
    page.keyboard.press(" ")  # the play button's own Space toggles once, not twice
    expect(replay).to_have_attribute("data-playing", "true")
    page.keyboard.press(" ")
    expect(replay).to_have_attribute("data-playing", "false")

    # the address keeps the step; opening it again restores it
    page.locator("#replay-slider").fill(str(steps // 2))
    middle = steps // 2
    replay_at(page, middle)
    expect(page).to_have_url(re.compile(rf"#step={middle}$"))
    shared = page.url
    shared_action = page.locator("#replay-action").inner_text()
    shoot(page, "desktop-06-match-middle-step")
    page.keyboard.press("ArrowRight")
    replay_at(page, middle + 1)
    shoot(page, "desktop-07-match-next-step")
    page.goto(version_url)
    page.goto(shared)
    replay_at(page, middle)
    expect(page.locator("#replay-action")).to_have_text(shared_action)
    # …and on a phone, where the page must fit the screen
    phone = browser.phone()
    for step, name in ((middle, "06-match-middle-step"), (middle + 1, "07-match-next-step")):
        phone.goto(f"{shared.split('#')[0]}#step={step}")
        replay_at(phone, step)
        shoot(phone, f"phone-{name}")
        assert_fits_phone(phone, f"the match page at step {step}")

    # -- ladder: before any rated match it is listed but unranked --------------
    page.goto(f"/games/{GAME}/")
    row = page.locator(
        "table.leaderboard tbody tr", has=page.get_by_role("link", name=BOT_NAME, exact=True)
    )
    expect(row).to_have_count(1)
    expect(row.locator("td").nth(0)).to_have_text("—")

    created = fill_queue()
    assert created > 0, "the scheduler queued no ladder match for the new bot"
    page.get_by_role("link", name="Queue", exact=True).click()
    expect(page.locator(".stat").first).to_contain_text(str(created))
    both(browser, "08-queue")

    run_queued(Match.Kind.LADDER)
    refit(GAME)
    mine = MatchSeat.objects.filter(
        version__bot=bot, match__kind=Match.Kind.LADDER, match__status=Match.Status.FINISHED
    ).count()
    assert mine > 0, "the ladder matches the scheduler queued did not include the new bot"

    page.goto(f"/games/{GAME}/")
    expect(row).to_have_count(1)
    expect(row.locator("td").nth(0)).to_have_text(re.compile(r"^\d+$"))
    expect(row.locator("td.rating-cell strong")).to_have_text(re.compile(r"^\d+$"))
    games_cell = row.locator("td").nth(5)  # rank, bot, owner, rating, Elo, games
    expect(games_cell).to_have_text(str(mine))
    phone = both(browser, "09-leaderboard")
    expect(phone.get_by_role("link", name=BOT_NAME, exact=True)).to_be_visible()
    assert_fits_phone(phone, "the leaderboard")

    # -- the bot's page, from the leaderboard ----------------------------------
    row.get_by_role("link", name=BOT_NAME, exact=True).click()
    expect(page).to_have_url(re.compile(rf"/bots/{bot.pk}/$"))
    expect(page.get_by_role("heading", level=1)).to_contain_text(BOT_NAME)
    expect(page.locator(".tag.ok")).to_have_text("active")
    expect(page.locator(".chart-wrap svg")).to_be_visible()
    both(browser, "10-bot")

    # the home page's top list now has it too
    page.goto("/")
    card = page.locator(".game-card", has=page.get_by_role("heading", name="Splendor Duel"))
    expect(card.get_by_role("link", name=BOT_NAME)).to_be_visible()

    # -- docs and a missing page ----------------------------------------------
    page.get_by_role("link", name="Docs", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Documentation")
    both(browser, "11-docs")
    response = page.goto("/bots/999999/")
    assert response is not None and response.status == 404
    expect(page.get_by_role("heading", level=1)).to_have_text("Not found")
    both(browser, "12-not-found")


def test_refused_and_rejected_uploads_show_why(
    browser: Browser, process_sandbox, django_user_model
) -> None:
    django_user_model.objects.create_user("erin", "", "erin-pass-123")
    page = browser.page
    page.goto("/upload/")
    expect(page).to_have_url(re.compile(r"/accounts/login/\?next=/upload/$"))
    page.get_by_label("Username").fill("erin")
    page.get_by_label("Password").fill("erin-pass-123")
    page.get_by_role("button", name=re.compile("Log in", re.I)).click()
    expect(page).to_have_url(re.compile(r"/upload/$"))

    # refused at the door: the file does not even parse (the file input path),
    # on the desktop and on a phone
    phone = browser.phone()
    for size, tab in (("desktop", page), ("phone", phone)):
        tab.goto("/upload/")
        tab.get_by_label("Game").select_option(GAME)
        tab.get_by_label("Name").fill("broken")
        tab.locator("input[type=file]").set_input_files(
            {"name": "main.py", "mimeType": "text/x-python", "buffer": b"def broken(:\n"}
        )
        tab.get_by_role("button", name="Upload and validate").click()
        refused = tab.locator(".form-error[role=alert]")
        expect(refused).to_contain_text("Refused:")
        expect(refused).to_contain_text("main.py has a syntax error on line 1")
        expect(tab.get_by_label("Name")).to_have_value("broken")  # the form keeps what was typed
        shoot(tab, f"{size}-13-upload-refused")
    assert not Bot.objects.filter(name="broken").exists()

    # accepted at the door, rejected by validation: it crashes on start
    page.get_by_label("Name").fill("crashy")
    page.locator("input[type=file]").set_input_files(
        {"name": "main.py", "mimeType": "text/x-python", "buffer": CRASH_BOT}
    )
    page.get_by_role("button", name="Upload and validate").click()
    expect(page).to_have_url(re.compile(r"/versions/1/$"))
    expect(page.locator("[data-status]")).to_have_class("status pending")
    version = BotVersion.objects.get(bot__name="crashy")
    install_builtin(GAME, "random")  # the validation opponent exists already; harmless
    run_queued(Match.Kind.VALIDATION, validates=version)
    version.refresh_from_db()
    assert version.status == BotVersion.Status.REJECTED
    expect(page.locator("[data-status]")).to_have_class("status rejected")
    expect(page.locator("[data-status]")).to_have_text(BotVersion.Status.REJECTED.label)
    rejected = page.locator("[data-rejected]")
    expect(rejected).to_be_visible()
    expect(page.locator("[data-reason]")).to_have_text(version.reject_reason)
    expect(page.locator("[data-reason]")).to_contain_text("crash")
    expect(page.locator("[data-stderr]")).to_contain_text("about to fail")
    expect(page.locator("[data-stderr]")).to_be_visible()
    expect(page.locator("[data-accepted]")).to_be_hidden()
    both(browser, "14-upload-rejected")


def test_phone_layout_of_leaderboard_and_match(browser: Browser, process_sandbox) -> None:
    # long names are what push a narrow table wider than the screen
    bots = [
        install_builtin(GAME, "random", bot_name=name)
        for name in ("a-rather-long-bot-name-for-phones", "another-long-named-random-bot")
    ]
    match = create_match(GAME, [b.active_version for b in bots], kind=Match.Kind.LADDER, rated=True)
    assert tasks.run_match.run(match.pk) == "finished"
    refit(GAME)
    phone = browser.phone()
    phone.goto(f"/games/{GAME}/")
    for b in bots:
        expect(phone.get_by_role("link", name=b.name)).to_be_visible()
    assert_fits_phone(phone, "the leaderboard")
    phone.goto(f"/matches/{match.pk}/#step=5")
    replay_at(phone, 5)
    assert_fits_phone(phone, "the match page")
