import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("ladder", "0011_bot_look_alike_key"),
    ]

    operations = [
        migrations.CreateModel(
            name="ChoreRun",
            fields=[
                ("chore", models.CharField(max_length=100, primary_key=True, serialize=False)),
                ("beat", models.CharField(blank=True, max_length=200)),
                ("last_run_at", models.DateTimeField(blank=True, null=True)),
            ],
        ),
        migrations.CreateModel(
            name="SeenBeat",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("identity", models.CharField(max_length=200, unique=True)),
                ("first_seen", models.DateTimeField(default=django.utils.timezone.now)),
                ("last_seen", models.DateTimeField(default=django.utils.timezone.now)),
            ],
            options={
                "ordering": ["first_seen"],
            },
        ),
    ]
