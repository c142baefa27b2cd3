"""The match page and its replay viewer, in a real browser: live matches that
end or restart while the page is open, Edel, Stein & Reich's bargaining,
playback speed, focus, debug-note labels, and the bot page's rating chart on
a phone.

Matches are played in this process while the page polls (see conftest.py).
Screenshots go to test-artifacts/screenshots/ (match-page-*).
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db.models import F

from ladder import tasks
from ladder.bots import add_version, create_bot, install_builtin
from ladder.matches import create_match
from ladder.models import Bot, LiveStep, Match, Rating
from tests.browser.conftest import (
    TEXT_LINES_JS,
    Browser,
    Page,
    expect,
    horizontal_overflow,
    shoot,
    widest_elements,
)
from tests.web.conftest import make_bot, noting_bot, play, random_steps

pytestmark = pytest.mark.browser

SD = "splendor-duel"
ESR = "edel-stein-reich"


def play_checking_at_step(monkeypatch, match: Match, step: int, check) -> None:
    """Play `match` in this process to its end; once its step `step` is
    written for watchers, run `check` (what the page shows while the match
    is live). The runner would take a failed check for a platform fault, so
    it is kept and raised once the match has finished."""
    original = tasks.LiveRecorder.on_step
    problems: list[AssertionError] = []

    def on_step(recorder, data) -> None:
        original(recorder, data)
        if data["step"] != step:
            return
        recorder.flush()
        try:
            check()
        except AssertionError as exc:
            problems.append(exc)

    monkeypatch.setattr(tasks.LiveRecorder, "on_step", on_step)
    assert tasks.run_match.run(match.pk) == "finished"
    assert not problems, problems[0]
    match.refresh_from_db()


def builtin_lineup(game: str, names: list[str]):
    return [install_builtin(game, "random", bot_name=name).active_version for name in names]


def finished(game: str, lineup, seed: int = 1) -> Match:
    match = create_match(game, lineup, seed=seed)
    assert tasks.run_match.run(match.pk) == "finished"
    match.refresh_from_db()
    return match


def with_names(match: Match) -> str:
    """The match's result as the page should print it: the winner, then the reason
    with bot names for "seat N"."""
    seats = list(match.seats.select_related("version__bot").order_by("seat"))
    names = {s.seat: s.version.bot.name for s in seats}
    (winner,) = [s.version.bot.name for s in seats if s.rank == 1]
    reason = re.sub(r"\bseat (\d+)\b", lambda m: names[int(m.group(1))], match.reason)
    return f"{winner} wins — {reason}"


def log_in(page: Page, username: str, password: str) -> None:
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name=re.compile("Log in", re.I)).click()
    expect(page.locator(".nav-user")).to_contain_text(username)


def test_a_queued_match_that_finishes_refreshes_the_page(browser: Browser, process_sandbox) -> None:
    """Queued when opened, over at the next poll: the viewer starts at step 0
    (it never showed a live step), and the page's result parts follow without
    a reload: title status, seats' ranks and scores, reason with bot names,
    seed, the replay download."""
    match = create_match(SD, builtin_lineup(SD, ["ruby-random", "opal-random"]))
    page = browser.page
    held: list = []
    hold = {"on": False}

    def live_json(route) -> None:
        if hold["on"]:
            held.append(route)
        else:
            route.continue_()

    # while the match is played, live.json answers wait: the viewer sees no live step
    page.route(re.compile(r"/live\.json"), live_json)
    page.goto(f"/matches/{match.pk}/")
    replay = page.locator("#replay")
    expect(replay).to_have_attribute("data-state", "waiting")
    expect(page.locator("h1 .status")).to_have_text("queued")
    expect(page.get_by_role("link", name="Download the replay")).to_have_count(0)
    rank_cells = page.locator("table.seats tbody td:nth-child(3)")
    expect(rank_cells).to_have_text(["—", "—"])
    shoot(page, "match-page-01-queued")
    page.evaluate("() => { window.__noReload = true; }")

    hold["on"] = True
    assert tasks.run_match.run(match.pk) == "finished"
    match.refresh_from_db()
    hold["on"] = False
    for route in held:
        route.continue_()

    expect(replay).to_have_attribute("data-state", "replay")
    expect(replay).to_have_attribute("data-step", "0")
    expect(page.locator("#replay-action")).to_have_text("Start of the game.")
    expect(page).to_have_url(re.compile(r"#step=0$"))
    expect(page.locator("h1 .status")).to_have_text("finished")
    ranks = [str(s.rank) for s in match.seats.order_by("seat")]
    expect(rank_cells).to_have_text(ranks)
    expect(page.locator(".result-reason")).to_have_text(with_names(match))
    expect(page.locator("main")).to_contain_text(f"seed {match.seed}")
    expect(page.get_by_role("link", name="Download the replay")).to_be_visible()
    assert page.evaluate("() => window.__noReload") is True
    shoot(page, "match-page-02-finished-without-reload")


def test_a_live_match_followed_to_the_end_ends_at_the_last_step(
    browser: Browser, process_sandbox, monkeypatch
) -> None:
    """A viewer that watched live steps and followed the newest one shows the
    last step of the replay; the title's status follows queued → running → finished."""
    match = create_match(SD, builtin_lineup(SD, ["ruby-random", "opal-random"]))
    page = browser.page
    page.goto(f"/matches/{match.pk}/")
    replay = page.locator("#replay")
    expect(replay).to_have_attribute("data-state", "waiting")

    def while_live() -> None:
        expect(replay).to_have_attribute("data-state", "live")
        expect(replay).to_have_attribute("data-steps", "11")
        expect(replay).to_have_attribute("data-following", "true")
        expect(page.locator("h1 .status")).to_have_text("running")

    play_checking_at_step(monkeypatch, match, 10, while_live)
    expect(replay).to_have_attribute("data-state", "replay")
    expect(replay).to_have_attribute("data-step", str(match.steps))
    expect(page.locator("h1 .status")).to_have_text("finished")
    expect(page.get_by_role("link", name="Download the replay")).to_be_visible()


