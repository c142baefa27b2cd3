"""`manage.py tournament create|list|show|cancel`: server tournaments for operators."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena import OptionError, get_game, table_lines
from ladder.models import Bot, BotVersion, Tournament
from ladder.tournament_table import progress, standings, table_rows
from ladder.tournaments import TournamentError, cancel_tournament, create_tournament

EPILOG = """\
A round robin between the bots given: every group of --players bots plays
--games games, seats rotated and seeds mirrored as in `arena tournament`.
Each bot plays the version active when the tournament is created. The
matches are unrated and are played by the workers next to the ladder's.
Details: docs/operations.md, "Tournaments"."""


class Command(BaseCommand):
    help = "Start, list, show and cancel server tournaments."

    def create_parser(self, prog_name: str, subcommand: str, **kwargs) -> CommandParser:
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        parser.epilog = EPILOG
        return parser

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
        create = actions.add_parser("create", help="start a tournament")
        create.add_argument("game", metavar="GAME", help="the game's id (`arena games` lists them)")
        create.add_argument(
            "bots", nargs="+", metavar="BOT", help="a bot's id or its name in that game"
        )
        create.add_argument("--games", type=int, required=True, help="games per group of bots")
        create.add_argument(
            "--players",
            type=int,
            default=None,
            help="seats per game (default: the game's smallest)",
        )
        create.add_argument("--name", default="", help="its name (default: game and bot count)")
        create.add_argument(
            "--seed",
            type=int,
            default=None,
            help="the first game's seed; the next seeds follow it (default: random)",
        )
        create.add_argument(
            "--options",
            default="{}",
            metavar="JSON",
            help="game options as a JSON object, e.g. '{\"step_cap\": 300}': they replace "
            "the ladder's options of the game key by key (default: the ladder's)",
        )
        actions.add_parser("list", help="every tournament, newest first")
        show = actions.add_parser("show", help="a tournament's standings and progress")
        show.add_argument("id", type=int)
        cancel = actions.add_parser("cancel", help="cancel a running tournament's queued matches")
        cancel.add_argument("id", type=int)
        cancel.add_argument(
            "--reason", default="cancelled by an operator", help="why (shown with its matches)"
        )

    def handle(self, *args, **options) -> None:
        getattr(self, f"handle_{options['action']}")(options)

    def handle_create(self, options) -> None:
        try:
            game = get_game(options["game"])
        except OptionError as exc:
            raise CommandError(str(exc)) from None
        try:
            game_options = json.loads(options["options"])
        except json.JSONDecodeError as exc:
            raise CommandError(f"--options is not JSON: {exc}") from None
        if not isinstance(game_options, dict):
            raise CommandError("--options must be a JSON object")
        versions = [self.version_of(game.id, arg) for arg in options["bots"]]
        players = min(game.seat_counts) if options["players"] is None else options["players"]
        name = options["name"] or f"{game.id}: {len(versions)} bots"
        try:
            tournament = create_tournament(
                game=game.id,
                versions=versions,
                games=options["games"],
                players=players,
                name=name,
                seed=options["seed"],
                options=game_options,
            )
        except TournamentError as exc:
            raise CommandError(exc.message) from None
        matches = tournament.matches.count()
        self.stdout.write(
            f"Tournament {tournament.pk} ({tournament.name}): {matches} matches queued, "
            f"seed {tournament.seed}."
        )

    @staticmethod
    def version_of(game: str, arg: str) -> BotVersion:
        """The active version of the bot named by id or by name in `game`."""
        bots = Bot.objects.select_related("active_version")
        bot = bots.filter(pk=int(arg)).first() if arg.isdigit() and len(arg) < 19 else None
        bot = bot or bots.filter(game=game, name=arg).first()
        if bot is None:
            raise CommandError(f"no bot {arg!r}: give a bot's id or its name in {game}")
        if bot.active_version is None:
            raise CommandError(f"bot {bot.name} has no ready version yet")
        return bot.active_version

    def handle_list(self, options) -> None:
        tournaments = list(Tournament.objects.order_by("-created_at", "-id"))
        if not tournaments:
            self.stdout.write("No tournaments yet.")
            return
        for t in tournaments:
            done = progress(t)
            played = done.finished + done.errored
            self.stdout.write(
                f"{t.pk:>5}  {t.status:<9}  {t.game:<16}  {t.players} seats  "
                f"{played}/{done.total} played  {t.created_at:%Y-%m-%d %H:%M}  {t.name}"
            )

    def tournament(self, options) -> Tournament:
        tournament = Tournament.objects.filter(pk=options["id"]).first()
        if tournament is None:
            raise CommandError(f"no tournament {options['id']}")
        return tournament

    def handle_show(self, options) -> None:
        t = self.tournament(options)
        table = standings(t)  # the stored table once the tournament is over
        done = table.progress
        state = t.status if not t.reason else f"{t.status}: {t.reason}"
        self.stdout.write(f"Tournament {t.pk}: {t.name} ({state})")
        self.stdout.write(
            f"{t.game}: {done.finished} games, {t.players} seats, {t.games} games per table, "
            f"first seed {t.seed}"
        )
        if t.options:
            self.stdout.write(f"options: {json.dumps(t.options, sort_keys=True)[:300]}")
        self.stdout.write(
            f"matches: {done.total} — {done.queued} queued, {done.running} running, "
            f"{done.finished} finished, {done.errored} errored (not counted), "
            f"{done.cancelled} cancelled"
        )
        self.stdout.write("\n".join(table_lines(table_rows(table))))

    def handle_cancel(self, options) -> None:
        t = self.tournament(options)
        try:
            cancelled = cancel_tournament(t, options["reason"])
        except TournamentError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(
            f"Tournament {t.pk} cancelled: {cancelled} queued matches cancelled; "
            "matches being played finish and count."
        )
