from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("ladder", "0008_match_newest_first_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="bot",
            name="withdrawn",
            field=models.BooleanField(
                default=False,
                help_text="Its owner took it off the ladder (their switch, on the bot's page); "
                "staff use Enabled.",
            ),
        ),
    ]
