"""Who is calling: an API token (`Authorization: Bearer <token>`) or the web session.

Session callers must send Django's CSRF token (header `X-CSRFToken`) with
unsafe methods, exactly like a form post; token callers need none (a token
is never sent by a browser on its own). A bad or revoked token is refused
with 401 even where signing in is optional: a script with a broken token
should hear about it, not silently get the anonymous view.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest
from ninja.security import APIKeyCookie, HttpBearer
from ninja.utils import check_csrf

from ladder import tokens
from ladder.api.errors import ApiError
from ladder.models import Bot


class TokenAuth(HttpBearer):
    """`Authorization: Bearer ga_…`; the token is checked by ladder.tokens."""

    def __call__(self, request: HttpRequest):
        header = request.headers.get("Authorization")
        if header is None:
            return None
        scheme, _, raw = header.strip().partition(" ")
        if scheme.lower() != "bearer" or not raw.strip():
            raise ApiError(
                401, "the Authorization header must be 'Bearer <token>'", code="bad_token"
            )
        return self.authenticate(request, raw.strip())

    def authenticate(self, request: HttpRequest, token: str):
        user = tokens.authenticate(token)
        if user is None:
            raise ApiError(401, tokens.refusal(token), code="bad_token")
        request.auth_method = "token"
        return user


class SessionAuth(APIKeyCookie):
    """The signed-in web user; unsafe methods need the CSRF token."""

    param_name = settings.SESSION_COOKIE_NAME

    def __call__(self, request: HttpRequest):
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return None
        if check_csrf(request) is not None:  # safe methods always pass
            raise ApiError(
                403,
                "CSRF check failed: send the csrftoken cookie's value as the X-CSRFToken header",
                code="csrf_failed",
            )
        request.auth_method = "session"
        return user

    def authenticate(self, request: HttpRequest, key: str | None):  # pragma: no cover
        raise NotImplementedError  # __call__ does the work


def anonymous(request: HttpRequest) -> AnonymousUser:
    """Last in the list of public endpoints: nobody signed in is fine there."""
    request.auth_method = None
    return AnonymousUser()


token_auth = TokenAuth()
session_auth = SessionAuth()

#: endpoints that need a user
SIGNED_IN = [token_auth, session_auth]
#: endpoints anyone may call; a user, when there is one, may see more
PUBLIC = [token_auth, session_auth, anonymous]
#: OpenAPI: on public endpoints the security requirement is optional
PUBLIC_OPENAPI = {"security": [{}]}


def caller(request: HttpRequest):
    """The user behind the request (AnonymousUser on public endpoints)."""
    return request.auth


def require_user(request: HttpRequest):
    user = request.auth
    if user is None or not user.is_authenticated:
        raise ApiError(401, "sign in, or send an API token as 'Authorization: Bearer <token>'")
    return user


def sees_private(user, bot: Bot) -> bool:
    """Owners and staff see a bot's logs, debug notes and source."""
    return bool(user and user.is_authenticated and (user.is_staff or user.pk == bot.owner_id))
