"""Middleware of the pages and the API."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


class MethodNotAllowedPage:
    """A 405 without a body (Django's `require_POST`, a POST-only class view
    such as the log-out) becomes templates/405.html in the site's layout, so
    a bookmarked or typed address of a form shows a page rather than the
    browser's own error. The API's 405s have their JSON body and are left as
    they are."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code != 405 or getattr(response, "streaming", False):
            return response
        if response.content or request.path_info.startswith("/api/"):
            return response
        page = render(request, "405.html", status=405)
        if response.has_header("Allow"):
            page["Allow"] = response["Allow"]
        return page


class HeadWithoutBody:
    """A HEAD response has a GET's headers and no body. Django leaves dropping
    the body to the server, and gunicorn sends it: a client or proxy that
    reuses the connection then reads that body as the start of the next
    response. Outermost in MIDDLEWARE, so it sees the final response."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if request.method != "HEAD":
            return response
        if response.streaming:
            # a file response's file is still closed by the server's close()
            response.streaming_content = []
        else:
            if not response.has_header("Content-Length"):
                response["Content-Length"] = str(len(response.content))
            response.content = b""
        return response


#: What a page of this site may load and do. Every script and stylesheet is a
#: file of its own under /static/ (no inline script, style or event handler
#: anywhere, the admin's and the API browser's included), so a bot name,
#: description or stderr that slipped past escaping could still run nothing.
#: `data:` images are the admin's and the API browser's icons in their CSS.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


class ContentSecurityPolicy:
    """Sends CONTENT_SECURITY_POLICY with every response that has none."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        return response
