"""Mail to a bot's owner when something needs them: their bot was paused
after faults, or an upload of theirs was rejected. Only to owners who asked
for it on their email page (`MailSettings.bot_news`) and have an address,
and only on a site that sends mail. Sent once the transaction that decided
it commits; a mail server that fails is logged, never the result's undoing.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.urls import reverse

from ladder.models import Bot, BotVersion, MailSettings

log = logging.getLogger(__name__)


def _address_of(owner_id: int) -> str:
    """The owner's email address if they want bot news by mail, else ""."""
    if not settings.SENDS_EMAIL:
        return ""
    wants = MailSettings.objects.filter(user_id=owner_id, bot_news=True, user__is_active=True)
    return wants.values_list("user__email", flat=True).first() or ""


def _mail_on_commit(owner_id: int, subject: str, lines: list[str]) -> None:
    to = _address_of(owner_id)
    if not to:
        return
    footer = (
        f"You get this mail because you asked for it at {settings.SITE_URL}"
        f"{reverse('email')}; untick the box there to stop."
    )
    body = "\n\n".join([*lines, footer]) + "\n"

    def send() -> None:
        try:
            send_mail(subject, body, None, [to])
        except Exception as exc:  # the SMTP server away or refusing: log, go on
            log.error("mail to the owner (user %s) not sent: %s: %s", owner_id, subject, exc)

    transaction.on_commit(send)


def bot_paused(bot: Bot, reason: str) -> None:
    """`bot` was just paused, for `reason`."""
    page = f"{settings.SITE_URL}{reverse('bot', args=[bot.pk])}"
    upload = f"{settings.SITE_URL}{reverse('upload')}?bot={bot.pk}"
    _mail_on_commit(
        bot.owner_id,
        f"Gem Arena: {bot.name} was paused",
        [
            f"Your bot {bot.name} no longer plays on the ladder: it was {reason}.",
            f"Its page, with the faulted matches: {page}",
            f"Upload a fixed version: {upload}",
        ],
    )


def version_rejected(version: BotVersion) -> None:
    """`version` was just rejected (its reason is stored on it)."""
    bot = version.bot
    page = f"{settings.SITE_URL}{reverse('version', args=[bot.pk, version.number])}"
    _mail_on_commit(
        bot.owner_id,
        f"Gem Arena: {bot.name} v{version.number} was rejected",
        [
            f"Version {version.number} of your bot {bot.name} was rejected: "
            f"{version.reject_reason}",
            f"The version's page, with its stderr: {page}",
        ],
    )
