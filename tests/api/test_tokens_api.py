"""Token endpoints: create (shown once), list, revoke; never another user's."""

from __future__ import annotations

import pytest
from django.test import Client

from ladder.models import ApiToken
from tests.api.conftest import bearer
from tests.api.test_auth_errors import assert_error

pytestmark = pytest.mark.django_db


def test_create_list_and_revoke(alice) -> None:
    session = Client()
    session.force_login(alice)
    created = session.post("/api/tokens", {"name": "build box"}, "application/json")
    assert created.status_code == 201
    body = created.json()
    raw = body["token"]
    assert raw.startswith(body["prefix"]) and body["revoked_at"] is None
    assert ApiToken.objects.get(pk=body["id"]).key_hash != raw

    listed = session.get("/api/tokens").json()
    assert [t["name"] for t in listed] == ["build box"]
    assert "token" not in listed[0]  # shown once, at creation only
    assert listed[0]["last_used_at"] is None

    with_token = Client(headers=bearer(raw))
    assert with_token.get("/api/me").json()["username"] == "alice"
    assert session.get("/api/tokens").json()[0]["last_used_at"] is not None

    assert session.delete(f"/api/tokens/{body['id']}").status_code == 204
    assert_error(with_token.get("/api/me"), 401, "bad_token")
    assert session.get("/api/tokens").json() == []
    assert_error(session.delete(f"/api/tokens/{body['id']}"), 404, "not_found")


def test_cannot_see_or_revoke_another_users_tokens(as_bob, alice, alice_token) -> None:
    token = ApiToken.objects.get(user=alice)
    assert [t["name"] for t in as_bob.get("/api/tokens").json()] == ["bob's ci"]
    assert_error(as_bob.delete(f"/api/tokens/{token.pk}"), 404, "not_found")
    assert ApiToken.objects.get(pk=token.pk).revoked_at is None


def test_token_name_is_required(as_alice) -> None:
    assert_error(
        as_alice.post("/api/tokens", {"name": ""}, "application/json"), 422, "invalid", "name"
    )
    assert_error(
        as_alice.post("/api/tokens", {"name": "   "}, "application/json"), 422, "invalid", "name"
    )
    assert ApiToken.objects.count() == 1  # alice's fixture token only


def test_too_many_tokens_is_a_429(as_alice, monkeypatch) -> None:
    monkeypatch.setattr("ladder.tokens.MAX_ACTIVE_TOKENS", 2)
    assert as_alice.post("/api/tokens", {"name": "two"}, "application/json").status_code == 201
    response = as_alice.post("/api/tokens", {"name": "three"}, "application/json")
    assert_error(response, 429, "rate_limited")
    assert ApiToken.objects.count() == 2
