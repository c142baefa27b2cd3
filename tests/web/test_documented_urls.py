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


def pages_table() -> str:
    text = (ROOT / "docs" / "web.md").read_text()
    return text.split("\n## Pages\n", 1)[1].split("\n## ", 1)[0]


def documented_pages() -> set[str]:
    """Addresses in the first column of docs/web.md's "Pages" table."""
    return {page for line in pages_table().splitlines() for page in documented_pages_of(line)}


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


def page_views() -> dict[str, str]:
    """Each page address -> `module.view` as docs/web.md writes it
    (`views.home`, `views_account.LoginView`, `health.healthz`)."""
    found = {}
    for entry in get_resolver().url_patterns:
        if not isinstance(entry, URLResolver) or str(entry.pattern):
            continue  # the site's pages are included at the root; the admin has its own
        for pattern in entry.url_patterns:
            view = getattr(pattern.callback, "view_class", pattern.callback)
            module = pattern.callback.__module__.removeprefix("ladder.")
            found[normal("/" + str(entry.pattern) + str(pattern.pattern))] = (
                f"{module}.{view.__name__}"
            )
    return found


def test_each_page_row_names_the_view_that_answers_it() -> None:
    table = pages_table()
    wrong = []
    for path, view in page_views().items():
        rows = [line for line in table.splitlines() if path in documented_pages_of(line)]
        assert rows, path
        module = view.split(".")[0]
        views_cell = rows[0].split(" | ")[1]
        named = set(re.findall(r"`([^`]+)`", views_cell))
        # a row of several addresses may name only the module, or Django's own views
        if not ({view, module} & named or "Django's" in views_cell):
            wrong.append(f"{path}: {view}, docs/web.md says {views_cell}")
    assert not wrong, wrong


def documented_pages_of(line: str) -> set[str]:
    """The addresses a row of the Pages table names; `login/` after
    `/accounts/signup/` is `/accounts/login/`; `?seat=N` or `&seat=N` is a
    parameter, not an address."""
    if not line.startswith("| `"):
        return set()
    found, parent = set(), ""
    for item in re.findall(r"`([^`]+)`", line.split(" | ")[0]):
        if item.startswith(("?", "&")):  # query parameters of the address before
            continue
        if item.startswith("/"):
            parent = (
                item.rsplit("/", 2)[0] + "/" if item.endswith("/") else item.rsplit("/", 1)[0] + "/"
            )
            found.add(normal(item))
        else:
            found.add(normal(parent + item))
    return found
