"""Upload page → version page → status JSON, with real validation matches
(process sandbox, tasks called in-process)."""

from __future__ import annotations

import html
import re
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone

from ladder import tasks
from ladder.models import Bot, BotVersion, Match, RefusedUpload
from tests.ladder.conftest import CRASH_BOT, RANDOM_BOT
from tests.web.conftest import make_bot


@pytest.fixture
def process_sandbox(settings):
    settings.SANDBOX_BACKEND = "process"
    settings.MOVE_MS = 2000
    settings.STARTUP_MS = 15000


def run_validation(version: BotVersion) -> None:
    for match_id in version.validation_matches.order_by("pk").values_list("pk", flat=True):
        tasks.run_match.run(match_id)


def upload(client: Client, content: bytes, filename: str = "main.py", **fields):
    data = {"file": SimpleUploadedFile(filename, content), **fields}
    return client.post("/upload/", data)


@pytest.mark.django_db
def test_upload_needs_login(client: Client) -> None:
    response = client.get("/upload/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=/upload/")


def test_the_bot_choice_names_games_as_the_site_does(client: Client, alice) -> None:
    Bot.objects.create(owner=alice, game="edel-stein-reich", name="qa-esr")
    client.force_login(alice)
    text = client.get("/upload/").content.decode()
    assert "qa-esr (Edel, Stein &amp; Reich)</option>" in text


@pytest.mark.django_db(transaction=True)
def test_rejected_upload_shows_reason_and_stderr(client: Client, alice, process_sandbox) -> None:
    client.force_login(alice)
    response = upload(client, CRASH_BOT, game="splendor-duel", name="crashy")
    assert response.status_code == 302
    bot = Bot.objects.get(name="crashy")
    assert response["Location"] == f"/bots/{bot.pk}/versions/1/"
    status_url = f"/bots/{bot.pk}/versions/1/status.json"
    state = client.get(status_url).json()
    assert state["status"] == "pending" and state["done"] is False
    assert state["validation_matches"]["queued"] == 2

    run_validation(bot.versions.get())
    state = client.get(status_url).json()
    assert state["status"] == "rejected" and state["done"] is True
    assert "crash" in state["reject_reason"]
    assert "about to fail" in state["stderr_tail"]
    page = client.get(response["Location"]).content.decode()
    assert "Rejected" in page and "about to fail" in page
    # the matches' reasons name the bots, as the match page does (QA: "forfeit: seat 0")
    reasons = [m["reason"] for m in state["matches"]]
    assert any("crashy (crash)" in r for r in reasons), reasons
    assert not any(re.search(r"\bseat \d", r) for r in reasons), reasons
    for reason in reasons:
        assert f"· {html.escape(reason)}</span>" in page


def test_a_rejected_version_says_what_to_do_next(client: Client, alice) -> None:
    """The reason alone left a newcomer at a dead end: the page links the
    upload of a new version of this bot and how to replay the match locally."""
    bot = make_bot(alice, "crashy")
    BotVersion.objects.filter(bot=bot).update(
        status=BotVersion.Status.REJECTED, reject_reason="validation match 9: crash"
    )
    client.force_login(alice)
    page = client.get(f"/bots/{bot.pk}/versions/1/").content.decode()
    assert f'<a href="/upload/?bot={bot.pk}">upload a new version</a> of crashy' in page
    assert 'href="/docs/bots/#replaying-a-ladder-match-locally"' in page


@pytest.mark.django_db(transaction=True)
def test_accepted_upload_becomes_active(client: Client, alice, process_sandbox) -> None:
    bot = make_bot(alice, "steady")
    client.force_login(alice)
    response = upload(client, RANDOM_BOT + b"# v2\n", bot=bot.pk)
    assert response.status_code == 302
    version = bot.versions.get(number=2)
    run_validation(version)
    state = client.get(f"/bots/{bot.pk}/versions/2/status.json").json()
    assert state["status"] == "ready" and state["done"] is True
    assert state["validation_matches"]["finished"] == 2
    assert [m["status"] for m in state["matches"]] == ["finished", "finished"]
    bot.refresh_from_db()
    assert bot.active_version_id == version.pk
    assert Match.objects.filter(validates=version, status="finished").count() == 2


