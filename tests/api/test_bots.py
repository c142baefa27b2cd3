"""Bots and versions over the API: create, list, upload, status, source, ratings."""

from __future__ import annotations

import errno
import io
import os
import zipfile
from pathlib import Path

import pytest
from django.test import Client

from ladder.bots import add_version, create_bot
from ladder.leaderboard import refit
from ladder.matches import create_match
from ladder.models import Bot, BotVersion, Match, RefusedUpload
from tests.api.conftest import RANDOM_BOT, ready_bot
from tests.api.test_auth_errors import assert_error

pytestmark = pytest.mark.django_db


def upload(client: Client, bot_id: int, name: str, data: bytes):
    return client.post(f"/api/bots/{bot_id}/versions", {"file": _file(name, data)})


def _file(name: str, data: bytes):
    f = io.BytesIO(data)
    f.name = name
    return f


def stored_files(media_dir) -> list[str]:
    return sorted(str(p.relative_to(media_dir)) for p in media_dir.rglob("*") if p.is_file())


def test_create_bot_then_list_filter_and_detail(as_alice, as_bob, client) -> None:
    response = as_alice.post(
        "/api/bots",
        {"game": "splendor-duel", "name": "gem-hoarder", "description": "takes everything"},
        "application/json",
    )
    assert response.status_code == 201, response.content
    bot = response.json()
    assert bot["owner"] == "alice" and bot["name"] == "gem-hoarder"
    assert bot["active_version"] is None and bot["rating"]["games"] == 0
    as_bob.post("/api/bots", {"game": "edel-stein-reich", "name": "baron"}, "application/json")

    names = lambda r: [b["name"] for b in r.json()["results"]]  # noqa: E731
    assert names(client.get("/api/bots")) == ["baron", "gem-hoarder"]
    assert names(client.get("/api/bots?game=splendor-duel")) == ["gem-hoarder"]
    assert names(client.get("/api/bots?owner=bob")) == ["baron"]
    assert names(as_alice.get("/api/bots?mine=true")) == ["gem-hoarder"]
    assert names(client.get("/api/bots?name=baron&game=splendor-duel")) == []
    # names are unique per game whatever the case, and found so
    assert names(client.get("/api/bots?name=Gem-HOARDER")) == ["gem-hoarder"]
    assert names(client.get("/api/bots?name=GEM_hoarder")) == ["gem-hoarder"]  # as unique
    assert client.get(f"/api/bots/{bot['id']}").json() == bot


@pytest.mark.parametrize(
    "body, status, code, field",
    [
        ({"game": "chess", "name": "x"}, 422, "invalid", "game"),
        ({"game": "splendor-duel", "name": "has space"}, 422, "invalid", "name"),
        ({"game": "splendor-duel", "name": ""}, 422, "invalid", "name"),
        ({"game": "splendor-duel", "name": "x" * 41}, 422, "invalid", "name"),
        ({"game": "splendor-duel", "name": "t\u0430ken"}, 422, "invalid", "name"),  # Cyrillic а
        ({"game": "splendor-duel", "name": "taken"}, 409, "conflict", "name"),
        ({"game": "splendor-duel", "name": "Taken"}, 409, "conflict", "name"),
    ],
)
def test_bad_bot_requests_store_nothing(as_alice, alice, body, status, code, field) -> None:
    ready_bot(alice, "taken")
    assert_error(as_alice.post("/api/bots", body, "application/json"), status, code, field)
    assert list(Bot.objects.values_list("name", flat=True)) == ["taken"]


