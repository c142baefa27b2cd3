"""Bot names unique per game up to their separators too.

0011's key let `dora-greedy-` (a separator at the end, hardly seen) and
`dora--greedy` or `dora_-greedy` (a run that reads as one) pass for
`dora-greedy`. The key now folds each run of separators to one and drops one
at the end (`ladder.models.SEPARATOR_PASSES`). As in 0011 nothing is renamed:
of the bots that look alike only under the new key, the oldest stays under
the constraint and each later one is marked `kept_look_alike` and printed for
the operator. Bots 0011 kept stay kept.

Going back restores 0011's constraint, which every row still satisfies: two
bots with one 0011 key have one key here too, so at most one of them was
left unmarked.
"""

from django.db import migrations, models
from django.db.models import Func, Q, Value
from django.db.models.functions import Lower, Replace

#: as `ladder.models.BOT_NAME_LOOK_ALIKES` and `SEPARATOR_PASSES` when this
#: migration was written
LOOK_ALIKES = (
    ("_", "-"),
    ("0", "o"),
    ("1", "l"),
    ("i", "l"),
    ("m", "rn"),
    ("w", "vv"),
    ("d", "cl"),
)
SEPARATOR_PASSES = 6


def key(name: str) -> str:
    key = name.lower()
    for look_alike, replacement in LOOK_ALIKES:
        key = key.replace(look_alike, replacement)
    for _ in range(SEPARATOR_PASSES):
        key = key.replace("--", "-")
    return key.rstrip("-")


def key_expression() -> Func:
    expression = Lower("name")
    for look_alike, replacement in LOOK_ALIKES:
        expression = Replace(expression, Value(look_alike), Value(replacement))
    for _ in range(SEPARATOR_PASSES):
        expression = Replace(expression, Value("--"), Value("-"))
    return Func(expression, Value("-"), function="RTRIM", output_field=models.CharField())


def keep_look_alikes(apps, schema_editor) -> None:
    Bot = apps.get_model("ladder", "Bot")
    first: dict[tuple[str, str], object] = {}
    unmarked = Bot.objects.filter(kept_look_alike=False).order_by("pk").select_related("owner")
    for bot in unmarked:
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
    dependencies = [("ladder", "0012_beats")]

    operations = [
        migrations.RunPython(keep_look_alikes, migrations.RunPython.noop),
        migrations.RemoveConstraint(model_name="bot", name="bot_look_alike_per_game"),
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
