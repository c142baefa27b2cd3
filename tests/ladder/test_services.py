"""The services under the platform: database, broker, worker round trip."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from celery.contrib.testing.worker import start_worker
from django.conf import settings
from django.db import connection

from config.celery import app as celery_app
from ladder.models import WorkerHeartbeat
from ladder.tasks import heartbeat
from tests.conftest import (
    BINDING_PREFIX,
    BINDING_SEP,
    TEST_QUEUE,
    WORKER_MARK,
    redis_leftovers,
    remove_redis_leftovers,
)
from tests.ladder.conftest import named_workers, wait_for

ROOT = Path(__file__).resolve().parents[2]


def round_trip_through_broker() -> WorkerHeartbeat:
    """Enqueue the heartbeat task and let a real worker thread run it."""
    root_level = logging.root.level  # the test worker sets the root logger to ERROR
    try:
        return _round_trip()
    finally:
        logging.root.setLevel(root_level)


def _round_trip() -> WorkerHeartbeat:
    with start_worker(
        celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=10, queues=[TEST_QUEUE]
    ):
        heartbeat.apply_async(queue=TEST_QUEUE)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            beat = WorkerHeartbeat.objects.first()
            if beat is not None:
                return beat
            time.sleep(0.1)
    raise AssertionError("the worker did not run the heartbeat task within 30 s")


@pytest.mark.django_db(transaction=True)
def test_worker_runs_a_task_through_the_configured_broker() -> None:
    beat = round_trip_through_broker()
    assert beat.hostname
    assert beat.is_alive


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_redis_is_the_broker_when_configured() -> None:
    assert settings.CELERY_BROKER_URL.startswith("redis"), settings.CELERY_BROKER_URL
    with celery_app.connection_for_write() as conn:
        assert conn.transport_cls in ("redis", "rediss")
    assert round_trip_through_broker().is_alive


@pytest.mark.postgres
@pytest.mark.django_db
def test_postgres_is_the_database_when_configured() -> None:
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('server_version_num')::int")
        assert cursor.fetchone()[0] >= 130000


WRITER = """
import django, os
django.setup()
from django.db import transaction
from ladder.models import WorkerHeartbeat
n = int(os.environ["WRITES"])
for i in range(n):
    with transaction.atomic():
        WorkerHeartbeat.beat(f"{os.environ['WHO']}-{i % 5}", "process")
        WorkerHeartbeat.objects.filter(hostname__startswith=os.environ["WHO"]).count()