def test_a_taken_name_is_named_as_it_is_spelled(as_alice, as_bob, alice) -> None:
    """The 409 names the bot in the way as spelled (bot names are public), and
    tells its owner that it is theirs."""
    ready_bot(alice, "a-greedy")
    body = {"game": "splendor-duel", "name": "A-GREEDY"}
    mine = assert_error(
        as_alice.post("/api/bots", body, "application/json"), 409, "conflict", "name"
    )
    assert mine["message"].startswith("you already have a splendor-duel bot named 'a-greedy'")
    theirs = assert_error(
        as_bob.post("/api/bots", body, "application/json"), 409, "conflict", "name"
    )
    assert theirs["message"] == (
        "a splendor-duel bot named 'a-greedy' exists already; pick another name"
    )
    # '_' for '-' would pass for the same bot on a leaderboard
    look_alike = {"game": "splendor-duel", "name": "A_greedy"}
    assert_error(as_bob.post("/api/bots", look_alike, "application/json"), 409, "conflict", "name")
    assert list(Bot.objects.values_list("name", flat=True)) == ["a-greedy"]
    other_game = {"game": "edel-stein-reich", "name": "a_greedy"}
    assert as_bob.post("/api/bots", other_game, "application/json").status_code == 201


@pytest.mark.parametrize(
    "name, look_alike",
    [("carl-search", "car1-search"), ("dora-greedy", "D0RA-greedy"), ("emmy", "ernrny")],
)
def test_a_look_alike_name_is_a_conflict(as_alice, as_bob, alice, name, look_alike) -> None:
    """`1` for `l`, `0` for `o`, `rn` for `m` would pass for the other bot on a
    leaderboard: refused, naming the bot that is there as it is spelled."""
    ready_bot(alice, name)
    body = {"game": "splendor-duel", "name": look_alike}
    error = assert_error(
        as_bob.post("/api/bots", body, "application/json"), 409, "conflict", "name"
    )
    assert (
        error["message"] == f"a splendor-duel bot named {name!r} exists already; pick another name"
    )
    assert list(Bot.objects.values_list("name", flat=True)) == [name]


def test_names_that_look_different_are_accepted(as_alice, as_bob) -> None:
    for client, name in ((as_alice, "alpha"), (as_bob, "alpa"), (as_bob, "alpha-2")):
        body = {"game": "splendor-duel", "name": name}
        assert client.post("/api/bots", body, "application/json").status_code == 201
    assert sorted(Bot.objects.values_list("name", flat=True)) == ["alpa", "alpha", "alpha-2"]


def test_bot_limit_is_a_429(as_alice, settings) -> None:
    settings.MAX_BOTS_PER_USER = 1
    assert (
        as_alice.post(
            "/api/bots", {"game": "splendor-duel", "name": "one"}, "application/json"
        ).status_code
        == 201
    )
    response = as_alice.post(
        "/api/bots", {"game": "splendor-duel", "name": "two"}, "application/json"
    )
    assert_error(response, 429, "rate_limited")
    assert Bot.objects.count() == 1


def test_upload_a_file_and_a_zip_then_see_the_status(as_alice, alice) -> None:
    bot = Bot.objects.create(owner=alice, game="splendor-duel", name="uploaded")
    response = upload(as_alice, bot.pk, "bot.py", RANDOM_BOT)
    assert response.status_code == 201, response.content
    version = response.json()
    assert version["status"] == "pending" and version["number"] == 1
    assert version["size_bytes"] == len(RANDOM_BOT)
    # validation matches were queued for it
    assert Match.objects.filter(validates_id=version["id"], kind="validation").count() >= 1

    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("main.py", RANDOM_BOT + b"# v2\n")
        z.writestr("lib/util.py", b"X = 1\n")
    response = upload(as_alice, bot.pk, "bot.zip", archive.getvalue())
    assert response.status_code == 201, response.content
    assert response.json()["number"] == 2
    listed = as_alice.get(f"/api/bots/{bot.pk}/versions").json()
    assert [v["number"] for v in listed["results"]] == [2, 1]
    assert listed["count"] == 2 and listed["bot"] == bot.pk
    # docs/api.md shows this shape (it was a bare list: scripts must change)
    guide = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
    assert '{"count": 2, "page": 1, "page_size": 20, "bot": 3,' in guide
    assert set(listed) == {"count", "page", "page_size", "bot", "results"}


