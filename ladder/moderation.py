"""What a moderator's clicks do beyond one row: a deactivated user's bots stop
playing, and a deletion that would take results with it is refused.

The admin (`ladder.admin`, `ladder.admin_users`) calls these; they hold the
rules so that the pages only report them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Model

from ladder.models import Bot, BotVersion, Match, MatchSeat
from ladder.results import cancel_queued_matches

#: what a user (and their bots' owners) are told about a match cancelled this way
DEACTIVATED = "not played: a bot's owner was deactivated"


@dataclass
class StopReport:
    bots_disabled: int
    matches_cancelled: int
    versions_rejected: int


def stop_bots_of(user_ids: Iterable[int]) -> StopReport:
    """The bots of deactivated users leave the ladder: they are disabled, and
    every queued match one of them sits in (ladder, validation, challenge) is
    cancelled, unrated; a pending upload waiting for such a match is rejected.
    Running matches finish and count, like any match already started."""
    user_ids = list(user_ids)
    with transaction.atomic():
        bots = Bot.objects.filter(owner_id__in=user_ids)
        disabled = bots.filter(enabled=True).update(enabled=False)
        queued = (
            Match.objects.filter(status=Match.Status.QUEUED, seats__version__bot__in=bots)
            .values_list("pk", flat=True)
            .distinct()
        )
        cancelled, rejected = cancel_queued_matches(
            list(queued), DEACTIVATED, "was cancelled: its owner's account was deactivated"
        )
    return StopReport(disabled, cancelled, rejected)


def lock_owners(objs: Iterable[Model]) -> None:
    """Lock the users whose bots, versions or selves `objs` are (in pk order),
    in the transaction of their deletion, before `deletion_refusals` looks:
    the first lock in the order `ladder.models.lock_user` gives. Django's
    delete removes a user's bots, then the user's row; an upload locks the
    owner, then the bot: the opposite order, a deadlock when they met. Now
    the one that has the owner first goes first: an upload stored while the
    deletion waited is seen and the deletion refused, and an upload that
    waited for the deletion finds its bot gone (`ladder.bots.Gone`)."""
    owners, bots = set(), set()
    for obj in objs:
        if isinstance(obj, BotVersion):
            bots.add(obj.bot_id)
        elif isinstance(obj, Bot):
            owners.add(obj.owner_id)
        else:  # a user
            owners.add(obj.pk)
    owners.update(Bot.objects.filter(pk__in=bots).values_list("owner_id", flat=True))
    locked = get_user_model().objects.select_for_update().filter(pk__in=owners).order_by("pk")
    list(locked.values_list("pk", flat=True))


def deletion_refusals(objs: Iterable[Model]) -> list[str]:
    """Why deleting these bots, versions or users would lose what the ladder
    keeps on record; empty when they may go.

    Uploads stay: a version's matches are other bots' results and rating
    history too, so a bot or user with any upload is disabled or deactivated
    instead (the rule `ladder.bots.delete_empty_bot` applies to owners). Only
    the names of the first few are given, so that refusing costs a query or
    two however long the history (Django's own check walks every row)."""
    reasons = []
    for obj in objs:
        if isinstance(obj, BotVersion):
            seats = MatchSeat.objects.filter(version=obj)
            advice = "a version that sat in a match cannot be deleted; disable its bot instead"
            refused = seats.exists()
        else:
            if isinstance(obj, Bot):
                uploads = BotVersion.objects.filter(bot=obj)
                advice = "a bot with uploads cannot be deleted; disable it instead"
            else:  # a user
                uploads = BotVersion.objects.filter(bot__owner=obj)
                advice = "a user with uploads cannot be deleted; deactivate them instead"
            seats = MatchSeat.objects.filter(version__in=uploads)
            refused = uploads.exists()
        if not refused:
            continue
        played = seats.values("match").distinct().count()
        reasons.append(
            f"{obj}: in {played} matches, whose results and rating history are other "
            f"bots' too — {advice}"
        )
        if len(reasons) == 10:
            reasons.append("… and perhaps more: nothing with uploads can be deleted")
            break
    return reasons
