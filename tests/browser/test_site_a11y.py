"""The site's pages (the replay viewer has its own tests) in Chromium, for the
site-wide defects of the accessibility audit: what only a browser can tell,
such as contrast computed from the real stylesheet, focus and live regions."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone

from ladder.bots import add_version
from ladder.challenges import create_challenge
from ladder.matches import create_match
from ladder.models import Bot, BotVersion, Match, Rating
from ladder.tokens import create_token
from tests.browser.conftest import (
    BROKEN_IDS_JS,
    SPILLS_JS,
    TEXT_LINES_JS,
    Browser,
    expect,
    horizontal_overflow,
    shoot,
    widest_elements,
)
from tests.ladder.conftest import RANDOM_BOT, alice, bob  # noqa: F401 (fixtures)
from tests.web.conftest import make_bot, play

pytestmark = pytest.mark.browser

#: what the text of an element contrasts with: its colour (opacity included)
#: over the backgrounds of it and its ancestors, composed (WCAG 2.x ratio)
CONTRAST_JS = """
() => {
  const parse = (c) => {
    const m = c.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return null;
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  };
  const over = (top, bottom) => ({
    r: top.r * top.a + bottom.r * (1 - top.a), g: top.g * top.a + bottom.g * (1 - top.a),
    b: top.b * top.a + bottom.b * (1 - top.a), a: 1 });
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  };
  const ratio = (a, b) => {
    const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  const background = (el) => {
    const layers = [];
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      layers.push(parse(getComputedStyle(e).backgroundColor));
    }
    let c = { r: 255, g: 255, b: 255, a: 1 };
    for (const layer of layers.reverse()) if (layer && layer.a > 0) c = over(layer, c);
    return c;
  };
  const opacity = (el) => {
    let o = 1;
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) o *= +getComputedStyle(e).opacity;
    return o;
  };
  const name = (el) => el.tagName.toLowerCase() +
    (el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\\s+/).join(".") : "");
  const texts = [], borders = [];
  const seen = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!n.textContent.trim() || !el || seen.has(el)) continue;
    seen.add(el);
    const s = getComputedStyle(el), box = el.getBoundingClientRect();
    if (s.visibility === "hidden" || box.width <= 1 || box.height <= 1) continue;  // hidden, sr-only
    if (el.closest("[hidden], script, style, option")) continue;
    const bg = background(el), fg = parse(s.color);
    const shown = over({ ...fg, a: fg.a * opacity(el) }, bg);
    const large = parseFloat(s.fontSize) >= 24 || (+s.fontWeight >= 700 && parseFloat(s.fontSize) >= 18.66);
    texts.push({ what: name(el), text: n.textContent.trim().slice(0, 30),
                 ratio: +ratio(shown, bg).toFixed(2), need: large ? 3 : 4.5 });
  }
  // form controls: their border against the background outside and inside them
  for (const el of document.querySelectorAll("input:not([type=hidden]):not([type=file]), select, textarea, .dropzone")) {
    const s = getComputedStyle(el);
    const border = parse(s.borderTopColor);
    const outside = background(el.parentElement), inside = background(el);
    borders.push({ what: name(el), ratio: +Math.min(ratio(over(border, outside), outside),
                                                  ratio(over(border, inside), inside)).toFixed(2), need: 3 });
  }
  return { texts, borders };
}
"""

#: every badge the stylesheet colours, on a page of the site (the states are hard to
#: gather on real pages: a paused bot, an errored and a cancelled match, …)
BADGES = " ".join(
    [f'<span class="tag {c}">tag {c}</span>' for c in ("", "ok", "warn", "bad")]
    + [
        f'<span class="status {s}">{s}</span>'
        for s in ("pending", "queued", "running", "ready", "finished", "rejected", "errored")
    ]
    + ['<span class="status cancelled">cancelled</span>', '<span class="prov">?</span>']
)


@pytest.fixture
def ladder(alice, bob):  # noqa: F811 (the fixtures imported above)
    """alice's played, provisional bot with a token and a version being
    validated; bob's disabled bot."""
    a, b = make_bot(alice, "alice-a"), make_bot(bob, "bob-b")
    play([a, b], [1, 2])
    play([b, a], [2, 1])
    Rating.objects.filter(bot=a).update(
        fitted=1560, fitted_low=1500, fitted_high=1620, fitted_rank=1, provisional=True
    )
    Bot.objects.filter(pk=b.pk).update(enabled=False)
    create_token(alice, "laptop CLI")
    pending = add_version(a, "main.py", RANDOM_BOT + b"# v2\n")
    return {"bot": a, "pending": pending}