@pytest.mark.parametrize(
    "name, data, reason",
    [
        ("bot.py", b"def broken(:\n", "bot.py has a syntax error on line 1"),
        ("bot.py", b"", "empty"),
        ("bot.tar.gz", b"print(1)\n", "single .py file or a .zip"),
        ("bot.zip", b"PK\x03\x04 nope", "not a readable zip"),
    ],
)
def test_rejected_upload_is_a_422_with_the_reason_and_stores_nothing(
    as_alice, alice, media_dir, name, data, reason
) -> None:
    bot = ready_bot(alice, "careful")
    before = stored_files(media_dir)
    error = assert_error(upload(as_alice, bot.pk, name, data), 422, "upload_rejected", "file")
    assert reason in error["message"]
    assert BotVersion.objects.filter(bot=bot).count() == 1
    assert stored_files(media_dir) == before


def test_a_bot_written_for_another_game_is_a_422_naming_both(as_alice, alice, media_dir) -> None:
    """Refused at upload, before any validation match, and counted like any
    refusal of the checks (docs/api.md)."""
    from tests.ladder.test_uploads import SPLENDOR_BOT

    bot = ready_bot(alice, "baron", game="edel-stein-reich")
    before = stored_files(media_dir)
    error = assert_error(
        upload(as_alice, bot.pk, "main.py", SPLENDOR_BOT), 422, "upload_rejected", "file"
    )
    assert error["message"].startswith(
        "main.py is written for splendor-duel (run(..., game='splendor-duel') on line 9), "
        "but this is a bot for edel-stein-reich"
    )
    assert BotVersion.objects.filter(bot=bot).count() == 1
    assert stored_files(media_dir) == before
    assert RefusedUpload.objects.filter(owner=alice).count() == 1
    assert not Match.objects.exists()


def test_identical_upload_is_refused(as_alice, alice) -> None:
    bot = ready_bot(alice, "same")
    error = assert_error(
        upload(as_alice, bot.pk, "main.py", RANDOM_BOT), 422, "upload_rejected", "file"
    )
    assert "identical" in error["message"]


def test_too_large_upload_is_a_413(as_alice, alice, settings, media_dir) -> None:
    settings.BOT_UPLOAD_MAX_BYTES = 2048
    bot = Bot.objects.create(owner=alice, game="splendor-duel", name="big")
    response = upload(as_alice, bot.pk, "bot.py", b"#" * 5000 + b"\n")
    assert_error(response, 413, "too_large", "file")
    assert not BotVersion.objects.exists() and stored_files(media_dir) == []


def test_upload_rate_limit_is_a_429(as_alice, alice, settings) -> None:
    settings.MAX_UPLOADS_PER_HOUR = 1
    bot = Bot.objects.create(owner=alice, game="splendor-duel", name="eager")
    assert upload(as_alice, bot.pk, "a.py", b"print(1)\n").status_code == 201
    refused = upload(as_alice, bot.pk, "b.py", b"print(2)\n")
    error = assert_error(refused, 429, "rate_limited")
    assert "per hour" in error["message"] and "again in 60 minutes" in error["message"]
    # a script can wait as long as the message says, to the second
    assert 3590 < int(refused["Retry-After"]) <= 3600
    assert BotVersion.objects.filter(bot=bot).count() == 1


def test_refused_uploads_count_towards_the_hourly_limit(as_alice, alice, settings) -> None:
    """Checking a file costs the server seconds for a large one that never
    compiles; a QA adversary stalled the web processes with them, refused
    but never limited. They count now; a limit refusal costs no check."""
    settings.MAX_UPLOADS_PER_HOUR = 3
    bot = Bot.objects.create(owner=alice, game="splendor-duel", name="stubborn")
    for n in range(2):
        assert_error(
            upload(as_alice, bot.pk, f"b{n}.py", b"def broken(:\n"), 422, "upload_rejected", "file"
        )
    assert upload(as_alice, bot.pk, "good.py", RANDOM_BOT).status_code == 201
    error = assert_error(
        upload(as_alice, bot.pk, "next.py", RANDOM_BOT + b"#2\n"), 429, "rate_limited"
    )
    assert (
        "3 uploads in the last hour (2 refused by the checks or still being checked)"
        in error["message"]
    )
    assert_error(upload(as_alice, bot.pk, "b.py", b"def broken(:\n"), 429, "rate_limited")
    assert RefusedUpload.objects.filter(owner=alice).count() == 2  # the 429s are not counted
    assert BotVersion.objects.filter(bot=bot).count() == 1


