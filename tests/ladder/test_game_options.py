"""The ladder's game options: set in the admin, used by the scheduler, by
validation matches and by re-runs, and the notice that follows them."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone

from arena import get_game
from ladder import admin_matches
from ladder.bots import add_version, create_bot, install_builtin
from ladder.game_options import clean_ladder_options
from ladder.matches import create_match
from ladder.models import LadderSettings, Match, WorkerHeartbeat
from ladder.scheduler import fill_queue
from ladder.uploads import UploadError
from tests.ladder.conftest import RANDOM_BOT

pytestmark = pytest.mark.django_db

ESR = "edel-stein-reich"
ESR_COMPONENTS = (
    Path(__file__).resolve().parents[2] / "arena/games/edel_stein_reich/data/components.json"
)


def printed_components() -> dict:
    """A component document of the operator's own (not house values)."""
    data = json.loads(ESR_COMPONENTS.read_text())
    data["title"] = "the operator's printed copy"
    data["house_values"] = False
    data["scoring_value"]["red"] = 12
    return data


def set_ladder_options(value: dict) -> None:
    row = LadderSettings.get()
    row.game_options = clean_ladder_options(value)
    row.save()


def save_in_admin(admin_client, value) -> tuple[int, list[str]]:
    """Post the settings page with `value` as game_options; (status, its field errors)."""
    row = LadderSettings.get()
    text = value if isinstance(value, str) else json.dumps(value)
    response = admin_client.post(
        reverse("admin:ladder_laddersettings_change", args=[row.pk]),
        {"game_options": text, "_save": "Save"},
    )
    if response.status_code != 200:
        return response.status_code, []
    return 200, list(response.context["adminform"].form.errors.get("game_options", []))


def not_dealing() -> dict:
    data = printed_components()
    data["set_aside"]["3"] = 5  # 25 cards do not deal whole rounds to 3 seats
    return data


def with_nul() -> dict:
    data = printed_components()
    data["title"] = "printed\u0000copy"
    return data


@pytest.mark.parametrize(
    "value, message",
    [
        ([ESR], "expected a JSON object {game id: {option: value}}, got an array"),
        ('"x"', "expected a JSON object {game id: {option: value}}, got a string"),
        pytest.param(
            f'{{"{ESR}": {{"components": {"[" * 5000 + "]" * 5000}}}}}',
            "nests too deeply",
            id="deep-json",
        ),
        pytest.param(
            {ESR: {"components": '{"a":' * 5000 + "1" + "}" * 5000}},
            "nested too deeply",
            id="deep-json-in-a-string",
        ),
        ('{"splendor-duel": {"step_cap": 1e400}}', "whole number, not inf"),
        ({ESR: ["untaken_event"]}, f"{ESR}: expected a JSON object {{option: value}}"),
        ({"chess": {}}, "unknown game 'chess'"),
        ({ESR: {"untaken": "keep"}}, f"unknown option 'untaken' for {ESR}"),
        ({ESR: {"untaken_event": "hide"}}, f"option 'untaken_event' of {ESR}: expected one of"),
        (
            {ESR: {"components": "/etc/passwd"}},
            f"option 'components' of {ESR}: give the data as a JSON object, not a string",
        ),
        ({ESR: {"components": "{not json"}}, f"option 'components' of {ESR}: not valid JSON"),
        ({ESR: {"components": not_dealing()}}, "do not deal whole rounds to 3 seats"),
        ({ESR: {"components": with_nul()}}, "NUL characters"),
        ("[1, 2", "Enter a valid JSON."),
    ],
)
def test_admin_refuses_bad_options_and_keeps_the_stored_ones(admin_client, value, message) -> None:
    set_ladder_options({ESR: {"money_visible": False}})
    before = LadderSettings.get().game_options
    status, errors = save_in_admin(admin_client, value)
    assert status == 200, "the form must come back with an error, not save"
    assert any(message in e for e in errors), errors
    assert LadderSettings.get().game_options == before


def test_admin_stores_only_what_differs_from_the_defaults(admin_client) -> None:
    printed = printed_components()
    value = {
        ESR: {
            "untaken_event": "keep",
            "money_visible": True,  # the default: dropped
            "priority_tiebreak": "seat",
            "components": json.dumps(printed),  # inline JSON text, stored parsed
        },
        "splendor-duel": {},  # nothing left: the game is dropped
    }
    status, errors = save_in_admin(admin_client, value)
    assert (status, errors) == (302, [])
    stored = LadderSettings.get().game_options
    assert stored == {
        ESR: {"components": printed, "priority_tiebreak": "seat", "untaken_event": "keep"}
    }
    # the page shows the stored value again, and saving it unchanged is accepted
    page = admin_client.get(reverse("admin:ladder_laddersettings_change", args=[1]))
    assert "untaken_event" in page.content.decode()
    assert save_in_admin(admin_client, stored) == (302, [])
    assert save_in_admin(admin_client, {}) == (302, [])
    assert LadderSettings.get().game_options == {}


