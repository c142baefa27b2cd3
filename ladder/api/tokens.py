"""The caller's own account: who am I, and API tokens (list, create, revoke)."""

from __future__ import annotations

from datetime import datetime

from django.http import HttpRequest, HttpResponse
from ninja import Field, Router, Schema, Status
from pydantic import field_validator
from pydantic_core import PydanticCustomError

from ladder import tokens
from ladder.api.auth import SIGNED_IN, require_user
from ladder.api.errors import NAME_TEXT, ApiError, errors
from ladder.api.schemas import MAX_ID, BodyIn

router = Router(tags=["account"], auth=SIGNED_IN)


class MeOut(Schema):
    username: str
    is_staff: bool
    auth: str = Field(description="how this request was authenticated: token or session")


class TokenOut(Schema):
    id: int
    name: str
    prefix: str = Field(description="the token's first characters, to tell tokens apart")
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


class NewTokenOut(TokenOut):
    token: str = Field(description="the token itself: shown this once, never again")


class TokenIn(BodyIn):
    name: str = Field(
        min_length=1,
        max_length=tokens.MAX_NAME_LENGTH,
        pattern=NAME_TEXT,
        description="what the token is for (not only spaces; no control or formatting characters)",
    )

    @field_validator("name")
    @classmethod
    def _nothing_hidden(cls, name: str) -> str:
        # NAME_TEXT covers the first plane; this also refuses e.g. U+E0001 (a tag)
        hidden = tokens.hidden_character(name)
        if hidden:
            raise PydanticCustomError(
                "hidden_character",
                "may not contain control or formatting characters (found {char})",
                {"char": hidden},
            )
        return name


def token_out(token) -> dict:
    return {
        "id": token.pk,
        "name": token.name,
        "prefix": token.prefix,
        "created_at": token.created_at,
        "last_used_at": token.last_used_at,
        "revoked_at": token.revoked_at,
    }


@router.get("/me", response={200: MeOut, **errors(401)}, url_name="me")
def me(request: HttpRequest):
    """Who the API takes you for (check a token with it)."""
    user = require_user(request)
    return {"username": user.username, "is_staff": user.is_staff, "auth": request.auth_method}


@router.get("/tokens", response={200: list[TokenOut], **errors(401)}, url_name="tokens")
def list_tokens(request: HttpRequest):
    """Your active tokens, newest first. The tokens themselves are not recoverable."""
    return [token_out(t) for t in tokens.list_tokens(require_user(request))]


@router.post(
    "/tokens", response={201: NewTokenOut, **errors(401, 403, 429)}, url_name="token_create"
)
def create_token(request: HttpRequest, data: TokenIn):
    """A new token; the response holds it once — store it now."""
    try:
        token, raw = tokens.create_token(require_user(request), data.name)
    except tokens.TokenLimitError as exc:
        raise ApiError(429, str(exc)) from None
    except tokens.AccountGone as exc:
        raise ApiError(401, str(exc)) from None
    except tokens.TokenError as exc:
        raise ApiError(422, str(exc), field="name") from None
    return Status(201, {**token_out(token), "token": raw})


@router.delete(
    "/tokens/{int:token_id}", response={204: None, **errors(401, 404)}, url_name="token_revoke"
)
def revoke_token(request: HttpRequest, token_id: int):
    """Revoke one of your tokens; it stops working at once."""
    user = require_user(request)
    if not (0 < token_id <= MAX_ID and tokens.revoke_token(user, token_id)):
        raise ApiError(404, f"you have no active token with id {token_id}")
    return HttpResponse(status=204)
