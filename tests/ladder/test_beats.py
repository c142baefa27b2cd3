"""A second Celery beat is named on /status/ and its chores do nothing; one
beat, or one restarted after a crash, goes on as before."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
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
    assert tick(prune_records, FIRST) == {"sessions": 0, "workers": 0, "beats": 0, "attempts": 0}
    assert tick(prune_records, SECOND) == {}  # skipped: nothing pruned, nothing counted
    run = ChoreRun.objects.get(chore="ladder.tasks.prune_records")
    assert run.beat == FIRST
    # the first beat's next tick is its own, however soon it comes
    assert tick(prune_records, FIRST) == {"sessions": 0, "workers": 0, "beats": 0, "attempts": 0}


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


#: a scheduler that is not ours (as `celery beat --scheduler` may name any):
#: every entry due at the first tick, so the test waits for no interval
OTHER_SCHEDULER = """
from datetime import timedelta

from celery.beat import Scheduler


class AtOnce(Scheduler):
    def setup_schedule(self):
        super().setup_schedule()
        for entry in self.schedule.values():
            entry.last_run_at -= timedelta(hours=2)
"""


def beat_messages(var: Path, wanted: int, timeout_s: float = 60) -> list[dict]:
    """The messages a beat wrote to the filesystem broker under `var`."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = [json.loads(p.read_text()) for p in (var / "broker" / "queue").glob("*.msg")]
        if len(found) >= wanted:
            return found
        time.sleep(0.2)
    raise AssertionError(f"the beat sent {len(found)} of {wanted} messages in {timeout_s} s")


def test_a_beat_with_another_scheduler_names_itself_in_every_message(tmp_path) -> None:
    """The identity came from our scheduler class: `celery beat --scheduler
    <another>` sent chores without it, which then ran unguarded (a second beat
    of that kind was neither shown nor stopped). Every beat names itself now."""
    (tmp_path / "other_scheduler.py").write_text(OTHER_SCHEDULER)
    var = tmp_path / "var"
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(
        GEMARENA_VAR_DIR=str(var),  # the filesystem broker: messages are files there
        GEMARENA_QUEUE="beat-test",
        PYTHONPATH=os.pathsep.join([str(tmp_path), str(Path(beats.__file__).parents[1])]),
    )
    command = [sys.executable, "-m", "celery", "-A", "config", "beat", "--loglevel", "WARNING"]
    command += ["--scheduler", "other_scheduler:AtOnce", "--schedule", str(tmp_path / "sched")]
    beat = subprocess.Popen(command, env=env, cwd=tmp_path, stderr=subprocess.PIPE)
    try:
        sent = beat_messages(var, wanted=len(settings.CELERY_BEAT_SCHEDULE))
    finally:
        beat.terminate()
        _, err = beat.communicate(timeout=30)
    assert {m["headers"]["task"] for m in sent} == {
        entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()
    }, err.decode()
    names = {m["headers"].get(beats.HEADER) for m in sent}
    assert len(names) == 1 and f" pid {beat.pid} started " in names.pop()


def test_a_process_that_is_not_a_beat_sends_no_identity(monkeypatch) -> None:
    """A chore sent by hand (a shell, the web) always runs: it names no beat."""
    headers = {"task": "ladder.tasks.fill_queue"}
    beats.sign_message(sender="ladder.tasks.fill_queue", headers=headers)
    assert beats.HEADER not in headers
    monkeypatch.setattr(beats, "this_beat", FIRST)
    beats.sign_message(sender="ladder.tasks.fill_queue", headers=headers)
    assert headers[beats.HEADER] == FIRST
