"""How the replay viewer's last position says a match ended (docs/replay-viewer.md
"What is drawn"): the match's outcome, forfeits included, with bot names; and a
seat that forfeited is marked from the step it failed on.

The matches are recorded from scripted replays (tests/arena/playout.py) that a
bot's fault then cuts short (two seats) or re-ranks (three), as the referee
records them (docs/protocol.md "Faults").
"""

from __future__ import annotations

import pytest

from ladder.models import Match
from tests.arena.playout import scripted_replay
from tests.browser.conftest import Browser, Page, expect, shoot
from tests.browser.test_match_page import ESR, SD, builtin_lineup
from tests.web.conftest import recorded

pytestmark = pytest.mark.browser

SD_NAMES = ["ruby-random", "opal-random"]
ESR_NAMES = ["ruby-random-player", "opal-random-player", "jade-random-player"]


def sd_crash_match() -> Match:
    """Seat 0 (ruby-random) crashes when next asked after step 6: the match ends
    there, as the runner ends a two-seat match (no engine outcome, scores 0)."""
    replay = scripted_replay(SD, 2, 4)
    cut = next(k for k, step in enumerate(replay["steps"]) if k >= 6 and step["seat"] == 0)
    replay["steps"] = replay["steps"][:cut]
    replay["engine_outcome"] = None
    replay["outcome"] = {
        "ranks": [2, 1],
        "scores": [0.0, 0.0],
        "reason": "ended early; forfeit: seat 0 (crash)",
    }
    replay["faults"] = [
        {"kind": "crash", "detail": f"closed its output before answering step {cut}", "step": cut},
        None,
    ]
    return recorded(builtin_lineup(SD, SD_NAMES), replay)


def esr_forfeit_match() -> tuple[Match, int, int]:
    """The engine's winner of a three-seat game forfeited five steps before the
    end (the others played on): it ranks last in the match. Returns the match,
    that seat and the step of its fault."""
    replay = scripted_replay(ESR, 3, 3)
    engine = replay["engine_outcome"]
    quitter = engine["ranks"].index(1)
    step = len(replay["steps"]) - 5
    # the quitter ranks last; the others keep their order
    first, second = sorted((r, s) for s, r in enumerate(engine["ranks"]) if s != quitter)
    ranks = [3, 3, 3]
    ranks[first[1]] = 1
    ranks[second[1]] = 1 if second[0] == first[0] else 2
    replay["outcome"] = {
        "ranks": ranks,
        "scores": engine["scores"],
        "reason": f"{engine['reason']}; forfeit: seat {quitter} (timeout)",
    }
    replay["faults"] = [None] * 3
    replay["faults"][quitter] = {"kind": "timeout", "detail": "no reply", "step": step}
    return recorded(builtin_lineup(ESR, ESR_NAMES), replay), quitter, step


def open_at(page: Page, match: Match, step: int) -> None:
    page.goto(f"/matches/{match.pk}/#step={step}")
    expect(page.locator("#replay")).to_have_attribute("data-state", "replay")
    expect(page.locator("#replay")).to_have_attribute("data-step", str(step))


def test_a_forfeit_ends_the_replay_with_the_match_result(browser: Browser, process_sandbox) -> None:
    """The last position used to read "Turn 4 · ruby-random to play" with no
    winner: the view's own outcome is the engine's, none when a forfeit ended
    the match early."""
    match = sd_crash_match()
    page = browser.page
    last = match.steps
    open_at(page, match, last)
    expect(page.locator(".sd-status")).to_have_text(
        "opal-random wins — ended early; forfeit: ruby-random (crash)."
    )
    ruby = page.locator('.sd-player[data-seat="0"]')
    opal = page.locator('.sd-player[data-seat="1"]')
    expect(ruby.locator(".r-fault")).to_have_text("forfeited: crash")
    expect(ruby.locator(".r-fault")).to_have_attribute(
        "title", f"at step {last} this bot stopped running and forfeited"
    )
    expect(ruby.locator(".sd-rank-badge")).to_have_text("rank 2")
    expect(opal.locator(".sd-rank-badge")).to_have_text("winner")
    expect(page.locator(".sd-turn")).to_have_count(0)
    expect(page.locator(".sd-player.sd-to-act")).to_have_count(0)
    shoot(page, "replay-forfeit-splendor-duel")

    # a step before: the game goes on, nobody has forfeited yet
    page.locator("#replay-prev").click()
    expect(page.locator("#replay")).to_have_attribute("data-step", str(last - 1))
    expect(page.locator(".sd-status")).to_contain_text("Turn ")
    expect(page.locator("#replay-board .r-fault")).to_have_count(0)
    expect(page.locator(".sd-rank-badge")).to_have_count(0)


