from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("ladder", "0009_bot_withdrawn"),
    ]

    operations = [
        migrations.AddField(
            model_name="gamefit",
            name="seconds",
            field=models.FloatField(blank=True, null=True),
        ),
    ]
