"""An upload of a new version and the deletion of the bot's owner (the admin's
user delete, page or action) at the same moment, in real concurrent
transactions on PostgreSQL. Either the upload is stored first and the
deletion is refused (the owner has an upload now), or the owner is deleted
first and the upload is told its bot is gone: no server error on either
side, and no version or file of a bot that is gone.

Both take the owner's row lock first (`ladder.models.lock_user`). Before, the
upload locked the owner, then its reservation in the hourly limit and its
bot, while the deletion removed the owner's reservations and bots, then the
owner's row: the opposite order, and PostgreSQL ended the deadlock by failing
one of them. Nor did the deletion see a version stored while it ran, nor the
upload a bot deleted while its file was checked: either failed at its commit
(a server error), the upload leaving its files behind."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.urls import reverse

from ladder import bots
from ladder.bots import builtin_version, create_bot
from ladder.models import Bot, BotVersion, RefusedUpload
from ladder.tokens import create_token
from tests.ladder.conftest import RANDOM_BOT
from tests.ladder.test_admin import url
from tests.ladder.test_bot_names import GAME
from tests.ladder.test_look_alike_races import (
    STEP_TIMEOUT_S,
    admin_action_deletes,
    admin_deletes,
    together,
)

User = get_user_model()

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

#: where the upload waits for the deletion: before it locks anything (its
#: place in the hourly limit); holding the owner, before its reservation and
#: its bot; holding both, before it stores its version
UPLOAD_FIRST_LOCK = "FOR UPDATE"
UPLOAD_RESERVED = 'DELETE FROM "ladder_refusedupload" WHERE "ladder_refusedupload"."id" ='
UPLOAD_STORES = 'INSERT INTO "ladder_botversion"'
#: where the deletion waits for the upload: all but the owner's row deleted
DELETION_OWNER = 'DELETE FROM "auth_user" WHERE'

UPLOAD_FIRST = "the upload is stored first"
DELETION_FIRST = "the owner is deleted first"


@pytest.fixture
def empty_bot(alice) -> Bot:
    """Alice's bot without an upload yet: alice may be deleted."""
    builtin_version(GAME, "random")  # the validation opponent, stored beforehand
    return create_bot(alice, GAME, "alices-bot")


@pytest.fixture
def admin(admin_user) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(admin_user)
    return client


@pytest.fixture
def as_alice(alice) -> Client:
    token = create_token(alice, "alice's laptop")[1]
    return Client(headers={"Authorization": f"Bearer {token}"}, raise_request_exception=False)


def api_uploads(client: Client, bot: Bot) -> Callable[[], object]:
    file = SimpleUploadedFile("main.py", RANDOM_BOT)
    return lambda: client.post(f"/api/bots/{bot.pk}/versions", {"file": file})


def page_uploads(client: Client, bot: Bot) -> Callable[[], object]:
    file = SimpleUploadedFile("main.py", RANDOM_BOT)
    return lambda: client.post(reverse("upload"), {"bot": bot.pk, "file": file})


def in_another_thread(request: Callable[[], object]) -> object:
    """`request`'s response, sent from a thread with a connection of its own
    (as the admin's would be) while this one waits."""
    responses: list = []

    def run() -> None:
        try:
            responses.append(request())
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(STEP_TIMEOUT_S)
    assert responses, "the request hangs or failed"
    return responses[0]


def admin_deletes_bot(client: Client, bot: Bot, action: bool) -> Callable[[], object]:
    if action:
        data = {"action": "delete_selected", "_selected_action": [bot.pk], "post": "yes"}
        return lambda: client.post(url(Bot, "changelist"), data)
    return lambda: client.post(url(Bot, "delete", bot.pk), {"post": "yes"})


def files_without_a_version(media: Path) -> list[str]:
    """Files under the media folder that no stored version owns (its upload,
    `bots/<bot>/v<number>/`, or its code, `code/<version>/`)."""
    owned = set()
    for version in BotVersion.objects.all():
        owned.add(Path(version.upload.path).parent)
        owned.add(version.code_dir)
    return sorted(
        str(path.relative_to(media))
        for path in media.rglob("*")
        if path.is_file() and not owned.intersection(path.parents)
    )


def assert_upload_won(response, deletion, bot: Bot, media: Path) -> None:
    assert response.status_code == 201, response.content
    assert deletion.status_code == 200  # the page that says why not
    assert "a user with uploads cannot be deleted" in deletion.content.decode()
    assert User.objects.filter(pk=bot.owner_id).exists()
    assert list(BotVersion.objects.filter(bot=bot).values_list("number", flat=True)) == [1]
    assert files_without_a_version(media) == []


