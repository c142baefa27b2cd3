"""Browser tests: Playwright driving Debian's Chromium against a live server.

Tests here are marked `browser`. Without /usr/bin/chromium or the playwright
package they are skipped with the reason printed, unless REQUIRE_BROWSER=1
(CI sets it): then they fail. No browser is ever downloaded (never run
`playwright install`); Debian's chromium is the one we drive.

Bots' matches are played in the test process (`run_match.run(id)` with the
process sandbox) while the pages poll, not by a Celery worker: the story then
runs on the in-memory SQLite test database as well as on PostgreSQL, with no
worker start-up to wait for, and each step knows exactly which matches have
been played. The browser, the live server and the pages' polling are real.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

try:
    from playwright.sync_api import Page, expect
except ImportError:  # the tests are skipped (or fail with REQUIRE_BROWSER=1) at set-up
    Page = expect = None

from tests.conftest import _flag
from tests.ladder.conftest import media_dir  # noqa: F401 (fixture: a private MEDIA_ROOT)

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

# Generous: the machine is small and shared. Waiting is Playwright's, never a sleep.
TIMEOUT_MS = 30_000


def browser_problem() -> str | None:
    if expect is None:
        return "the playwright package is not installed (pip install -e '.[dev]')"
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing (apt-get install chromium)"
    return None


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("browser") is None:
        return
    problem = browser_problem()
    if problem is None:
        return
    if _flag("REQUIRE_BROWSER"):
        pytest.fail(f"REQUIRE_BROWSER=1 but {problem}", pytrace=False)
    pytest.skip(f"browser: {problem}")


@pytest.fixture(scope="session")
def live_server():
    """Like pytest-django's, but on 127.0.0.1 rather than whatever "localhost" resolves to."""
    from pytest_django.live_server_helper import LiveServer

    server = LiveServer("127.0.0.1")
    yield server
    server.stop()


@pytest.fixture(scope="session", autouse=True)
def fresh_screenshots() -> None:
    """Each run's screenshots only: a stale picture of a page would mislead."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for old in SCREENSHOTS.glob("*.png"):
        old.unlink()


@pytest.fixture(autouse=True)
def private_var_dir(settings, tmp_path) -> None:
    # The replay viewer caches frames under VAR_DIR by match id and replay
    # file name, which a new test database hands out again: with the shared
    # var/ a match would show the frames of an earlier session's match.
    settings.VAR_DIR = tmp_path / "var"


@pytest.fixture(autouse=True)
def fast_password_hashing(settings) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def process_sandbox(settings) -> None:
    settings.SANDBOX_BACKEND = "process"
    settings.MOVE_MS = 2000
    settings.STARTUP_MS = 15000


@pytest.fixture
def chromium(monkeypatch):
    """Chromium for one test.

    Not shared by the session: Playwright's sync API keeps an asyncio loop
    marked as running in this thread while it is started, and Django then
    refuses ORM calls ("async context"). For this test the check is turned
    off (its ORM calls are plain synchronous code; the server has its own
    thread); once Playwright stops, the tests that follow run as usual.
    While the loop "runs", Django also keys this thread's database
    connections to it: they are closed here, before it stops, or they would
    outlive the test (PostgreSQL then cannot drop the test database).
    """
    from django.db import connections
    from playwright.sync_api import sync_playwright

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    expect.set_options(timeout=TIMEOUT_MS)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox"]
        )
        try:
            yield browser
        finally:
            browser.close()
            connections.close_all()


class Browser:
    """One signed-in (or not) visitor with a desktop page and, sharing its cookies, a phone page."""

    def __init__(self, chromium, base_url: str) -> None:
        self.base_url = base_url
        self.desktop_context = chromium.new_context(base_url=base_url, viewport=DESKTOP)
        self.desktop_context.set_default_timeout(TIMEOUT_MS)
        self.page = self.desktop_context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.on("console", self._policy_violation)
        self._phone_context = None

    def _policy_violation(self, message) -> None:
        """Chromium reports what the Content-Security-Policy blocked on the console."""
        if "Content Security Policy" in message.text:
            self.errors.append(message.text)

    def phone(self):
        """A phone-sized page with the desktop's cookies as they are now."""
        if self._phone_context is not None:
            self._phone_context.close()
        self._phone_context = self.desktop_context.browser.new_context(
            base_url=self.base_url,
            viewport=PHONE,
            device_scale_factor=2,
            is_mobile=True,
            has_touch=True,
            storage_state=self.desktop_context.storage_state(),
        )
        self._phone_context.set_default_timeout(TIMEOUT_MS)
        page = self._phone_context.new_page()
        page.on("pageerror", lambda exc: self.errors.append(f"(phone) {exc}"))
        page.on("console", self._policy_violation)
        return page

    def close(self) -> None:
        if self._phone_context is not None:
            self._phone_context.close()
        self.desktop_context.close()


@pytest.fixture
def browser(chromium, live_server) -> Iterator[Browser]:
    visitor = Browser(chromium, live_server.url)
    try:
        yield visitor
    finally:
        visitor.close()
    assert not visitor.errors, (
        f"JavaScript errors or blocked content on the pages: {visitor.errors}"
    )


