"""Checks behind the status page: is each part of the platform reachable?"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection
from django.http import HttpRequest, JsonResponse
from django.utils import timezone

from arena import sandbox_status
from config.celery import app as celery_app
from ladder import beats
from ladder.models import SeenBeat, WorkerHeartbeat

log = logging.getLogger(__name__)

#: what a public detail says in place of the raw error text kept for staff
STAFF_SEE_WHY = "signed-in staff see why"

#: what a database outage looks like (server down or restarting, connection lost)
DATABASE_AWAY = (OperationalError, InterfaceError)
#: how soon a client may try again while the database is away (Retry-After)
DATABASE_AWAY_RETRY_S = 30


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    #: for anyone: the state in words, without anything of the machines
    detail: str
    warning: bool = False  # ok, but something a user should know
    #: for staff only: where a service is, the error text of its driver,
    #: the workers' and beats' host names and pids, raw self-test output
    staff_detail: str = ""

    def as_json(self, staff: bool) -> dict:
        data = {"name": self.name, "ok": self.ok, "warning": self.warning, "detail": self.detail}
        if staff and self.staff_detail:
            data["staff_detail"] = self.staff_detail
        return data


def check_database() -> Check:
    vendor = connection.vendor
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any driver error means "not reachable"
        return Check("Database", False, f"{vendor}: not reachable", staff_detail=str(exc))
    where = settings.DATABASES["default"].get("HOST") or settings.DATABASES["default"]["NAME"]
    return Check("Database", True, vendor, staff_detail=f"at {where}")


#: set once this process has seen every migration applied: the schema does
#: not go back under a running process, so later checks cost nothing
_schema_current = False


def pending_migrations() -> list[str]:
    """The migrations this code has that the database lacks ([] once it is
    up to date). New code on an old schema fails every page that reads a
    new column, while the database itself answers (found by a QA operator
    who reloaded instead of restarting, so migrate never ran)."""
    global _schema_current
    if _schema_current:
        return []
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    pending = [f"{m.app_label}.{m.name}" for m, backwards in plan if not backwards]
    _schema_current = not pending
    return pending


def check_schema() -> Check:
    pending = pending_migrations()
    if not pending:
        return Check("Database schema", True, "every migration applied")
    return Check(
        "Database schema",
        False,
        f"{len(pending)} migration(s) not applied: run `manage.py migrate`",
        staff_detail=", ".join(pending),
    )


def check_broker() -> Check:
    url = settings.CELERY_BROKER_URL
    kind = "redis" if url.startswith("redis") else "local filesystem broker"
    try:
        with celery_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
    except Exception as exc:  # kombu raises transport-specific errors
        return Check("Task broker", False, f"{kind}: not reachable", staff_detail=str(exc))
    return Check("Task broker", True, kind)


def check_sandbox() -> tuple[Check, Check]:
    status = sandbox_status(settings.SANDBOX_BACKEND)
    docker = Check(
        "Docker engine",
        not status.docker_problem,
        f"not usable here; {STAFF_SEE_WHY}"
        if status.docker_problem
        else "answers; bot image present",
        warning=bool(status.docker_problem),
        staff_detail=status.docker_problem,
    )
    if status.problem:
        # The web process has no Docker socket in production (only workers
        # do): then what counts is what the workers' self-tests say.
        passing = [
            w.hostname
            for w in WorkerHeartbeat.alive()
            if w.self_test_ok and w.sandbox_backend == "docker"
        ]
        if passing:
            note = (
                "not used by the web process (only workers need it); "
                f"{len(passing)} worker(s) pass their Docker self-test"
            )
            return (
                Check(
                    "Sandbox",
                    True,
                    f"docker backend on the workers ({len(passing)} pass their Docker self-test)",
                    staff_detail=", ".join(passing),
                ),
                # the raw connection error is for staff: it was cut mid-word here
                Check("Docker engine", True, note, staff_detail=status.problem),
            )
        detail = f"{status.requested}: cannot run bots here; {STAFF_SEE_WHY}"
        return Check("Sandbox", False, detail, staff_detail=status.problem), docker
    if not status.safe_for_untrusted:
        detail = (
            f"{status.backend} backend (setting {status.requested}) — NOT SAFE for untrusted "
            "code: bots run as plain processes on this machine"
        )
        return Check("Sandbox", True, detail, warning=True), docker
    return Check("Sandbox", True, f"{status.backend} backend (setting {status.requested})"), docker


def check_workers() -> Check:
    alive = list(WorkerHeartbeat.alive())
    if not alive:
        return Check(
            "Workers",
            False,
            f"no worker has reported in the last {settings.WORKER_STALE_SECONDS} s",
        )
    failing = [w for w in alive if w.self_test_ok is False]
    names = ", ".join(
        f"{w.hostname} ({w.sandbox_backend or '?'}{self_test_note(w)})" for w in alive
    )
    if len(failing) == len(alive):
        detail = f"{len(alive)} alive, all failing their self-test"
        return Check("Workers", False, detail, staff_detail=names)
    summary = f"{len(alive)} alive"
    if failing:
        summary += f", {len(failing)} refusing matches (self-test failing)"
    return Check("Workers", True, summary, warning=bool(failing), staff_detail=names)


def check_beat() -> Check:
    """Exactly one beat should run: a second one is named here, to staff
    (its chores do nothing, ladder.beats). Seen through the chores it sends, so only
    while a worker or the housekeeper takes them."""
    pair = beats.two_beats()
    if pair:
        both = f"{pair[0]} and {pair[1]}"
        return Check("Beat", True, "two beats are running; stop one", True, both)
    recent = SeenBeat.objects.filter(
        last_seen__gte=timezone.now() - timedelta(seconds=beats.BEAT_STALE_S)
    ).last()
    if recent is None:
        detail = f"none seen in the last {beats.BEAT_STALE_S} s (its chores were not taken)"
        return Check("Beat", True, detail, warning=True)
    return Check("Beat", True, "one running", staff_detail=recent.identity)


def self_test_note(worker: WorkerHeartbeat) -> str:
    """The self-test as the status and queue pages show it next to a worker."""
    if worker.self_test_ok is None:
        return ", self-test not run yet"
    if worker.self_test_ok:
        return ", self-test ok"
    # whole up to a bound: the bot-library messages (about 510 characters)
    # end with how to rebuild the image
    return f", SELF-TEST FAILING: {worker.self_test_detail[:800]}"


def _unless_database_away(check: Callable[[], Check | tuple[Check, ...]], *names: str):
    """The checks `names` that read the database (the workers' heartbeats):
    while it is away they say they cannot tell, instead of failing the whole
    page, which is most needed exactly then."""
    try:
        result = check()
    except Exception as exc:  # the database, most likely; the page must answer
        unknown = "unknown: the database is not reachable"
        return tuple(Check(name, False, unknown, staff_detail=str(exc)) for name in names)
    return result if isinstance(result, tuple) else (result,)


def all_checks() -> list[Check]:
    database = check_database()
    (schema,) = _unless_database_away(check_schema, "Database schema")
    sandbox_check, docker_check = _unless_database_away(check_sandbox, "Sandbox", "Docker engine")
    (workers,) = _unless_database_away(check_workers, "Workers")
    (beat,) = _unless_database_away(check_beat, "Beat")
    return [database, schema, check_broker(), docker_check, sandbox_check, workers, beat]


# --- /healthz: cheap liveness for load balancers and orchestrators -------------

_redis_clients: dict[str, object] = {}


def ping_broker(timeout_s: float = 1.0) -> str:
    """ "" when the broker answers, else why not. Redis gets a PING on a
    pooled client (no new connection per probe); the filesystem broker
    needs its queue folder to be writable."""
    url = redis_client_url(settings.CELERY_BROKER_URL)
    try:
        if url:
            import redis

            client = _redis_clients.get(url)
            if client is None:
                client = _redis_clients[url] = redis.Redis.from_url(
                    url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s
                )
            client.ping()
            return ""
        folder = settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("data_folder_in", "")
        if folder and os.path.isdir(folder) and os.access(folder, os.W_OK):
            return ""
        return f"broker folder {folder!r} missing or not writable"
    except Exception as exc:  # any client error means "not reachable"
        return f"{type(exc).__name__}: {exc}"


def redis_client_url(broker_url: str) -> str:
    """The broker URL as redis-py takes it ("" for the filesystem broker):
    kombu's redis+socket:///path is redis-py's unix:///path."""
    if broker_url.startswith(("redis://", "rediss://")):
        return broker_url
    if broker_url.startswith("redis+socket://"):
        return "unix://" + broker_url.removeprefix("redis+socket://")
    return ""


def ping_database() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any driver error means "not reachable"
        return f"{type(exc).__name__}: {exc}"
    return ""


def healthz(request: HttpRequest) -> JsonResponse:
    """200 when the database and the broker answer and every migration is
    applied, else 503; JSON either way. Two round trips, no template, no
    session: cheap enough to poll often (the migrations are read until they
    are all applied, then never again by this process).
    It is public, so what failed is named but the driver's error text (hosts,
    ports, paths) goes to the log, as /status/ keeps it for staff."""
    parts = {}
    for name, probe in (("database", ping_database), ("broker", ping_broker)):
        t0 = time.monotonic()
        problem = probe()
        parts[name] = {
            "ok": not problem,
            "ms": round((time.monotonic() - t0) * 1000, 1),
            **({"error": "not reachable"} if problem else {}),
        }
        if problem:
            log.warning("healthz: %s not reachable: %s", name, problem[:300])
    if parts["database"]["ok"]:
        try:
            pending = len(pending_migrations())
        except Exception as exc:  # the database went away meanwhile: said above next time
            log.warning("healthz: cannot read the migrations: %s", str(exc)[:300])
            pending = -1
        parts["schema"] = {"ok": pending == 0, "pending_migrations": pending}
    ok = all(p["ok"] for p in parts.values())
    response = JsonResponse({"ok": ok, **parts}, status=200 if ok else 503)
    response["Cache-Control"] = "no-store"
    return response
