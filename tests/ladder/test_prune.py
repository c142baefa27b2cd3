"""Rows that nothing reads any more are deleted, so a platform that runs for
months does not keep every login and every worker it ever had."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.utils import timezone

from ladder.models import WorkerHeartbeat
from ladder.tasks import FORGET_WORKER_AFTER, prune_records


def session(expires_in: timedelta) -> str:
    store = SessionStore()
    store["user"] = "someone"
    store.create()
    Session.objects.filter(session_key=store.session_key).update(
        expire_date=timezone.now() + expires_in
    )
    return store.session_key


@pytest.mark.django_db
def test_expired_sessions_are_deleted_and_live_ones_kept() -> None:
    expired = session(timedelta(minutes=-1))
    live = session(timedelta(days=1))
    assert prune_records()["sessions"] == 1
    assert list(Session.objects.values_list("session_key", flat=True)) == [live]
    assert expired != live


@pytest.mark.django_db
def test_workers_gone_for_a_week_are_forgotten() -> None:
    now = timezone.now()
    for name in ("alive", "gone-a-day", "gone-long-ago"):
        WorkerHeartbeat.beat(name, "docker")
    WorkerHeartbeat.objects.filter(hostname="gone-a-day").update(last_seen=now - timedelta(days=1))
    WorkerHeartbeat.objects.filter(hostname="gone-long-ago").update(
        last_seen=now - FORGET_WORKER_AFTER - timedelta(minutes=1)
    )
    assert prune_records()["workers"] == 1
    assert set(WorkerHeartbeat.objects.values_list("hostname", flat=True)) == {
        "alive",
        "gone-a-day",
    }