def test_a_restarted_live_match_drops_the_old_step_from_the_address(
    browser: Browser, process_sandbox
) -> None:
    match = create_match(SD, builtin_lineup(SD, ["ruby-random", "opal-random"]))
    claim = match.claim_for("worker@test")
    recorder = tasks.LiveRecorder(match.pk, claim)
    for step in random_steps(SD, match.seat_count, match.seed, match.options, 8, rng_seed=1):
        recorder.on_step(step)
    recorder.flush()

    page = browser.page
    page.goto(f"/matches/{match.pk}/")
    replay = page.locator("#replay")
    expect(replay).to_have_attribute("data-state", "live")
    expect(replay).to_have_attribute("data-steps", "8")
    page.locator("#replay-board").click(position={"x": 5, "y": 5})  # the viewer takes the keys
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(replay).to_have_attribute("data-step", "6")
    expect(replay).to_have_attribute("data-following", "false")
    expect(page).to_have_url(re.compile(r"#step=6$"))

    # a platform fault: the worker plays the match again from the start
    LiveStep.objects.filter(match=match).delete()
    Match.objects.filter(pk=match.pk).update(attempts=F("attempts") + 1)
    for step in random_steps(SD, match.seat_count, match.seed, match.options, 3, rng_seed=2):
        recorder.on_step(step)
    recorder.flush()
    expect(replay).to_have_attribute("data-steps", "3")
    expect(page).to_have_url(re.compile(rf"/matches/{match.pk}/$"))
    # it follows the new attempt
    expect(replay).to_have_attribute("data-following", "true")
    expect(replay).to_have_attribute("data-step", "3")

    # a fault of the worker's own: the attempt is given back, so the next run
    # has the same attempt number; only its start time tells the runs apart
    LiveStep.objects.filter(match=match).delete()
    Match.objects.filter(pk=match.pk).update(started_at=F("started_at") + timedelta(seconds=5))
    for step in random_steps(SD, match.seat_count, match.seed, match.options, 2, rng_seed=3):
        recorder.on_step(step)
    recorder.flush()
    expect(replay).to_have_attribute("data-steps", "2")
    expect(replay).to_have_attribute("data-step", "2")


