"""Leak tests (change a hidden fact: other seats' views must not change), views, text."""

from __future__ import annotations

import json

from tests.arena.edel_stein_reich.helpers import commit_all, new, set_all_gems, set_offered


def views(st):
    return [st.observation(s) for s in range(st.n)] + [st.spectator_view()]


def test_an_uncommitted_choice_is_seen_only_by_its_seat():
    for hidden in ("money", "event"):
        a, b = new(4, 7), new(4, 7)
        a.apply(1, "play gems")
        b.apply(1, f"play {hidden}")
        a.apply(0, "play money")
        b.apply(0, "play money")
        for seat in (0, 2, 3):
            assert a.observation(seat) == b.observation(seat)
        assert a.spectator_view() == b.spectator_view()
        assert a.observation(1)["my_choice"] == "gems"
        assert a.observation(0)["choices"] is None
        assert a.observation(0)["players"][1]["has_chosen"] is True


def test_choices_are_revealed_after_the_last_commit():
    st = new(3, 7)
    set_offered(st, "certificate")
    commit_all(st, ["event", "gems", "money"])
    assert st.observation(2)["choices"] == ["event", "gems", "money"]


def test_deck_orders_are_hidden():
    a = new(4, 11)
    b = a.clone()
    b.ev_deck.reverse()
    b.gem_deck.reverse()
    assert b.ev_deck != a.ev_deck and b.gem_deck != a.gem_deck
    assert views(a) == views(b)


def test_the_blind_card_is_hidden_until_drawn():
    a = new(4, 12)
    set_all_gems(a, [(3, 3, 3, 3)] * 4)
    set_offered(a, "certificate")
    commit_all(a, ["event", "money", "money", "money"])
    assert a.phase == "event_choice"
    b = a.clone()
    # put a different kind of card on top of b's deck
    top = b.ev_deck[-1]
    other = next(i for i, c in enumerate(b.ev_deck) if c != top)
    b.ev_deck[-1], b.ev_deck[other] = b.ev_deck[other], b.ev_deck[-1]
    assert views(a) == views(b)
    a.apply(0, "blind")
    b.apply(0, "blind")
    assert views(a) != views(b)  # once drawn, the card is public


def test_money_can_be_hidden_from_other_seats():
    st = new(3, 1, money_visible=False)
    st.money = [5, 6, 7]
    st.bank_paid = 18
    obs = st.observation(1)
    assert [p["money"] for p in obs["players"]] == [None, 6, None]
    assert [p["money"] for p in st.spectator_view()["players"]] == [None, None, None]
    assert [p["money"] for p in new(3, 1).observation(1)["players"]] == [0, 0, 0]


def test_observation_schema_and_bargain_view():
    st = new(3, 5)
    set_all_gems(st, [(1, 1, 1, 1), (3, 3, 3, 3), (3, 3, 3, 3)])
    commit_all(st, ["money", "money", "gems"])
    st.apply(0, "offer r1")
    obs = st.observation(1)
    json.dumps(obs)
    assert obs["phase"] == "bargain" and obs["to_act"] == [0]
    assert obs["bargain"]["building"] == {"red": 1}
    assert obs["bargain"]["standing"] == {"maker": None, "gems": {}, "size": 0, "value": 0}
    for key in ("supply", "players", "offered_event", "log", "previous_log", "round"):
        assert key in obs


def test_render_and_describe_action():
    st = new(3, 5)
    text = st.render()
    assert "seat 2" in text and "supply" in text
    assert st.describe_action(0, "play money") == "seat 0 chooses the Money action card"
    set_all_gems(st, [(1, 1, 1, 1), (3, 3, 3, 3), (3, 3, 3, 3)])
    commit_all(st, ["money", "money", "gems"])
    assert st.describe_action(0, "offer r1") == "seat 0 puts 1 red into the offer"
    assert st.describe_action(0, "offer r0") == "seat 0 puts no red into the offer"
    assert "bargaining for Money" in st.render()
    # a raise half announced, in words (QA: `arena replay show` printed "building [1, 0]")
    st.apply(0, "offer r1")
    st.apply(0, "offer y0")
    assert "; seat 0 is announcing a raise: 1 red so far, green next" in st.render()
    assert "[1, 0]" not in st.render()


