"""Every response carries the Content-Security-Policy (docs/web.md): pages,
errors, the API, static files and the admin."""

from __future__ import annotations

import pytest
from django.test import Client

from ladder.middleware import CONTENT_SECURITY_POLICY

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/docs/faq/",
        "/no-such-page/",
        "/api/games",
        "/api/nothing",
        "/admin/login/",
        "/static/css/site.css",
    ],
)
def test_every_response_carries_the_policy(path) -> None:
    response = Client().get(path)
    assert response["Content-Security-Policy"] == CONTENT_SECURITY_POLICY, response.status_code
    assert (
        "script-src 'self'" in CONTENT_SECURITY_POLICY and "unsafe" not in CONTENT_SECURITY_POLICY
    )