def test_a_seat_that_forfeited_is_marked_and_ranked_last(browser: Browser, process_sandbox) -> None:
    """At a table of three the engine's winner forfeited and the others played
    on: the last position used to call it the winner ("… wins — three phases
    scored"), as the engine ranked it, against the result above the viewer."""
    match, quitter, step = esr_forfeit_match()
    page = browser.page
    outcome = match.seats.order_by("seat")
    winner = next(s.version.bot.name for s in outcome if s.rank == 1)
    open_at(page, match, match.steps)
    status = page.locator(".esr-status")
    expect(status).to_contain_text(f"{winner} wins — ")
    expect(status).to_contain_text(f"; forfeit: {ESR_NAMES[quitter]} (timeout).")
    seat = page.locator(f'.esr-seat[data-seat="{quitter}"]')
    expect(seat.locator(".esr-rank")).to_have_text("rank 3")
    expect(seat.locator(".r-fault")).to_have_text("forfeited: timeout")
    expect(page.locator("#replay-board .r-fault")).to_have_count(1)
    shoot(page, "replay-forfeit-edel-stein-reich")

    # marked from the step it failed on, not before
    open_at(page, match, step)
    expect(seat.locator(".r-fault")).to_have_text("forfeited: timeout")
    expect(seat.locator(".esr-rank")).to_have_count(0)
    page.locator("#replay-prev").click()
    expect(page.locator("#replay")).to_have_attribute("data-step", str(step - 1))
    expect(page.locator("#replay-board .r-fault")).to_have_count(0)


def test_a_table_that_two_forfeits_ended_early(browser: Browser, process_sandbox) -> None:
    """Two of three seats forfeited at the same step: the match ended there
    with no engine outcome. Its last position names the one left as the
    winner, ranks the others, and shows nobody still to act."""
    replay = scripted_replay(ESR, 3, 3)
    cut = 40
    replay["steps"] = replay["steps"][:cut]
    replay["engine_outcome"] = None
    replay["outcome"] = {
        "ranks": [2, 2, 1],
        "scores": [0.0, 0.0, 0.0],
        "reason": "ended early; forfeit: seat 0 (crash), seat 1 (memory)",
    }
    replay["faults"] = [
        {"kind": "crash", "detail": "exited", "step": cut},
        {"kind": "memory", "detail": "killed", "step": cut},
        None,
    ]
    match = recorded(builtin_lineup(ESR, ESR_NAMES), replay)
    page = browser.page
    open_at(page, match, cut)
    expect(page.locator(".esr-status")).to_have_text(
        f"{ESR_NAMES[2]} wins — ended early; forfeit: {ESR_NAMES[0]} (crash),"
        f" {ESR_NAMES[1]} (memory)."
    )
    expect(page.locator(".esr-seat.esr-to-act")).to_have_count(0)
    expect(page.locator('.esr-seat[data-seat="1"] .r-fault')).to_have_attribute(
        "title", f"at step {cut} this bot ran out of memory and forfeited"
    )
    expect(page.locator('.esr-seat[data-seat="2"] .esr-rank')).to_have_text("winner")