@pytest.fixture
def match_ids_from():
    """`match_ids_from(n)`: the next match created gets id `n`, as on a ladder that
    has run a while (6- and 7-digit ids). The counter is put back afterwards:
    a flush between tests empties the tables but keeps a sequence where it is,
    and the next tests' pages would show this test's long ids."""
    from django.db import connection

    from ladder.models import Match

    table = Match._meta.db_table
    saved = []

    def counter() -> tuple:
        with connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [table])
                sequence = cursor.fetchone()[0]
                cursor.execute(f"SELECT last_value, is_called FROM {sequence}")
                return (sequence, *cursor.fetchone())
            cursor.execute("SELECT seq FROM sqlite_sequence WHERE name = %s", [table])
            row = cursor.fetchone()
            return (table, row[0] if row else 0, True)

    def set_counter(sequence: str, value: int, is_called: bool) -> None:
        with connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                cursor.execute("SELECT setval(%s, %s, %s)", [sequence, value, is_called])
                return
            cursor.execute("DELETE FROM sqlite_sequence WHERE name = %s", [sequence])
            cursor.execute(
                "INSERT INTO sqlite_sequence (name, seq) VALUES (%s, %s)",
                [sequence, value if is_called else value - 1],
            )

    def jump(first: int) -> None:
        if not saved:
            saved.append(counter())
        set_counter(saved[0][0], first, False)

    yield jump
    if saved:
        set_counter(*saved[0])


def shoot(page, name: str) -> Path:
    """Save a full-page screenshot under test-artifacts/screenshots/."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{re.sub(r'[^a-z0-9-]+', '-', name.lower())}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def horizontal_overflow(page) -> int:
    """How many CSS pixels the page is wider than the window (0 when it fits).

    Measured against the layout viewport (`clientWidth`), not `innerWidth`: a
    mobile page (`is_mobile=True`) that overflows is zoomed out to fit, and
    its `innerWidth` grows with the content, so a too-wide page measured that
    way always "fits"."""
    return page.evaluate(
        "() => Math.max(0, document.scrollingElement.scrollWidth"
        " - document.documentElement.clientWidth)"
    )


def widest_elements(page, limit: int = 5) -> list[str]:
    """The elements sticking out furthest to the right: what to fix when a page overflows."""
    return page.evaluate(
        """(limit) => {
            const out = [];
            for (const el of document.querySelectorAll("body *")) {
                const r = el.getBoundingClientRect();
                if (r.right > document.documentElement.clientWidth + 1) {
                    const id = el.id ? "#" + el.id : "";
                    const cls = el.className && typeof el.className === "string"
                        ? "." + el.className.trim().split(/\\s+/).join(".") : "";
                    out.push([r.right, el.tagName.toLowerCase() + id + cls]);
                }
            }
            out.sort((a, b) => b[0] - a[0]);
            return out.slice(0, limit).map(([right, what]) => `${what} to ${Math.round(right)}px`);
        }""",
        limit,
    )


#: an element's text as the lines it is drawn on, for `locator.evaluate_all(f"(els) =>
#: els.map({TEXT_LINES_JS})")`: character by character, a new line where a character sits
#: lower than half its height below the last one (a smaller font on the same line stays on it)
TEXT_LINES_JS = """(el) => {
    const lines = [];
    let middle = null;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        for (let i = 0; i < n.data.length; i++) {
            const range = document.createRange();
            range.setStart(n, i);
            range.setEnd(n, i + 1);
            const box = range.getClientRects()[0];
            if (!box || !box.height) continue;  // white space that takes no room
            const at = box.top + box.height / 2;
            if (middle === null || at - middle > box.height / 2) {
                lines.push("");
                middle = at;
            }
            lines[lines.length - 1] += n.data[i];
        }
    }
    return lines.map((line) => line.replace(/\\s+/g, " ").trim()).filter(Boolean);
}"""


#: what sticks out of its table cell, for `page.evaluate(SPILLS_JS, "table.x td")`: each
#: element in it (not the screen readers' hidden text) whose box ends right of the cell's
#: content box ("#123456" past a 3.6rem column, into the next cell's text), and each box
#: in it (a label, a tag) whose text runs past its own edge, under what follows it
SPILLS_JS = """(cells) => {
    const out = [];
    for (const cell of document.querySelectorAll(cells)) {
        const style = getComputedStyle(cell);
        const inside = cell.getBoundingClientRect().right - parseFloat(style.paddingRight);
        const what = (el) => `${cell.textContent.trim().slice(0, 30)}: "${el.textContent.trim().slice(0, 30)}"`;
        for (const el of cell.querySelectorAll("*")) {
            if (el.closest(".visually-hidden, .match-word")) continue;
            const box = el.getBoundingClientRect();
            if (box.width && box.right > inside + 0.5) {
                out.push(`${what(el)} ends ${Math.round(box.right - inside)} px past its cell`);
            }
            if (getComputedStyle(el).display !== "inline" && el.scrollWidth > el.clientWidth + 1) {
                out.push(`${what(el)} runs ${el.scrollWidth - el.clientWidth} px past its box`);
            }
        }
    }
    return out;
}"""

#: the links to a match ("#1234567", "Match #1234567") drawn on more than one line
BROKEN_IDS_JS = """(links) => links
    .filter((a) => new Set([...a.getClientRects()].filter((r) => r.width)
                           .map((r) => Math.round(r.top))).size > 1)
    .map((a) => a.textContent.trim())"""
