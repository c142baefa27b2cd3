"""Pages. Plain function views."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from arena import all_games
from ladder.health import all_checks


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "ladder/home.html", {"games": all_games()})


def status(request: HttpRequest) -> HttpResponse:
    checks = all_checks()
    ok = all(c.ok for c in checks)
    if request.GET.get("format") == "json" or request.headers.get("Accept") == "application/json":
        data = {
            "ok": ok,
            "checks": [
                {"name": c.name, "ok": c.ok, "warning": c.warning, "detail": c.detail}
                for c in checks
            ],
        }
        return JsonResponse(data, status=200 if ok else 503)
    return render(request, "ladder/status.html", {"checks": checks, "ok": ok})
