"""Documentation pages. The reference pages render the repository's own
Markdown (docs/*.md), so the site says what the sources say; the starter kit
is zipped from bots/starter/ and the SDK (arena/sdk.py) on request, and the
local runner (the `arena` command) is packed from this server's own sources.
"""

from __future__ import annotations

import functools
import io
import json
import os
import re
import tarfile
import tomllib
import xml.etree.ElementTree as etree
import zipfile
from dataclasses import dataclass
from pathlib import Path

import markdown
from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.safestring import mark_safe
from markdown.postprocessors import Postprocessor
from markdown.treeprocessors import Treeprocessor

from arena import all_games, get_game, starter_files
from ladder.game_options import ShownOption, ladder_rules, ladder_rules_of
from ladder.views import game_or_404

DOCS = Path(settings.BASE_DIR) / "docs"
SDK = Path(settings.BASE_DIR) / "arena" / "sdk.py"

#: What the `arena` command needs to play, replay, upload and build the bot
#: image, paths in the sources: the runner a bot author installs. A list of
#: what to take, not of what to leave out: the tree also holds the server's
#: own files (var/ with its secret key, an operator's deploy/.env).
RUNNER_PARTS = (
    "README.md",  # the runner's pyproject.toml's readme (`runner_pyproject`)
    "arena",
    "sandbox",
    "bots",
    "deploy/build-bot-image-hostcopy.py",  # python -m sandbox.image ensure
)
RUNNER_FOLDER = "gem-arena"
#: The only packages not in Python's standard library that arena/ and
#: sandbox/ import (by their distribution names in pyproject.toml): the
#: runner's dependencies, where the server's are Django, Celery, numpy, …
#: (tests/test_boundaries.py checks the list against the sources).
RUNNER_DEPENDENCIES = ("docker",)

#: slug → (file under docs/, title). The operator's documents (operations.md,
#: deployment.md, scale.md, faults.md) are not served: the pages that mention
#: them say they are in the source repository.
PAGES = {
    "protocol": ("protocol.md", "Bot protocol"),
    "bots": ("bots.md", "Writing a bot"),
    "sandbox": ("sandbox.md", "The bot sandbox"),
    "replays": ("replays.md", "Replay format"),
    "ratings": ("ratings.md", "Ratings"),
    "api": ("api.md", "REST API and the arena upload command"),
}


def served_docs() -> dict[str, str]:
    """The repository path of every Markdown file this site serves → its page."""
    urls = {f"docs/{name}": reverse("doc_page", args=[slug]) for slug, (name, _) in PAGES.items()}
    for game in all_games():
        urls[f"docs/games/{game.id}.md"] = reverse("game_docs", args=[game.id])
    return urls


#: a repository path of a Markdown file under docs/, as the docs write them
DOC_PATH = re.compile(r"\bdocs/[a-z0-9_/-]+\.md\b")


class DocLinks(Treeprocessor):
    """Turns the docs' mentions of each other (`docs/protocol.md`, in a code
    span or plain text) into links to their pages here; a file the site does
    not serve stays as it is written. Code blocks and existing links are left
    alone."""

    def __init__(self, md: markdown.Markdown, urls: dict[str, str]) -> None:
        super().__init__(md)
        self.urls = urls

    def run(self, root: etree.Element) -> None:
        self._walk(root)

    def _walk(self, parent: etree.Element) -> None:
        if parent.tag in ("pre", "a"):
            return
        lead, links = self._split(parent.text)
        parent.text = lead
        for i, link in enumerate(links):
            parent.insert(i, link)
        for child in [c for c in parent if c not in links]:
            if child.tag == "code" and (child.text or "").strip() in self.urls:
                link = etree.Element("a", {"href": self.urls[child.text.strip()]})
                link.tail, child.tail = child.tail, None
                parent.insert(list(parent).index(child), link)
                parent.remove(child)
                link.append(child)
                child = link
            else:
                self._walk(child)
            lead, links = self._split(child.tail)
            child.tail = lead
            at = list(parent).index(child) + 1
            for i, link in enumerate(links):
                parent.insert(at + i, link)

    def _split(self, text: str | None) -> tuple[str | None, list[etree.Element]]:
        """The text up to the first served path, and a link with its tail for each."""
        if not text:
            return text, []
        lead: str | None = None
        links: list[etree.Element] = []
        start = 0
        for found in DOC_PATH.finditer(text):
            if found.group(0) not in self.urls:
                continue
            before = text[start : found.start()]
            if links:
                links[-1].tail = before
            else:
                lead = before
            link = etree.Element("a", {"href": self.urls[found.group(0)]})
            link.text = found.group(0)
            links.append(link)
            start = found.end()
        if not links:
            return text, []
        links[-1].tail = text[start:]
        return lead, links


