"""Docs pages (rendered from the repository's Markdown), the starter kit, the
local runner's download, 404/403 pages."""

from __future__ import annotations

import html
import io
import os
import subprocess
import sys
import tarfile
import tomllib
import zipfile

import pytest
from django.core.exceptions import PermissionDenied
from django.test import Client

from arena import all_games
from ladder.views_docs import DOCS
from tests.web.conftest import make_bot

pytestmark = pytest.mark.django_db


def test_doc_pages_render_the_repository_markdown(client: Client) -> None:
    protocol = client.get("/docs/protocol/").content.decode()
    first_heading = (DOCS / "protocol.md").read_text().splitlines()[0].lstrip("# ")
    assert first_heading.split()[0] in protocol
    assert "<table>" in protocol or "<pre>" in protocol
    for game in all_games():
        text = client.get(f"/docs/games/{game.id}/").content.decode()
        assert "grammar" in text.lower() and "observation" in text.lower()
    for url in ("/docs/", "/docs/bots/", "/docs/getting-started/", "/docs/faq/"):
        assert client.get(url).status_code == 200
    assert client.get("/docs/nothing-here/").status_code == 404


def test_faq_shows_the_servers_limits(client: Client, settings) -> None:
    settings.MOVE_MS = 1234
    settings.UPLOAD_CHECK_SECONDS = 7
    settings.UPLOAD_CHECK_MEMORY_MIB = 333
    faq = client.get("/docs/faq/").content.decode()
    assert "1.234 s per decision" in faq
    assert "must compile in 7 s of CPU time and 333 MiB of memory" in faq
    # the sandbox's limits are what `arena play --sandbox docker` tests; the
    # compile check is not one of them (the FAQ read as if it were)
    sandbox_tip = faq.index("Test with <code>arena play --sandbox docker</code>")
    assert sandbox_tip < faq.index("must compile in 7 s")
    assert "<code>arena play</code> does not check this" in faq


def test_getting_started_shows_the_command_line_upload(client: Client) -> None:
    page = client.get("/docs/getting-started/").content.decode()
    assert "arena upload splendor-duel-bot" in page and "GEMARENA_TOKEN" in page
    assert 'href="/docs/api/"' in page
    assert "GEMARENA_TOKEN" in client.get("/docs/api/").content.decode()


def test_getting_started_shows_what_arena_play_prints(
    client: Client, tmp_path, monkeypatch, capsys
) -> None:
    """The sample output has the lines `arena play` prints, numbers and names aside
    (it lacked the sandbox and the replay once)."""
    import re

    from arena.cli import main as arena

    page = client.get("/docs/getting-started/").content.decode()
    sample = html.unescape(page.split('id="play-output"><code>')[1].split("</code>")[0])
    monkeypatch.chdir(tmp_path)
    assert (
        arena(["play", "splendor-duel", "builtin:random", "builtin:greedy", "--sandbox", "process"])
        == 0
    )
    printed = capsys.readouterr().out

    def shape(text: str) -> list[str]:
        words = re.sub(r"\bbuiltin:\w+|splendor-duel-bot", "BOT", text)
        return re.sub(r"\d+", "N", words.replace("docker", "process")).splitlines()

    assert shape(sample)[1:] == shape(printed)[1:]  # the first line is the engine's reason
    assert shape(sample)[0].startswith("splendor-duel, seed N: ")


