"""Rebuild every rating from the stored results."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from arena import all_games
from ladder.leaderboard import recompute_elo, refit


class Command(BaseCommand):
    help = (
        "Replay the incremental Elo of every game from the stored match results (in the "
        "order they were first applied), with each bot's rated games and wins; report any "
        "difference from the stored numbers, fix them, and refit the leaderboard."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--game", help="only this game id")
        parser.add_argument(
            "--check", action="store_true", help="report differences without writing; exit 1 if any"
        )

    def handle(self, *args, game: str | None = None, check: bool = False, **options) -> None:
        known = [g.id for g in all_games()]
        if game is not None and game not in known:
            raise CommandError(f"unknown game {game!r} (known: {', '.join(known)})")
        games = [game] if game else known
        total_diffs = 0
        for game_id in games:
            report = recompute_elo(game_id, write=not check)
            total_diffs += len(report.differences)
            self.stdout.write(
                f"{game_id}: {report.matches} rated matches, {report.bots} bots, "
                f"{len(report.differences)} differences"
            )
            for line in report.differences[:20]:
                self.stdout.write(f"  {line}")
            if not check:
                refit(game_id)
        if check and total_diffs:
            raise SystemExit(1)
