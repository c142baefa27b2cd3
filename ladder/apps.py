from django.apps import AppConfig
from django.db.models.signals import post_delete, pre_delete


class LadderConfig(AppConfig):
    name = "ladder"
    verbose_name = "Gem Arena ladder"

    def ready(self) -> None:
        from ladder import bots

        # bots leaving shared look-alike sets take turns, or two deletions at
        # once may each wait for the other's rows (`bots.take_look_alike_turn`)
        pre_delete.connect(bots.bot_deleting, sender=bots.Bot, dispatch_uid="ladder.bot_deleting")
        # a deleted bot may have held its look-alike set in the database's
        # constraint (migrations get no signal: `bots.anchor_every_look_alike_set`)
        post_delete.connect(bots.bot_deleted, sender=bots.Bot, dispatch_uid="ladder.bot_deleted")
