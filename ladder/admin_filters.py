"""The admin's building blocks: `ReadOnlyAdmin` for rows the platform writes,
and changelists that do not read a whole table at each view: filters that know
their values (on a plain text column Django's own filter asks the database
for its distinct values, a full scan of every match or seat), and a
paginator that estimates the total of a big unfiltered list."""

from __future__ import annotations

from django.contrib import admin
from django.core.paginator import Paginator
from django.db import connection
from django.utils.functional import cached_property

from arena import FaultKind, all_games


class GameFilter(admin.SimpleListFilter):
    """The games from the registry: Django's own filter on a plain text field
    reads every row for its distinct values (200 ms on 300,000 matches)."""

    title = "game"
    parameter_name = "game"
    field = "game"

    def lookups(self, request, model_admin):
        return [(g.id, g.id) for g in all_games()]

    def queryset(self, request, queryset):
        value = self.value()
        return queryset.filter(**{self.field: value}) if value else queryset


class MatchGameFilter(GameFilter):
    field = "match__game"


class BotGameFilter(GameFilter):
    field = "bot__game"


class FaultFilter(admin.SimpleListFilter):
    """The fault kinds the runner records, without reading every seat for them."""

    title = "fault"
    parameter_name = "fault"

    def lookups(self, request, model_admin):
        return [("none", "no fault")] + [(k.value, k.value) for k in FaultKind]

    def queryset(self, request, queryset):
        value = self.value()
        if value is None:
            return queryset
        return queryset.filter(fault="" if value == "none" else value)


class EstimatedCountPaginator(Paginator):
    """An unfiltered list of a big table counts with PostgreSQL's estimate
    (pg_class.reltuples, kept by autovacuum) instead of COUNT(*), which reads
    the whole table at every page view; filtered lists and small tables, and
    other databases, count exactly."""

    #: below this many rows (by the estimate) the exact count is cheap enough
    ESTIMATE_ABOVE = 100_000

    @cached_property
    def count(self) -> int:
        queryset = self.object_list
        if connection.vendor == "postgresql" and not queryset.query.where:
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT reltuples::bigint FROM pg_class WHERE oid = %s::regclass",
                    [queryset.model._meta.db_table],
                )
                row = cursor.fetchone()
            if row and row[0] > self.ESTIMATE_ABOVE:
                return int(row[0])
        return super().count


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows the platform writes itself: to look at, never to edit by hand."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
