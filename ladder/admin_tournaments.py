"""The operator's admin of server tournaments: the add form starts one
(through `ladder.tournaments.create_tournament`, whose rules it shows as the
form's errors); once created it is read-only, with its entries, progress
and standings; the *cancel* action stops one. Registered by importing this
module (ladder/admin.py does)."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.utils.html import format_html, format_html_join

from arena import all_games
from ladder.admin_filters import GameFilter, ReadOnlyAdmin
from ladder.models import Bot, Tournament, TournamentEntry
from ladder.tournament_table import progress, standings
from ladder.tournaments import TournamentError, cancel_tournament, create_tournament


class BotChoice(forms.ModelMultipleChoiceField):
    def label_from_instance(self, obj: Bot) -> str:
        return f"{obj.name} ({obj.game}, v{obj.active_version.number}, id {obj.pk})"


class TournamentAddForm(forms.ModelForm):
    """What an operator chooses; the bots' active versions are pinned."""

    #: the operator, set by `TournamentAdmin.get_form`
    user = None

    bots = BotChoice(
        queryset=Bot.objects.filter(
            enabled=True, active_version__isnull=False, owner__is_active=True
        )
        .select_related("active_version")
        .order_by("game", "name"),
        help_text="Enabled bots with a ready version; each plays its active version.",
    )
    seed = forms.IntegerField(
        required=False,
        min_value=0,
        help_text="The first game's seed; the next ones follow it. Empty: random.",
    )
    options = forms.JSONField(
        required=False,
        initial=dict,
        help_text="Game options as a JSON object; they replace the ladder's key by key "
        "(empty: the ladder's rules).",
    )

    class Meta:
        model = Tournament
        fields = ("name", "game", "bots", "players", "games", "seed", "options")
        help_texts = {
            "players": "Seats per match: 2 for Splendor Duel, 3 to 5 for Edel, Stein & Reich.",
            "games": "Games per group of bots (a multiple of the players seats everyone "
            "in every seat equally).",
        }

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["game"] = forms.ChoiceField(choices=[(g.id, g.name) for g in all_games()])
        self.created: Tournament | None = None

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        try:
            # the admin's view is one transaction: a later failure undoes this too
            self.created = create_tournament(
                game=data["game"],
                versions=[b.active_version for b in data["bots"]],
                games=data["games"],
                players=data["players"],
                name=data["name"],
                seed=data.get("seed"),
                options=data.get("options") or {},
                created_by=self.user,
            )
        except TournamentError as exc:
            raise forms.ValidationError(exc.message) from None
        return data


class EntryInline(admin.TabularInline):
    model = TournamentEntry
    extra = 0
    fields = ("position", "label", "version")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(TournamentEntry)
class TournamentEntryAdmin(ReadOnlyAdmin):
    """Written with their tournament; shown on its page too."""

    list_display = ("tournament", "position", "label", "version")
    list_select_related = ("tournament", "version__bot")
    search_fields = ("label",)


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ("pk", "name", "game", "players", "status", "played", "created_at")
    list_filter = ("status", GameFilter)
    search_fields = ("name",)
    actions = ["cancel"]
    inlines = [EntryInline]

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is None:  # the operator is stored as its creator
            kwargs["form"] = type("AddForm", (TournamentAddForm,), {"user": request.user})
        return super().get_form(request, obj, change, **kwargs)

    def get_fields(self, request, obj=None):
        if obj is None:
            return TournamentAddForm.Meta.fields
        return (
            "name",
            "game",
            "players",
            "games",
            "seed",
            "options",
            "status",
            "reason",
            "created_by",
            "created_at",
            "finished_at",
            "progress",
            "table",
        )

    def get_readonly_fields(self, request, obj=None):
        return () if obj is None else self.get_fields(request, obj)

    def get_inlines(self, request, obj):
        return self.inlines if obj is not None else []

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # its matches are records; cancel it instead

    def save_form(self, request, form, change):
        if change:
            return super().save_form(request, form, change)
        return form.created  # stored by the form's clean

    def save_model(self, request, obj, form, change) -> None:
        pass  # added by create_tournament; a tournament is never changed

    def save_related(self, request, form, formsets, change) -> None:
        pass

    @admin.display(description="played")
    def played(self, obj: Tournament) -> str:
        done = progress(obj)
        return f"{done.finished + done.errored}/{done.total}"

    @admin.display(description="progress")
    def progress(self, obj: Tournament) -> str:
        done = progress(obj)
        return (
            f"{done.total} matches: {done.queued} queued, {done.running} running, "
            f"{done.finished} finished, {done.errored} errored (not counted), "
            f"{done.cancelled} cancelled"
        )

    @admin.display(description="standings")
    def table(self, obj: Tournament) -> str:
        rows = standings(obj).rows

        def cells(row):
            if row.elo is None:
                return (row.label, row.games, "—", "—", "—", row.faults, "—")
            return (
                row.label,
                row.games,
                f"{row.win_rate:.1%}",
                f"{row.first_alone:.1%} ({row.first_low:.1%}–{row.first_high:.1%})",
                f"{row.avg_rank:.2f}",
                row.faults,
                f"{row.elo:.0f} ({row.elo_low:.0f}–{row.elo_high:.0f})",
            )

        head = ("bot", "games", "win rate", "1st alone (95% CI)", "avg rank", "faults", "Elo (95%)")
        return format_html(
            "<table><thead><tr>{}</tr></thead><tbody>{}</tbody></table>",
            format_html_join("", "<th>{}</th>", ((h,) for h in head)),
            format_html_join(
                "",
                "<tr>{}</tr>",
                ((format_html_join("", "<td>{}</td>", ((c,) for c in cells(r))),) for r in rows),
            ),
        )

    @admin.action(description="Cancel: its queued matches are not played")
    def cancel(self, request, queryset) -> None:
        cancelled = skipped = matches = 0
        for tournament in queryset:
            try:
                matches += cancel_tournament(tournament, "cancelled by an administrator")
                cancelled += 1
            except TournamentError:
                skipped += 1
        note = f" {skipped} were not running." if skipped else ""
        self.message_user(
            request,
            f"{cancelled} tournaments cancelled, {matches} queued matches with them.{note}",
            messages.WARNING if skipped else messages.INFO,
        )
