"""Bot names unique per game up to look-alikes, in the database.

Until now names were unique up to capitals and '_' for '-' (0007); from now
on also up to 0/o, 1/l/i, rn/m, vv/w and cl/d (`ladder.models.BOT_NAME_LOOK_ALIKES`),
so that `d0ra-greedy` cannot pass for `dora-greedy`. Bots stored before may
already look alike. Their names are in links, replays and owners' scripts,
so none is renamed: the oldest bot of each look-alike set keeps the set's
key under the constraint, each later one is marked `kept_look_alike` (outside
the constraint until staff rename it) and printed for the operator, who can
judge whether it impersonates the other and rename it in the admin. New
names are held to the rule by `ladder.bots.name_taken` and the constraint.

Going back restores 0007's constraint, which every row still satisfies: a
kept bot differed from the others in more than capitals and '_', and names
given since passed the stricter rule.
"""

from django.db import migrations, models
from django.db.models import Q, Value
from django.db.models.functions import Lower, Replace

#: as `ladder.models.BOT_NAME_LOOK_ALIKES` when this migration was written
LOOK_ALIKES = (
    ("_", "-"),
    ("0", "o"),
    ("1", "l"),
    ("i", "l"),
    ("m", "rn"),
    ("w", "vv"),
    ("d", "cl"),
)


def key(name: str) -> str:
    key = name.lower()
    for look_alike, replacement in LOOK_ALIKES:
        key = key.replace(look_alike, replacement)
    return key


def key_expression():
    expression = Lower("name")
    for look_alike, replacement in LOOK_ALIKES:
        expression = Replace(expression, Value(look_alike), Value(replacement))
    return expression


def keep_look_alikes(apps, schema_editor) -> None:
    Bot = apps.get_model("ladder", "Bot")
    first: dict[tuple[str, str], object] = {}
    for bot in Bot.objects.order_by("pk").select_related("owner"):
        older = first.setdefault((bot.game, key(bot.name)), bot)
        if older is bot:
            continue
        Bot.objects.filter(pk=bot.pk).update(kept_look_alike=True)
        print(
            f"\n  bot {bot.pk} ({bot.game}) {bot.name!r} looks like bot {older.pk} "
            f"{older.name!r}; kept, owner {bot.owner.username!r} "
            f"<{bot.owner.email or 'no e-mail'}>: rename it in the admin if it impersonates"
        )


class Migration(migrations.Migration):
    dependencies = [("ladder", "0010_gamefit_seconds")]

    operations = [
        migrations.AddField(
            model_name="bot",
            name="kept_look_alike",
            field=models.BooleanField(
                default=False,
                help_text="Its name looks like an older bot's of the game (0 for o, 1 for l, "
                "...) and was kept when such names became unique; renaming it ends that.",
            ),
        ),
        migrations.RunPython(keep_look_alikes, migrations.RunPython.noop),
        migrations.RemoveConstraint(model_name="bot", name="bot_name_key_per_game"),
        migrations.AddConstraint(
            model_name="bot",
            constraint=models.UniqueConstraint(
                models.F("game"),
                key_expression(),
                condition=Q(kept_look_alike=False),
                name="bot_look_alike_per_game",
            ),
        ),
    ]
