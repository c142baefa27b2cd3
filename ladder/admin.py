"""The operator's admin: every model, with the actions operators need."""

from __future__ import annotations

import json

from django import forms
from django.contrib import admin, messages
from django.db import transaction
from django.forms.fields import InvalidJSONInput
from django.utils import timezone

from ladder import (
    admin_matches,  # noqa: F401 (registers the match and seat admins)
    admin_tournaments,  # noqa: F401 (registers the tournament admin)
)
from ladder.admin_filters import BotGameFilter, EstimatedCountPaginator, GameFilter, ReadOnlyAdmin
from ladder.admin_users import KeepsResults  # and the user admin (deactivating a user)
from ladder.bots import NameTakenError, name_taken, rename_bot
from ladder.game_options import clean_ladder_options
from ladder.models import (
    ApiToken,
    AuthAttempt,
    Bot,
    BotVersion,
    ChoreRun,
    Counter,
    GameFit,
    LadderSettings,
    LiveStep,
    MailSettings,
    Match,
    Rating,
    RatingHistory,
    RefusedUpload,
    SeenBeat,
    WorkerHeartbeat,
)
from ladder.results import cancel_queued_matches_of
from ladder.throttle import AdminSignInForm

#: the admin's own sign-in page is limited like the site's (ladder/throttle.py)
admin.site.login_form = AdminSignInForm


