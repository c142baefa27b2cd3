"""Game options: component files (house values), barter rule, step cap, snapshots."""

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
        (lambda d: d["barter_value"].update(red=0), "barter_value"),
        (lambda d: d.update(schema="other"), "schema"),
    ],
)
def test_a_malformed_component_file_is_rejected_naming_the_entry(change, named):
    data = house_values()
    change(data)
    with pytest.raises(OptionError, match="components.*" + re.escape(named)):
        GAME.new(4, 1, {"components": data})


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


def test_the_step_cap_ends_a_game():
    st = GAME.new(3, 1)
    st.step_cap = 5
    for seat in range(3):
        st.apply(seat, "play money")
    st.apply(0, "play gems")
    st.apply(1, "play gems")
    assert st.is_over() and st.outcome().reason == "step cap"
    st.check_invariants()
