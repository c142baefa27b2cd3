"""Game options: component files (house values), house rules, step cap, snapshots."""

from __future__ import annotations

import json
import re

import pytest

from arena.engine import OptionError
from arena.games.edel_stein_reich import GAME
from arena.games.edel_stein_reich.loader import DATA_FILE


def house_values() -> dict:
    return json.loads(DATA_FILE.read_text(encoding="utf-8"))


def test_default_is_the_bundled_house_values():
    st = GAME.new(4, 1)
    assert st.comp.house_values
    assert st.comp.scoring_value == (10, 8, 6, 4)
    assert len(st.comp.gem_cards) == 30 and len(st.comp.event_deck) == 39
    assert "house values" in GAME.notice


def test_component_file_by_path_inline_json_or_object(tmp_path):
    data = house_values()
    data["scoring_value"] = {"red": 12, "yellow": 9, "green": 6, "blue": 3}
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(data))
    for raw in (str(path), json.dumps(data), data):
        st = GAME.new(3, 1, {"components": raw})
        assert st.comp.scoring_value == (12, 9, 6, 3)


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda d: d["gem_cards"][3].update(money="seven"), "gem_cards[3].money"),
        (lambda d: d["gem_cards"][0]["gems"].update(purple=1), "gem_cards[0].gems.purple"),
        (lambda d: d["event_cards"][2].update(op="teleport"), "event_cards[2].op"),
        (lambda d: d["event_cards"][1]["params"].update(colour="pink"), "event_cards[1].params"),
        (lambda d: d.pop("scoring_value"), "scoring_value"),
        (lambda d: d.update(majority_half_rounding="sideways"), "majority_half_rounding"),
        (lambda d: d.update(split_rounding="nearest"), "split_rounding"),
        (lambda d: d["barter_value"].update(red=0), "barter_value"),
        (lambda d: d.update(schema="other"), "schema"),
    ],
)
def test_a_malformed_component_file_is_rejected_naming_the_entry(change, named):
    data = house_values()
    change(data)
    with pytest.raises(OptionError, match="components.*" + re.escape(named)):
        GAME.new(4, 1, {"components": data})


def test_decks_beyond_the_caps_are_rejected():
    """Far above any printed deck; a bigger one would only make matches,
    replays and snapshots huge (each kind may hold up to 200 copies)."""
    data = house_values()
    data["event_cards"] = [
        {**data["event_cards"][0], "id": f"E{i}", "count": 200} for i in range(3)
    ]
    with pytest.raises(
        OptionError, match="event_cards: the counts add up to 600 cards, at most 500"
    ):
        GAME.new(4, 1, {"components": data})
    data["event_cards"][2]["count"] = 100
    assert len(GAME.new(4, 1, {"components": data}).comp.event_deck) == 500
    data = house_values()
    data["gem_cards"] = data["gem_cards"] * 17  # 510
    with pytest.raises(OptionError, match="gem_cards: 510 cards, at most 500"):
        GAME.new(4, 1, {"components": data})


def test_a_component_file_holding_null_means_the_house_values(tmp_path):
    """What `GET /api/games/edel-stein-reich` gives as ladder_options.components
    when the ladder plays the house values, saved to a file (docs/bots.md)."""
    path = tmp_path / "components.json"
    path.write_text("null\n")
    assert GAME.validate_options({"components": str(path)})["components"] is None
    assert GAME.new(4, 1, {"components": str(path)}).comp.house_values
    path.write_text("[1, 2]")
    with pytest.raises(
        OptionError, match=r"components\.json: its JSON is not an object \(or null\)"
    ):
        GAME.new(4, 1, {"components": str(path)})


def test_unreadable_or_non_json_component_file(tmp_path):
    with pytest.raises(OptionError, match="cannot read"):
        GAME.new(4, 1, {"components": str(tmp_path / "missing.json")})
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(OptionError, match="not valid JSON"):
        GAME.new(4, 1, {"components": str(bad)})


def test_a_deck_that_does_not_deal_whole_rounds_is_rejected():
    data = house_values()
    data["gem_cards"] = data["gem_cards"][:29]
    with pytest.raises(OptionError, match="set_aside.4"):
        GAME.new(4, 1, {"components": data})  # 29 - 2 = 27 cards for 4 seats
    data["set_aside"]["4"] = 1
    assert len(GAME.new(4, 1, {"components": data}).gem_deck) == 24  # 28 in play, 4 dealt


