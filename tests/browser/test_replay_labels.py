"""Words on the replay viewer's board (docs/replay-viewer.md "What is drawn"):
what each number and symbol of a player's panel counts is written beside it,
not only in a tooltip.

The match is recorded from a scripted replay (tests/arena/playout.py).
"""

from __future__ import annotations

import pytest

from arena import spectator_frames
from tests.arena.playout import scripted_replay
from tests.browser.conftest import Browser, expect, shoot
from tests.browser.test_match_page import SD, builtin_lineup
from tests.web.conftest import recorded

pytestmark = pytest.mark.browser

LETTERS = {"white": "W", "blue": "B", "green": "G", "red": "R", "black": "K"}


def test_a_players_privileges_are_labelled(browser: Browser, process_sandbox) -> None:
    """A player's privileges were a bare "–" (none) or "P P" beside the
    crowns, the scrolls' P like a pearl token's: now labelled "Privileges" as
    the supply's are, on a desktop and a phone."""
    replay = scripted_replay(SD, 2, 1)
    match = recorded(builtin_lineup(SD, ["ruby-random", "opal-random"]), replay)
    frames = spectator_frames(replay)
    # a position where one player holds privileges and the other none
    step = next(
        f["step"]
        for f in frames
        if sorted(min(p["privileges"], 1) for p in f["view"]["players"]) == [0, 1]
    )
    held = [p["privileges"] for p in frames[step]["view"]["players"]]
    for page in (browser.page, browser.phone()):
        page.goto(f"/matches/{match.pk}/#step={step}")
        expect(page.locator("#replay")).to_have_attribute("data-step", str(step))
        for seat, count in enumerate(held):
            mine = page.locator(f'.sd-player[data-seat="{seat}"] .sd-player-privileges')
            expect(mine.locator(".sd-label")).to_have_text("Privileges")
            expect(mine.locator(".sd-label")).to_be_visible()
            expect(mine.locator(".sd-privilege")).to_have_count(count)
        shoot(page, f"replay-privileges-{page.viewport_size['width']}")


def test_a_colour_without_bonus_is_an_outline(browser: Browser, process_sandbox) -> None:
    """A stack's bonus badge was filled with its colour even at 0 ("B0" in
    blue), unlike the token counts beside it, whose zero is an outline: now a
    bonus of 0 is an outline too, a bonus of 1 or more filled."""
    replay = scripted_replay(SD, 2, 1)
    match = recorded(builtin_lineup(SD, ["ruby-random", "opal-random"]), replay)
    # a position where seat 0 has a bonus in some colours and none in others
    step, last = next(
        (f["step"], f["view"]["players"][0]["bonus"])
        for f in spectator_frames(replay)
        if 0 in f["view"]["players"][0]["bonus"].values()
        and any(f["view"]["players"][0]["bonus"].values())
    )
    page = browser.page
    page.goto(f"/matches/{match.pk}/#step={step}")
    expect(page.locator("#replay")).to_have_attribute("data-step", str(step))
    for colour, bonus in last.items():
        badge = page.locator(
            f'.sd-player[data-seat="0"] .sd-stack[data-colour="{colour}"] .sd-bonus-badge'
        )
        expect(badge).to_have_text(f"{LETTERS[colour]}{bonus}")
        fill = badge.evaluate("(el) => getComputedStyle(el).backgroundColor")
        assert (fill == "rgba(0, 0, 0, 0)") == (bonus == 0), (colour, bonus, fill)


def test_a_held_event_card_says_what_it_does(browser: Browser, process_sandbox) -> None:
    """A card a player kept ("Scoring Red +5", "Certificate") showed only its
    name: once it had left the offer, nothing on the board said what it
    scores. Now its effect is written under its name, on a desktop and a phone."""
    from arena import get_game
    from tests.browser.test_match_page import ESR

    replay = scripted_replay(ESR, 3, 3)
    names = ["ruby-random-player", "opal-random-player", "jade-random-player"]
    match = recorded(builtin_lineup(ESR, names), replay)
    catalogue = get_game(ESR).public_data(replay["options"])["events"]
    step, held = next(
        (f["step"], [p["held_events"] for p in f["view"]["players"]])
        for f in spectator_frames(replay)
        if any(p["held_events"] for p in f["view"]["players"])
    )

    def effect(card: dict) -> str:
        params = card.get("params", {})
        if card["op"] == "certificate":
            return "kept until scoring: most certificates earn a prize"
        assert card["op"] == "majority_bonus", card  # the only other kind a player keeps
        return f"at scoring: +{params['bonus']} M for a {params['colour']} majority"

    for page in (browser.page, browser.phone()):
        page.goto(f"/matches/{match.pk}/#step={step}")
        expect(page.locator("#replay")).to_have_attribute("data-step", str(step))
        for seat, cards in enumerate(held):
            shown = page.locator(f'.esr-seat[data-seat="{seat}"] .esr-held-card')
            expect(shown).to_have_count(len(cards))
            for index, card_id in enumerate(cards):
                card = shown.nth(index)
                expect(card.locator("b")).to_have_text(catalogue[card_id]["name"])
                expect(card.locator(".esr-held-effect")).to_have_text(effect(catalogue[card_id]))
                expect(card.locator(".esr-held-effect")).to_be_visible()
        shoot(page, f"replay-held-events-{page.viewport_size['width']}")
