"""A tournament's page and the tournament list in a real browser, on a
desktop (1280 px) and a phone (360 px): the standings, progress and
matches are all there and the page never scrolls sideways, long bot names
included. Screenshots go to test-artifacts/screenshots/ (tournament-*)."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone

from ladder.models import BotVersion
from ladder.results import finish_tournaments
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
from tests.ladder.conftest import alice, bob  # noqa: F401 (fixtures)
from tests.web.conftest import make_bot
from tests.web.test_tournaments import finish, names_at, start

pytestmark = pytest.mark.browser

LONG = "a-very-long-bot-name-that-fills-forty-ch"  # 40 characters, the most a name may have
LONG_WORD = "averyverylongbotnamewithnohyphensatall40"  # as long, with nowhere to break


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


#: for each label, whether it fits on one line of the cell: its width in the cell's font
#: (bold in the results' column, as a winner's) against the width inside the cell's padding
ROOM_JS = """(cell, labels) => {
    const style = getComputedStyle(cell);
    const inside = cell.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const probe = document.createElement("span");
    probe.style.whiteSpace = "nowrap";
    if (cell.cellIndex === 2) probe.style.fontWeight = "600";
    cell.appendChild(probe);
    const room = {};
    for (const label of labels) {
        probe.textContent = label;
        room[label] = probe.getBoundingClientRect().width <= inside;
    }
    probe.remove();
    return room;
}"""


def test_a_phone_breaks_lineups_between_seats_and_dates_nowhere(
    browser: Browser,
    alice,  # noqa: F811
    bob,  # noqa: F811
) -> None:
    """QA at 360 px: a bot's label in the matches' lineups and results broke
    inside ("blaise- / greedy v1") though its column had room for it, and the
    start date broke at its hyphen ("2026- / 12-03"). A label that fits its
    column keeps to one line (the lines break between the seats), a date is
    never broken."""
    bots = [
        make_bot(alice, "ada-random"),
        make_bot(bob, "blaise-greedy"),
        make_bot(alice, "dora-greedy"),
    ]
    tournament = start(bots, name="December quick round robin", games=2)
    for match in tournament.matches.order_by("pk")[:4]:
        names = names_at(match)
        finish(match, [1, 2] if names[0] < names[1] else [2, 1])
    phone = browser.phone()
    phone.set_viewport_size({"width": 360, "height": 800})
    phone.goto(f"/tournaments/{tournament.pk}/")
    shoot(phone, "tournament-page-lineups-360px")
    labels = [f"{b.name} v1" for b in bots]
    cells = phone.locator("table.tournament-matches tbody td.name")
    found = cells.evaluate_all(
        f"(cells, labels) => cells.map((c) => [({TEXT_LINES_JS})(c), ({ROOM_JS})(c, labels)])",
        labels,
    )
    checked = 0
    for lines, room in found:
        for label in labels:
            if label in " ".join(lines) and room[label]:
                assert any(label in line for line in lines), (label, lines)
                checked += 1
    assert checked >= 12, found  # each match's two seats, and four winners
    started = tournament.created_at.astimezone(timezone.get_current_timezone())
    meta = phone.locator("h1 + p.muted").evaluate(TEXT_LINES_JS)
    assert any(started.strftime("%Y-%m-%d %H:%M") in line for line in meta), meta
    assert horizontal_overflow(phone) == 0, widest_elements(phone)


def test_a_phone_keeps_winners_and_standings_labels_whole(
    browser: Browser,
    alice,  # noqa: F811
    bob,  # noqa: F811
) -> None:
    """QA at 360 px: the winners' bold labels ("blaise-greedy / v1") and the
    standings' broke inside though the columns could hold them: a table gave
    the labels' columns what was left once it had shrunk them to their longest
    syllable ("blaise-"). A label now takes its whole width (the standings and
    the list scroll in their frames), and the matches' three columns still fit
    the phone: none of these labels breaks, in the standings, the lineups, the
    results or the list's winner."""
    bots = [
        make_bot(alice, "ada-random"),
        make_bot(bob, "blaise-greedy"),
        make_bot(alice, "carl-search"),
        make_bot(bob, "dora-greedy"),
    ]
    tournament = start(bots, name="Autumn cup", games=1)
    for match in tournament.matches.all():
        names = names_at(match)
        first = "blaise-greedy" if "blaise-greedy" in names else min(names)
        finish(match, [1 if name == first else 2 for name in names])
    assert finish_tournaments([tournament.pk]) == 1
    labels = [f"{b.name} v1" for b in bots]
    phone = browser.phone()
    phone.set_viewport_size({"width": 360, "height": 800})
    phone.goto(f"/tournaments/{tournament.pk}/")
    shoot(phone, "tournament-page-labels-360px")
    found = {}
    for cells in ("table.standings td.name", "table.tournament-matches td.name"):
        found[cells] = phone.locator(cells).evaluate_all(f"(cells) => cells.map({TEXT_LINES_JS})")
    found["the winners"] = phone.locator("table.tournament-matches .win").evaluate_all(
        f"(labels) => labels.map({TEXT_LINES_JS})"
    )
    phone.goto("/tournaments/")
    shoot(phone, "tournament-list-labels-360px")
    found["the list's winner"] = phone.locator("table.tournament-list td.name").evaluate_all(
        f"(cells) => cells.map({TEXT_LINES_JS})"
    )
    assert [len(cells) for cells in found.values()] == [4, 12, 6, 2], found

    def shown(lines: list[str]) -> str:  # the text without its spaces, however it is broken
        return "".join(lines).replace(" ", "")

    winners = [shown(lines) for lines in found["the winners"]]
    assert winners.count("blaise-greedyv1") == 3, winners
    assert shown(found["the list's winner"][1]) == "blaise-greedyv1", found
    broken = [
        (where, lines)
        for where, cells in found.items()
        for lines in cells
        for label in labels
        if label.replace(" ", "") in shown(lines) and not any(label in line for line in lines)
    ]
    assert broken == [], "\n".join(f"{where}: {' / '.join(lines)}" for where, lines in broken)
    phone.goto(f"/tournaments/{tournament.pk}/")
    matches = phone.locator("table.tournament-matches").locator("..")
    assert matches.evaluate("(wrap) => wrap.scrollWidth - wrap.clientWidth") == 0
    assert horizontal_overflow(phone) == 0, widest_elements(phone)