def test_the_count_that_completes_a_raise_says_the_whole_raise():
    """`arena play -v` said only the last colour's count ("puts 3 blue into the
    offer"); the step that completes a raise now says all of it, with the
    replay viewer's words for an offer ("offers", then "raises to")."""
    st = new(3, 5)
    set_all_gems(st, [(1, 1, 1, 1), (0, 2, 0, 3), (3, 3, 3, 3)])
    commit_all(st, ["money", "money", "gems"])
    # seat 1 opens (fewest red, §6.1); its red and green counts are forced (it has none)
    assert st.describe_action(1, "offer y1") == "seat 1 puts 1 yellow into the offer"
    st.apply(1, "offer y1")
    assert st.describe_action(1, "offer b3") == (
        "seat 1 puts 3 blue into the offer and offers 1 yellow, 3 blue"
    )
    st.apply(1, "offer b3")
    # to beat 4 gems seat 0 needs all of its own: after the red the engine fills in the rest
    assert st.describe_action(0, "offer r1") == (
        "seat 0 puts 1 red into the offer and raises to 1 red, 1 yellow, 1 green, 1 blue"
    )
    st.apply(0, "offer r1")
    # seat 0 cannot beat it and is made to accept, which ends the round (the log moves on)
    assert st.describe_action(1, "offer r0") == (
        "seat 1 puts no red into the offer and raises to 2 yellow, 3 blue"
    )
    round_no = st.round_no
    st.apply(1, "offer r0")
    assert st.round_no == round_no + 1 and st.log == []


def test_set_aside_gem_cards_are_hidden_except_the_top_one():
    for seats in (3, 4):
        a = new(seats, 15)
        b = a.clone()
        # swap a face-down set-aside card with a card deep in the gem deck
        b.set_aside[0], b.gem_deck[0] = b.gem_deck[0], b.set_aside[0]
        assert views(a) == views(b)
        c = a.clone()
        c.set_aside[-1], c.gem_deck[0] = c.gem_deck[0], c.set_aside[-1]
        assert views(a) != views(c)  # §3.7 [H]: the top set-aside card is public
        assert a.observation(1)["set_aside_top"] == a.comp.gem_cards[a.set_aside[-1]].id


def test_offers_and_the_transfer_are_public():
    st = new(3, 5)
    set_all_gems(st, [(1, 1, 1, 1), (3, 3, 3, 3), (3, 3, 3, 3)])
    commit_all(st, ["money", "money", "gems"])
    for step in ("offer r1", "offer y0", "offer g0", "offer b1"):
        st.apply(0, step)
    assert {"type": "offer", "seat": 0, "gems": {"red": 1, "blue": 1}} in st.observation(2)["log"]
    assert st.observation(2)["bargain"]["standing"] == {
        "maker": 0,
        "gems": {"red": 1, "blue": 1},
        "size": 2,
        "value": 5,
    }
    st.apply(1, "accept")
    accept = {"type": "accept", "seat": 1, "maker": 0, "gems": {"red": 1, "blue": 1}, "winner": 0}
    assert accept in st.spectator_view()["previous_log"]


def documented_fields() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """From docs/games/edel-stein-reich.md: the log-entry table (type ->
    fields) and the observation schema's event `params` (op -> keys)."""
    import re
    from pathlib import Path

    doc = (Path(__file__).parents[3] / "docs" / "games" / "edel-stein-reich.md").read_text()
    table = doc.split("| `type` | fields | what happened |", 1)[1].split("\n\n", 1)[0]
    fields = {}
    for row in table.strip().splitlines()[1:]:
        kind, names = (cell.strip() for cell in row.strip("|").split("|")[:2])
        fields[kind.strip("`")] = {name.strip(" `") for name in names.split(",")}
    schema = doc.split("offered_event: {id, name, kind, op, params (", 1)[1].split(")}", 1)[0]
    params = {op: {k.strip() for k in keys.split(",")}
              for op, keys in re.findall(r"(\w+): \{([^}]*)\}", schema)}  # fmt: skip
    return fields, params


def test_log_entries_and_event_params_are_as_documented():
    """A bot that follows bargains reads `offer` and `accept` entries: the game
    page lists every entry's fields and every card's params (QA: the page
    named the types only, and `params` without its keys)."""
    import random

    from arena.games.edel_stein_reich import GAME

    documented, params = documented_fields()
    seen: dict[str, set[str]] = {}
    for seed in range(40):
        options = {"gemless_opener": "void"} if seed % 2 else {"untaken_event": "keep"}
        st = GAME.new(3 + seed % 3, seed, options)
        chooser = random.Random(seed)
        while not st.is_over():
            seat = chooser.choice(st.to_act())
            st.apply(seat, chooser.choice(st.legal_actions(seat)))
            view = st.spectator_view()
            for entry in view["log"]:
                seen.setdefault(entry["type"], set()).update(set(entry) - {"type"})
            for card in (view["offered_event"], view["pending_event"]):
                if card is not None:
                    assert set(card.get("params", {})) == params.get(card["op"], set()), card
    assert len(seen) >= 18, sorted(seen)  # random games show most kinds; the rare ones:
    from arena.games.edel_stein_reich.views import log_entry

    for rare in (("reshuffle", 12), ("no_event", 1), ("void", 0, (0, 2))):
        entry = log_entry(st, rare)
        seen.setdefault(entry["type"], set()).update(set(entry) - {"type"})
    assert set(params) == {"gain_money", "gain_gems", "gain_any_gems", "majority_bonus"}
    assert {kind: documented.get(kind) for kind in seen} == seen
