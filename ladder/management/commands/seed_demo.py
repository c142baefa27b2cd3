"""Demo users and the example bots of both games, so a fresh ladder plays at once."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from arena import BotNotFound, all_games
from ladder.bots import install_builtin

#: (demo user, example bot) — each user enters the example bot in every game it exists for
DEMO = [
    ("ada", "random"),
    ("blaise", "greedy"),
    ("carl", "search"),
    ("dora", "greedy"),
    ("emmy", "random"),
]


class Command(BaseCommand):
    help = (
        "Create the demo users ada, blaise, carl, dora and emmy with the example bots of "
        "both games (random, greedy, search). Safe to run again: existing bots get a new "
        "version only when the example's code changed."
    )

    def handle(self, *args, **options) -> None:
        User = get_user_model()
        for username, example in DEMO:
            user, created = User.objects.get_or_create(
                username=username, defaults={"email": f"{username}@demo.invalid"}
            )
            if created:
                user.set_unusable_password()
                user.save(update_fields=["password"])
            for game in all_games():
                name = f"{username}-{example}"
                try:
                    bot = install_builtin(game.id, example, owner=user, bot_name=name)
                except BotNotFound:
                    continue
                version = bot.active_version
                self.stdout.write(f"{game.id}: {name} (v{version.number if version else '?'})")
        for game in all_games():
            install_builtin(game.id, "random")  # the validation opponent
        self.stdout.write(self.style.SUCCESS("Demo bots are ready."))
