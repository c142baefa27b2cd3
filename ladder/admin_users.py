"""The admin's moderation pages: users (deactivating one takes their bots off
the ladder) and deletions refused when they would take results with them."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin.actions import delete_selected
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.db import router, transaction

from ladder.moderation import deletion_refusals, lock_owners, stop_bots_of


def delete_selected_at_once(modeladmin, request, queryset):
    """Django's "delete selected" action in one transaction, as its delete
    page runs: the owners locked while it looks (`KeepsResults`) stay locked
    until their deletion commits."""
    with transaction.atomic(using=router.db_for_write(modeladmin.model)):
        return delete_selected(modeladmin, request, queryset)


class KeepsResults:
    """Deleting a bot, version or user is refused, saying why, when it would
    take matches (other bots' results and rating history) with it: Django's
    own answer, that the superuser lacks permission for the rows the platform
    writes, is true but no help, and it walks every row of a long history
    first (8 s for one busy bot, 33 s for its owner).

    A confirmed deletion (a POST) locks the owners first (`lock_owners`), so
    that an upload on its way either is stored before it looks, and refuses
    it, or waits and finds its bot gone."""

    #: rows that go harmlessly with something that never played: the 0-game
    #: rating of a bot without uploads, a user's refused uploads
    HARMLESS = {"rating", "refused upload"}

    def get_actions(self, request):
        actions = super().get_actions(request)
        if "delete_selected" in actions:
            _, name, description = actions["delete_selected"]
            actions[name] = (delete_selected_at_once, name, description)
        return actions

    def get_deleted_objects(self, objs, request):
        if request.method == "POST":  # in the deletion's transaction: the delete page's, or ours
            lock_owners(objs)
        refusals = deletion_refusals(objs)
        if refusals:
            return [], {}, set(), refusals
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        return deleted, counts, perms_needed - self.HARMLESS, protected


User = get_user_model()
admin.site.unregister(User)


@admin.register(User)
class UserAdmin(KeepsResults, DjangoUserAdmin):
    """Django's user pages. Unticking *active* (or the action) logs the user
    out, stops their API tokens, and takes their bots off the ladder."""

    actions = ["deactivate_users"]

    def save_model(self, request, obj, form, change) -> None:
        super().save_model(request, obj, form, change)
        if not (change and "is_active" in form.changed_data):
            return
        if obj.is_active:
            disabled = obj.bots.filter(enabled=False).count()
            self.message_user(
                request,
                f"{obj.get_username()} is active again; their {disabled} disabled bots stay "
                "disabled until enabled under Bots.",
                messages.WARNING,
            )
        else:
            self.report_stop(request, [obj.pk], obj.get_username())

    @admin.action(description="Deactivate: log out, stop tokens, take bots off the ladder")
    def deactivate_users(self, request, queryset) -> None:
        # never the acting administrator: they would lock themselves out
        ids = list(
            queryset.filter(is_active=True).exclude(pk=request.user.pk).values_list("pk", flat=True)
        )
        User.objects.filter(pk__in=ids).update(is_active=False)
        self.report_stop(request, ids, f"{len(ids)} users")
        if queryset.filter(pk=request.user.pk).exists():
            self.message_user(request, "You cannot deactivate yourself; skipped.", messages.WARNING)

    def report_stop(self, request, user_ids: list[int], who: str) -> None:
        report = stop_bots_of(user_ids)
        self.message_user(
            request,
            f"{who} deactivated: logged out, API tokens refused. {report.bots_disabled} of "
            f"their bots disabled, {report.matches_cancelled} queued matches cancelled "
            f"(running ones finish), {report.versions_rejected} pending uploads rejected.",
        )
