"""Personal API tokens: create, authenticate, revoke.

A token is `ga_` followed by 40 URL-safe random characters. Only its SHA-256
is stored (`ApiToken.key_hash`), so the raw token is shown exactly once, when
it is created. The first characters (`ApiToken.prefix`) are kept in clear so
people can tell their tokens apart in a list.

The account pages (create/list/revoke) and the API's `Authorization: Bearer`
check both go through this module.
"""

from __future__ import annotations

import hashlib
import secrets
import unicodedata
from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from ladder.models import ApiToken, lock_user

TOKEN_PREFIX = "ga_"
#: characters of the raw token kept in clear (the "ga_" marker plus 6)
SHOWN_CHARS = 9
#: last_used_at is written at most this often per token (a write per request is waste)
LAST_USED_RESOLUTION = timedelta(minutes=1)
#: tokens one user may hold at once (revoked ones do not count)
MAX_ACTIVE_TOKENS = 20
MAX_NAME_LENGTH = ApiToken._meta.get_field("name").max_length


class TokenError(ValueError):
    """A token request is refused; the message is for the user."""


class TokenLimitError(TokenError):
    """The user holds MAX_ACTIVE_TOKENS active tokens already."""


class AccountGone(TokenError):
    """The account was deleted (by staff) while the request was on its way."""


def hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


#: Characters a name may not hide: controls (Cc: NUL, BEL, ...) and format
#: characters (Cf: bidi overrides such as U+202E, zero-width spaces, ...).
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf"})


def hidden_character(text: str) -> str | None:
    """The first control or format character in `text` ("U+E0001"), or None."""
    for char in text:
        if unicodedata.category(char) in HIDDEN_CATEGORIES:
            return f"U+{ord(char):04X}"
    return None


def create_token(user, name: str) -> tuple[ApiToken, str]:
    """A new active token for `user`; returns the row and the raw token (show it once)."""
    name = (name or "").strip()
    if not name:
        raise TokenError("give the token a name, e.g. the machine or script that will use it")
    if len(name) > MAX_NAME_LENGTH:
        raise TokenError(f"the name is {len(name)} characters; the limit is {MAX_NAME_LENGTH}")
    hidden = hidden_character(name)
    if hidden:
        raise TokenError(f"the name may not contain control or formatting characters ({hidden})")
    with transaction.atomic():
        if not lock_user(user):  # the first lock (`lock_user` gives the order)
            raise AccountGone("your account was deleted; no token was created")
        if active_tokens(user).count() >= MAX_ACTIVE_TOKENS:
            raise TokenLimitError(
                f"you have {MAX_ACTIVE_TOKENS} active tokens, the limit; "
                "revoke one you no longer use"
            )
        raw = TOKEN_PREFIX + secrets.token_urlsafe(30)
        token = ApiToken.objects.create(
            user=user, name=name, prefix=raw[:SHOWN_CHARS], key_hash=hash_token(raw)
        )
    return token, raw


def active_tokens(user):
    return ApiToken.objects.filter(user=user, revoked_at__isnull=True)


def list_tokens(user, include_revoked: bool = False):
    """The user's tokens, newest first (the raw tokens are not recoverable)."""
    tokens = ApiToken.objects.filter(user=user)
    return tokens if include_revoked else tokens.filter(revoked_at__isnull=True)


def revoke_token(user, token_id: int) -> bool:
    """Revoke one of `user`'s tokens; False if there is no such active token of theirs."""
    return bool(
        ApiToken.objects.filter(pk=token_id, user=user, revoked_at__isnull=True).update(
            revoked_at=timezone.now()
        )
    )


def refusal(raw: str | None) -> str:
    """Why `authenticate` said None, in words for the token's holder: they
    hold the secret, so they may learn that its account was deactivated."""
    if raw and raw.startswith(TOKEN_PREFIX) and len(raw) <= 200:
        token = ApiToken.objects.filter(key_hash=hash_token(raw), revoked_at__isnull=True)
        if token.filter(user__is_active=False).exists():
            return "the account of this API token is deactivated; ask the site's staff"
    return "this API token is unknown or revoked"


def authenticate(raw: str | None):
    """The active user a raw token belongs to, or None (unknown, revoked, inactive user)."""
    if not raw or not raw.startswith(TOKEN_PREFIX) or len(raw) > 200:
        return None
    token = (
        ApiToken.objects.select_related("user")
        .filter(key_hash=hash_token(raw), revoked_at__isnull=True)
        .first()
    )
    if token is None or not token.user.is_active:
        return None
    now = timezone.now()
    stale = now - LAST_USED_RESOLUTION
    if token.last_used_at is None or token.last_used_at < stale:
        # Conditional, so concurrent requests write once per minute between them.
        ApiToken.objects.filter(pk=token.pk).filter(
            Q(last_used_at__isnull=True) | Q(last_used_at__lt=stale)
        ).update(last_used_at=now)
    return token.user