def test_scheduler_creates_ladder_matches_with_the_ladder_options(settings) -> None:
    settings.QUEUE_DEPTH_PER_WORKER = 3
    for i in range(3):
        install_builtin(ESR, "random", bot_name=f"opt-esr-{i}")
    for i in range(2):
        install_builtin("splendor-duel", "random", bot_name=f"opt-sd-{i}")
    WorkerHeartbeat.beat("w1@test", "process")
    set_ladder_options({ESR: {"untaken_event": "keep", "components": printed_components()}})
    assert fill_queue(random.Random(5)) > 0
    esr = Match.objects.filter(game=ESR, kind=Match.Kind.LADDER)
    assert esr.exists()
    for match in esr:
        assert match.options["untaken_event"] == "keep"
        assert match.options["components"]["scoring_value"]["red"] == 12
        assert match.options["money_visible"] is True  # defaults filled in as before
    duel = Match.objects.filter(game="splendor-duel", kind=Match.Kind.LADDER)
    assert duel.exists()
    assert all(m.options == get_game("splendor-duel").validate_options({}) for m in duel)


def test_scheduler_skips_a_game_whose_stored_options_went_stale(settings, caplog) -> None:
    settings.QUEUE_DEPTH_PER_WORKER = 2
    for i in range(3):
        install_builtin(ESR, "random", bot_name=f"stale-esr-{i}")
    for i in range(2):
        install_builtin("splendor-duel", "random", bot_name=f"stale-sd-{i}")
    # as if an engine upgrade had dropped an option the ladder was set to
    LadderSettings.objects.filter(pk=LadderSettings.get().pk).update(
        game_options={ESR: {"retired_option": 1}}
    )
    fill_queue(random.Random(2))
    assert not Match.objects.filter(game=ESR).exists()
    assert Match.objects.filter(game="splendor-duel").exists()  # the other game goes on
    assert "retired_option" in caplog.text


def test_an_upload_is_refused_while_the_stored_options_are_stale(alice, media_dir) -> None:
    bot = create_bot(alice, ESR, "too-early")
    LadderSettings.objects.filter(pk=LadderSettings.get().pk).update(
        game_options={ESR: {"retired_option": 1}}
    )
    with pytest.raises(UploadError, match="closed until an administrator fixes") as refused:
        add_version(bot, "main.py", RANDOM_BOT)
    assert "retired_option" in str(refused.value)
    assert not bot.versions.exists() and not Match.objects.exists()
    assert not [p for p in media_dir.rglob("*") if p.is_file()]  # no file left behind


def test_validation_matches_play_the_ladder_options(alice, settings) -> None:
    settings.VALIDATION_MATCHES = 3
    set_ladder_options({ESR: {"untaken_event": "keep", "gemless_opener": "void"}})
    bot = create_bot(alice, ESR, "newcomer")
    version = add_version(bot, "main.py", RANDOM_BOT)
    matches = list(version.validation_matches.all())
    assert len(matches) == 3
    for match in matches:
        assert (match.options["untaken_event"], match.options["gemless_opener"]) == (
            "keep",
            "void",
        )


def test_rerun_keeps_the_match_options_not_the_ladder_ones(admin_client, monkeypatch) -> None:
    monkeypatch.setattr(admin_matches, "enqueue", lambda match_id, kind: None)
    lineup = [install_builtin(ESR, "random", bot_name=f"rr-{i}").active_version for i in range(3)]
    old = create_match(ESR, lineup, seed=9, options={"untaken_event": "keep"})
    Match.objects.filter(pk=old.pk).update(status=Match.Status.FINISHED, finished_at=timezone.now())
    set_ladder_options({ESR: {"priority_tiebreak": "seat"}})
    admin_client.post(
        reverse("admin:ladder_match_changelist"),
        {"action": "rerun_matches", "_selected_action": [old.pk]},
    )
    copy = Match.objects.exclude(pk=old.pk).get()
    old.refresh_from_db()
    assert copy.options == old.options
    assert copy.options["priority_tiebreak"] == "less_money"


def test_notice_follows_the_components_option() -> None:
    esr, duel = get_game(ESR), get_game("splendor-duel")
    assert esr.notice_for(None) == esr.notice_for({}) == esr.notice
    assert "house values" in esr.notice
    assert esr.notice_for({"untaken_event": "keep"}) == esr.notice
    operator = esr.notice_for({"components": printed_components()})
    assert "custom component data" in operator and "placeholders" not in operator
    # a copy of the bundled data still is house values, and says so
    bundled = json.loads(ESR_COMPONENTS.read_text())
    assert esr.notice_for({"components": bundled}) == esr.notice
    assert duel.notice_for({"first_seat": 1}) == duel.notice == ""