def test_edel_stein_reich_bargaining_and_choices(browser: Browser, process_sandbox) -> None:
    names = ["ruby-random-player", "opal-random-player", "jade-random-player"]
    match = finished(ESR, builtin_lineup(ESR, names), seed=3)
    page = browser.page
    page.goto(f"/matches/{match.pk}/")
    replay = page.locator("#replay")
    expect(replay).to_have_attribute("data-state", "replay")

    # every step that accepts an offer shows the offers and the accept
    seen = page.evaluate(
        """() => {
            const viewer = document.getElementById("replay").gemReplay;
            const accepts = [], missing = [], zeros = [];
            viewer.frames.forEach((f, k) => { if (f.action === "accept") accepts.push(k); });
            for (const k of accepts) {
                viewer.go(k);
                const line = document.querySelector(".esr-bargain .esr-accept");
                if (!line || !line.textContent.includes(" accepts ")) missing.push(k);
            }
            viewer.frames.forEach((f, k) => {
                const b = f.view.bargain;
                if (!b || !Object.values(b.building).includes(0)) return;
                viewer.go(k);
                const line = document.querySelector(".esr-building");
                if (/\\b0 (red|yellow|green|blue)/.test(line ? line.textContent : "")) zeros.push(k);
            });
            return {accepts, missing, zeros};
        }"""
    )
    assert seen["accepts"], "nobody accepted an offer in this game: pick another seed"
    assert seen["missing"] == [], f"steps that accept an offer without the accept line: {seen}"
    assert seen["zeros"] == [], f"steps whose announced raise lists 0 gems: {seen}"
    step = seen["accepts"][0]
    page.goto(f"/matches/{match.pk}/#step={step}")
    expect(replay).to_have_attribute("data-step", str(step))
    accept = page.locator(".esr-bargain .esr-accept")
    expect(accept).to_be_visible()
    shoot(page, "match-page-03-esr-accept")

    # the step that completes a raise says the whole raise as the round's log says the offer
    raises = page.evaluate(
        """() => {
            const viewer = document.getElementById("replay").gemReplay;
            const out = [];
            viewer.frames.forEach((f, k) => {
                if (!/ into the offer and (offers|raises to) /.test(f.description || "")) return;
                viewer.go(k);
                const line = document.getElementById("replay-action").textContent;
                const m = line.match(/^Step \\d+: (.+) puts .+ into the offer and (.+)$/);
                const logged = [...document.querySelectorAll(".esr-log li[data-type=offer]")]
                    .map((li) => li.textContent);
                out.push({line, said: m ? m[1] + " " + m[2] + "." : null, logged});
            });
            return out;
        }"""
    )
    assert raises, "no step completed a raise in this game: pick another seed"
    unlike = [r for r in raises if r["said"] not in r["logged"]]
    assert unlike == [], f"step lines whose raise the log says otherwise: {unlike[:3]}"

    # a raise being announced lists only the colours with gems
    building = page.evaluate(
        """() => {
            const viewer = document.getElementById("replay").gemReplay;
            const frame = JSON.parse(JSON.stringify(viewer.frames.find((f) => f.view.bargain)));
            frame.view.bargain.building = {red: 0, yellow: 3, green: 0};
            const out = document.createElement("div");
            GemReplay.renderers["edel-stein-reich"].render(out, frame, viewer.context());
            return out.querySelector(".esr-building").textContent;
        }"""
    )
    assert "3 yellow" in building and "0 red" not in building and "0 green" not in building

    # an offered "Free pick" says gem or gems as its count needs (QA: "pick 1 gems")
    picks = page.evaluate(
        """() => {
            const viewer = document.getElementById("replay").gemReplay;
            return [1, 2].map((count) => {
                const frame = JSON.parse(JSON.stringify(viewer.frames[0]));
                frame.view.offered_event = {id: "free-pick-" + count, name: "Free pick " + count,
                    kind: "immediate", op: "gain_any_gems", params: {count}};
                const out = document.createElement("div");
                GemReplay.renderers["edel-stein-reich"].render(out, frame, viewer.context());
                return out.querySelector(".esr-event-effect").textContent;
            });
        }"""
    )
    assert picks == ["pick 1 gem of any colour", "pick 2 gems of any colour"]

    # event cards are named as printed, even those no frame showed face up
    # (the catalogue comes with the replay: game_data.events)
    named = page.evaluate(
        """() => {
            const viewer = document.getElementById("replay").gemReplay;
            const seen = new Set();
            viewer.frames.forEach((f) => [f.view.offered_event, f.view.pending_event]
                .forEach((e) => { if (e) seen.add(e.id); }));
            const events = viewer.gameData.events;
            const asWords = (id) => id.replace(/-/g, " ").replace(/^./, (c) => c.toUpperCase());
            const id = Object.keys(events).find(
                (k) => !seen.has(k) && asWords(k) !== events[k].name);
            const frame = JSON.parse(JSON.stringify(viewer.frames[viewer.frames.length - 1]));
            frame.view.players[0].held_events = [id];
            const out = document.createElement("div");
            GemReplay.renderers["edel-stein-reich"].render(out, frame, viewer.context());
            return {id, printed: events[id].name,
                    shown: out.querySelector(".esr-held-card b").textContent};
        }"""
    )
    assert named["id"], "every event card was seen face up: pick another seed"
    assert named["shown"] == named["printed"], named

    # the action choices on a phone: words stay whole
    chosen = page.evaluate(
        """() => document.getElementById("replay").gemReplay.frames.findIndex(
            (f) => f.view.choices && new Set(f.view.choices).size < f.view.choices.length)"""
    )
    assert chosen > 0
    phone = browser.phone()
    phone.goto(f"/matches/{match.pk}/#step={chosen}")
    expect(phone.locator("#replay")).to_have_attribute("data-step", str(chosen))
    expect(phone.locator(".esr-choice").first).to_be_visible()
    phone.locator(".esr-choices").scroll_into_view_if_needed()
    shoot(phone, "match-page-04-esr-choices-phone")
    split = phone.evaluate(
        """() => [...document.querySelectorAll(".esr-choice > b, .esr-choice .esr-verdict")]
            .filter((el) => {  // one box per line the word's text takes
                const range = document.createRange();
                range.selectNodeContents(el);
                return range.getClientRects().length > 1;
            }).map((el) => el.textContent)"""
    )
    assert split == [], f"words split over two lines in the action choices: {split}"
    assert horizontal_overflow(phone) == 0