print("ok")
"""


def test_sqlite_wal_survives_concurrent_writers(tmp_path: Path) -> None:
    """Web, worker and beat write at once in the embedded default: no 'database is locked'."""
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(GEMARENA_VAR_DIR=str(tmp_path), DJANGO_SETTINGS_MODULE="config.settings")
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER],
            cwd=ROOT,
            env={**env, "WHO": f"w{n}", "WRITES": "150"},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(4)
    ]
    try:
        results = [p.communicate(timeout=180) for p in procs]
    finally:
        for p in procs:
            p.kill()
    for p, (out, err) in zip(procs, results, strict=True):
        assert p.returncode == 0 and out.strip() == "ok", err[-2000:]
    mode = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "shell",
            "--no-imports",
            "-c",
            "from django.db import connection as c; cur=c.cursor(); "
            "cur.execute('PRAGMA journal_mode'); print(cur.fetchone()[0])",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert mode.stdout.strip() == "wal", mode.stderr


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_new_queue_is_no_broker_loss_but_a_missing_marker_is(settings) -> None:
    """The reaper resends every queued match when Redis lost its data. A
    platform's first look found no marker either and raised that alarm (and
    sent every queued match twice) on every new deployment: found by a QA
    operator."""
    from ladder import tasks

    settings.CELERY_TASK_DEFAULT_QUEUE = f"{TEST_QUEUE}-marker"
    key = f"{tasks.BROKER_MARKER_KEY}:{settings.CELERY_TASK_DEFAULT_QUEUE}"
    with celery_app.connection_for_write() as conn:
        client = conn.default_channel.client
        client.delete(key)
        try:
            assert tasks.broker_forgot_messages() is False  # the first look sets it
            assert client.get(key) is not None
            assert tasks.broker_forgot_messages() is False  # still there
            client.delete(key)  # what a restart without persistence does
            assert tasks.broker_forgot_messages() is True
            assert tasks.broker_forgot_messages() is False  # told once
            # A database made anew (or emptied, as between tests) while Redis
            # kept the marker: the first look there remembers it too.
            from ladder.models import Counter

            Counter.objects.filter(name__startswith="broker-marker:").delete()
            assert tasks.broker_forgot_messages() is False
            client.delete(key)
            assert tasks.broker_forgot_messages() is True
        finally:
            client.delete(key)


def test_the_beats_database_chores_go_to_the_housekeeping_queue() -> None:
    """Filling the queue, refitting and pruning go where the housekeeper listens; the
    chores that need a sandbox (self-test, containers) to the match workers."""

    def queue(task: str) -> str:
        return celery_app.amqp.router.route({}, task)["queue"].name

    housekeeping = TEST_QUEUE + settings.HOUSEKEEPING_QUEUE_SUFFIX
    assert queue("ladder.tasks.fill_queue") == housekeeping
    assert queue("ladder.tasks.refit_ratings") == housekeeping
    assert queue("ladder.tasks.prune_records") == housekeeping
    assert queue("ladder.tasks.heartbeat") == TEST_QUEUE
    assert queue("ladder.tasks.reap_stale_matches") == TEST_QUEUE
    assert (
        celery_app.amqp.router.route({"queue": "x"}, "ladder.tasks.fill_queue")["queue"].name == "x"
    )


def test_challenges_take_turns_with_the_ladder_and_validation_goes_first() -> None:
    """Anybody may keep five challenges open, and accounts are free: in the
    queue workers empty first they starved the ladder (security QA: 2 ladder
    matches finished in 120 s instead of about 54)."""
    from ladder.matches import queue_for

    ladder = TEST_QUEUE + settings.LADDER_QUEUE_SUFFIX
    assert queue_for("validation") == TEST_QUEUE
    assert queue_for("ladder") == queue_for("challenge") == queue_for("tournament") == ladder


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_sessions_redis_records_are_removed_and_nobody_elses(settings, media_dir) -> None:
    """A worker and a producer leave kombu's bindings (per queue, and the
    worker's remote-control queue in a set every platform shares) after the
    queues are emptied: the session's end removes those of its own queue and
    workers, and leaves a platform of a similar name alone."""
    queue = f"{TEST_QUEUE}-leftovers"
    settings.CELERY_TASK_DEFAULT_QUEUE = queue
    foreign_key = f"{BINDING_PREFIX}{queue}9"  # another session's queue
    foreign_member = f"{BINDING_SEP}{BINDING_SEP}w-1@elsewhere.celery.pidbox"
    pidbox = f"{BINDING_PREFIX}celery.pidbox"
    with celery_app.connection_for_write() as conn:
        client = conn.default_channel.client
        client.sadd(foreign_key, f"{queue}9{BINDING_SEP}{BINDING_SEP}{queue}9")
        client.sadd(pidbox, foreign_member)
        try:
            env = {"GEMARENA_QUEUE": queue, "SANDBOX_BACKEND": "process"}
            with named_workers(["leftovers"], media_dir, {"leftovers": env}):
                heartbeat.apply_async(queue=queue)
                wait_for(
                    lambda: any(
                        key == pidbox and "leftovers" in member
                        for key, member in redis_leftovers(client, queue, WORKER_MARK)
                    ),
                    60,
                    "the worker's remote-control queue",
                )
            left = redis_leftovers(client, queue, WORKER_MARK)
            assert (f"{BINDING_PREFIX}{queue}", "") in left
            assert (foreign_key, "") not in left
            assert all(member != foreign_member for _key, member in left)
            remove_redis_leftovers(client, queue, WORKER_MARK)
            assert redis_leftovers(client, queue, WORKER_MARK) == []
            assert client.exists(foreign_key)
            assert client.sismember(pidbox, foreign_member)
        finally:
            client.delete(foreign_key)
            client.srem(pidbox, foreign_member)
            remove_redis_leftovers(client, queue, WORKER_MARK)
