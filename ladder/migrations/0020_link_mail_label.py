from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("ladder", "0019_match_first_mover"),
    ]

    operations = [
        migrations.AlterField(
            model_name="authattempt",
            name="kind",
            field=models.CharField(
                choices=[
                    ("login-failure", "failed sign-in"),
                    ("signup", "sign-up"),
                    ("password-reset", "link mail asked (password reset or new address)"),
                ],
                max_length=16,
            ),
        ),
    ]