def log_in(visitor: Browser, username: str = "alice", password: str = "alice-pass-123") -> None:
    page = visitor.page
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(re.compile(r"/accounts/$"))


def site_pages(ladder) -> list[str]:
    bot, pending = ladder["bot"], ladder["pending"]
    return [
        "/",
        "/games/splendor-duel/",
        f"/bots/{bot.pk}/",
        f"/bots/{bot.pk}/versions/{pending.number}/",
        f"/bots/{bot.pk}/challenge/",
        "/queue/",
        "/status/",
        "/accounts/",
        "/accounts/tokens/",
        "/accounts/password/",
        "/upload/",
        "/docs/",
        "/docs/protocol/",
        "/docs/faq/",
    ]


def test_text_and_field_borders_contrast_enough(browser: Browser, ladder) -> None:
    log_in(browser)
    page = browser.page
    too_faint = []
    for url in site_pages(ladder):
        page.goto(url)
        found = page.evaluate(CONTRAST_JS)
        too_faint += [
            f"{url} {x['what']} {x.get('text', '')!r} {x['ratio']} < {x['need']}"
            for x in found["texts"] + found["borders"]
            if x["ratio"] < x["need"]
        ]
    # the badges, in a card and on the page's background, and on a table head
    page.goto("/accounts/")
    page.evaluate(
        """(badges) => {
            const main = document.querySelector("main");
            main.insertAdjacentHTML("beforeend",
              `<p>${badges}</p><div class="card"><p>${badges} <span class="muted">muted</span></p></div>
               <table><thead><tr><th><span class="muted">muted</span></th></tr></thead></table>`);
        }""",
        BADGES,
    )
    found = page.evaluate(CONTRAST_JS)
    assert len([x for x in found["texts"] if x["what"].startswith("span.tag")]) >= 8
    too_faint += [
        f"badge {x['what']} {x['ratio']} < {x['need']}"
        for x in found["texts"]
        if x["ratio"] < x["need"]
    ]
    assert not too_faint, "\n".join(too_faint)


WIDE_TABLES = {"/games/splendor-duel/", "/accounts/tokens/", "/accounts/"}


@pytest.mark.parametrize(
    "viewport, scale",
    [({"width": 320, "height": 700}, 1), ({"width": 640, "height": 450}, 2)],
    ids=["320px", "200pct-zoom"],
)
def test_narrow_windows_lose_no_column(browser: Browser, ladder, viewport, scale) -> None:
    """WCAG 1.4.10: at 320 CSS px (and at 200 % zoom of a 1280 px window) no
    column disappears; a table wider than the window scrolls in its frame,
    which the keyboard can reach; the page itself never scrolls sideways."""
    log_in(browser)
    context = browser.page.context.browser.new_context(
        base_url=browser.base_url,
        viewport=viewport,
        device_scale_factor=scale,
        storage_state=browser.page.context.storage_state(),
    )
    page = context.new_page()
    try:
        for url in site_pages(ladder):
            page.goto(url)
            assert horizontal_overflow(page) == 0, f"{url}: {widest_elements(page)}"
            hidden = page.evaluate(
                """() => [...document.querySelectorAll("main th, main td")]
                     .filter((c) => getComputedStyle(c).display === "none")
                     .map((c) => c.textContent.trim())"""
            )
            assert hidden == [], f"{url} hides cells {hidden}"
            if url in WIDE_TABLES:
                shoot(page, f"a11y-{url.strip('/').replace('/', '-')}-{viewport['width']}px")
            if url in WIDE_TABLES and viewport["width"] == 320:
                scroller = page.locator(".table-wrap").first
                assert scroller.evaluate("(el) => el.scrollWidth > el.clientWidth"), url
                scroller.focus()
                page.keyboard.press("ArrowRight")
                expect(scroller).not_to_have_js_property("scrollLeft", 0)
    finally:
        context.close()


#: what a finger aims at on the site's pages: the header's links and Log out, the
#: leaderboard's sort headers, buttons, folds, the docs' contents and the file chooser
TOUCH_TARGETS = (
    ".site-header a, .site-header button, th a, .pager a, main .button, main button, "
    "main summary, .doc-toc a, main input[type=file], main select"
)


