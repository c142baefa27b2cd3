"""ladder.tokens: hashed storage, shown once, revocation, last-used throttling."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from django.utils import timezone

from ladder.models import ApiToken
from ladder.tokens import (
    MAX_ACTIVE_TOKENS,
    AccountGone,
    TokenError,
    TokenLimitError,
    authenticate,
    create_token,
    list_tokens,
    revoke_token,
)
from tests.api.test_auth_errors import assert_error

pytestmark = pytest.mark.django_db


def test_only_the_hash_is_stored_and_the_token_authenticates(alice) -> None:
    token, raw = create_token(alice, "laptop")
    stored = ApiToken.objects.get(pk=token.pk)
    assert raw not in {stored.key_hash, stored.prefix, stored.name}
    assert stored.key_hash == hashlib.sha256(raw.encode()).hexdigest()
    assert raw.startswith(stored.prefix) and len(stored.prefix) < len(raw) // 3
    assert authenticate(raw) == alice


def test_unknown_malformed_and_revoked_tokens_do_not_authenticate(alice, bob) -> None:
    token, raw = create_token(alice, "ci")
    assert authenticate(None) is None
    assert authenticate("") is None
    assert authenticate(raw[:-1]) is None
    assert authenticate(raw + "x") is None
    assert authenticate(hashlib.sha256(raw.encode()).hexdigest()) is None
    assert revoke_token(bob, token.pk) is False  # not bob's
    assert authenticate(raw) == alice
    assert revoke_token(alice, token.pk) is True
    assert revoke_token(alice, token.pk) is False  # already revoked
    assert authenticate(raw) is None
    assert list(list_tokens(alice)) == []
    assert [t.pk for t in list_tokens(alice, include_revoked=True)] == [token.pk]


def test_inactive_user_is_refused_and_told_why(alice, client) -> None:
    _, raw = create_token(alice, "old")
    _, revoked = create_token(alice, "older")
    revoke_token(alice, ApiToken.objects.get(name="older").pk)
    alice.is_active = False
    alice.save()
    assert authenticate(raw) is None
    answer = client.get("/api/me", HTTP_AUTHORIZATION=f"Bearer {raw}")
    error = assert_error(answer, 401, "bad_token")
    assert error["message"] == "the account of this API token is deactivated; ask the site's staff"
    # a revoked token of the same account, or a made-up one, learns nothing more
    for other in (revoked, raw[:-1] + ("x" if raw[-1] != "x" else "y")):
        answer = client.get("/api/me", HTTP_AUTHORIZATION=f"Bearer {other}")
        assert assert_error(answer, 401, "bad_token")["message"] == (
            "this API token is unknown or revoked"
        )


def test_last_used_is_written_at_most_once_a_minute(alice) -> None:
    token, raw = create_token(alice, "bot runner")
    assert token.last_used_at is None
    authenticate(raw)
    first = ApiToken.objects.get(pk=token.pk).last_used_at
    assert first is not None
    authenticate(raw)
    assert ApiToken.objects.get(pk=token.pk).last_used_at == first
    earlier = timezone.now() - timedelta(minutes=2)
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=earlier)
    authenticate(raw)
    assert ApiToken.objects.get(pk=token.pk).last_used_at > earlier


def test_names_are_checked_and_active_tokens_are_capped(alice) -> None:
    with pytest.raises(TokenError, match="name"):
        create_token(alice, "   ")
    with pytest.raises(TokenError, match="limit"):
        create_token(alice, "x" * 61)
    for i in range(MAX_ACTIVE_TOKENS):
        create_token(alice, f"t{i}")
    with pytest.raises(TokenLimitError, match="revoke"):
        create_token(alice, "one more")
    revoke_token(alice, list_tokens(alice).first().pk)
    create_token(alice, "one more")
    assert ApiToken.objects.filter(user=alice).count() == MAX_ACTIVE_TOKENS + 1


def test_a_token_for_an_account_deleted_meanwhile_is_refused_and_stores_nothing(alice) -> None:
    """Staff deleted the account while its request was on its way: a clear
    refusal, not a 500 from the database's foreign key."""
    type(alice).objects.filter(pk=alice.pk).delete()
    with pytest.raises(AccountGone, match="your account was deleted; no token was created"):
        create_token(alice, "laptop")
    assert not ApiToken.objects.exists()
