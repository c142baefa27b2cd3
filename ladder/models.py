"""The ladder's data. Models carry their own behaviour."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone


class WorkerHeartbeat(models.Model):
    """The last sign of life of one Celery worker, written by the worker itself."""

    hostname = models.CharField(max_length=200, unique=True)
    sandbox_backend = models.CharField(max_length=20, blank=True)
    sandbox_problem = models.TextField(blank=True)
    started_at = models.DateTimeField(default=timezone.now)
    last_seen = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["hostname"]

    def __str__(self) -> str:
        return self.hostname

    @classmethod
    def beat(cls, hostname: str, sandbox_backend: str, sandbox_problem: str = "") -> None:
        now = timezone.now()
        obj, created = cls.objects.get_or_create(
            hostname=hostname,
            defaults={"sandbox_backend": sandbox_backend, "sandbox_problem": sandbox_problem},
        )
        if not created:
            cls.objects.filter(pk=obj.pk).update(
                last_seen=now, sandbox_backend=sandbox_backend, sandbox_problem=sandbox_problem
            )

    @classmethod
    def alive(cls) -> models.QuerySet[WorkerHeartbeat]:
        cutoff = timezone.now() - timedelta(seconds=settings.WORKER_STALE_SECONDS)
        return cls.objects.filter(last_seen__gte=cutoff)

    @property
    def is_alive(self) -> bool:
        return self.last_seen >= timezone.now() - timedelta(seconds=settings.WORKER_STALE_SECONDS)