class ScrollBoxes(Postprocessor):
    """Code blocks and tables may be wider than a phone and scroll sideways:
    each becomes a named region that the keyboard can reach and scroll. On the
    finished HTML, as fenced code blocks only join it at the end."""

    def run(self, text: str) -> str:
        text = text.replace("<pre>", '<pre tabindex="0" role="region" aria-label="Code">')
        text = text.replace(
            "<table>",
            '<div class="doc-table" tabindex="0" role="region" aria-label="Table"><table>',
        )
        return text.replace("</table>", "</table></div>")


@dataclass(frozen=True)
class Rendered:
    html: str
    toc: str
    mtime: float


_cache: dict[Path, Rendered] = {}


def render_markdown(path: Path) -> Rendered:
    """The file as HTML with a table of contents, its mentions of the other
    docs this site serves linked (DocLinks); re-rendered when the file changes."""
    try:
        mtime = path.stat().st_mtime
    except FileNotFoundError:
        raise Http404(f"{path.name} is missing from this installation's docs/.") from None
    cached = _cache.get(path)
    if cached is not None and cached.mtime == mtime:
        return cached
    md = markdown.Markdown(
        extensions=["fenced_code", "tables", "toc", "sane_lists"],
        extension_configs={"toc": {"toc_depth": "2-3"}},
    )
    # after the inline patterns (20), which make the code spans
    md.treeprocessors.register(DocLinks(md, served_docs()), "doc_links", 15)
    # after the raw HTML (30), which brings back the fenced code blocks
    md.postprocessors.register(ScrollBoxes(md), "scroll_boxes", 5)
    # The docs are the repository's own files (trusted), not user input.
    html = md.convert(path.read_text(encoding="utf-8"))
    rendered = Rendered(html, md.toc, mtime)
    _cache[path] = rendered
    return rendered


def _markdown_page(
    request: HttpRequest,
    path: Path,
    title: str,
    source: str,
    plays_with: list[ShownOption] | None = None,
) -> HttpResponse:
    doc = render_markdown(path)
    ctx = {
        "title": title,
        "body": mark_safe(doc.html),
        "toc": mark_safe(doc.toc),
        "source": source,
        "plays_with": plays_with or [],
    }
    return render(request, "docs/markdown.html", ctx)


def index(request: HttpRequest) -> HttpResponse:
    return render(request, "docs/index.html", {"games": ladder_rules(), "pages": PAGES})


def doc_page(request: HttpRequest, page: str) -> HttpResponse:
    if page not in PAGES:
        raise Http404(f"There is no documentation page “{page}”.")
    filename, title = PAGES[page]
    return _markdown_page(request, DOCS / filename, title, f"docs/{filename}")


def game_reference(request: HttpRequest, game: str) -> HttpResponse:
    definition = game_or_404(game)
    rules = ladder_rules_of(definition)
    return _markdown_page(
        request,
        DOCS / "games" / f"{definition.id}.md",
        f"{definition.name} reference",
        f"docs/games/{definition.id}.md",
        rules.plays_with,
    )


def getting_started(request: HttpRequest) -> HttpResponse:
    return render(request, "docs/getting_started.html", {"games": all_games()})


def faq(request: HttpRequest) -> HttpResponse:
    limits = {
        "move_s": settings.MOVE_MS / 1000,
        "bank_s": settings.BANK_MS / 1000,
        "startup_s": settings.STARTUP_MS / 1000,
        "memory_mib": settings.BOT_MEMORY_MIB,
        "upload_kib": settings.BOT_UPLOAD_MAX_BYTES // 1024,
        "check_s": settings.UPLOAD_CHECK_SECONDS,
        "check_mib": settings.UPLOAD_CHECK_MEMORY_MIB,
        "max_bots": settings.MAX_BOTS_PER_USER,
        "uploads_per_hour": settings.MAX_UPLOADS_PER_HOUR,
        "validation_matches": settings.VALIDATION_MATCHES,
        "faults_before_pause": settings.FAULTS_BEFORE_PAUSE,
        "login_failures": settings.LOGIN_FAILURES_PER_ACCOUNT,
        "login_window_min": settings.LOGIN_FAILURE_WINDOW_MINUTES,
        "sends_email": settings.SENDS_EMAIL,
    }
    return render(request, "docs/faq.html", {"limits": limits, "games": ladder_rules()})


