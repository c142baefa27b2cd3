"""Shared test set-up: the services a test needs, skipped or mandatory.

A test marked `postgres`, `redis` or `docker` runs only when that service is
reachable. Without it the test is skipped with the reason printed, unless
REQUIRE_POSTGRES=1 / REQUIRE_REDIS=1 / REQUIRE_DOCKER=1 is set (CI sets all
three): then it fails.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable

import pytest


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "on"}


@functools.cache
def postgres_problem() -> str | None:
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        return "DATABASE_URL does not point at PostgreSQL"
    try:
        import psycopg

        with psycopg.connect(url, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except Exception as exc:  # any driver error means unreachable
        return f"PostgreSQL at DATABASE_URL is not reachable: {exc}"
    return None


@functools.cache
def redis_problem() -> str | None:
    url = os.environ.get("REDIS_URL", "")
    if not url.startswith(("redis://", "rediss://")):
        return "REDIS_URL does not point at Redis"
    try:
        import redis

        redis.Redis.from_url(url, socket_connect_timeout=3).ping()
    except Exception as exc:
        return f"Redis at REDIS_URL is not reachable: {exc}"
    return None


@functools.cache
def docker_problem() -> str | None:
    try:
        import sandbox

        return sandbox.get_backend("docker").self_check()
    except Exception as exc:
        return f"Docker sandbox unavailable: {exc}"


SERVICES = {
    "postgres": ("REQUIRE_POSTGRES", postgres_problem),
    "redis": ("REQUIRE_REDIS", redis_problem),
    "docker": ("REQUIRE_DOCKER", docker_problem),
}


def pytest_runtest_setup(item: pytest.Item) -> None:
    for marker, (require_var, probe) in SERVICES.items():
        if item.get_closest_marker(marker) is None:
            continue
        problem = probe()
        if problem is None:
            continue
        if _flag(require_var):
            pytest.fail(f"{require_var}=1 but {problem}", pytrace=False)
        pytest.skip(f"{marker}: {problem}")


# Tasks sent by tests go to a queue of this test session only, so a running
# platform (or an earlier session's leftovers) never sees them and vice versa.
TEST_QUEUE = f"gemarena-test-{os.getpid()}"
#: in the name of every worker a test starts ("<name>-<pid>@<host>",
#: tests/ladder/conftest.py), so its records in the broker are told apart
WORKER_MARK = f"-{os.getpid()}@"


def pytest_configure(config: pytest.Config) -> None:
    from django.conf import settings

    from config.celery import app

    settings.CELERY_TASK_DEFAULT_QUEUE = TEST_QUEUE
    app.conf.task_default_queue = TEST_QUEUE


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Empty this session's queues, and in Redis remove what they and this
    session's workers left (`redis_leftovers`); anything still there then
    fails the run. Never the whole database: CI and other runs may share it
    (.ci/run takes CI_REDIS_DB)."""
    try:
        from django.conf import settings

        from config.celery import app

        with app.connection_for_write() as conn:
            for queue in (
                TEST_QUEUE,
                TEST_QUEUE + settings.HOUSEKEEPING_QUEUE_SUFFIX,
                TEST_QUEUE + settings.LADDER_QUEUE_SUFFIX,
            ):
                conn.default_channel.queue_purge(queue)
            if conn.transport_cls not in ("redis", "rediss"):
                return
            client = conn.default_channel.client
            remove_redis_leftovers(client, TEST_QUEUE, WORKER_MARK)
            left = redis_leftovers(client, TEST_QUEUE, WORKER_MARK)
    except Exception:  # nothing queued, or the broker is gone: nothing to clean
        return
    if left:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"left in Redis by this session: {left}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


#: kombu's Redis transport: the sets of (routing key, pattern, queue) per
#: exchange, the field separator in them, and the deliveries not acked yet
BINDING_PREFIX = "_kombu.binding."
BINDING_SEP = "\x06\x16"
UNACKED, UNACKED_INDEX = "unacked", "unacked_index"


def redis_leftovers(client, queue: str, worker_mark: str) -> list[tuple[str, str]]:
    """What the queue `queue` (and the queues named after it: `.ladder`,
    `.housekeeping`, `-marker`) and the workers named with `worker_mark` left
    in the broker's Redis, as (key, member): whole keys (member ""), members
    of kombu's shared binding sets (a worker's `celery.pidbox` queue), and
    deliveries not acked. `gemarena-test-12` is not `gemarena-test-123`'s."""
    import json
    import re

    own = re.compile(re.escape(queue) + r"(?!\d)")
    found = []
    for key in client.scan_iter(match=f"*{queue}*"):
        if own.search(key.decode(errors="replace")):
            found.append((key.decode(errors="replace"), ""))
    for key in client.scan_iter(match=BINDING_PREFIX + "*"):
        name = key.decode(errors="replace")
        if own.search(name) or client.type(key) != b"set":
            continue  # a whole key of ours is listed above
        for member in client.smembers(key):
            target = member.decode(errors="replace").split(BINDING_SEP)[-1]
            if own.search(target) or worker_mark in target:
                found.append((name, member.decode(errors="replace")))
    if client.type(UNACKED) == b"hash":
        for tag, value in client.hscan_iter(UNACKED):
            try:
                _message, exchange, routing_key = json.loads(value)
            except ValueError:
                continue
            if own.search(f"{exchange} {routing_key}"):
                found.append((UNACKED, tag.decode(errors="replace")))
    return found


def remove_redis_leftovers(client, queue: str, worker_mark: str) -> None:
    """Remove what `redis_leftovers` finds, and nothing else."""
    for key, member in redis_leftovers(client, queue, worker_mark):
        if not member:
            client.delete(key)
        elif key == UNACKED:
            client.hdel(UNACKED, member)
            client.zrem(UNACKED_INDEX, member)
        else:
            client.srem(key, member)


def at_once(work: Callable[[int], None], count: int, timeout_s: float = 60.0) -> None:
    """Run work(0) … work(count - 1) in threads released together (a barrier),
    for races on the database: each thread closes its own connection. What a
    call raises is the thread's (the test asserts on what `work` records)."""
    from django.db import connection

    start = threading.Barrier(count)

    def run(i: int) -> None:
        try:
            start.wait(timeout=30)
            work(i)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout_s)


def leave_only_indexes(cursor, table: str, keep: set[str]) -> None:
    """Drop every index of `table` but its primary key and `keep` (a unique
    constraint's index with its constraint), inside the caller's transaction,
    so the test's rollback brings them back. On a test's few rows the planner's
    pick among indexes follows whatever statistics earlier tests left behind;
    with only the index under test left, a plan shows whether the query can
    walk it at all. PostgreSQL only."""
    cursor.execute(
        "SELECT i.relname, c.conname FROM pg_index x "
        "JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid "
        "LEFT JOIN pg_constraint c ON c.conindid = x.indexrelid AND c.conrelid = t.oid "
        "WHERE t.relname = %s AND NOT x.indisprimary",
        [table],
    )
    found = cursor.fetchall()
    # the test's rows leave deferred foreign-key checks pending, and a table
    # with pending checks cannot be altered: run them now
    cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    for index, constraint in found:
        if index in keep:
            continue
        if constraint:
            cursor.execute(f'ALTER TABLE "{table}" DROP CONSTRAINT "{constraint}"')
        else:
            cursor.execute(f'DROP INDEX "{index}"')
