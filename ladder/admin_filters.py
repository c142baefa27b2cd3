"""Changelist filters that know their values without reading the table: on a
plain text column Django's own filter asks the database for its distinct
values, a full scan of every match or seat at each page view."""

from __future__ import annotations

from django.contrib import admin

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
