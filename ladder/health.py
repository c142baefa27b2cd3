"""Checks behind the status page: is each part of the platform reachable?"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db import connection

from arena import sandbox_status
from config.celery import app as celery_app
from ladder.models import WorkerHeartbeat


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    warning: bool = False  # ok, but something a user should know


def check_database() -> Check:
    vendor = connection.vendor
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any driver error means "not reachable"
        return Check("Database", False, f"{vendor}: {exc}")
    where = settings.DATABASES["default"].get("HOST") or settings.DATABASES["default"]["NAME"]
    return Check("Database", True, f"{vendor} at {where}")


def check_broker() -> Check:
    url = settings.CELERY_BROKER_URL
    kind = "redis" if url.startswith("redis") else "local filesystem broker"
    try:
        with celery_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
    except Exception as exc:  # kombu raises transport-specific errors
        return Check("Task broker", False, f"{kind}: {exc}")
    return Check("Task broker", True, kind)


def check_sandbox() -> tuple[Check, Check]:
    status = sandbox_status(settings.SANDBOX_BACKEND)
    docker = Check(
        "Docker engine",
        not status.docker_problem,
        status.docker_problem or "answers; bot image present",
        warning=bool(status.docker_problem),
    )
    if status.problem:
        return Check("Sandbox", False, f"{status.requested}: {status.problem}"), docker
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
    names = ", ".join(f"{w.hostname} ({w.sandbox_backend or '?'})" for w in alive)
    return Check("Workers", True, f"{len(alive)} alive: {names}")


def all_checks() -> list[Check]:
    sandbox_check, docker_check = check_sandbox()
    return [check_database(), check_broker(), docker_check, sandbox_check, check_workers()]
