"""Request bodies are read strictly: an object with only the declared fields,
ids that are integers, one uploaded file, names without hidden characters,
challenge options of bounded size; and an over-limit challenge costs nothing.
Every refusal is a 422 (429 for the limit) in the error shape, storing nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from ladder.api.schemas import MAX_OPTIONS_BYTES
from ladder.models import ApiToken, Bot, BotVersion, Match
from tests.api.test_auth_errors import assert_error
from tests.ladder.conftest import RANDOM_BOT

pytestmark = pytest.mark.django_db

ESR_COMPONENTS = (
    Path(__file__).resolve().parents[2] / "arena/games/edel_stein_reich/data/components.json"
)


def post(client, path: str, body) -> object:
    return client.post(path, json.dumps(body), "application/json")


def challenge_body(bot: Bot, opponents: list[Bot], **extra) -> dict:
    return {"bot": bot.pk, "opponents": [o.pk for o in opponents], **extra}


# --- the challenge limit comes before the (costly) option check -------------------


def test_over_limit_challenge_is_refused_before_its_options_are_checked(
    as_alice, alpha, beta, settings, monkeypatch
) -> None:
    settings.MAX_OPEN_CHALLENGES = 1
    assert post(as_alice, "/api/challenges", challenge_body(alpha, [beta])).status_code == 201

    def costly(*args, **kwargs):
        raise AssertionError("the options were checked for a request over the limit")

    monkeypatch.setattr("ladder.challenges.check_options", costly)
    sent = post(as_alice, "/api/challenges", challenge_body(alpha, [beta], options={"x": 1}))
    assert "the limit is 1" in assert_error(sent, 429, "rate_limited")["message"]
    assert Match.objects.filter(kind="challenge").count() == 1


# --- the size of a challenge's options --------------------------------------------


def huge_deck() -> dict:
    """Valid components whose event deck holds 2,000,000 cards."""
    data = json.loads(ESR_COMPONENTS.read_text())
    data["event_cards"] = [
        {"id": f"e{i}", "op": "gain_money", "params": {"money": 1}, "count": 200}
        for i in range(10_000)
    ]
    return data


def test_oversized_challenge_options_are_refused(as_alice, trio, monkeypatch) -> None:
    red, green, blue = trio

    def costly(*args, **kwargs):
        raise AssertionError("oversized options reached the option check")

    monkeypatch.setattr("ladder.challenges.check_options", costly)
    body = challenge_body(red, [green, blue], options={"components": huge_deck()})
    error = assert_error(post(as_alice, "/api/challenges", body), 422, "invalid", "options")
    assert f"the limit is {MAX_OPTIONS_BYTES:,} bytes" in error["message"]
    assert not Match.objects.exists()


def test_the_whole_bundled_components_document_fits_with_room(as_alice, trio) -> None:
    red, green, blue = trio
    data = json.loads(ESR_COMPONENTS.read_text())
    as_string = json.dumps({"components": json.dumps(data, indent=2)}).encode()
    assert len(as_string) * 5 < MAX_OPTIONS_BYTES  # ample room for real component data
    for components in (data, json.dumps(data, indent=2)):
        body = challenge_body(red, [green, blue], options={"components": components})
        response = post(as_alice, "/api/challenges", body)
        assert response.status_code == 201, response.content
        Match.objects.filter(pk=response.json()["id"]).update(status="finished")


# --- ids are integers ------------------------------------------------------------------


@pytest.mark.parametrize(
    "case, field",
    [
        ("bot_true", "bot"),
        ("bot_string", "bot"),
        ("bot_float", "bot"),
        ("opponent_true", "opponents.0"),
        ("opponent_string", "opponents.0"),
        ("opponent_float", "opponents.0"),
    ],
)
def test_ids_must_be_integers(as_alice, alpha, beta, case: str, field: str) -> None:
    body = challenge_body(alpha, [beta])
    key = "bot" if case.startswith("bot") else "opponents"
    pk = alpha.pk if key == "bot" else beta.pk
    value = {"true": True, "string": str(pk), "float": float(pk)}[case.partition("_")[2]]
    body[key] = value if key == "bot" else [value]
    # `true` used to be read as bot 1 (alice's alpha, on a fresh SQLite database)
    assert_error(post(as_alice, "/api/challenges", body), 422, "invalid", field)
    assert not Match.objects.exists()


# --- a body is a JSON object with the declared fields only ----------------------------

BODY_ENDPOINTS = ["/api/bots", "/api/challenges", "/api/tokens"]


@pytest.mark.parametrize("path", BODY_ENDPOINTS)
@pytest.mark.parametrize("body", [[], "x", None, 3, True])
def test_body_must_be_a_json_object(as_alice, path: str, body) -> None:
    error = assert_error(post(as_alice, path, body), 422, "invalid", None)
    assert error["message"].startswith("the request body must be a JSON object")
    tokens_before = 1  # alice's own, from the fixture
    assert not Bot.objects.exists() and not Match.objects.exists()
    assert ApiToken.objects.count() == tokens_before


@pytest.mark.parametrize("path", BODY_ENDPOINTS)
def test_an_empty_body_is_named_as_such(as_alice, path: str) -> None:
    error = assert_error(as_alice.post(path, b"", "application/json"), 422, "invalid", None)
    assert error["message"] == "the request body is empty: send a JSON object"


@pytest.mark.parametrize(
    "path, body, field",
    [
        ("/api/bots", {"game": "splendor-duel", "name": "ok", "zzz": 1}, "zzz"),
        ("/api/bots", {"game": "splendor-duel", "name": "ok", "descripton": "typo"}, "descripton"),
        ("/api/tokens", {"name": "ci", "expires": "2030-01-01"}, "expires"),
    ],
)
def test_unknown_fields_are_refused_by_name(as_alice, path: str, body: dict, field: str) -> None:
    error = assert_error(post(as_alice, path, body), 422, "invalid", field)
    assert "no such field" in error["message"]
    assert not Bot.objects.exists()
    assert not ApiToken.objects.filter(name="ci").exists()


def test_unknown_challenge_field_is_refused(as_alice, alpha, beta) -> None:
    body = {**challenge_body(alpha, [beta]), "option": {"first_seat": 0}}
    assert_error(post(as_alice, "/api/challenges", body), 422, "invalid", "option")
    assert not Match.objects.exists()


def test_what_the_cli_sends_is_still_accepted(as_alice) -> None:
    # arena/cmd_upload.py: client.post_json("/api/bots", {"game": ..., "name": ...})
    response = post(as_alice, "/api/bots", {"game": "splendor-duel", "name": "cli-bot"})
    assert response.status_code == 201, response.content


# --- uploads: one file --------------------------------------------------------------


def test_upload_with_two_file_parts_is_refused(as_alice, alice) -> None:
    bot = Bot.objects.create(owner=alice, game="splendor-duel", name="twofiles")
    first = SimpleUploadedFile("a.py", RANDOM_BOT)
    second = SimpleUploadedFile("b.py", b"print('the other one')\n")
    response = as_alice.post(f"/api/bots/{bot.pk}/versions", {"file": [first, second]})
    error = assert_error(response, 422, "invalid", "file")
    assert "one file" in error["message"]
    assert not BotVersion.objects.filter(bot=bot).exists()


# --- names ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["evil\u202etxt.exe", "bell\x07", "tab\tname", "zero\u200bwidth", "tag\U000e0041", "\u00ad"],
)
def test_token_names_refuse_control_and_format_characters(as_alice, name: str) -> None:
    error = assert_error(post(as_alice, "/api/tokens", {"name": name}), 422, "invalid", "name")
    assert "control or formatting characters" in error["message"]
    assert not ApiToken.objects.exclude(name="alice's laptop").exists()


def test_ordinary_token_names_are_kept(as_alice) -> None:
    name = "Jürgen's laptop — CI 🚀"
    response = post(as_alice, "/api/tokens", {"name": name})
    assert response.status_code == 201, response.content
    assert response.json()["name"] == name


@pytest.mark.parametrize("name", ["my bot!", "--", "-x", "_x"])
def test_bot_name_error_is_for_people(as_alice, name) -> None:
    sent = post(as_alice, "/api/bots", {"game": "splendor-duel", "name": name})
    error = assert_error(sent, 422, "invalid", "name")
    assert error["message"] == (
        "name: bot names start with a letter or digit, then letters, digits, - and _"
    )
    assert not Bot.objects.exists()
