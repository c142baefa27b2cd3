from django.contrib import admin

from ladder.models import WorkerHeartbeat


@admin.register(WorkerHeartbeat)
class WorkerHeartbeatAdmin(admin.ModelAdmin):
    list_display = ("hostname", "sandbox_backend", "last_seen", "started_at")
    readonly_fields = ("hostname", "sandbox_backend", "sandbox_problem", "last_seen", "started_at")