def test_starter_kit_zip(client: Client) -> None:
    response = client.get("/docs/starter/edel-stein-reich.zip")
    assert response.status_code == 200
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    names = set(archive.namelist())
    assert names == {
        "edel-stein-reich-bot/main.py",
        "edel-stein-reich-bot/README.md",
        "edel-stein-reich-bot/gemarena_sdk.py",
    }
    main = archive.read("edel-stein-reich-bot/main.py").decode()
    compile(main, "main.py", "exec")
    assert "arena play edel-stein-reich" in main and "{game}" not in main
    # read away from the site: the README names this server's pages, not source files
    readme = " ".join(archive.read("edel-stein-reich-bot/README.md").decode().split())
    for url in (
        "http://testserver/docs/protocol/",
        "http://testserver/docs/bots/",
        "http://testserver/docs/games/edel-stein-reich/",
    ):
        assert url in readme and client.get(url).status_code == 200
    assert "{reference}" not in readme and "Gem Arena sources" not in readme
    # ... and where its `arena play` lines' command comes from: this server
    assert (
        "With the `arena` command (download it from http://testserver/docs/gem-arena.tar.gz"
        in readme
    )
    assert "as http://testserver/docs/getting-started/ shows)" in readme
    assert client.get("/docs/starter/chess.zip").status_code == 404


