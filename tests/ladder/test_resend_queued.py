"""`manage.py resend_queued`: after a database restore the broker has no
message for the matches that were queued then; they waited ~10 min for the
reaper (QA operator, 2026-12-02)."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from ladder import tasks
from ladder.matches import create_match
from ladder.models import Match
from tests.web.conftest import make_bot

pytestmark = pytest.mark.django_db


def test_every_queued_match_is_sent_again_and_no_other(alice, bob, monkeypatch, capsys) -> None:
    a, b = make_bot(alice, "a"), make_bot(bob, "b")
    queued = [create_match("splendor-duel", [a.active_version, b.active_version]) for _ in range(3)]
    done = create_match("splendor-duel", [a.active_version, b.active_version])
    Match.objects.filter(pk=done.pk).update(status=Match.Status.FINISHED)
    sent = []
    monkeypatch.setattr(tasks, "enqueue", lambda match_id, kind, **kw: sent.append(match_id))
    call_command("resend_queued")
    assert sent == [m.pk for m in queued]
    assert "Sent 3 queued match(es) to the workers again." in capsys.readouterr().out