@pytest.mark.django_db
def test_refused_file_stores_nothing(client: Client, alice) -> None:
    client.force_login(alice)
    response = upload(client, b"def broken(:\n", game="splendor-duel", name="broken")
    assert response.status_code == 400
    text = response.content.decode()
    assert "syntax error on line 1" in text and "Nothing was stored" in text


@pytest.mark.django_db
def test_refusal_names_the_file_and_asks_to_choose_it_again(client: Client, alice) -> None:
    """QA: syntax.py was called main.py, and after the refusal the chosen file
    was gone from the form without a word (browsers cannot keep it)."""
    client.force_login(alice)
    again = "Choose the file again"
    assert again not in client.get("/upload/").content.decode()
    response = upload(client, b"x = 1\ndef broken(:\n", "syntax.py", game="splendor-duel", name="s")
    text = response.content.decode()
    assert "syntax.py has a syntax error on line 2" in text and "main.py has" not in text
    assert again in text
    assert again in upload(client, RANDOM_BOT).content.decode()  # any error: the file is gone
    assert not Bot.objects.filter(name="broken").exists()  # no empty bot left behind
    assert not BotVersion.objects.exists()
    # the refusal itself is remembered (it counts towards the hourly limit)
    assert RefusedUpload.objects.count() == 1


@pytest.mark.django_db
def test_the_hourly_limit_says_when_uploading_is_possible_again(
    client: Client, alice, settings
) -> None:
    settings.MAX_UPLOADS_PER_HOUR = 1
    bot = make_bot(alice, "hourly")
    BotVersion.objects.filter(bot=bot).update(created_at=timezone.now() - timedelta(minutes=20))
    client.force_login(alice)
    text = upload(client, RANDOM_BOT + b"# v2\n", bot=bot.pk).content.decode()
    assert "the limit is 1 per hour (you can upload again in 40 minutes)" in text
    assert "Nothing was stored." in text and "fix the file" not in text
    assert bot.versions.count() == 1


@pytest.mark.django_db
def test_form_errors_are_named(client: Client, alice, bob, settings) -> None:
    taken = make_bot(bob, "taken")
    client.force_login(alice)
    missing = upload(client, RANDOM_BOT)
    assert missing.status_code == 400
    assert "choose the game" in missing.content.decode()
    bad_name = upload(client, RANDOM_BOT, game="splendor-duel", name="bad name!").content.decode()
    assert "Bot names start with a letter or digit" in bad_name
    assert "name the new bot" not in bad_name
    dash = upload(client, RANDOM_BOT, game="splendor-duel", name="--").content.decode()
    assert "Bot names start with a letter or digit" in dash
    dup = upload(client, RANDOM_BOT, game="splendor-duel", name=taken.name.upper())
    assert "exists already" in dup.content.decode()
    not_mine = upload(client, RANDOM_BOT, bot=taken.pk)
    assert not_mine.status_code == 400
    assert taken.versions.count() == 1
    settings.BOT_UPLOAD_MAX_BYTES = 1024
    big = upload(client, b"#" * 2000, game="splendor-duel", name="big")
    assert "the limit is 1,024 bytes" in big.content.decode()


@pytest.mark.django_db
def test_a_look_alike_name_is_refused(client: Client, alice, bob) -> None:
    """`rn00n-bot` would pass for bob's `moon-bot` on a leaderboard: the form
    says so, naming bob's bot as it is spelled, and stores nothing."""
    make_bot(bob, "moon-bot")
    client.force_login(alice)
    for look_alike in ("rn00n-bot", "MOON_B0T", "moon-b0t"):
        page = upload(client, RANDOM_BOT, game="splendor-duel", name=look_alike)
        assert page.status_code == 400, look_alike
        assert (
            "a splendor-duel bot named &#x27;moon-bot&#x27; exists already" in page.content.decode()
        )
    assert list(Bot.objects.values_list("name", flat=True)) == ["moon-bot"]
    for name in ("moon-bat", "moo-bot"):  # names that look different are fine
        code = RANDOM_BOT + f"# {name}\n".encode()
        assert upload(client, code, game="splendor-duel", name=name).status_code == 302, name
    assert Bot.objects.filter(owner=alice).count() == 2


