"""The broker down when a match is made: the match is stored, so the user is
told it was (not a 500 that invites a second, duplicate request), and the
reaper sends it once the broker answers again, not ten minutes later."""

from __future__ import annotations

import pytest
from kombu.exceptions import OperationalError

from ladder import tasks
from ladder.matches import UNSENT
from ladder.models import Counter, Match

pytestmark = pytest.mark.django_db


def unsent() -> int:
    return Counter.objects.filter(name=UNSENT).values_list("value", flat=True).first() or 0


def test_a_challenge_made_while_the_broker_is_down_is_sent_by_the_reaper(
    as_alice, alpha, beta, monkeypatch, django_capture_on_commit_callbacks
) -> None:
    def broker_down(*args, **kwargs):
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(tasks.run_match, "apply_async", broker_down)
    body = {"bot": alpha.pk, "opponents": [beta.pk]}
    with django_capture_on_commit_callbacks(execute=True):
        response = as_alice.post("/api/challenges", body, "application/json")
    assert response.status_code == 201, response.content
    match = Match.objects.get(pk=response.json()["id"])
    assert match.status == Match.Status.QUEUED and unsent() == 1

    sent = []
    monkeypatch.setattr(tasks.run_match, "apply_async", lambda args, **kw: sent.append(args[0]))
    monkeypatch.setattr(tasks, "broker_forgot_messages", lambda: False)
    monkeypatch.setattr(tasks, "reap_sandboxes", lambda *args, **kwargs: None)
    with django_capture_on_commit_callbacks(execute=True):
        tasks.reap_stale_matches.run()
    assert sent == [match.pk] and unsent() == 0
    # the count was taken: the next run leaves a young queued match alone
    with django_capture_on_commit_callbacks(execute=True):
        tasks.reap_stale_matches.run()
    assert sent == [match.pk]