@pytest.mark.parametrize("game", [g.id for g in all_games()])
def test_starter_kit_plays_as_its_readme_says(client: Client, game: str) -> None:
    """Unpacked as `unzip` does (with the stored modes), the README's own
    `arena play` line runs: the sandbox's other user can read the files and
    the table has the game's number of seats."""
    import shlex
    import shutil
    import stat
    import tempfile
    from pathlib import Path

    from arena.cli import main as arena
    from tests.arena.bots import BASE

    archive = zipfile.ZipFile(io.BytesIO(client.get(f"/docs/starter/{game}.zip").content))
    BASE.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(dir=BASE))
    try:
        root.chmod(0o755)
        for info in archive.infolist():
            mode = stat.S_IMODE(info.external_attr >> 16)
            assert mode == 0o644, (info.filename, oct(mode))
            path = Path(archive.extract(info, root))
            path.chmod(mode)
            path.parent.chmod(0o755)  # unzip's default umask
        folder = root / f"{game}-bot"
        readme = (folder / "README.md").read_text()
        line = next(x.strip() for x in readme.splitlines() if x.strip().startswith("arena play"))
        argv = shlex.split(line.split("#")[0])[1:]
        argv = [str(folder) if a == "." else a for a in argv]
        assert arena([*argv, "--sandbox", "process", "--no-replay"]) == 0, line
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_runner_download_is_this_servers_arena_and_plays(client: Client) -> None:
    """A newcomer has only the site: the getting-started page's download is
    the `arena` command from this server's sources (none of the server's own
    files), and it plays a match from where it was unpacked."""
    import tempfile
    from pathlib import Path

    from django.conf import settings

    from tests.arena.bots import BASE

    page = client.get("/docs/getting-started/").content.decode()
    assert 'href="/docs/gem-arena.tar.gz"' in page
    assert "curl -o gem-arena.tar.gz http://testserver/docs/gem-arena.tar.gz" in page
    response = client.get("/docs/gem-arena.tar.gz")
    assert response.status_code == 200 and response["Content-Type"] == "application/gzip"
    unpacked = Path(tempfile.mkdtemp(dir=BASE))
    unpacked.chmod(0o755)  # the sandbox's other user reads the built-in bots
    with tarfile.open(fileobj=io.BytesIO(response.content)) as archive:
        names = archive.getnames()
        archive.extractall(unpacked, filter="data")
    root = unpacked / "gem-arena"
    assert all(name.startswith("gem-arena/") for name in names)
    tops = {name.split("/")[1] for name in names}
    assert tops == {"README.md", "pyproject.toml", "arena", "sandbox", "bots", "deploy"}
    assert [n for n in names if "/deploy/" in n] == ["gem-arena/deploy/build-bot-image-hostcopy.py"]
    assert not [n for n in names if "/." in n or "__pycache__" in n or n.endswith(".pyc")]
    for path in ("arena/cli.py", "arena/sdk.py", "bots/random/main.py", "sandbox/image.py"):
        assert (root / path).read_bytes() == (Path(settings.BASE_DIR) / path).read_bytes()
    # its own pyproject: the arena command and its one library, none of the server's
    project = tomllib.loads((root / "pyproject.toml").read_text())
    assert project["project"]["dependencies"] == ["docker>=7.1,<8"]
    assert project["project"]["scripts"] == {"arena": "arena.cli:main"}
    assert project["tool"]["setuptools"]["packages"]["find"]["include"] == ["arena*", "sandbox*"]
    assert (root / "deploy/build-bot-image-hostcopy.py").stat().st_mode & 0o755 == 0o755
    run_arena = "import sys, arena, arena.cli; print(arena.__file__); sys.exit(arena.cli.main())"
    played = subprocess.run(
        [sys.executable, "-c", run_arena, "play", "splendor-duel", "builtin:random"]
        + ["builtin:greedy", "--sandbox", "process", "--no-replay", "--seed", "3"],
        cwd=unpacked,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert played.returncode == 0, played.stderr
    assert played.stdout.startswith(str(root / "arena" / "__init__.py")), played.stdout
    assert "splendor-duel, seed 3:" in played.stdout


def test_getting_started_builds_the_bot_image_with_the_download(client: Client) -> None:
    """Without the image a newcomer's `arena play` falls back to the process
    sandbox (not the ladder's limits): the page says how to build it, with
    modules the download holds, as docs/bots.md "The sandbox" does."""
    import tempfile
    from pathlib import Path

    from tests.arena.bots import BASE

    build = '.venv/bin/python -m sandbox.image ensure --extra-lib "$(.venv/bin/python -m arena.sdk_lib)"'
    page = html.unescape(client.get("/docs/getting-started/").content.decode())
    assert build in page
    bots_md = (Path(__file__).resolve().parents[2] / "docs" / "bots.md").read_text()
    assert " ".join(build.split()) in " ".join(bots_md.split())
    unpacked = Path(tempfile.mkdtemp(dir=BASE))
    with tarfile.open(fileobj=io.BytesIO(client.get("/docs/gem-arena.tar.gz").content)) as archive:
        archive.extractall(unpacked, filter="data")
    env = {**os.environ, "PYTHONPATH": str(unpacked / "gem-arena")}
    for module in (["arena.sdk_lib"], ["sandbox.image", "ensure", "--help"]):
        done = subprocess.run(
            [sys.executable, "-m", *module], cwd=unpacked, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr


@pytest.fixture
def production_errors(settings):
    settings.DEBUG = False


def test_404_page(client: Client, production_errors) -> None:
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    text = response.content.decode()
    assert "Not found" in text and "/no/such/page/" in text and "Gem Arena" in text
    game = client.get("/games/chess/")
    assert "no game called" in game.content.decode()


def test_404_pages_say_what_is_missing(client: Client, production_errors, alice) -> None:
    """QA: /bots/999999/ said Django's "No Bot matches the given query."."""
    bot = make_bot(alice, "here")
    client.force_login(alice)
    for url, message in (
        ("/bots/999999/", "No such bot."),
        ("/matches/999999/", "No such match."),
        ("/matches/999999/replay.json.gz", "No such match."),
        (f"/bots/{bot.pk}/versions/9/", "No such version."),
        (f"/bots/{bot.pk}/versions/9/source", "No such file."),
        ("/games/chess/", "There is no game called “chess”."),
    ):
        response = client.get(url)
        assert response.status_code == 404, url
        text = response.content.decode()
        assert message in html.unescape(text) and "matches the given query" not in text, url


def test_403_page(client: Client, production_errors, settings) -> None:
    from django.urls import path

    import ladder.urls

    def forbidden(request):
        raise PermissionDenied("operators only")

    settings.ROOT_URLCONF = type(
        "urls", (), {"urlpatterns": [path("forbidden/", forbidden), *ladder.urls.urlpatterns]}
    )
    response = client.get("/forbidden/")
    assert response.status_code == 403
    text = response.content.decode()
    assert "Not allowed" in text and "operators only" in text and "Log in" in text


def test_500_page(client: Client, production_errors, settings) -> None:
    from django.urls import path

    import ladder.urls

    def broken(request):
        raise RuntimeError("a bug")

    settings.ROOT_URLCONF = type(
        "urls", (), {"urlpatterns": [path("broken/", broken), *ladder.urls.urlpatterns]}
    )
    client.raise_request_exception = False
    response = client.get("/broken/")
    assert response.status_code == 500
    text = response.content.decode()
    assert "<h1>Server error</h1>" in text and 'href="/static/css/site.css"' in text
    assert "a bug" not in text and "Traceback" not in text


def test_pages_name_their_icon(client: Client) -> None:
    text = client.get("/").content.decode()
    assert 'rel="icon" href="/static/favicon.svg"' in text
    from django.contrib.staticfiles import finders

    assert finders.find("favicon.svg")


def test_render_markdown_links_the_docs_the_site_serves(tmp_path) -> None:
    from ladder.views_docs import render_markdown

    page = tmp_path / "page.md"
    page.write_text(
        "Details: docs/sandbox.md. See `docs/protocol.md`; `docs/operations.md` is "
        "not served.\n\n| a |\n| --- |\n| docs/games/splendor-duel.md |\n\n"
        "```\ndocs/bots.md in a code block\n```\n"
    )
    html = render_markdown(page).html
    assert 'Details: <a href="/docs/sandbox/">docs/sandbox.md</a>.' in html
    assert '<a href="/docs/protocol/"><code>docs/protocol.md</code></a>;' in html
    assert "<code>docs/operations.md</code> is" in html and "/docs/operations/" not in html
    assert '<a href="/docs/games/splendor-duel/">docs/games/splendor-duel.md</a>' in html
    assert "<code>docs/bots.md in a code block" in html


def test_docs_pages_link_or_place_every_file_they_mention(client: Client) -> None:
    """QA found "Details: docs/sandbox.md." on /docs/bots/ while /docs/sandbox/
    was missing, and paths of files the site does not serve left dangling."""
    import re

    from ladder.views_docs import PAGES, served_docs

    sandbox = client.get("/docs/sandbox/")
    assert sandbox.status_code == 200 and "The bot sandbox" in sandbox.content.decode()
    index = client.get("/docs/").content.decode()
    for slug in PAGES:  # every page served is listed (QA: the REST API page was not)
        assert f'href="/docs/{slug}/"' in index, slug
    assert client.get("/docs/operations/").status_code == 404  # the operator's, not served
    served = served_docs()
    urls = [f"/docs/{slug}/" for slug in PAGES] + [f"/docs/games/{g.id}/" for g in all_games()]
    urls += ["/docs/faq/", "/docs/getting-started/"]  # QA: the FAQ named the operations notes
    for url in urls:
        text = client.get(url).content.decode().split('<p class="muted small doc-source">')[0]
        text = re.sub(r"<pre>.*?</pre>", "", text, flags=re.S)  # examples, not references
        for found in re.finditer(r"(?:docs|notes)/[a-z0-9_/-]+\.md", text):
            path, after = found.group(0), text[found.end() : found.end() + 60]
            if path in served:
                linked = text[: found.start()].rsplit("<a ", 1)[-1]
                assert linked.startswith(f'href="{served[path]}"'), (url, path)
            else:
                assert "source repository" in re.sub(r"<[^>]+>|\s+", " ", after), (url, path)
        assert "shared design folder" not in text, url
        for found in re.finditer(r"design folder", text):  # RULES.md, the research notes
            after = re.sub(r"<[^>]+>|\s+", " ", text[found.end() : found.end() + 80])
            assert "source repository" in after, url
    bots = client.get("/docs/bots/").content.decode()
    assert 'Details: <a href="/docs/sandbox/">docs/sandbox.md</a>.' in bots
