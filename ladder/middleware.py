"""Middleware of the pages."""

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
