"""Owners who asked for it are mailed when their bot is paused after faults or
an upload of theirs is rejected (ladder/notify.py); nobody else is."""

from __future__ import annotations

import pytest
from django.core import mail

from arena import SystemFault
from ladder import tasks
from ladder.bots import add_version, create_bot
from ladder.matches import create_match
from ladder.models import BotVersion, MailSettings, Match
from tests.ladder.conftest import CRASH_BOT, RANDOM_BOT
from tests.ladder.test_pipeline import ladder_bots, process_sandbox, run_queued  # noqa: F401

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("process_sandbox")]


def wants_news(user, email: str = "owner@example.org", news: bool = True) -> None:
    user.email = email
    user.save(update_fields=["email"])
    MailSettings.objects.update_or_create(user=user, defaults={"bot_news": news})


def test_an_owner_who_asked_is_mailed_once_when_the_bot_is_paused(alice, bob, settings) -> None:
    settings.FAULTS_BEFORE_PAUSE = 2
    settings.SITE_URL = "https://arena.example.org"
    wants_news(alice)
    wants_news(bob, "bob@example.org")  # his bot does not fault
    (good,) = ladder_bots(1)
    bad = create_bot(alice, "splendor-duel", "bad")
    version = add_version(bad, "bot.py", CRASH_BOT, validate=False)
    for _ in range(3):
        create_match("splendor-duel", [version, good.active_version])
    run_queued(Match.Kind.LADDER)  # two faults pause it; the third match is cancelled
    (message,) = mail.outbox
    assert message.to == ["owner@example.org"]
    assert message.subject == "Gem Arena: bad was paused"
    assert "it was paused after 2 faulted matches in a row (last: crash" in message.body
    assert f"https://arena.example.org/bots/{bad.pk}/" in message.body
    assert f"https://arena.example.org/upload/?bot={bad.pk}" in message.body
    assert "https://arena.example.org/accounts/email/" in message.body


def test_a_rejected_upload_is_mailed_and_so_is_one_rejected_without_blame(
    alice, monkeypatch, settings
) -> None:
    wants_news(alice)
    bot = create_bot(alice, "splendor-duel", "crashy")
    crashy = add_version(bot, "bot.py", CRASH_BOT)
    run_queued(Match.Kind.VALIDATION)
    crashy.refresh_from_db()
    assert crashy.status == BotVersion.Status.REJECTED
    (message,) = mail.outbox
    assert message.subject == "Gem Arena: crashy v1 was rejected"
    assert crashy.reject_reason in message.body
    assert f"/bots/{bot.pk}/versions/1/" in message.body
    # a validation the platform could not play
    settings.MATCH_MAX_ATTEMPTS = 1

    def broken(request, on_step=None):
        raise SystemFault("docker daemon went away")

    monkeypatch.setattr(tasks, "play_match", broken)
    unplayed = add_version(bot, "bot.py", RANDOM_BOT)
    tasks.run_match.run(unplayed.validation_matches.order_by("pk").first().pk)
    assert [m.subject for m in mail.outbox][1:] == ["Gem Arena: crashy v2 was rejected"]
    assert "says nothing about your bot" in mail.outbox[1].body


@pytest.mark.parametrize("why", ["did not ask", "no address", "site sends no mail"])
def test_nobody_is_mailed_who_did_not_ask_or_cannot_be(alice, settings, why):
    wants_news(alice, news=why != "did not ask", email="" if why == "no address" else "a@b.org")
    settings.SENDS_EMAIL = why != "site sends no mail"
    bot = create_bot(alice, "splendor-duel", "crashy")
    add_version(bot, "bot.py", CRASH_BOT)
    run_queued(Match.Kind.VALIDATION)
    assert BotVersion.objects.get(bot=bot).status == BotVersion.Status.REJECTED
    assert mail.outbox == []


def test_a_mail_server_that_fails_changes_no_result(alice, monkeypatch, caplog):
    from django.core.mail.backends.locmem import EmailBackend

    def refuse(self, messages):
        raise ConnectionRefusedError(111, "Connection refused")

    monkeypatch.setattr(EmailBackend, "send_messages", refuse)
    wants_news(alice)
    bot = create_bot(alice, "splendor-duel", "crashy")
    version = add_version(bot, "bot.py", CRASH_BOT)
    assert "finished" in run_queued(Match.Kind.VALIDATION)
    version.refresh_from_db()
    assert version.status == BotVersion.Status.REJECTED
    assert "mail to the owner" in caplog.text and "Connection refused" in caplog.text