@pytest.mark.django_db
def test_version_pages_are_private(client: Client, alice, bob, carol) -> None:
    bot = make_bot(alice, "mine")
    urls = [f"/bots/{bot.pk}/versions/1/", f"/bots/{bot.pk}/versions/1/status.json"]
    client.force_login(bob)
    assert [client.get(u).status_code for u in urls] == [404, 404]
    client.force_login(carol)
    assert [client.get(u).status_code for u in urls] == [200, 200]
    client.force_login(alice)
    assert client.get(urls[1]).json()["status"] == "ready"


@pytest.mark.django_db
def test_a_full_disk_says_so_on_the_page(client: Client, alice, media_dir, monkeypatch) -> None:
    from django.core.files.storage import FileSystemStorage

    def disk_full(storage, name, content):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(FileSystemStorage, "_save", disk_full)
    client.force_login(alice)
    response = upload(client, RANDOM_BOT, game="splendor-duel", name="diskfull")
    assert response.status_code == 503
    text = html.unescape(response.content.decode())
    assert "the server could not store your upload (No space left on device)" in text
    assert not Bot.objects.filter(name="diskfull").exists()
    assert not BotVersion.objects.exists() and not RefusedUpload.objects.exists()


@pytest.mark.django_db
def test_no_compile_check_says_so_on_the_page(client: Client, alice, monkeypatch) -> None:
    """The child that compiles main.py could not be started: a 503, no new
    bot, nothing counted against the hourly limit."""
    from ladder import uploads

    def cannot_spawn(*args, **kwargs):
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(uploads.subprocess, "Popen", cannot_spawn)
    client.force_login(alice)
    response = upload(client, RANDOM_BOT, game="splendor-duel", name="unchecked")
    assert response.status_code == 503
    text = html.unescape(response.content.decode())
    assert uploads.NOT_CHECKED in text
    assert "fix the file" not in text  # not the file's fault
    # nor refused: the server's fault, said once (the message says nothing was stored)
    assert "Refused:" not in text and "Not uploaded (the server's fault" in text
    assert text.count("nothing was stored") + text.count("Nothing was stored") == 1
    assert not Bot.objects.filter(name="unchecked").exists()
    assert not BotVersion.objects.exists() and not RefusedUpload.objects.exists()


@pytest.mark.django_db
def test_a_bot_written_for_another_game_is_refused_at_once(client: Client, alice) -> None:
    """Its main.py names splendor-duel in the SDK's run(): as a new Edel,
    Stein & Reich bot it would refuse every match, so the form says so
    before any validation match, stores nothing and counts the refusal."""
    from tests.ladder.test_uploads import SPLENDOR_BOT

    client.force_login(alice)
    response = upload(client, SPLENDOR_BOT, "greedy.py", game="edel-stein-reich", name="wrong")
    assert response.status_code == 400
    text = html.unescape(response.content.decode())
    assert "greedy.py is written for splendor-duel" in text
    assert "this is a bot for edel-stein-reich" in text and "Nothing was stored" in text
    assert not Bot.objects.exists() and not BotVersion.objects.exists()
    assert not Match.objects.exists()
    assert RefusedUpload.objects.count() == 1
    # the same file as a Splendor Duel bot is accepted
    response = upload(client, SPLENDOR_BOT, "greedy.py", game="splendor-duel", name="right")
    assert response.status_code == 302
    assert BotVersion.objects.filter(bot__name="right").count() == 1
