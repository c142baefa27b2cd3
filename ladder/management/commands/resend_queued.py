"""Send every queued match to the workers again (after a database restore)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from ladder.tasks import resend_queued


class Command(BaseCommand):
    help = (
        "Send every queued match's message to the broker again. After a database backup is "
        "restored, the broker holds no message for the matches that were queued when the "
        "backup was taken, and they would wait for the reaper (up to 2 x MATCH_STALE_SECONDS). "
        "A match sent twice is played once: its second delivery finds it claimed."
    )

    def handle(self, *args, **options) -> None:
        sent = resend_queued(limit=1_000_000)
        self.stdout.write(f"Sent {sent} queued match(es) to the workers again.")
