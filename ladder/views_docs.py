"""Documentation pages. The reference pages render the repository's own
Markdown (docs/*.md), so the site says what the sources say; the starter kit
is zipped from bots/starter/ and the SDK (arena/sdk.py) on request.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from pathlib import Path

import markdown
from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe

from arena import all_games, get_game, starter_files
from ladder.game_options import ladder_rules, ladder_rules_of
from ladder.views import game_or_404

DOCS = Path(settings.BASE_DIR) / "docs"
SDK = Path(settings.BASE_DIR) / "arena" / "sdk.py"

#: slug → (file under docs/, title)
PAGES = {
    "protocol": ("protocol.md", "Bot protocol"),
    "bots": ("bots.md", "Writing a bot"),
    "replays": ("replays.md", "Replay format"),
    "ratings": ("ratings.md", "Ratings"),
    "api": ("api.md", "REST API and the arena upload command"),
}


@dataclass(frozen=True)
class Rendered:
    html: str
    toc: str
    mtime: float


_cache: dict[Path, Rendered] = {}


def render_markdown(path: Path) -> Rendered:
    """The file as HTML with a table of contents; re-rendered when the file changes."""
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
    # The docs are the repository's own files (trusted), not user input.
    html = md.convert(path.read_text(encoding="utf-8"))
    rendered = Rendered(html, md.toc, mtime)
    _cache[path] = rendered
    return rendered


def _markdown_page(
    request: HttpRequest, path: Path, title: str, source: str, plays_with: list[str] | None = None
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
        "max_bots": settings.MAX_BOTS_PER_USER,
        "uploads_per_hour": settings.MAX_UPLOADS_PER_HOUR,
        "validation_matches": settings.VALIDATION_MATCHES,
        "faults_before_pause": settings.FAULTS_BEFORE_PAUSE,
    }
    return render(request, "docs/faq.html", {"limits": limits, "games": ladder_rules()})


def starter_zip_bytes(game_id: str) -> bytes:
    """main.py and README.md of the starter (as `arena new-bot` writes them) plus the SDK."""
    buffer = io.BytesIO()
    folder = f"{game_id}-bot"
    files = starter_files(get_game(game_id))
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


def starter_kit(request: HttpRequest, game: str) -> HttpResponse:
    definition = game_or_404(game)
    response = HttpResponse(starter_zip_bytes(definition.id), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{definition.id}-starter.zip"'
    return response