def starter_zip_bytes(
    game_id: str, reference: str | None = None, runner: str | None = None
) -> bytes:
    """main.py and README.md of the starter (as `arena new-bot` writes them) plus the SDK;
    `reference` and `runner` (see `kit_reference`, `kit_runner`) say in the README
    where the docs and the `arena` command are."""
    buffer = io.BytesIO()
    folder = f"{game_id}-bot"
    files = starter_files(get_game(game_id), reference, runner)
    # Not needed on the ladder (every sandbox has it) but lets the bot run
    # with plain `python3 main.py` before the author installs Gem Arena.
    files["gemarena_sdk.py"] = SDK.read_bytes()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            info = zipfile.ZipInfo(f"{folder}/{name}", (2026, 1, 1, 0, 0, 0))
            # rw-r--r--: the sandbox runs the bot as another user, who must read it
            info.external_attr = 0o644 << 16
            archive.writestr(info, content, zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


def kit_reference(request: HttpRequest, game_id: str) -> str:
    """This server's docs pages, for the starter kit's README (read away
    from the site, so the addresses are absolute)."""

    def url(name: str, arg: str) -> str:
        return request.build_absolute_uri(reverse(name, args=[arg]))

    return (
        f"{url('doc_page', 'protocol')} (the protocol), {url('doc_page', 'bots')} "
        f"(writing a bot: the SDK, searching with the engine, the sandbox) and "
        f"{url('game_docs', game_id)} (the game)"
    )


def kit_runner(request: HttpRequest) -> str:
    """Where the starter kit's README says to get the `arena` command: this server's."""
    return (
        f"download it from {request.build_absolute_uri(reverse('runner'))} and install it "
        f"as {request.build_absolute_uri(reverse('getting_started'))} shows"
    )


def starter_kit(request: HttpRequest, game: str) -> HttpResponse:
    definition = game_or_404(game)
    response = HttpResponse(
        starter_zip_bytes(
            definition.id, kit_reference(request, definition.id), kit_runner(request)
        ),
        content_type="application/zip",
    )
    response["Content-Disposition"] = f'attachment; filename="{definition.id}-starter.zip"'
    return response


def _runner_files() -> list[Path]:
    base = Path(settings.BASE_DIR)
    found: list[Path] = []
    for part in RUNNER_PARTS:
        root = base / part
        for path in [root] if root.is_file() else sorted(root.rglob("*")):
            rel = path.relative_to(base)
            hidden = any(name.startswith(".") or name == "__pycache__" for name in rel.parts)
            if path.is_file() and not hidden and path.suffix != ".pyc":
                found.append(rel)
    return found


def runner_pyproject() -> str:
    """The download's pyproject.toml: the project's name, version and entry
    point, but only the packages and dependencies of the `arena` command, so
    that installing it takes seconds and none of the server's libraries."""
    project = tomllib.loads((Path(settings.BASE_DIR) / "pyproject.toml").read_text())["project"]
    dependencies = [
        d
        for d in project["dependencies"]
        if re.match(r"[A-Za-z0-9_.-]+", d).group(0).lower() in RUNNER_DEPENDENCIES
    ]
    scripts = "".join(f"{name} = {json.dumps(to)}\n" for name, to in project["scripts"].items())
    return (
        "# The `arena` command of a Gem Arena server: its engines, referee,\n"
        "# sandboxes and built-in bots (the server's pyproject.toml has the rest).\n"
        '[build-system]\nrequires = ["setuptools>=69"]\nbuild-backend = "setuptools.build_meta"\n\n'
        f"[project]\nname = {json.dumps(project['name'])}\n"
        f"version = {json.dumps(project['version'])}\n"
        f"description = {json.dumps(project['description'] + ': the local runner')}\n"
        f'readme = "README.md"\nrequires-python = {json.dumps(project["requires-python"])}\n'
        f"dependencies = {json.dumps(dependencies)}\n\n"
        f"[project.scripts]\n{scripts}\n"
        '[tool.setuptools.packages.find]\ninclude = ["arena*", "sandbox*"]\n\n'
        '[tool.setuptools.package-data]\n"*" = ["*.json", "*.md", "*.txt"]\n'
    )


@functools.cache
def runner_tar_bytes() -> bytes:
    """RUNNER_PARTS and `runner_pyproject` under gem-arena/, as a .tar.gz:
    the sources of this process, which change only with a restart, so packed
    once."""
    base = Path(settings.BASE_DIR)
    buffer = io.BytesIO()

    def add(name: str, data: bytes, executable: bool = False) -> None:
        info = tarfile.TarInfo(f"{RUNNER_FOLDER}/{name}")
        info.size = len(data)
        # readable by the sandbox's other user; scripts stay executable
        info.mode = 0o755 if executable else 0o644
        info.mtime = 1767225600  # 2026-01-01, as the starter kit's files
        archive.addfile(info, io.BytesIO(data))

    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=6) as archive:
        add("pyproject.toml", runner_pyproject().encode())
        for rel in _runner_files():
            add(rel.as_posix(), (base / rel).read_bytes(), os.access(base / rel, os.X_OK))
    return buffer.getvalue()


def runner(request: HttpRequest) -> HttpResponse:
    response = HttpResponse(runner_tar_bytes(), content_type="application/gzip")
    response["Content-Disposition"] = f'attachment; filename="{RUNNER_FOLDER}.tar.gz"'
    return response