#: the labels of a cell that seem out of order: one that starts higher than the label before
#: it without starting below it (a short label beside a broken one sat on its last line,
#: under the first: "vs a-very-long-bot-name-that-" / "emmy-random-go v12 fills-forty-ch v1")
MISALIGNED_JS = """(cells) => [...document.querySelectorAll(cells)].flatMap((cell) => {
    const labels = [...cell.querySelectorAll(".bot-label")].map((el) => el.getClientRects()[0]);
    return labels.slice(1)
        .filter((box, i) => box.top < labels[i].top - 0.5 || (box.top > labels[i].top + 0.5
                                                              && box.top < labels[i].bottom - 0.5))
        .map(() => cell.textContent.trim());
})"""


def test_a_phone_keeps_long_match_ids_and_labels_in_their_cells(
    browser: Browser,
    alice,  # noqa: F811
    bob,  # noqa: F811
    match_ids_from,
) -> None:
    """QA at 360 px, on a ladder that has run a while: the matches' first column
    (3.6rem) held "#131" but not "#123456", which ran into the lineup beside it;
    a label a little wider than its half left its version alone on a line
    ("alice-very-long-bot" / "v3"), and a name with nowhere to break left its
    "vs" alone ("vs" / "averyverylong…"). The column now takes the page's
    longest id, 6 or 7 digits, each on one line inside its cell; a label breaks
    inside its name, its "vs" leading it and its version ending it. On a
    desktop a label broken at 15rem sat on its last line beside a short one,
    and ran on under the fault's name in a fault's tag. The names
    run from 14 to 20 characters so that one of them, whatever the font, fits
    its half but for its version."""
    names = [
        "emmy-random-go",
        "carl-search-bot",
        "dora-greedy-deep",
        "ada-random-walker",
        "blaise-greedy-fast",
        "alice-very-long-bot",
        "frida-minimax-search",
        LONG,
        LONG_WORD,
    ]
    bots = [make_bot(alice if i % 2 else bob, name) for i, name in enumerate(names)]
    BotVersion.objects.filter(bot__in=bots[::2]).update(number=12)
    match_ids_from(999_990)  # the first page: #999990 to #1000039
    tournament = start(bots, name="Spring cup", games=2)
    matches = list(tournament.matches.order_by("pk"))
    assert len(str(matches[0].pk)) == 6 and len(str(matches[49].pk)) == 7
    for i, match in enumerate(matches[:30]):
        names_here = names_at(match)  # the longer name wins every other match
        longer_wins = len(names_here[0]) > len(names_here[1])
        ranks = [1, 2] if longer_wins == (i % 2 == 0) else [2, 1]
        loser = ranks.index(2)  # a 40-character name in a fault's tag too
        finish(match, ranks, {loser: "crash"} if len(names_here[loser]) == 40 else None)
    phone = browser.phone()
    for width, page in ((360, phone), (1280, browser.page)):
        page.set_viewport_size({"width": width, "height": 800})
        page.goto(f"/tournaments/{tournament.pk}/")
        shoot(page, f"tournament-page-long-ids-{width}px")
        ids = page.locator("table.tournament-matches tbody td:first-child > a:first-child")
        expect(ids).to_have_count(50)
        assert ids.evaluate_all(BROKEN_IDS_JS) == [], width
        spilled = page.evaluate(SPILLS_JS, "table.tournament-matches td")
        assert spilled == [], (width, spilled)
        lines = page.locator("table.tournament-matches td.name").evaluate_all(
            f"(cells) => cells.flatMap({TEXT_LINES_JS})"
        )
        lone = [line for line in lines if re.fullmatch(r"vs|v\d+:?", line)]
        assert lone == [], (width, lone)
        assert page.evaluate(MISALIGNED_JS, "table.tournament-matches td.name") == [], width
        expect(page.locator("table.tournament-matches .tag.bad")).not_to_have_count(0)
        wrap = page.locator("table.tournament-matches").locator("..")
        assert wrap.evaluate("(el) => el.scrollWidth - el.clientWidth") == 0, width
        assert horizontal_overflow(page) == 0, (width, widest_elements(page))
