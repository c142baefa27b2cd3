"""Match.first_mover: the seat that made the first move, for the fit's
first-move term. Finished matches get it from their seed and options, the
way the engine set the game up (Splendor Duel's `first_seat: random` draws
it from the seed)."""

from django.db import migrations, models

from arena import EngineError, get_game


def first_mover(game: str, seats: int, seed: int, options) -> int | None:
    try:
        return get_game(game).first_to_act(seats, seed, options)
    except (EngineError, KeyError, ValueError, TypeError):
        return None  # a game or option this version no longer knows


def fill_first_movers(apps, schema_editor) -> None:
    Match = apps.get_model("ladder", "Match")
    rows = (
        Match.objects.filter(status="finished")
        .only("id", "game", "seat_count", "seed", "options")
        .order_by("id")
    )
    batch = []
    for match in rows.iterator(chunk_size=2000):
        match.first_mover = first_mover(match.game, match.seat_count, match.seed, match.options)
        if match.first_mover is not None:
            batch.append(match)
        if len(batch) >= 2000:
            Match.objects.bulk_update(batch, ["first_mover"])
            batch = []
    Match.objects.bulk_update(batch, ["first_mover"])


class Migration(migrations.Migration):
    dependencies = [
        ("ladder", "0018_mail_settings"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="first_mover",
            field=models.PositiveSmallIntegerField(blank=True, null=True),
        ),
        migrations.RunPython(fill_first_movers, migrations.RunPython.noop),
    ]