def assert_deletion_won(response, deletion, bot: Bot, media: Path) -> None:
    assert deletion.status_code == 302
    assert response.status_code == 404, response.content
    assert response.json()["error"]["message"] == (
        "alices-bot was deleted while your upload was on its way"
    )
    assert not User.objects.filter(pk=bot.owner_id).exists()
    assert not Bot.objects.filter(pk=bot.pk).exists()
    assert not BotVersion.objects.filter(bot_id=bot.pk).exists()
    assert not RefusedUpload.objects.exists()
    assert files_without_a_version(media) == []


@pytest.mark.parametrize("how", [admin_deletes, admin_action_deletes], ids=["page", "action"])
@pytest.mark.parametrize(
    "upload_pause, winner",
    [
        (UPLOAD_FIRST_LOCK, DELETION_FIRST),
        (UPLOAD_RESERVED, UPLOAD_FIRST),
        (UPLOAD_STORES, UPLOAD_FIRST),
    ],
    ids=["upload about to lock", "upload holds the owner", "upload holds the bot"],
)
def test_an_upload_while_its_owner_is_deleted(
    alice, empty_bot, admin, as_alice, media_dir, how, upload_pause, winner
) -> None:
    """The upload runs up to its pause, then the deletion starts; each waits
    at its pause until the other has reached its own or waits for a lock of
    this one. Whichever has alice's row first wins. "upload holds the owner"
    was the deadlock: the upload had locked alice, the deletion deleted her
    reservation and her bot, then the upload waited for the reservation and
    the deletion for alice."""
    requests = [api_uploads(as_alice, empty_bot), how(admin, alice)]
    (response, deletion), errors = together(
        requests, [upload_pause, DELETION_OWNER], staggered=True
    )
    assert errors == []
    if winner == UPLOAD_FIRST:
        assert_upload_won(response, deletion, empty_bot, media_dir)
    else:
        assert_deletion_won(response, deletion, empty_bot, media_dir)


@pytest.mark.parametrize("action", [False, True], ids=["page", "action"])
def test_an_upload_while_staff_delete_its_bot(
    alice, empty_bot, admin, as_alice, media_dir, action
) -> None:
    """The admin's delete of the bot alone locks its owner first too: the
    upload that holds alice is stored, and the deletion is refused. Before,
    the deletion committed while the upload waited for her reservation, and
    the upload stored its version of a deleted bot: a server error at its
    commit, and its files left behind."""
    requests = [api_uploads(as_alice, empty_bot), admin_deletes_bot(admin, empty_bot, action)]
    (response, deleted), errors = together(
        requests, [UPLOAD_RESERVED, 'DELETE FROM "ladder_bot" WHERE'], staggered=True
    )
    assert errors == []
    assert response.status_code == 201, response.content
    assert deleted.status_code == 200
    assert "a bot with uploads cannot be deleted" in deleted.content.decode()
    assert list(BotVersion.objects.filter(bot=empty_bot).values_list("number", flat=True)) == [1]
    assert files_without_a_version(media_dir) == []


@pytest.mark.parametrize("how", [admin_deletes, admin_action_deletes], ids=["page", "action"])
def test_the_owner_deleted_while_the_upload_is_checked(
    alice, empty_bot, admin, as_alice, media_dir, monkeypatch, how
) -> None:
    """The deletion commits while the file is checked, after the upload took
    its place in the hourly limit (which goes with alice): the upload stores
    nothing and says why."""
    deletions: list = []
    check_upload = bots.check_upload

    def checked_while_deleted(*args, **kwargs):
        checked = check_upload(*args, **kwargs)
        deletions.append(in_another_thread(how(admin, alice)))
        return checked

    monkeypatch.setattr(bots, "check_upload", checked_while_deleted)
    response = api_uploads(as_alice, empty_bot)()
    assert_deletion_won(response, deletions[0], empty_bot, media_dir)


def test_the_upload_page_says_the_bot_is_gone(
    alice, empty_bot, admin, media_dir, monkeypatch
) -> None:
    """The same on the upload page: the form says what happened, not "fix
    the file"."""
    page = Client(raise_request_exception=False)
    page.force_login(alice)
    check_upload = bots.check_upload

    def checked_while_deleted(*args, **kwargs):
        checked = check_upload(*args, **kwargs)
        assert in_another_thread(admin_deletes(admin, alice)).status_code == 302
        return checked

    monkeypatch.setattr(bots, "check_upload", checked_while_deleted)
    response = page_uploads(page, empty_bot)()
    assert response.status_code == 400
    body = " ".join(response.content.decode().split())
    assert "alices-bot was deleted while your upload was on its way" in body
    assert "Nothing was stored." in body and "fix the file" not in body
    assert not User.objects.filter(pk=alice.pk).exists()
    assert not BotVersion.objects.filter(bot_id=empty_bot.pk).exists()
    assert files_without_a_version(media_dir) == []