@admin.register(WorkerHeartbeat)
class WorkerHeartbeatAdmin(admin.ModelAdmin):
    """Workers write their own rows; a dead worker's row may be deleted."""

    list_display = ("hostname", "sandbox_backend", "last_seen", "started_at")
    readonly_fields = [f.name for f in WorkerHeartbeat._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False  # a made-up worker would count as alive and deepen the queue


class IndentedJSON(json.JSONEncoder):
    """Shows a stored JSON value over several lines in its text box."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs["indent"] = 2
        super().__init__(*args, **kwargs)


class GameOptionsField(forms.JSONField):
    """Django's JSON form field, with JSON nested too deeply for Python's
    decoder (RecursionError) as a form error instead of a 500."""

    def to_python(self, value):
        try:
            return super().to_python(value)
        except RecursionError:
            raise forms.ValidationError("This JSON nests too deeply.", code="invalid") from None

    def bound_data(self, data, initial):
        try:
            return super().bound_data(data, initial)
        except RecursionError:
            return InvalidJSONInput(data)


class LadderSettingsForm(forms.ModelForm):
    class Meta:
        model = LadderSettings
        fields = "__all__"
        field_classes = {"game_options": GameOptionsField}

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["game_options"].encoder = IndentedJSON

    def clean_game_options(self) -> dict:
        # Checked like a challenge's options, for every seat count; what is
        # stored is the clean value without the defaults.
        try:
            return clean_ladder_options(self.cleaned_data["game_options"])
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from None


@admin.register(LadderSettings)
class LadderSettingsAdmin(admin.ModelAdmin):
    form = LadderSettingsForm
    list_display = ("__str__", "paused", "instance", "updated_at")
    readonly_fields = ("instance", "updated_at")
    actions = ["pause_ladder", "resume_ladder"]

    @admin.action(description="Pause the ladder (no new ladder matches)")
    def pause_ladder(self, request, queryset) -> None:
        queryset.update(paused=True, updated_at=timezone.now())  # update() skips auto_now
        self.message_user(request, "The ladder is paused.")

    @admin.action(description="Resume the ladder")
    def resume_ladder(self, request, queryset) -> None:
        queryset.update(paused=False, updated_at=timezone.now())
        self.message_user(request, "The ladder is running.")

    def has_add_permission(self, request) -> bool:
        return not LadderSettings.objects.exists()

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # its instance id labels this platform's sandboxes


class VersionInline(admin.TabularInline):
    model = BotVersion
    extra = 0
    fields = ("number", "status", "reject_reason", "sha256", "size_bytes", "created_at")
    readonly_fields = fields
    can_delete = False
    show_change_link = True


class BotAdminForm(forms.ModelForm):
    #: why the name was refused when it was saved, though it passed this
    #: check (a look-alike was stored in between): `BotAdmin.changeform_view`
    #: shows the form again with it
    name_lost_race = ""

    class Meta:
        model = Bot
        fields = "__all__"

    def clean_name(self) -> str:
        # game is read-only here, so Django's own (game, name) check is skipped
        name = self.cleaned_data["name"]
        if name == self.instance.name:
            # unchanged: a name kept by migration 0011 looks like an older
            # bot's, and staff must still be able to edit the rest of its bot
            return name
        taken = self.name_lost_race or name_taken(
            self.instance.game, name, exclude_pk=self.instance.pk
        )
        if taken:
            raise forms.ValidationError(taken)
        return name

    def clean_enabled(self) -> bool:
        enabled = self.cleaned_data["enabled"]
        if enabled and not self.instance.enabled and not self.instance.owner.is_active:
            raise forms.ValidationError(
                f"{self.instance.owner} is deactivated: reactivate them under Users first."
            )
        return enabled


#: a disabled bot plays no queued ladder match, nor a challenge asked for
#: before (a new challenge refuses a disabled bot); validation matches of its
#: uploads still play, so that a version is decided whatever staff do
STOPPED_BY_DISABLING = (Match.Kind.LADDER, Match.Kind.CHALLENGE, Match.Kind.TOURNAMENT)
DISABLED = "not played: a bot was disabled"


@admin.register(Bot)
class BotAdmin(KeepsResults, admin.ModelAdmin):
    form = BotAdminForm
    list_display = (
        "name",
        "game",
        "owner",
        "enabled",
        "withdrawn",
        "paused_reason",
        "active_version",
        "last_played_at",
    )
    list_filter = (GameFilter, "enabled", "withdrawn", "is_builtin", "kept_look_alike")
    list_select_related = ("owner", "active_version__bot")
    search_fields = ("name", "owner__username")
    inlines = [VersionInline]
    actions = ["disable_bots", "enable_bots"]
    # Kept by the ladder itself; changing the owner or game would orphan ratings.
    # `withdrawn` is the owner's switch (their bot page); staff use `enabled`.
    readonly_fields = (
        "owner",
        "game",
        "withdrawn",
        "is_builtin",
        "kept_look_alike",
        "created_at",
        "last_played_at",
        "consecutive_faults",
    )

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except NameTakenError as lost:
            # The new name passed `clean_name`, then a look-alike was stored
            # before the rename: the whole save was rolled back, and the same
            # form comes back with what the operator typed and the name's error.
            request.bot_name_lost_race = str(lost)
            return super().changeform_view(request, object_id, form_url, extra_context)

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        lost = getattr(request, "bot_name_lost_race", "")
        if lost:
            form = type(form.__name__, (form,), {"name_lost_race": lost})
        if "active_version" in form.base_fields:
            # only this bot's accepted versions can be made active
            form.base_fields["active_version"].queryset = BotVersion.objects.filter(
                bot=obj, status=BotVersion.Status.READY
            )
        return form

    def has_add_permission(self, request) -> bool:
        return False  # bots are created by their owners' uploads

    def save_model(self, request, obj, form, change) -> None:
        # Write only what the operator changed: a full save of a form opened
        # minutes ago would overwrite what workers recorded meanwhile.
        if change:
            fields = list(form.changed_data)
            if "name" in fields:
                # held to the look-alike rule by the database's constraint too;
                # NameTakenError if a look-alike was stored since `clean_name`
                rename_bot(obj, obj.name)
                fields.remove("name")
            if fields:
                obj.save(update_fields=fields)
            if "enabled" in form.changed_data and not obj.enabled:
                # as the disable action: a disabled bot plays none of its queued matches
                n = cancel_queued_matches_of([obj.pk], DISABLED, STOPPED_BY_DISABLING)
                if n:
                    self.message_user(
                        request,
                        f"{n} of its queued ladder, challenge and tournament matches cancelled.",
                    )
        else:
            obj.save()

    @admin.action(description="Disable: stop scheduling these bots")
    def disable_bots(self, request, queryset) -> None:
        with transaction.atomic():
            ids = list(queryset.values_list("pk", flat=True))
            n = Bot.objects.filter(pk__in=ids, enabled=True).update(enabled=False)
            cancelled = cancel_queued_matches_of(ids, DISABLED, STOPPED_BY_DISABLING)
        note = ""
        if cancelled:
            note = (
                f" {cancelled} of their queued ladder, challenge and tournament matches cancelled."
            )
        skipped = f" {len(ids) - n} were disabled already." if len(ids) > n else ""
        self.message_user(request, f"{n} bots disabled.{note}{skipped}")

    @admin.action(description="Enable (and clear a fault pause)")
    def enable_bots(self, request, queryset) -> None:
        ids = list(queryset.values_list("pk", flat=True))
        # a deactivated user's bots stay out (the scheduler skips them anyway)
        n = Bot.objects.filter(pk__in=ids, owner__is_active=True).update(
            enabled=True, paused_reason="", consecutive_faults=0
        )
        skipped = (
            f" {len(ids) - n} skipped: their owner's account is deactivated "
            "(reactivate it under Users first)."
            if len(ids) > n
            else ""
        )
        level = messages.WARNING if skipped else messages.INFO
        self.message_user(request, f"{n} bots enabled.{skipped}", level)


@admin.register(BotVersion)
class BotVersionAdmin(KeepsResults, admin.ModelAdmin):
    """Versions come from uploads; one no match refers to may be deleted."""

    list_display = ("__str__", "status", "created_at", "decided_at")
    list_filter = ("status", BotGameFilter)
    list_select_related = ("bot",)
    search_fields = ("bot__name",)
    readonly_fields = [f.name for f in BotVersion._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin):
    """Kept by results and recompute_ratings; a row deleted by hand broke its bot."""

    list_display = (
        "bot",
        "elo",
        "elo_games",
        "fitted",
        "fitted_low",
        "fitted_high",
        "provisional",
        "fitted_rank",
    )
    list_filter = (BotGameFilter, "provisional")


@admin.register(RatingHistory)
class RatingHistoryAdmin(ReadOnlyAdmin):
    """Append-only."""

    list_display = ("seq", "bot", "match", "elo_before", "elo_after", "created_at")
    # newest first by the primary key: the model's order (seq) has no index
    # of its own, and sorting 840,000 rows for a page took 4.7 s
    ordering = ("-pk",)
    show_full_result_count = False
    paginator = EstimatedCountPaginator


@admin.register(GameFit)
class GameFitAdmin(ReadOnlyAdmin):
    list_display = ("game", "matches", "first_seat_advantage", "fitted_at")


@admin.register(Counter)
class CounterAdmin(ReadOnlyAdmin):
    """Monotonic numbers (rating order, pairing groups): changing one by hand
    would reorder history, so they are read-only here."""

    list_display = ("name", "value")


@admin.register(SeenBeat)
class SeenBeatAdmin(ReadOnlyAdmin):
    """Written as the beats' chores arrive (ladder.beats); two at once are
    named on /status/."""

    list_display = ("identity", "first_seen", "last_seen")


@admin.register(ChoreRun)
class ChoreRunAdmin(ReadOnlyAdmin):
    """Which beat ran each chore last: another beat's tick within the
    chore's interval does nothing (ladder.beats)."""

    list_display = ("chore", "beat", "last_run_at")


@admin.register(LiveStep)
class LiveStepAdmin(ReadOnlyAdmin):
    list_display = ("match", "step")
    list_select_related = ("match",)


@admin.register(RefusedUpload)
class RefusedUploadAdmin(ReadOnlyAdmin):
    """When a user's uploads were refused by the checks (they count towards
    the hourly upload limit); nothing of the files is kept."""

    list_display = ("owner", "created_at")
    list_select_related = ("owner",)


@admin.register(AuthAttempt)
class AuthAttemptAdmin(ReadOnlyAdmin):
    """Failed sign-ins and sign-ups, counted against the limits per address
    (ladder/throttle.py) and pruned once no limit counts them. Deleting rows
    lets that address sign in (or up) again at once."""

    list_display = ("kind", "account", "address", "at")
    list_filter = ("kind",)
    search_fields = ("account", "address")
    date_hierarchy = "at"

    def has_delete_permission(self, request, obj=None) -> bool:
        return True


@admin.register(MailSettings)
class MailSettingsAdmin(ReadOnlyAdmin):
    """What users asked to be mailed about (their email page sets it)."""

    list_display = ("user", "bot_news")
    list_filter = ("bot_news",)
    list_select_related = ("user",)
    search_fields = ("user__username",)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Tokens are made by their owners (the token is shown once); the admin
    can only look and revoke."""

    list_display = ("name", "user", "prefix", "created_at", "last_used_at", "revoked_at")
    list_filter = ("revoked_at",)
    search_fields = ("name", "user__username", "prefix")
    readonly_fields = [f.name for f in ApiToken._meta.fields]
    actions = ["revoke_tokens"]

    @admin.action(description="Revoke (the token stops working at once)")
    def revoke_tokens(self, request, queryset) -> None:
        n = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        self.message_user(request, f"{n} tokens revoked.")

    def has_add_permission(self, request) -> bool:
        return False