def test_only_the_owner_uploads(as_bob, as_charlie, client, alice) -> None:
    bot = Bot.objects.create(owner=alice, game="splendor-duel", name="mine")
    assert_error(upload(as_bob, bot.pk, "bot.py", RANDOM_BOT), 403, "forbidden")
    assert_error(upload(as_charlie, bot.pk, "bot.py", RANDOM_BOT), 403, "forbidden")
    assert_error(upload(client, bot.pk, "bot.py", RANDOM_BOT), 401, "unauthenticated")
    assert_error(upload(as_bob, 424242, "bot.py", RANDOM_BOT), 404, "not_found")
    assert not BotVersion.objects.exists()


def test_only_an_empty_bot_can_be_deleted_by_its_owner(as_alice, as_bob, client, alice) -> None:
    empty = Bot.objects.create(owner=alice, game="splendor-duel", name="typo")
    played = ready_bot(alice, "keeper")
    assert_error(client.delete(f"/api/bots/{empty.pk}"), 401, "unauthenticated")
    assert_error(as_bob.delete(f"/api/bots/{empty.pk}"), 403, "forbidden")
    error = assert_error(as_alice.delete(f"/api/bots/{played.pk}"), 409, "conflict")
    assert "only a bot without any upload can be deleted" in error["message"]
    assert as_alice.delete(f"/api/bots/{empty.pk}").status_code == 204
    assert_error(as_alice.delete(f"/api/bots/{empty.pk}"), 404, "not_found")
    assert list(Bot.objects.values_list("name", flat=True)) == ["keeper"]
    assert as_alice.get(f"/api/bots/{played.pk}").status_code == 200  # GET still answers


def test_missing_file_field_is_a_validation_error(as_alice, alice) -> None:
    bot = Bot.objects.create(owner=alice, game="splendor-duel", name="nofile")
    response = as_alice.post(f"/api/bots/{bot.pk}/versions", {"other": "x"})
    assert_error(response, 422, "invalid", "file")


@pytest.fixture
def rejected_version(alice) -> BotVersion:
    bot = ready_bot(alice, "flaky")
    BotVersion.objects.filter(bot=bot).update(
        status="rejected",
        reject_reason="validation match 9: crash — exit 3",
        stderr_tail="Traceback: secret",
    )
    return bot.versions.get()


@pytest.mark.parametrize(
    "who, private",
    [("client", False), ("as_bob", False), ("as_alice", True), ("as_charlie", True)],
)
def test_stderr_and_source_only_for_owner_and_staff(
    request, rejected_version, who, private
) -> None:
    caller = request.getfixturevalue(who)
    body = caller.get(f"/api/versions/{rejected_version.pk}").json()
    assert body["status"] == "rejected"
    assert body["reject_reason"] == "validation match 9: crash — exit 3"  # public
    assert body["stderr_tail"] == ("Traceback: secret" if private else None)
    # the digest would let anybody check a guess of the file's content
    assert body["sha256"] == (rejected_version.sha256 if private else None)
    source = caller.get(f"/api/versions/{rejected_version.pk}/source")
    if private:
        assert body["source_url"] == f"/api/versions/{rejected_version.pk}/source"
        assert source.status_code == 200
        assert b"".join(source.streaming_content) == RANDOM_BOT
    else:
        assert body["source_url"] is None
        assert_error(
            source,
            401 if who == "client" else 403,
            "unauthenticated" if who == "client" else "forbidden",
        )