def test_custom_components_survive_a_snapshot_round_trip():
    data = house_values()
    data["certificate_awards"] = [20, 5, 1]
    st = GAME.new(5, 3, {"components": data, "barter_winner": "more_gems"})
    snap = json.loads(json.dumps(st.snapshot()))
    back = GAME.restore(snap)
    assert back == st
    assert back.comp.certificate_awards == (20, 5, 1)
    assert back.barter_winner == "more_gems"


def test_barter_winner_option_is_checked():
    with pytest.raises(OptionError, match="barter_winner"):
        GAME.new(3, 1, {"barter_winner": "coin flip"})


HOUSE_RULE_DEFAULTS = {
    "set_aside_top_public": True,
    "event_reshuffle": True,
    "priority_tiebreak": "less_money",
    "free_choice_same_colour": True,
    "final_tiebreak": "gem_value",
    "certificate_ties": "split",
    "untaken_event": "discard",
    "gemless_opener": "pass",
    "event_deck_between_phases": "keep",
}
HOUSE_RULE_OTHERS = {
    "set_aside_top_public": False,
    "event_reshuffle": False,
    "priority_tiebreak": "seat",
    "free_choice_same_colour": False,
    "final_tiebreak": "shared",
    "certificate_ties": "full",
    "untaken_event": "keep",
    "gemless_opener": "void",
    "event_deck_between_phases": "reshuffle",
}


def test_house_rule_options_default_to_the_original_rules():
    clean = GAME.validate_options(None)
    assert {name: clean[name] for name in HOUSE_RULE_DEFAULTS} == HOUSE_RULE_DEFAULTS
    assert all(GAME.options[name].help for name in HOUSE_RULE_DEFAULTS)


@pytest.mark.parametrize(
    ("name", "bad", "why"),
    [
        ("barter_winner", "coin flip", "expected one of offer, more_gems, got 'coin flip'"),
        ("set_aside_top_public", "maybe", "expected true or false, got 'maybe'"),
        ("event_reshuffle", 2, "expected true or false, got 2"),
        ("free_choice_same_colour", None, "expected true or false, got None"),
        ("priority_tiebreak", "money", "expected one of less_money, seat, got 'money'"),
        ("final_tiebreak", True, "expected one of gem_value, shared, got True"),
        ("certificate_ties", ["full"], "expected one of split, full, got ['full']"),
        ("untaken_event", "stay", "expected one of discard, keep, got 'stay'"),
        ("gemless_opener", False, "expected one of pass, void, got False"),
        (
            "event_deck_between_phases",
            "shuffle",
            "expected one of keep, reshuffle, got 'shuffle'",
        ),
    ],
)
def test_a_bad_option_value_is_rejected_with_the_choices(name, bad, why):
    with pytest.raises(OptionError) as err:
        GAME.new(4, 1, {name: bad})
    assert str(err.value) == f"option {name!r} of edel-stein-reich: {why}"


def test_boolean_options_take_command_line_words():
    st = GAME.new(4, 1, {"event_reshuffle": "false", "set_aside_top_public": "no"})
    assert st.options["event_reshuffle"] is False and st.options["set_aside_top_public"] is False


def test_house_rule_options_survive_a_snapshot_round_trip():
    st = GAME.new(5, 2, HOUSE_RULE_OTHERS)
    for seat in range(5):
        st.apply(seat, "play money")
    back = GAME.restore(json.loads(json.dumps(st.snapshot())))
    assert back == st
    assert {name: back.options[name] for name in HOUSE_RULE_OTHERS} == HOUSE_RULE_OTHERS
    assert back.clone().options == back.options


def test_a_snapshot_taken_before_an_option_existed_restores_with_its_default():
    st = GAME.new(4, 2)
    for seat in range(4):
        st.apply(seat, "play money")
    old = json.loads(json.dumps(st.snapshot()))
    for name in ("untaken_event", "gemless_opener", "event_deck_between_phases"):
        del old["options"][name]
    back = GAME.restore(old)
    assert back == st  # the snapshots, options included, are equal


def test_the_step_cap_ends_a_game():
    st = GAME.new(3, 1)
    st.step_cap = 5
    for seat in range(3):
        st.apply(seat, "play money")
    st.apply(0, "play gems")
    st.apply(1, "play gems")
    assert st.is_over() and st.outcome().reason == "step cap"
    st.check_invariants()
