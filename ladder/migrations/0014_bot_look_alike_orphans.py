"""Every look-alike set of bot names held by the database's constraint again.

0011 and 0013 left the oldest bot of each set of look-alikes under the
constraint and marked the later ones `kept_look_alike`, outside it. Until
now, deleting that oldest bot (one without uploads) or renaming it left only
kept bots in its set: `ladder.bots.name_taken` still refused a new look-alike,
but the constraint held nothing, so two uploads at the same moment could
both store one. Such bots are now replaced as they leave
(`ladder.bots.anchor_look_alikes`); this migration does it for the sets that
lost theirs before: the oldest kept bot of a set without an unmarked one
loses its mark. No name changes.

Going back changes nothing: the rows satisfy 0013's constraint (one unmarked
bot per set at most) and so 0011's.
"""

from django.db import migrations

#: as `ladder.models.BOT_NAME_LOOK_ALIKES` and `SEPARATOR_PASSES` when this
#: migration was written (0013's key)
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


def anchor_orphaned_sets(apps, schema_editor) -> None:
    Bot = apps.get_model("ladder", "Bot")
    sets: dict[tuple[str, str], list] = {}
    for pk, game, name, kept in Bot.objects.order_by("pk").values_list(
        "pk", "game", "name", "kept_look_alike"
    ):
        sets.setdefault((game, key(name)), []).append((pk, name, kept))
    for (game, _), bots in sets.items():
        if all(kept for _, _, kept in bots):
            pk, name, _ = bots[0]
            Bot.objects.filter(pk=pk).update(kept_look_alike=False)
            print(f"\n  bot {pk} ({game}) {name!r}: the oldest of its look-alikes, unmarked")


class Migration(migrations.Migration):
    dependencies = [("ladder", "0013_bot_look_alike_separators")]

    operations = [migrations.RunPython(anchor_orphaned_sets, migrations.RunPython.noop)]