def test_a_phones_controls_are_big_enough_to_touch(browser: Browser, ladder) -> None:
    """WCAG 2.5.8: on a 360 px phone every control is at least 24 x 24 CSS px
    (found by QA: sort headers were 15 px tall, the header's links and the
    docs' contents 16 to 22 px, the file chooser 21 px)."""
    log_in(browser)
    phone = browser.phone()
    phone.set_viewport_size({"width": 360, "height": 740})
    small = []
    for url in ("/games/splendor-duel/", "/docs/protocol/", "/upload/", "/accounts/tokens/"):
        phone.goto(url)
        small += [
            f"{url} {what}"
            for what in phone.evaluate(
                """(selector) => [...document.querySelectorAll(selector)]
                    .map((el) => [el, el.getBoundingClientRect()])
                    .filter(([el, r]) => r.width > 0 && (r.width < 24 || r.height < 24))
                    .map(([el, r]) => `${el.tagName} "${el.textContent.trim().slice(0, 20)}"`
                                      + ` ${Math.round(r.width)}x${Math.round(r.height)}`)""",
                TOUCH_TARGETS,
            )
        ]
        assert horizontal_overflow(phone) == 0, f"{url}: {widest_elements(phone)}"
    assert not small, "\n".join(small)


def test_a_phone_reads_the_bot_names_of_a_match_page(browser: Browser, alice, bob) -> None:  # noqa: F811
    """QA: at 360 px the match page's seat table left the bot's name 44 px, so
    "blaise-greedy" broke over four lines; the five numbers now give up room."""
    names = ["blaise-greedy", "carl-search-v2"]
    match = play([make_bot(alice, names[0]), make_bot(bob, names[1])], [1, 2])
    match.seats.update(think_ms=15277)  # a search bot's, five digits wide
    phone = browser.phone()
    phone.set_viewport_size({"width": 360, "height": 740})
    phone.goto(f"/matches/{match.pk}/")
    lines = phone.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll("table.seats td.name a")]
                 .map((a) => [a.textContent, a.getClientRects().length]))"""
    )
    assert lines == {name: lines[name] for name in names} and max(lines.values()) <= 2, lines
    region = phone.locator("#seats-region")
    widths = region.evaluate(
        """(el) => [el.scrollWidth, el.clientWidth, ...[...el.querySelectorAll("th")]
                 .map((th) => `${th.textContent} ${Math.round(th.getBoundingClientRect().width)}`)]"""
    )
    assert widths[0] <= widths[1], f"the seats scroll: {widths}"
    assert horizontal_overflow(phone) == 0
    shoot(phone, "a11y-match-seats-360px")
    # QA: "+12.3 from 1584" broke as "+12.3 from / 1584" at 360 px; it reads on one line,
    # or as the change over "from 1584", at every width
    for width in (360, 768, 1280):
        phone.set_viewport_size({"width": width, "height": 900})
        cells = phone.locator("table.seats tbody td:nth-child(5)")  # Elo change
        elo_lines = cells.evaluate_all(f"(cells) => cells.map({TEXT_LINES_JS})")
        assert len(elo_lines) == 2, elo_lines
        for lines in elo_lines:
            change, start = lines[0].split(" ")[0], " ".join(" ".join(lines).split(" ")[1:])
            assert start.startswith("from ") and lines in (
                [f"{change} {start}"],
                [change, start],
            ), (
                width,
                lines,
            )
        assert horizontal_overflow(phone) == 0, (width, widest_elements(phone))


def test_a_phone_breaks_the_home_and_queue_lineups_between_seats(
    browser: Browser,
    alice,  # noqa: F811
    bob,  # noqa: F811
) -> None:
    """QA at 360 px: the lineups of the matches on the home page and the queue
    broke inside a bot's name ("emmy- / random") or left a "vs" at the end of
    a line. As on a tournament's page, each seat ("vs blaise-greedy") is one
    unit: the lines break between the seats. The queue's bots kept their
    names no better: a letter or three a line."""
    names = ["emmy-random", "blaise-greedy", "carl-search", "dora-greedy", "ada-random"]
    owners = [alice, bob, alice, bob, alice]
    duel = [make_bot(owner, name) for owner, name in zip(owners, names, strict=True)]
    esr = [
        make_bot(owner, name, "edel-stein-reich") for owner, name in zip(owners, names, strict=True)
    ]
    tables = [duel[:2], duel[2:4], duel[3:], esr[:3], esr[1:4], esr[2:]]
    for i, table in enumerate(tables):
        match = create_match(table[0].game, [b.active_version for b in table])
        if i < 4:  # running, on both pages; the others queued, on the queue's
            match.status, match.started_at = Match.Status.RUNNING, timezone.now()
            match.save(update_fields=["status", "started_at"])
    phone = browser.phone()
    phone.set_viewport_size({"width": 360, "height": 740})
    for url, shown in (("/", 4), ("/queue/", 6)):
        phone.goto(url)
        shoot(phone, f"a11y-lineups{url.replace('/', '-')}360px".replace("--", "-"))
        items = phone.locator(".match-list li").evaluate_all(
            f"""(items) => items.map((li) => [
                [...li.querySelectorAll("a[href^='/bots/']")].map((a) => a.textContent),
                ({TEXT_LINES_JS})(li)])"""
        )
        assert len(items) == shown, items
        for seats, lines in items:
            for i, name in enumerate(seats):
                unit = name if i == 0 else f"vs {name}"
                assert any(unit in line for line in lines), (url, unit, lines)
        assert horizontal_overflow(phone) == 0, (url, widest_elements(phone))
    # the queue's bots: their table scrolls in its frame, and each name keeps to a line
    # (they were broken every two or three letters: "ad / a- / ran / do / m")
    bots = phone.locator("table:has(#queue-bots-caption) td.name a").evaluate_all(
        f"(links) => links.map({TEXT_LINES_JS})"
    )
    assert len(bots) == 10 and all(len(lines) == 1 for lines in bots), bots


#: the longest names a bot may have (40 characters): with hyphens, with underscores (not a
#: place to break a line) and with neither
LONG_NAMES = [
    "a-very-long-bot-name-that-fills-forty-ch",
    "another_long_bot_name_with_underscores_4",
    "averyverylongbotnamewithnohyphensatall40",
]


def test_a_phone_keeps_vs_with_the_longest_names_of_the_home_and_queue_lineups(
    browser: Browser,
    alice,  # noqa: F811
    bob,  # noqa: F811
    match_ids_from,
) -> None:
    """QA at 360 px: a lineup's seat wider than the line ("vs" and a 40-character
    name) broke after its "vs", left alone on a line over a name that then
    broke anyway ("vs" / "averyverylongbotnamewithnohyphens" / "atall40"). The
    "vs" now leads the name's first line, and the 7-digit ids of a ladder that
    has run a while keep to one line."""
    owners = [alice, bob, alice]
    duel = [make_bot(owner, name) for owner, name in zip(owners, LONG_NAMES, strict=True)]
    esr = [
        make_bot(owner, name, "edel-stein-reich")
        for owner, name in zip(owners, LONG_NAMES, strict=True)
    ]
    match_ids_from(1_234_567)
    for i, table in enumerate([duel[:2], duel[1:], duel[::2], esr, esr[::-1], esr[1:] + esr[:1]]):
        match = create_match(table[0].game, [b.active_version for b in table])
        if i % 2 == 0:  # running, on both pages; the others queued, on the queue's
            match.status, match.started_at = Match.Status.RUNNING, timezone.now()
            match.save(update_fields=["status", "started_at"])
    phone = browser.phone()
    for width, page in ((360, phone), (1280, browser.page)):
        page.set_viewport_size({"width": width, "height": 740})
        for url, shown in (("/", 3), ("/queue/", 6)):
            page.goto(url)
            shoot(page, f"lineups-long-names{url.replace('/', '-')}{width}px".replace("--", "-"))
            items = page.locator(".match-list li")
            expect(items).to_have_count(shown)
            lines = items.evaluate_all(f"(items) => items.flatMap({TEXT_LINES_JS})")
            assert [line for line in lines if line.endswith("vs")] == [], (url, width, lines)
            ids = items.locator("a[href^='/matches/']")
            assert ids.evaluate_all(BROKEN_IDS_JS) == [], (url, width)
            assert horizontal_overflow(page) == 0, (url, width, widest_elements(page))


def test_a_phone_keeps_each_vs_with_the_next_name_on_a_bots_page(
    browser: Browser,
    alice,  # noqa: F811
    bob,  # noqa: F811
) -> None:
    """At 360 px a bot page's matches table left "vs" alone on a line
    ("blaise- / greedy / vs / builtin- / random"). Its columns are too many for
    whole names there (they may break at a hyphen, so that Elo and When stay
    in view), but each "vs" now leads the next name on its line."""
    me = make_bot(alice, "blaise-greedy")
    others = [make_bot(bob, name) for name in ("builtin-random", "carl-search")]
    for other in others:
        for lineup in ((me, other), (other, me)):
            create_match(me.game, [b.active_version for b in lineup])
    phone = browser.phone()
    phone.set_viewport_size({"width": 360, "height": 740})
    phone.goto(f"/bots/{me.pk}/")
    shoot(phone, "a11y-bot-page-lineups-360px")
    cells = phone.locator("#matches ~ .table-wrap td.name").evaluate_all(
        f"(cells) => cells.map(({TEXT_LINES_JS}))"
    )
    assert len(cells) == 4, cells
    for lines in cells:
        assert "blaise-greedy" in "".join(lines), lines  # the page's bot, in every row
        for line in lines:
            assert line.strip() != "vs" and not line.rstrip().endswith(" vs"), lines
    wrap = phone.locator("#matches ~ .table-wrap")
    assert wrap.evaluate("(el) => el.scrollWidth - el.clientWidth") <= 1, widest_elements(phone)


def test_a_phone_keeps_the_longest_names_readable_beside_long_ids(
    browser: Browser,
    alice,  # noqa: F811
    bob,  # noqa: F811
    match_ids_from,
) -> None:
    """QA at 360 px, on a ladder that has run a while: a bot page's matches gave
    the names what "#1234567", its tag, the result, Elo and When left, 40 px,
    where "a-very-long-bot-name…" broke every three letters (and still the
    table scrolled); your challenges kept a name with nowhere to break whole,
    pushing the result and the date out of view. A seat's name now keeps at
    least 5rem (breaking inside it if it must, its "vs" leading it), each id
    keeps to one line in its cell, your challenges' four columns stay in view
    and the page never scrolls sideways."""
    mine = [make_bot(alice, name) for name in LONG_NAMES[:2]]
    theirs = [make_bot(bob, name) for name in (LONG_NAMES[2], LONG_NAMES[0][:-1] + "x")]
    match_ids_from(1_234_567)
    for opponent in theirs:
        play([mine[0], opponent], [1, 2])
        play([opponent, mine[0]], [1, 2], faults={1: "timeout"})
        create_challenge(alice, mine[0].pk, [opponent.pk], {})
        create_challenge(alice, mine[1].pk, [opponent.pk], {})
    log_in(browser)
    phone = browser.phone()
    phone.set_viewport_size({"width": 360, "height": 740})
    # the bot page's five columns cannot all fit beside 5rem: they scroll in their frame
    for url, table, rows, in_view in (
        (f"/bots/{mine[0].pk}/", "table:has(#matches-caption)", 6, False),
        ("/accounts/challenges/", "table:has(#challenges-caption)", 4, True),
    ):
        phone.goto(url)
        shoot(phone, f"long-names-and-ids{url.replace('/', '-')}360px".replace("--", "-"))
        names = phone.locator(f"{table} tbody td:nth-child(2)")
        expect(names).to_have_count(rows)
        widths = names.evaluate_all("(cells) => cells.map((c) => c.getBoundingClientRect().width)")
        assert min(widths) >= 80 - 0.5, (url, widths)  # 5rem
        lines = names.evaluate_all(f"(cells) => cells.flatMap({TEXT_LINES_JS})")
        assert [line for line in lines if line.endswith("vs")] == [], (url, lines)
        ids = phone.locator(f"{table} tbody td:first-child > a:first-child")
        assert ids.evaluate_all(BROKEN_IDS_JS) == [], url
        assert phone.evaluate(SPILLS_JS, f"{table} td") == [], url
        if in_view:
            scrolls = (
                phone.locator(table)
                .locator("..")
                .evaluate("(wrap) => wrap.scrollWidth - wrap.clientWidth")
            )
            assert scrolls <= 1, (url, scrolls)
        assert horizontal_overflow(phone) == 0, (url, widest_elements(phone))


def test_a_phone_keeps_a_versions_upload_date_whole(
    browser: Browser,
    alice,  # noqa: F811
) -> None:
    """At 360 px a version page's upload date broke at its hyphen ("uploaded
    2026-12-" / "03 09:34:33") under a 40-character name; it keeps to a line,
    as a tournament's start date does."""
    bot = make_bot(alice, LONG_NAMES[0])
    version = bot.active_version
    log_in(browser)  # a version's page is its owner's
    phone = browser.phone()
    phone.set_viewport_size({"width": 360, "height": 740})
    phone.goto(f"/bots/{bot.pk}/versions/{version.number}/")
    shoot(phone, "version-page-upload-date-360px")
    uploaded = version.created_at.astimezone(timezone.get_current_timezone())
    lines = phone.locator("h1 + p.muted").evaluate(TEXT_LINES_JS)
    assert any(uploaded.strftime("%Y-%m-%d %H:%M:%S") in line for line in lines), lines
    assert horizontal_overflow(phone) == 0, widest_elements(phone)


