"""Every address the server answers is in docs/web.md (pages) or docs/api.md
(the API's endpoint table, with its method and whether it needs a user), and
the docs name no address the server lacks (found by a QA pass as a new
contributor: /status/, /healthz, the replay viewer's JSON and the token
revoke address were missing from docs/web.md)."""

from __future__ import annotations

import re
from pathlib import Path

from django.urls import URLPattern, URLResolver, get_resolver

from ladder.api import api

ROOT = Path(__file__).resolve().parents[2]


def normal(path: str) -> str:
    """`/bots/<id:bot_id>/` and `/bots/<id>/` alike: `/bots/<>/`."""
    return re.sub(r"<[^>]*>|\{[^}]*\}", "<>", path.split("?", 1)[0])


def served_pages() -> set[str]:
    """The site's own addresses (the API and the admin have their own docs)."""
    found = set()
    for entry in get_resolver().url_patterns:
        route = str(entry.pattern)
        if route.startswith(("admin/", "api/", "^api/")):
            continue
        if isinstance(entry, URLResolver):
            found |= {
                "/" + route + str(p.pattern)
                for p in entry.url_patterns
                if isinstance(p, URLPattern)
            }
        else:
            found.add("/" + route)
    return {normal(path) for path in found}


def documented_pages() -> set[str]:
    """Addresses in the first column of docs/web.md's "Pages" table; `login/`
    after `/accounts/signup/` is `/accounts/login/`."""
    text = (ROOT / "docs" / "web.md").read_text()
    table = text.split("\n## Pages\n", 1)[1].split("\n## ", 1)[0]
    found = set()
    for line in table.splitlines():
        if not line.startswith("| `"):
            continue
        parent = ""
        for item in re.findall(r"`([^`]+)`", line.split(" | ")[0]):
            if item.startswith("/"):
                parent = (
                    item.rsplit("/", 2)[0] + "/"
                    if item.endswith("/")
                    else item.rsplit("/", 1)[0] + "/"
                )
                found.add(normal(item))
            else:
                found.add(normal(parent + item))
    return found


def test_every_page_is_in_docs_web_md() -> None:
    missing = served_pages() - documented_pages()
    assert not missing, f"docs/web.md, Pages, lacks {sorted(missing)}"


def test_docs_web_md_names_no_page_the_server_lacks() -> None:
    served = [re.escape(p).replace("<>", "[^/]+") for p in served_pages()]
    extra = {
        page
        for page in documented_pages() - {"/admin/"}  # Django's admin: docs/operations.md
        if not any(re.fullmatch(pattern, page.replace("<>", "x")) for pattern in served)
    }
    assert not extra, f"docs/web.md, Pages, names addresses the server lacks: {sorted(extra)}"


def test_the_page_table_is_read() -> None:
    assert {"/", "/matches/<>/", "/accounts/login/", "/docs/starter/<>.zip"} <= documented_pages()


def api_operations() -> dict[tuple[str, str], bool]:
    """(method, path) of each API operation -> whether it needs a user."""
    schema = api.get_openapi_schema(path_prefix="/api/")
    return {
        (method.upper(), normal(path)): {} not in operation.get("security", [{}])
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
    }


def documented_api() -> dict[tuple[str, str], str]:
    text = (ROOT / "docs" / "api.md").read_text()
    table = text.split("\n## Endpoints\n", 1)[1].split("\n## ", 1)[0]
    found = {}
    for line in table.splitlines():
        match = re.match(r"\| `([A-Z]+) (/api/[^`]*)` \| ([^|]+) \|", line)
        if match:
            found[(match[1], normal(match[2]))] = match[3].strip()
    return found


def test_every_api_endpoint_is_in_docs_api_md_with_its_method_and_auth() -> None:
    documented = documented_api()
    served = api_operations()
    assert len(served) > 15
    missing = sorted(set(served) - set(documented))
    assert not missing, f"docs/api.md, Endpoints, lacks {missing}"
    wrong = [
        (key, documented[key])
        for key, needs_user in served.items()
        if (documented[key] == "public") == needs_user
    ]
    assert not wrong, f"docs/api.md, Endpoints: public or not, the server says otherwise: {wrong}"
    # the index is left out of the schema; everything else the table names is served
    extra = sorted(set(documented) - set(served) - {("GET", "/api/")})
    assert not extra, f"docs/api.md, Endpoints, names endpoints the server lacks: {extra}"
