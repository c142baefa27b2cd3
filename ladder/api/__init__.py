"""The REST JSON API under /api/ (django-ninja), documented in docs/api.md.

The OpenAPI schema is served at /api/openapi.json and browsable at /api/docs.
Every error, unknown URLs and wrong methods included, has one JSON shape
(ladder/api/errors.py).
"""

from __future__ import annotations

from functools import wraps

from django.http import HttpResponseNotAllowed, JsonResponse
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.views.decorators.csrf import csrf_exempt
from ninja import NinjaAPI

from ladder.api import bots, games, matches, tokens, tournaments
from ladder.api.auth import SIGNED_IN
from ladder.api.errors import install_handlers, method_not_allowed


class GemArenaAPI(NinjaAPI):
    def _get_urls(self):
        patterns = super()._get_urls()
        for pattern in patterns:
            if pattern.name == "api-root":  # ninja's answers an HTML 404
                pattern.callback = root
            pattern.callback = _varies_by_token(_json_405(pattern.callback))
        return patterns


@csrf_exempt  # as every ninja view: an unsafe method gets the JSON 405
def root(request, *args, **kwargs):
    """GET /api/: where the schema, its browser and the docs are."""
    if request.method not in ("GET", "HEAD"):
        return method_not_allowed(HttpResponseNotAllowed(["GET", "HEAD"]))
    return JsonResponse(
        {
            "name": "Gem Arena API",
            "version": api.version,
            "openapi": reverse("api:openapi-json"),
            "docs": reverse("api:openapi-view"),
            "guide": reverse("doc_page", args=["api"]),
        }
    )


def _varies_by_token(view):
    """Every answer may depend on `Authorization` (a token holder sees
    stderr tails, their own bots): `Vary` says so, so that a cache between
    the API and its callers never hands one caller's answer to another (the
    session's `Cookie` is added by Django's session middleware)."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        patch_vary_headers(response, ("Authorization",))
        return response

    return wrapper


def _json_405(view):
    """ninja's plain 405 in the API's error shape; HEAD answered as GET (ninja
    routes GET only; ladder.middleware.HeadWithoutBody drops the body)."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        head = request.method == "HEAD"
        if head:
            request.method = "GET"
        try:
            response = view(request, *args, **kwargs)
        finally:
            if head:
                request.method = "HEAD"
        if isinstance(response, HttpResponseNotAllowed):
            return method_not_allowed(response)
        return response

    return wrapper


api = GemArenaAPI(
    title="Gem Arena API",
    version="1",
    description=(
        "Bots, versions, matches, leaderboards and challenges of a Gem Arena ladder. "
        "Authenticate with `Authorization: Bearer <token>` or the web session "
        "(with the CSRF token for unsafe methods). Errors: "
        '`{"error": {"code", "message", "field"}}`. See docs/api.md.'
    ),
    urls_namespace="api",
    auth=SIGNED_IN,
)
install_handlers(api)
api.add_router("", games.router)
api.add_router("", bots.router)
api.add_router("", matches.router)
api.add_router("", tokens.router)
api.add_router("", tournaments.router)