def test_rating_history_after_a_played_match(client, played_match, alpha) -> None:
    refit("splendor-duel")
    page = client.get(f"/api/bots/{alpha.pk}/ratings").json()
    assert page["bot"] == alpha.pk and page["count"] == 1
    point = page["results"][0]
    assert point["match"] == played_match.pk
    seat = played_match.seats.get(version__bot=alpha)
    assert point["elo_after"] - point["elo_before"] == pytest.approx(seat.elo_change)
    detail = client.get(f"/api/bots/{alpha.pk}").json()
    assert detail["rating"]["games"] == 1 and detail["rating"]["fitted"] is not None
    assert client.get(f"/api/bots/{alpha.pk}/ratings?page=2").json()["results"] == []


def fill_the_disk(monkeypatch) -> None:
    """From now on the media disk fills up halfway through writing an upload."""
    from django.core.files.storage import FileSystemStorage

    def write_a_part(storage, name, content):
        path = storage.path(name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as part:
            part.write(b"#")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(FileSystemStorage, "_save", write_a_part)


def test_a_full_disk_is_a_503_and_leaves_nothing(as_alice, alice, media_dir, monkeypatch) -> None:
    """Not the file's fault: a 503 that says so, no version, no file part
    left behind, and nothing counted against the hourly limit (resilience QA:
    a 500, and a 0-byte main.py with no row)."""
    bot = ready_bot(alice, "keeper")
    before = stored_files(media_dir)
    fill_the_disk(monkeypatch)
    response = upload(as_alice, bot.pk, "main.py", RANDOM_BOT + b"# v2\n")
    error = assert_error(response, 503, "unavailable")
    assert error["message"] == (
        "the server could not store your upload (No space left on device); "
        "nothing was stored, please try again later"
    )
    assert response["Retry-After"] == "60"
    assert list(bot.versions.values_list("number", flat=True)) == [1]
    assert stored_files(media_dir) == before
    assert not RefusedUpload.objects.exists()


def test_version_list_is_paged(as_alice, alice) -> None:
    """The version list had no cap: a bot sent 20 uploads an hour for a year
    would answer with 175,000 versions at once (found by QA). It is paged like
    every other list, at most 100 a page."""
    bot = create_bot(alice, "splendor-duel", "prolific")
    for i in range(5):
        add_version(bot, "bot.py", RANDOM_BOT + f"# {i}\n".encode(), validate=False)
    first = as_alice.get(f"/api/bots/{bot.pk}/versions?page_size=2").json()
    assert first["count"] == 5 and first["page_size"] == 2
    assert [v["number"] for v in first["results"]] == [5, 4]
    last = as_alice.get(f"/api/bots/{bot.pk}/versions?page=3&page_size=2").json()
    assert [v["number"] for v in last["results"]] == [1]
    assert as_alice.get(f"/api/bots/{bot.pk}/versions?page_size=101").status_code == 422


def test_no_compile_check_is_a_503_that_counts_nothing(
    as_alice, alice, media_dir, monkeypatch, settings
) -> None:
    """The child process that compiles main.py could not be started: the
    server's fault, not the file's; nothing is stored or counted."""
    from ladder import uploads

    def cannot_spawn(*args, **kwargs):
        raise OSError(12, "Cannot allocate memory")

    settings.MAX_UPLOADS_PER_HOUR = 2
    bot = ready_bot(alice, "unchecked")
    before = stored_files(media_dir)
    monkeypatch.setattr(uploads.subprocess, "Popen", cannot_spawn)
    for _ in range(3):  # more than the hourly limit leaves: none of them counted
        response = upload(as_alice, bot.pk, "main.py", RANDOM_BOT + b"# v2\n")
        error = assert_error(response, 503, "unavailable")
        assert error["message"] == uploads.NOT_CHECKED
        assert response["Retry-After"] == "60"
    assert list(bot.versions.values_list("number", flat=True)) == [1]
    assert stored_files(media_dir) == before
    assert not RefusedUpload.objects.exists()
    monkeypatch.undo()
    assert upload(as_alice, bot.pk, "main.py", RANDOM_BOT + b"# v2\n").status_code == 201


def test_a_file_over_the_check_limits_is_refused_and_counted(as_alice, alice, settings) -> None:
    settings.UPLOAD_CHECK_MEMORY_MIB = 100
    bot = ready_bot(alice, "hungry")
    data = b"x = [" + b"1," * 300_000 + b"]\n"
    error = assert_error(upload(as_alice, bot.pk, "big.py", data), 422, "upload_rejected", "file")
    assert error["message"] == "big.py needs more than 100 MiB to check"
    assert RefusedUpload.objects.filter(owner=alice).count() == 1


def test_a_file_that_crashes_the_compiler_is_refused_and_counted(
    as_alice, alice, media_dir, monkeypatch, settings, tmp_path
) -> None:
    """A check child that dies of SIGSEGV while compiling the file (a C stack
    overflow in Python's compiler) was a 503 that counted nothing, however
    often the same file was sent. Now a 422 like any refused file, counted
    towards the hourly limit, and nothing stored."""
    from ladder import uploads
    from tests.ladder.test_upload_check import crashing_check

    settings.MAX_UPLOADS_PER_HOUR = 3
    bot = ready_bot(alice, "crasher")
    before = stored_files(media_dir)
    segfault = crashing_check(tmp_path, "os.kill(os.getpid(), signal.SIGSEGV)")
    monkeypatch.setattr(uploads, "COMPILE_CHECK", segfault)
    for n in range(2):
        response = upload(as_alice, bot.pk, "deep.py", RANDOM_BOT + f"# {n}\n".encode())
        error = assert_error(response, 422, "upload_rejected", "file")
        assert error["message"].startswith("deep.py cannot be compiled: it crashes Python's")
    assert RefusedUpload.objects.filter(owner=alice).count() == 2
    assert list(bot.versions.values_list("number", flat=True)) == [1]
    assert stored_files(media_dir) == before
    error = assert_error(upload(as_alice, bot.pk, "deep.py", RANDOM_BOT), 429, "rate_limited")
    assert "2 refused by the checks or still being checked" in error["message"]


def test_the_owner_takes_a_bot_off_the_ladder_and_puts_it_back(
    as_alice, as_bob, client, alice
) -> None:
    bot = ready_bot(alice, "sleeper")
    other = ready_bot(alice, "partner")
    queued = create_match("splendor-duel", [bot.active_version, other.active_version])
    path = f"/api/bots/{bot.pk}"
    assert client.get(path).json()["withdrawn"] is False
    off = {"withdrawn": True}
    assert_error(client.patch(path, off, "application/json"), 401, "unauthenticated")
    assert_error(as_bob.patch(path, off, "application/json"), 403, "forbidden")
    for loose in ("maybe", "yes", "true", 1, 0, None):  # only JSON's true and false
        maybe = as_alice.patch(path, {"withdrawn": loose}, "application/json")
        assert_error(maybe, 422, "invalid", "withdrawn")
    # enabled is the staff's switch: a body naming it is refused, not half applied
    staffs = as_alice.patch(path, {"enabled": True, "withdrawn": True}, "application/json")
    assert_error(staffs, 422, "invalid", "enabled")
    assert_error(as_alice.patch("/api/bots/424242", off, "application/json"), 404, "not_found")
    bot.refresh_from_db()
    queued.refresh_from_db()
    assert not bot.withdrawn and queued.status == Match.Status.QUEUED  # refusals changed nothing

    response = as_alice.patch(path, off, "application/json")
    assert response.status_code == 200, response.content
    assert response.json()["withdrawn"] is True and response.json()["enabled"] is True
    queued.refresh_from_db()
    assert queued.status == Match.Status.QUEUED  # drawn before: it still plays
    assert client.get(path).json()["withdrawn"] is True
    back = as_alice.patch(path, {"withdrawn": False}, "application/json")
    assert back.status_code == 200 and back.json()["withdrawn"] is False
    bot.refresh_from_db()
    assert bot.plays
