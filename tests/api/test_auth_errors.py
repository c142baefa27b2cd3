"""Authentication (token, session + CSRF) and the one error shape for every failure."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from ladder.api import errors as api_errors
from ladder.models import ApiToken, Bot
from ladder.tokens import create_token, revoke_token
from tests.api.conftest import bearer

pytestmark = pytest.mark.django_db


def assert_error(response, status: int, code: str, field: str | None = None) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert set(body) == {"error"}
    error = body["error"]
    assert {"code", "message", "field"} <= set(error)
    assert error["code"] == code, error
    assert isinstance(error["message"], str) and error["message"]
    assert error["field"] == field, error
    return error


def test_me_with_a_token_and_with_the_session(alice, alice_token) -> None:
    response = Client().get("/api/me", headers=bearer(alice_token))
    assert response.json() == {"username": "alice", "is_staff": False, "auth": "token"}
    session = Client()
    session.force_login(alice)
    assert session.get("/api/me").json()["auth"] == "session"


def test_answers_say_they_depend_on_the_token(alice, alice_token) -> None:
    """A token holder's answer differs from an anonymous one (stderr tails,
    `mine`): a cache between the API and its callers must not hand one to
    the other. The session's cookie was already in Vary; the token's header
    was not."""
    for url in ("/api/me", "/api/bots", "/api/matches", "/api/games/splendor-duel/leaderboard"):
        response = Client().get(url, headers=bearer(alice_token))
        assert response.status_code == 200, url
        assert "Authorization" in [v.strip() for v in response["Vary"].split(",")], url
    anonymous = Client().get("/api/bots")
    assert "Authorization" in anonymous["Vary"]  # its copy must not serve a token either
    refused = Client().get("/api/me")
    assert refused.status_code == 401 and "Authorization" in refused["Vary"]


def test_anonymous_is_refused_where_a_user_is_needed(client) -> None:
    assert_error(client.get("/api/me"), 401, "unauthenticated")
    assert_error(client.get("/api/tokens"), 401, "unauthenticated")
    assert_error(
        client.post("/api/bots", {"game": "splendor-duel", "name": "x"}, "application/json"),
        401,
        "unauthenticated",
    )
    assert_error(client.get("/api/bots?mine=true"), 401, "unauthenticated")
    assert not Bot.objects.exists()


@pytest.mark.parametrize(
    "header",
    ["Bearer ga_not-a-real-token", "Bearer ", "Token abc", "Basic YWxpY2U6cHc=", "Bearer"],
)
def test_bad_tokens_are_refused_even_on_public_endpoints(alice, header: str) -> None:
    client = Client(headers={"Authorization": header})
    error = assert_error(client.get("/api/games"), 401, "bad_token")
    assert "token" in error["message"].lower() or "Bearer" in error["message"]


def test_revoked_token_stops_working_at_once(alice) -> None:
    token, raw = create_token(alice, "old")
    client = Client(headers=bearer(raw))
    assert client.get("/api/me").status_code == 200
    revoke_token(alice, token.pk)
    assert_error(client.get("/api/me"), 401, "bad_token")
    assert_error(client.get("/api/games"), 401, "bad_token")


def test_session_needs_the_csrf_token_for_unsafe_methods(alice) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    body = json.dumps({"name": "from the page"})
    assert client.get("/api/tokens").status_code == 200  # safe: no CSRF token needed
    assert_error(client.post("/api/tokens", body, "application/json"), 403, "csrf_failed")
    assert not ApiToken.objects.exists()
    client.get("/api/me")  # any page would set the cookie; set it ourselves below
    from django.middleware.csrf import _get_new_csrf_string

    secret = _get_new_csrf_string()
    client.cookies["csrftoken"] = secret
    response = client.post("/api/tokens", body, "application/json", headers={"X-CSRFToken": secret})
    assert response.status_code == 201
    assert ApiToken.objects.filter(user=alice, name="from the page").exists()


def test_tokens_need_no_csrf(alice_token) -> None:
    client = Client(enforce_csrf_checks=True, headers=bearer(alice_token))
    response = client.post("/api/tokens", {"name": "second"}, "application/json")
    assert response.status_code == 201


def test_unknown_urls_and_wrong_methods_use_the_shape(client) -> None:
    assert_error(client.get("/api/nothing/here"), 404, "not_found")
    assert_error(client.post("/api/nothing"), 404, "not_found")  # no CSRF page either
    assert_error(client.get("/api/bots/not-a-number"), 404, "not_found")
    assert_error(client.get("/api/bots/99999"), 404, "not_found")
    assert_error(client.get(f"/api/bots/{2**70}"), 404, "not_found")
    response = client.delete("/api/games")
    assert_error(response, 405, "method_not_allowed")
    assert response["Allow"] == "GET, HEAD"


def test_head_answers_like_get_without_a_body(client) -> None:
    """`curl -I` and monitors ask with HEAD; ninja routes GET only."""
    for url in ("/api/games", "/api/bots", "/api/"):
        get, head = client.get(url), client.head(url)
        assert head.status_code == 200 == get.status_code, (url, head.content)
        assert head["Content-Type"] == get["Content-Type"]
        assert get["Content-Type"].startswith("application/json")
        assert head.content == b""
    missing = client.head("/api/bots/99999")
    assert missing.status_code == 404 and missing["Content-Type"] == "application/json"


def test_validation_errors_name_the_field(as_alice) -> None:
    error = assert_error(as_alice.get("/api/bots?page=0"), 422, "invalid", "query.page")
    assert error["details"][0]["field"] == "query.page"
    error = assert_error(
        as_alice.post("/api/bots", {"game": "splendor-duel"}, "application/json"),
        422,
        "invalid",
        "name",
    )
    error = assert_error(as_alice.get("/api/matches?status=lost"), 422, "invalid", "query.status")


def test_malformed_json_is_a_400(as_alice) -> None:
    response = as_alice.post("/api/bots", b"{not json", "application/json")
    error = assert_error(response, 400, "bad_request")
    assert error["message"].startswith("the request body is not valid JSON: "), error
    assert not Bot.objects.exists()


def test_the_api_root_says_where_the_schema_and_docs_are(client) -> None:
    """It was the site's HTML 404, though every answer under /api/ is JSON."""
    body = client.get("/api/").json()
    assert body["openapi"] == "/api/openapi.json" and body["docs"] == "/api/docs"
    assert client.get(body["openapi"]).json()["info"]["title"] == "Gem Arena API"
    assert client.get(body["guide"]).status_code == 200
    assert_error(client.post("/api/"), 405, "method_not_allowed")


