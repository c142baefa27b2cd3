"""Bot names unique per game up to capitals and '_' for '-', in the database.

Until now only `ladder.bots.name_taken` kept look-alikes apart, so two uploads
at the same moment could both pass it, and older databases may hold bots
that differ only in capitals. Before the constraint is added, each such later
bot is renamed with a number (`Sd_Greedy` → `Sd_Greedy-2`); the first keeps
its name. The migration prints every rename so that the operator can tell
the owners.
"""

from django.db import migrations, models
from django.db.models import Value
from django.db.models.functions import Lower, Replace


def key(name: str) -> str:
    return name.lower().replace("_", "-")


def rename_look_alikes(apps, schema_editor) -> None:
    Bot = apps.get_model("ladder", "Bot")
    keyed = Bot.objects.annotate(name_key=Lower(Replace("name", Value("_"), Value("-"))))
    taken: dict[str, set[str]] = {}
    for bot in Bot.objects.order_by("pk").select_related("owner"):
        keys = taken.setdefault(bot.game, set())
        if key(bot.name) not in keys:
            keys.add(key(bot.name))
            continue
        number = 2
        while True:
            suffix = f"-{number}"
            name = bot.name[: 40 - len(suffix)] + suffix
            # free among the bots seen so far and those still to come
            if (
                key(name) not in keys
                and not keyed.filter(game=bot.game, name_key=key(name)).exists()
            ):
                break
            number += 1
        print(
            f"\n  bot {bot.pk} ({bot.game}) {bot.name!r} renamed {name!r}: it looked like another "
            f"bot's name; owner {bot.owner.username!r} <{bot.owner.email or 'no e-mail'}>"
        )
        Bot.objects.filter(pk=bot.pk).update(name=name)
        keys.add(key(name))


class Migration(migrations.Migration):
    dependencies = [("ladder", "0006_refused_upload")]

    operations = [
        migrations.RunPython(rename_look_alikes, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="bot",
            constraint=models.UniqueConstraint(
                models.F("game"),
                Lower(Replace("name", Value("_"), Value("-"))),
                name="bot_name_key_per_game",
            ),
        ),
    ]