def test_playback_speed_focus_and_keyboard(browser: Browser, process_sandbox) -> None:
    match = finished(SD, builtin_lineup(SD, ["ruby-random", "opal-random"]))
    page = browser.page
    page.goto(f"/matches/{match.pk}/")
    replay = page.locator("#replay")
    expect(replay).to_have_attribute("data-state", "replay")

    # ⏭ disables itself: the focus moves to ◀, where the keys still work
    page.locator("#replay-last").click()
    expect(replay).to_have_attribute("data-step", str(match.steps))
    expect(page.locator("#replay-prev")).to_be_focused()
    page.keyboard.press("ArrowLeft")
    expect(replay).to_have_attribute("data-step", str(match.steps - 1))
    page.locator("#replay-first").click()
    expect(replay).to_have_attribute("data-step", "0")
    expect(page.locator("#replay-next")).to_be_focused()

    # a step every 250 ms at 4×, however long the drawing takes (here 150 ms):
    # the wait set after each drawing is what is left of the 250 ms, at most
    # 100 ms. (Measured gaps between steps flaked on a loaded machine; the
    # waits do not depend on the load: a late tick only shortens them.)
    page.evaluate(
        """() => {
            const renderer = GemReplay.renderers["splendor-duel"];
            const draw = renderer.render;
            window.__waits = [];
            window.__drawn = false;
            renderer.render = function () {
                const t = performance.now();
                draw.apply(this, arguments);
                while (performance.now() - t < 150) { /* a slow machine */ }
                window.__drawn = true;
            };
            // the timers set by a timer's callback after it drew: the next step's
            let inTimer = false;
            const setTimer = window.setTimeout;
            window.setTimeout = function (fn, ms) {
                if (inTimer && window.__drawn) window.__waits.push(ms);
                window.__drawn = false;
                return setTimer.call(window, function () {
                    inTimer = true;
                    window.__drawn = false;
                    try { fn(); } finally { inTimer = false; }
                }, ms);
            };
        }"""
    )
    page.locator("#replay-speed").select_option("250")
    page.locator("#replay-play").focus()
    page.keyboard.press(" ")
    expect(replay).to_have_attribute("data-playing", "true")
    page.wait_for_function("() => window.__waits.length >= 8")
    page.keyboard.press(" ")
    expect(replay).to_have_attribute("data-playing", "false")
    waits = page.evaluate("() => window.__waits")
    assert max(waits) <= 105, f"ms waited after a 150 ms drawing at 4× (250 ms): {waits}"