#: what shows a docs index card is a link: its border, shadow and outline, its title's
#: colour and underline, and the arrow after the title
CARD_LOOK_JS = """(card) => {
    const c = getComputedStyle(card), a = card.querySelector("h2 a"), s = getComputedStyle(a);
    return {border: c.borderTopColor, shadow: c.boxShadow,
            outline: c.outlineStyle === "none" ? 0 : parseFloat(c.outlineWidth),
            colour: s.color, text: getComputedStyle(document.body).color,
            underline: s.textDecorationLine, arrow: getComputedStyle(a, "::after").content};
}"""


def test_the_docs_index_cards_are_links(browser: Browser) -> None:
    """QA: nothing on the docs index told that its cards are links. Each card's
    title is its one link, named as the title (the arrow after it is not read
    out); a click anywhere on the card follows it; hovering the card and
    reaching it by keyboard show on the whole card."""
    page = browser.page
    page.goto("/docs/")
    cards = page.locator("main .cards .card")
    assert cards.count() >= 9
    for i in range(cards.count()):
        card = cards.nth(i)
        title = card.locator("h2").inner_text().strip()
        expect(card.get_by_role("link")).to_have_count(1)
        expect(card.get_by_role("link")).to_have_accessible_name(title)
        look = card.evaluate(CARD_LOOK_JS)
        assert look["colour"] != look["text"] and "→" in look["arrow"], (title, look)
        # the card's description, away from the title, is the link too
        hit = card.locator("p").evaluate(
            """(p) => { const r = p.getBoundingClientRect();
                        const el = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
                        return el && el.closest("a") ? el.closest("a").getAttribute("href") : null; }"""
        )
        assert hit == card.get_by_role("link").get_attribute("href"), (title, hit)
    shoot(page, "a11y-docs-index")

    # no .15 s border transition: read mid-way, the hovered border was still
    # the resting one on a busy machine
    page.emulate_media(reduced_motion="reduce")
    ratings = cards.filter(has=page.get_by_role("link", name="Ratings", exact=True))
    at_rest = ratings.evaluate(CARD_LOOK_JS)
    assert at_rest["underline"] == "none" and at_rest["outline"] == 0, at_rest
    box = ratings.locator("p").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    hovered = ratings.evaluate(CARD_LOOK_JS)
    assert hovered["underline"] == "underline", hovered
    assert hovered["border"] != at_rest["border"], (at_rest, hovered)
    shoot(page, "a11y-docs-index-hover")
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(page).to_have_url(re.compile(r"/docs/ratings/$"))

    # the keyboard: Tab reaches every card's link, and the focused card wears a ring
    page.goto("/docs/")
    page.mouse.move(0, 0)
    first = cards.first
    for _ in range(30):
        page.keyboard.press("Tab")
        if first.get_by_role("link").evaluate("(a) => a === document.activeElement"):
            break
    focused = first.evaluate(CARD_LOOK_JS)
    assert focused["outline"] >= 2 and focused["underline"] == "underline", focused
    assert cards.nth(1).evaluate(CARD_LOOK_JS)["outline"] == 0
    shoot(page, "a11y-docs-index-focus")
    page.keyboard.press("Tab")
    expect(cards.nth(1).get_by_role("link")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/docs/bots/$"))


def test_a_refused_form_moves_the_focus_to_its_error_summary(browser: Browser, ladder) -> None:
    page = browser.page
    page.goto("/accounts/signup/")
    page.get_by_label("Username").fill("dave")
    page.get_by_label("Password", exact=True).fill("a-long-pass-phrase-42")
    page.get_by_label("Password confirmation").fill("another-pass-phrase-43")
    page.get_by_role("button", name="Create the account").click()
    summary = page.get_by_role("alert")
    expect(summary).to_be_focused()  # not the username (Django's autofocus)
    expect(summary).to_contain_text("The two password fields didn’t match.")
    confirmation = page.get_by_label("Password confirmation")
    expect(confirmation).to_have_accessible_description(
        "Enter the same password as before, for verification. The two password fields didn’t match."
    )

    log_in(browser)
    page.goto("/upload/")
    page.get_by_role("button", name="Upload and validate").click()
    expect(page.get_by_role("alert")).to_be_focused()
    expect(page.get_by_role("alert").get_by_role("link")).to_have_count(3)
    shoot(page, "a11y-upload-refused")
    page.get_by_role("link", name="Bot file: This field is required.").click()
    expect(page.locator("#id_file")).to_be_focused()  # the field, ready to correct
    expect(page.locator("#id_file_label")).to_be_in_viewport()
    # by keyboard too: Enter on each link focuses the field its label is for
    links = page.get_by_role("alert").get_by_role("link")
    for i in range(links.count()):
        href = links.nth(i).get_attribute("href")
        field = page.locator(href).get_attribute("for")
        links.nth(i).focus()
        page.keyboard.press("Enter")
        assert page.evaluate("() => document.activeElement.id") == field, href
    expect(page.get_by_label("Drop main.py or a .zip here, or choose a file:")).to_have_attribute(
        "type", "file"
    )


def test_the_skip_link_is_the_first_stop_and_shows_when_focused(browser: Browser, ladder) -> None:
    page = browser.page
    page.goto("/games/splendor-duel/")
    skip = page.get_by_role("link", name="Skip to content")
    expect(skip).not_to_be_in_viewport()
    page.keyboard.press("Tab")
    expect(skip).to_be_focused()
    expect(skip).to_be_in_viewport()
    page.keyboard.press("Enter")
    expect(page.locator("main")).to_be_focused()
    page.keyboard.press("Tab")  # the next stop is in the content, not the header
    assert page.evaluate("() => document.activeElement.closest('main') !== null")


def test_the_validation_page_announces_changes_once(browser: Browser, ladder) -> None:
    """Each poll rewrote the whole box, a live region: a screen reader read
    the same lines every 1.5 s. Now only [data-announce] is live, and it
    changes when the state does."""
    bot, pending = ladder["bot"], ladder["pending"]
    log_in(browser)
    page = browser.page
    page.goto(f"/bots/{bot.pk}/versions/{pending.number}/")
    page.evaluate(
        """() => {
            window.__mutations = 0;
            const box = document.querySelector("[data-status-url]");
            new MutationObserver((records) => { window.__mutations += records.length; })
              .observe(box, { subtree: true, childList: true, characterData: true });
        }"""
    )
    polls = re.compile(r"/status\.json$")
    for _ in range(3):  # three polls that find nothing new
        with page.expect_response(polls):
            pass
    assert page.evaluate("() => window.__mutations") == 0
    announce = page.locator("[data-announce]")
    expect(announce).to_have_text("")

    first, *_ = pending.validation_matches.order_by("pk")
    Match.objects.filter(pk=first.pk).update(status=Match.Status.RUNNING)
    expect(announce).to_have_text(re.compile(r"^Validation: validating\. 0 of 2 .*1 running"))
    said = announce.inner_text()
    for _ in range(2):
        with page.expect_response(polls):
            pass
    expect(announce).to_have_text(said)

    pending.validation_matches.update(status=Match.Status.FINISHED)
    BotVersion.objects.filter(pk=pending.pk).update(status=BotVersion.Status.READY)
    expect(announce).to_have_text(
        "Validation: ready. 2 of 2 validation matches finished. "
        "This version now plays on the ladder."
    )


def test_the_spinner_stands_still_for_reduced_motion(browser: Browser, ladder) -> None:
    bot, pending = ladder["bot"], ladder["pending"]
    log_in(browser)
    page = browser.page
    url = f"/bots/{bot.pk}/versions/{pending.number}/"
    spin = "() => getComputedStyle(document.querySelector('.spinner'), '::before').animationName"
    page.goto(url)
    assert page.evaluate(spin) == "spin"
    page.emulate_media(reduced_motion="reduce")
    page.goto(url)
    assert page.evaluate(spin) == "none"