def test_nul_characters_are_refused_before_the_database_sees_them(as_alice) -> None:
    # PostgreSQL cannot store NUL in text: this was a 500 there
    body = {"game": "splendor-duel", "name": "nul", "description": "a\u0000b"}
    sent = as_alice.post("/api/bots", json.dumps(body), "application/json")
    assert "NUL" in assert_error(sent, 422, "invalid", "description")["message"]
    # public text: nothing that hides or reverses what the page says (security QA)
    for hidden in ("\u202e", "\x1b[2J", "\u2066", "\u200b", "a\tb"):
        body = {"game": "splendor-duel", "name": "hid", "description": f"x{hidden}y"}
        sent = as_alice.post("/api/bots", json.dumps(body), "application/json")
        error = assert_error(sent, 422, "invalid", "description")
        assert "no control or formatting characters" in error["message"], hidden
    token = as_alice.post("/api/tokens", json.dumps({"name": "lap\u0000top"}), "application/json")
    assert "NUL characters" in assert_error(token, 422, "invalid", "name")["message"]
    spaces = as_alice.post("/api/tokens", json.dumps({"name": "   "}), "application/json")
    assert "other than spaces" in assert_error(spaces, 422, "invalid", "name")["message"]
    assert_error(as_alice.get("/api/bots?name=%00"), 422, "invalid", "query.name")
    assert not Bot.objects.exists() and not ApiToken.objects.filter(name__startswith="lap").exists()


def test_unexpected_exceptions_become_a_logged_500_in_the_shape(as_alice, monkeypatch) -> None:
    def broken(*args, **kwargs):
        raise RuntimeError("database on fire")

    monkeypatch.setattr("ladder.api.games.game_out", broken)
    client = Client(raise_request_exception=False, headers=as_alice.defaults.get("headers", {}))
    error = assert_error(client.get("/api/games"), 500, "server_error")
    assert "fire" not in error["message"]  # internals stay in the log


def test_every_status_has_a_default_code() -> None:
    for status in (400, 401, 403, 404, 409, 413, 422, 429, 500):
        assert api_errors.ERROR_CODES[status]


def test_the_schema_is_served_and_lists_every_endpoint(client) -> None:
    schema = client.get("/api/openapi.json").json()
    assert schema["openapi"].startswith("3.")
    assert set(schema["paths"]) == {
        "/api/games",
        "/api/games/{game_id}",
        "/api/games/{game_id}/leaderboard",
        "/api/games/{game_id}/leaderboard.csv",
        "/api/bots",
        "/api/bots/{bot_id}",
        "/api/bots/{bot_id}/versions",
        "/api/bots/{bot_id}/ratings",
        "/api/versions/{version_id}",
        "/api/versions/{version_id}/source",
        "/api/matches",
        "/api/matches.csv",
        "/api/matches/{match_id}",
        "/api/matches/{match_id}/replay",
        "/api/challenges",
        "/api/me",
        "/api/tokens",
        "/api/tokens/{token_id}",
        "/api/tournaments",
        "/api/tournaments/{tournament_id}",
    }
    assert set(schema["components"]["securitySchemes"]) == {"TokenAuth", "SessionAuth"}
    # public reads say that signing in is optional; writes require it
    assert {} in schema["paths"]["/api/games"]["get"]["security"]
    assert {} not in schema["paths"]["/api/bots"]["post"]["security"]
    assert client.get("/api/docs").status_code == 200


def test_the_schema_lists_the_uploads_503(client) -> None:
    """An upload the server cannot check (every check slot busy, no child
    process) or store answers 503 with Retry-After; clients generated from the
    schema must know that answer, which is not the file's fault."""
    upload = client.get("/api/openapi.json").json()["paths"]["/api/bots/{bot_id}/versions"]
    assert {"413", "422", "429", "503"} <= set(upload["post"]["responses"])
    assert "503" in upload["post"]["description"]