def test_debug_note_labels_for_owner_and_staff(
    browser: Browser, process_sandbox, django_user_model
) -> None:
    alice = django_user_model.objects.create_user("alice", "", "alice-pass-123")
    staff = django_user_model.objects.create_user(
        "carol", "carol@example.org", "carol-pass-123", is_staff=True
    )
    lineup = []
    for user in (alice, staff):
        bot = create_bot(user, SD, f"{user.username}-notes")
        lineup.append(add_version(bot, "main.py", noting_bot(f"plan of {user.username}"), False))
    match = finished(SD, lineup)
    page = browser.page
    log_in(page, "carol", "carol-pass-123")
    page.goto(f"/matches/{match.pk}/")
    replay = page.locator("#replay")
    expect(replay).to_have_attribute("data-state", "replay")
    steps = page.evaluate(
        """() => {
            const frames = document.getElementById("replay").gemReplay.frames;
            const first = (seat) => frames.findIndex((f) => f.seat === seat && f.note);
            return [first(0), first(1)];
        }"""
    )
    assert min(steps) > 0
    label = page.locator("#replay-note .replay-note-label")
    page.goto(f"/matches/{match.pk}/#step={steps[0]}")
    expect(page.locator("#replay-note-text")).to_have_text("plan of alice")
    expect(label).to_have_text("Debug note of alice-notes:")
    shoot(page, "match-page-05-staff-sees-another-bots-note")
    page.goto(f"/matches/{match.pk}/#step={steps[1]}")
    expect(page.locator("#replay-note-text")).to_have_text("plan of carol")
    expect(label).to_have_text("Your bot's debug note:")

    page.context.clear_cookies()
    log_in(page, "alice", "alice-pass-123")
    page.goto(f"/matches/{match.pk}/#step={steps[0]}")
    expect(page.locator("#replay-note-text")).to_have_text("plan of alice")
    expect(label).to_have_text("Your bot's debug note:")


def test_the_viewer_names_a_renamed_bot_as_it_is_and_as_it_played(
    browser: Browser, process_sandbox
) -> None:
    """The replay says what a bot renamed since the match was called then;
    its steps use the current name (docs/replay-viewer.md)."""
    match = finished(SD, builtin_lineup(SD, ["ann-random", "bo-random"]))
    Bot.objects.filter(name="ann-random").update(name="ann-renamed")  # as the admin saves it
    page = browser.page
    page.goto(f"/matches/{match.pk}/#step=1")
    expect(page.locator("#replay")).to_have_attribute("data-state", "replay")
    expect(page.locator("#replay-played-as")).to_have_text(
        "Renamed since this match: ann-renamed played as ann-random."
    )
    board = page.locator("#replay-board")
    expect(board).to_contain_text("ann-renamed")
    expect(board).not_to_contain_text("ann-random")
    page.goto(f"/matches/{finished(SD, builtin_lineup(SD, ['cy-random', 'di-random'])).pk}/")
    expect(page.locator("#replay")).to_have_attribute("data-state", "replay")
    expect(page.locator("#replay-played-as")).to_be_hidden()


def test_rating_chart_on_a_phone_starts_at_the_newest_match(
    browser: Browser, django_user_model
) -> None:
    alice = django_user_model.objects.create_user("alice", "", "alice-pass-123")
    bob = django_user_model.objects.create_user("bob", "", "bob-pass-123")
    a, b = make_bot(alice, "alice-a"), make_bot(bob, "bob-b")
    for i in range(30):
        play([a, b], [1, 2] if i % 3 else [2, 1])
    phone = browser.phone()
    phone.goto(f"/bots/{a.pk}/")
    chart = phone.locator(".chart-wrap svg")
    expect(chart).to_be_visible()
    chart.scroll_into_view_if_needed()
    shoot(phone, "match-page-06-bot-chart-phone")
    wrap_box = phone.locator(".chart-wrap").bounding_box()
    chart_box = chart.bounding_box()
    assert chart_box["width"] > wrap_box["width"], "the chart fits: nothing to scroll"
    # the newest points (the right end) are in view; the oldest are a scroll away
    assert chart_box["x"] + chart_box["width"] <= wrap_box["x"] + wrap_box["width"] + 1
    assert chart_box["x"] < wrap_box["x"]
    assert horizontal_overflow(phone) == 0
    # its labels are drawn at 12 px at least: the font size in the chart's units times its
    # scale (at 560 px wide the 11 px labels were 8.6 px)
    drawn = phone.evaluate(
        """() => {
            const svg = document.querySelector(".chart-wrap svg");
            const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
            return [...svg.querySelectorAll("text")]
                .map((t) => parseFloat(getComputedStyle(t).fontSize) * scale);
        }"""
    )
    assert drawn and min(drawn) >= 12, drawn
    # the pager's links (20 matches a page: two pages) are big enough to touch
    pager = phone.locator(".pager a")
    expect(pager).to_have_count(1)
    box = pager.bounding_box()
    assert box["width"] >= 24 and box["height"] >= 24, box


