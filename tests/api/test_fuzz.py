"""Schema-driven fuzzing: schemathesis generates requests from /api/openapi.json
and sends them to the app in-process (WSGI). No request may end in a server
error, and every response must match the schema (status, content type, body).

Bounded: a few examples per operation, so the run takes about a minute.
"""

from __future__ import annotations

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from tests.api.conftest import bearer

pytestmark = pytest.mark.django_db

MAX_EXAMPLES = 20
#: operations that answer 422 to schema-valid requests by rule: a challenge's seat
#: count and options depend on the game, an upload's content is checked by
#: ladder/uploads.py, the match lists refuse a `finished_before` not later than
#: `finished_after` (OpenAPI cannot compare two parameters). Every other check
#: (no 5xx, documented status, content type and body) still applies to them.
BUSINESS_RULE_422 = {
    ("POST", "/api/challenges"),
    ("POST", "/api/bots/{bot_id}/versions"),
    ("GET", "/api/matches"),
    ("GET", "/api/matches.csv"),
}


@pytest.fixture
def api_schema(alpha, beta, settings):
    # Requests are sent with a token; uploads hit the real checks, so keep them small.
    settings.MAX_UPLOADS_PER_HOUR = 5
    # Like Django's test client: the WSGI handler must not close the test's
    # connection (inside its transaction) at the end of each request.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield schemathesis.openapi.from_wsgi("/api/openapi.json", get_wsgi_application())
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,  # no .hypothesis/ folder in the work tree
    suppress_health_check=list(HealthCheck),
)
def test_api_conforms_to_its_schema(case, alice_token) -> None:
    excluded = []
    if (case.method, case.path) in BUSINESS_RULE_422:
        excluded.append(positive_data_acceptance)
    case.call_and_validate(headers=bearer(alice_token), excluded_checks=excluded)
