"""HEAD through the real WSGI handler: the headers of a GET, no body."""

from __future__ import annotations

from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import RequestFactory

from tests.web.conftest import make_bot, play


def through_wsgi(method: str, path: str) -> tuple[str, dict[str, str], bytes]:
    """What a WSGI server such as gunicorn gets: status, headers and the body
    it would send (the test client drops HEAD bodies itself, so it cannot
    show this)."""
    environ = getattr(RequestFactory(), method.lower())(path, HTTP_HOST="127.0.0.1").environ
    got = {}

    def start_response(status, headers, exc_info=None):
        got["status"], got["headers"] = status, dict(headers)

    # as Django's test client does: the handler's signals would close the
    # test's own database connection (inside its transaction on PostgreSQL)
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        result = WSGIHandler()(environ, start_response)
        try:
            body = b"".join(result)
        finally:
            result.close()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
    return got["status"], got["headers"], body


def test_head_sends_no_body_on_pages_api_and_files(alice, bob) -> None:
    """gunicorn sent HEAD bodies; a client reusing the connection read them
    as the start of the next response (security QA)."""
    match = play([make_bot(alice, "head-a"), make_bot(bob, "head-b")], [1, 2])
    for path in ("/", "/docs/bots/", "/api/games", "/api/", f"/matches/{match.pk}/replay.json.gz"):
        status, headers, body = through_wsgi("GET", path)
        assert status.startswith("200") and body, path
        head_status, head_headers, head_body = through_wsgi("HEAD", path)
        assert head_status == status, path
        assert head_body == b"", path
        assert head_headers["Content-Type"] == headers["Content-Type"], path
        if "Content-Length" in headers:
            assert head_headers["Content-Length"] == headers["Content-Length"], path
