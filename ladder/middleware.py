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
