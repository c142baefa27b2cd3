"""Celery tasks. Tasks take ids, are safe to run twice, and are enqueued after commit."""

from __future__ import annotations

from celery import shared_task
from celery.signals import worker_ready
from django.conf import settings

from arena import sandbox_status
from ladder.models import WorkerHeartbeat


@shared_task(bind=True, ignore_result=True)
def heartbeat(self) -> str:
    """Record that the worker that runs this task is alive, and its sandbox."""
    status = sandbox_status(settings.SANDBOX_BACKEND)
    hostname = self.request.hostname or "unknown"
    WorkerHeartbeat.beat(hostname, status.backend, status.problem)
    return hostname


@worker_ready.connect
def announce_worker(sender, **kwargs) -> None:
    """A worker shows up on the status page as soon as it starts."""
    status = sandbox_status(settings.SANDBOX_BACKEND)
    WorkerHeartbeat.beat(sender.hostname, status.backend, status.problem)