def test_long_bot_names_wrap_inside_the_tables_on_a_phone(
    browser: Browser, django_user_model
) -> None:
    """40-character names without a break wrap in their cells: the bot page's
    recent matches and head to head, the match page's seats and the home
    page's top 5 (bot and owner) keep every column on a 390 px screen without
    scrolling the table (found by QA: the home page's spilled out of its card
    and widened the page by 127 px at 360 px; a 40-character owner, kept on
    one line with the version, widened the seats by 256 px)."""
    long_user = "A_very_long_user_name_without_any_spaces"  # 40 characters
    alice = django_user_model.objects.create_user(long_user, "", "alice-pass-123")
    bob = django_user_model.objects.create_user("bob", "", "bob-pass-123")
    a = make_bot(alice, "A" * 20 + "b" * 20)
    b = make_bot(bob, "Z" + "z" * 38 + "9")
    for ranks in ([1, 2], [2, 1], [1, 2]):
        match = play([a, b], ranks)
    Rating.objects.filter(bot=a).update(fitted=1600, fitted_rank=1)
    phone = browser.phone()
    urls = (("/", "home"), (f"/bots/{a.pk}/", "bot"), (f"/matches/{match.pk}/", "match"))
    for url, name in urls:
        phone.goto(url)
        shoot(phone, f"match-page-07-long-names-{name}-phone")
        scrolled = phone.evaluate(
            """() => [...document.querySelectorAll(".table-wrap")]
                .map(w => w.scrollWidth - w.clientWidth)"""
        )
        assert max(scrolled, default=0) <= 0, (url, scrolled)
        assert horizontal_overflow(phone) == 0, (url, widest_elements(phone))
    phone.goto("/")
    expect(phone.locator("td.name").filter(has_text=long_user)).to_be_visible()


def test_view_as_keeps_its_label_whole_beside_long_names_on_a_phone(
    browser: Browser, django_user_model
) -> None:
    """At 360 px the replay's "View as" broke inside its first word ("Vie" /
    "w as"): the select, as wide as "seat 1: <a 40-character name>", took the
    room. The select now gives it up (its options cut with an ellipsis)."""
    alice = django_user_model.objects.create_user("alice", "", "alice-pass-123")
    bob = django_user_model.objects.create_user("bob", "", "bob-pass-123")
    bots = [make_bot(alice, "a-very-long-bot-name-that-fills-forty-ch"), make_bot(bob, "Z" * 40)]
    match = play(bots, [1, 2])
    phone = browser.phone()
    phone.set_viewport_size({"width": 360, "height": 740})
    phone.goto(f"/matches/{match.pk}/")
    shoot(phone, "match-page-09-view-as-long-names-360px")
    for label in (".replay-seat", ".replay-speed:not(.replay-seat)"):
        lines = phone.locator(label).evaluate(TEXT_LINES_JS)
        assert len(lines) == 1, (label, lines)
    select = phone.locator("#replay-seat").bounding_box()
    bar = phone.locator(".replay-seat").bounding_box()
    assert select["x"] + select["width"] <= bar["x"] + bar["width"] + 0.5, (select, bar)
    assert horizontal_overflow(phone) == 0, widest_elements(phone)


def test_the_header_keeps_its_links_on_one_row_beside_a_long_username(
    browser: Browser, django_user_model
) -> None:
    """At 768 px the header's links shrank to a column beside a 40-character
    username, "Edel, Stein & Reich" broken over three lines (found by QA):
    now each link keeps one line, and the user's links move below them."""
    long_user = "A_very_long_user_name_without_any_spaces"
    django_user_model.objects.create_user(long_user, "", "alice-pass-123")
    page = browser.page
    page.set_viewport_size({"width": 768, "height": 1024})
    log_in(page, long_user, "alice-pass-123")
    shoot(page, "match-page-08-header-long-username-768px")
    heights = page.evaluate(
        """() => [...document.querySelectorAll(".nav-main a")].map((a) => {
            const range = document.createRange();
            range.selectNodeContents(a);
            return [a.textContent, range.getClientRects().length];
        })"""
    )
    assert [name for name, lines in heights if lines != 1] == [], heights
    assert horizontal_overflow(page) == 0
