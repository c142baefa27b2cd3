"""The operator's admin of matches and their seats: re-run, cancel queued,
find a match by its number. Played matches are other bots' results, so
nothing here deletes or edits one. Registered by importing this module
(ladder/admin.py does)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db import transaction

from ladder.admin_filters import (
    EstimatedCountPaginator,
    FaultFilter,
    GameFilter,
    MatchGameFilter,
    ReadOnlyAdmin,
)
from ladder.matches import create_match, enqueue
from ladder.models import Match, MatchSeat
from ladder.results import cancel_queued_matches


class SeatInline(admin.TabularInline):
    model = MatchSeat
    extra = 0
    fields = ("seat", "version", "rank", "score", "fault", "fault_detail", "think_ms", "elo_change")
    readonly_fields = fields
    can_delete = False


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = (
        "pk",
        "game",
        "kind",
        "status",
        "rated",
        "attempts",
        "worker",
        "created_at",
        "finished_at",
    )
    list_filter = ("status", "kind", GameFilter, "rated")
    search_fields = ("id",)
    search_help_text = "A match's number."
    # the total under a filter's count costs a second COUNT(*) of the whole table
    show_full_result_count = False
    paginator = EstimatedCountPaginator
    readonly_fields = [f.name for f in Match._meta.fields]
    inlines = [SeatInline]
    actions = ["rerun_matches", "cancel_queued"]

    @admin.action(description="Re-run (unrated copy of finished ones; retry errored ones)")
    def rerun_matches(self, request, queryset) -> None:
        retried = copied = 0
        skipped: dict[str, int] = {}
        for match in queryset:
            if match.status == Match.Status.ERRORED:
                with transaction.atomic():
                    if Match.objects.filter(pk=match.pk, status=Match.Status.ERRORED).update(
                        status=Match.Status.QUEUED,
                        attempts=0,
                        error="",
                        claim=None,
                        started_at=None,
                        finished_at=None,
                    ):
                        enqueue(match.pk, match.kind)
                        retried += 1
                        continue
                skipped["no longer errored"] = skipped.get("no longer errored", 0) + 1
            elif match.status == Match.Status.FINISHED:
                lineup = [s.version for s in match.seats.order_by("seat")]
                create_match(
                    match.game,
                    lineup,
                    kind=match.kind,
                    rated=False,
                    seed=match.seed,
                    options=match.options,
                    requested_by=request.user,
                    # a validation copy names its version (decided already: it changes nothing)
                    validates=match.validates,
                )
                copied += 1
            else:  # queued or running: it will be played anyway; cancelled: on purpose
                skipped[match.status] = skipped.get(match.status, 0) + 1
        self.message_user(
            request,
            f"{retried} errored matches queued again, {copied} finished matches copied "
            f"(unrated).{skipped_note(skipped, 'not re-run')}",
            messages.WARNING if skipped else messages.INFO,
        )

    @admin.action(description="Cancel queued matches")
    def cancel_queued(self, request, queryset) -> None:
        statuses = dict(queryset.values_list("pk", "status"))
        n, rejected = cancel_queued_matches(
            list(statuses), "cancelled by an administrator", "was cancelled by an administrator"
        )
        note = f" {rejected} versions waiting for them were rejected." if rejected else ""
        skipped: dict[str, int] = {}
        for status in statuses.values():
            if status != Match.Status.QUEUED:
                skipped[status] = skipped.get(status, 0) + 1
        queued = len(statuses) - sum(skipped.values())
        if queued > n:  # claimed by a worker between the two reads
            skipped[Match.Status.RUNNING] = skipped.get(Match.Status.RUNNING, 0) + queued - n
        self.message_user(
            request,
            f"{n} queued matches cancelled.{note}{skipped_note(skipped, 'left as they are')}",
            messages.WARNING if skipped else messages.INFO,
        )

    def get_search_results(self, request, queryset, search_term):
        # By number, on the primary key: Django's own exact search casts the
        # column to text, which reads all 300,000 rows instead of one.
        term = search_term.strip().lstrip("#")
        if term.isdigit() and int(term) < 2**63:
            return queryset.filter(pk=int(term)), False
        return (queryset.none(), False) if term else (queryset, False)

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        # A played match is other bots' results (a rated one is part of every
        # later rating); a queued one is cancelled instead.
        return False


def skipped_note(skipped: dict[str, int], what: str) -> str:
    """' 2 running and 1 cancelled matches {what}.', or '' when none was skipped."""
    if not skipped:
        return ""
    parts = [f"{n} {status}" for status, n in sorted(skipped.items())]
    return f" {' and '.join(parts)} matches {what}."


@admin.register(MatchSeat)
class MatchSeatAdmin(ReadOnlyAdmin):
    list_display = ("match", "seat", "version", "rank", "score", "fault", "think_ms", "elo_change")
    list_filter = (FaultFilter, MatchGameFilter)
    search_fields = ("version__bot__name",)
    list_select_related = ("match", "version__bot")
    show_full_result_count = False
    paginator = EstimatedCountPaginator
