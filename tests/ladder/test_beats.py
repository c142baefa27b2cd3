"""A second Celery beat is named on /status/ and its chores do nothing; one
beat, or one restarted after a crash, goes on as before."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from ladder import beats
from ladder.models import ChoreRun, SeenBeat
from ladder.tasks import fill_queue, prune_records, reap_stale_matches, refit_ratings

FIRST = "host-a pid 10 started 2026-12-02 09:00:00 UTC"
SECOND = "host-b pid 20 started 2026-12-02 09:05:00 UTC"


def tick(task, beat: str):
    """One tick of `task` as the beat `beat` sends it."""
    return task.apply(headers={beats.HEADER: beat}).get()


def beat_row(client: Client) -> dict:
    data = client.get("/status/?format=json").json()
    return next(c for c in data["checks"] if c["name"] == "Beat")


@pytest.mark.django_db
def test_two_beats_are_named_on_the_status_page(client: Client, caplog) -> None:
    tick(fill_queue, FIRST)
    SeenBeat.objects.filter(identity=FIRST).update(first_seen=timezone.now() - timedelta(minutes=2))
    # the second beat starts and ticks while the first one keeps ticking
    tick(fill_queue, SECOND)
    SeenBeat.objects.filter(identity=SECOND).update(
        first_seen=timezone.now() - timedelta(minutes=1)
    )
    tick(fill_queue, FIRST)
    with caplog.at_level("WARNING", logger="ladder.beats"):
        tick(fill_queue, SECOND)
    row = beat_row(client)
    assert row == {
        "name": "Beat",
        "ok": True,
        "warning": True,
        "detail": "two beats are running; stop one",
    }
    assert f"two beats are running: {FIRST} and {SECOND}; stop one" in caplog.text
    page = client.get("/status/").content.decode()
    assert "two beats are running" in page and "host-b" not in page
    # staff read which two (host, pid, start), to stop one
    staff = get_user_model().objects.create_user("op", "op@example.org", "pw", is_staff=True)
    client.force_login(staff)
    assert beat_row(client)["staff_detail"] == f"{FIRST} and {SECOND}"
    assert "host-b pid 20" in client.get("/status/").content.decode()


@pytest.mark.django_db
def test_one_beat_shows_no_warning(client: Client) -> None:
    for _ in range(3):
        tick(fill_queue, FIRST)
    row = beat_row(client)
    assert row == {"name": "Beat", "ok": True, "warning": False, "detail": "one running"}


@pytest.mark.django_db
def test_a_restarted_beat_is_not_two(client: Client) -> None:
    """The old beat fell silent before the new one started."""
    tick(fill_queue, FIRST)
    SeenBeat.objects.filter(identity=FIRST).update(
        first_seen=timezone.now() - timedelta(minutes=5),
        last_seen=timezone.now() - timedelta(seconds=40),
    )
    tick(fill_queue, SECOND)
    staff = get_user_model().objects.create_user("op", "op@example.org", "pw", is_staff=True)
    client.force_login(staff)
    assert beat_row(client)["detail"] == "one running"
    assert beat_row(client)["staff_detail"] == SECOND


@pytest.mark.django_db
def test_a_second_beats_tick_within_the_interval_does_nothing() -> None:
    SeenBeat.saw("worker-free")  # prune has something to count
    assert tick(prune_records, FIRST) == {"sessions": 0, "workers": 0, "beats": 0}
    assert tick(prune_records, SECOND) == {}  # skipped: nothing pruned, nothing counted
    run = ChoreRun.objects.get(chore="ladder.tasks.prune_records")
    assert run.beat == FIRST
    # the first beat's next tick is its own, however soon it comes
    assert tick(prune_records, FIRST) == {"sessions": 0, "workers": 0, "beats": 0}


@pytest.mark.django_db
def test_every_chore_that_must_not_run_twice_is_guarded() -> None:
    chores = (fill_queue, refit_ratings, prune_records, reap_stale_matches)
    for task in chores:
        tick(task, FIRST)
        assert not tick(task, SECOND)
    held = dict(ChoreRun.objects.values_list("chore", "beat"))
    assert held == {task.name: FIRST for task in chores}


@pytest.mark.django_db
def test_a_beat_restarted_after_a_crash_takes_over_after_one_interval() -> None:
    """The crashed beat's claim expires: the new beat (a new identity) is
    blocked for at most one interval of the chore, not for ever."""
    assert tick(prune_records, FIRST) != {}
    assert tick(prune_records, SECOND) == {}
    ChoreRun.objects.filter(chore="ladder.tasks.prune_records").update(
        last_run_at=timezone.now() - timedelta(seconds=beats.interval_s(prune_records.name) + 1)
    )
    assert tick(prune_records, SECOND) != {}
    assert ChoreRun.objects.get(chore="ladder.tasks.prune_records").beat == SECOND
    assert tick(prune_records, FIRST) == {}  # now the old one would be the second


@pytest.mark.django_db
def test_a_chore_sent_by_hand_always_runs() -> None:
    assert tick(prune_records, FIRST) != {}
    assert prune_records() != {}
    assert prune_records.apply().get() != {}


def test_the_scheduler_names_its_beat_in_every_message(tmp_path) -> None:
    from celery.beat import ScheduleEntry

    from config.celery import app

    sent = []
    scheduler = beats.Scheduler(app, schedule_filename=str(tmp_path / "schedule"))
    try:
        scheduler.send_task = lambda *args, **kwargs: sent.append(kwargs)  # noqa: ARG005
        entry = ScheduleEntry(name="x", task="not.a.registered.task", schedule=10.0, app=app)
        scheduler.schedule["x"] = entry
        scheduler.apply_async(entry)
        assert sent[0]["headers"] == {beats.HEADER: scheduler.identity}
        # not stored in the schedule file (a restarted beat is a new one)
        assert "headers" not in scheduler.schedule["x"].options
    finally:
        scheduler.close()
    assert scheduler.identity.startswith(beats.identity().split(" started")[0])
