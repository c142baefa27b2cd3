"""Server tournaments: a round robin between chosen bots, played by the
workers like any other match but unrated.

The schedule is `arena tournament`'s own (`arena.schedule`), and so are the
standings' maths (`ladder.tournament_table`). Operators start them in the
admin or with `manage.py tournament`; both go through `create_tournament`,
the one place their rules live. How their matches share the workers with
the ladder: `send_matches`.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Mapping, Sequence

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from arena import OptionError, get_game, schedule
from ladder.game_options import check_options
from ladder.matches import enqueue, seat_label
from ladder.models import (
    BotVersion,
    LadderSettings,
    Match,
    MatchSeat,
    Tournament,
    TournamentEntry,
    WorkerHeartbeat,
)
from ladder.results import cancel_queued_matches, finish_tournaments

GROUP_NAMESPACE = uuid.UUID("0b8f4f7e-61a4-4f2e-9d43-2a7c5b1d9e64")


class TournamentError(Exception):
    """A tournament refused, with the reason for the operator."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def create_tournament(
    *,
    game: str,
    versions: Sequence[BotVersion],
    games: int,
    players: int,
    name: str,
    seed: int | None = None,
    options: Mapping | None = None,
    created_by=None,
) -> Tournament:
    """A running tournament with every match of its schedule queued, played
    with the ladder's game options replaced key by key by `options`; the
    first of them are sent to the workers after commit (`send_matches`).
    TournamentError, and nothing stored, for bad input."""
    try:
        definition = get_game(game)
    except OptionError as exc:
        raise TournamentError(str(exc)) from None
    if players not in definition.seat_counts:
        allowed = ", ".join(map(str, definition.seat_counts))
        raise TournamentError(f"{definition.id} is played by {allowed} players, not {players}")
    if games < 1:
        raise TournamentError(f"games per table must be at least 1, not {games}")
    name = name.strip()
    if not name:
        raise TournamentError("give the tournament a name")
    if len(name) > Tournament._meta.get_field("name").max_length:
        raise TournamentError(f"the name is {len(name)} characters; the limit is 80")
    if seed is not None and not 0 <= seed < 2**62:
        raise TournamentError(f"the seed must be between 0 and 2**62 - 1, not {seed}")
    versions = list(versions)
    if len(versions) < players:
        raise TournamentError(
            f"{players} players per match need at least {players} bots, not {len(versions)}"
        )
    seen: set[int] = set()
    for version in versions:
        bot = version.bot
        if bot.pk in seen:
            raise TournamentError(f"bot {bot.name} is entered twice")
        seen.add(bot.pk)
        if bot.game != definition.id:
            raise TournamentError(f"bot {bot.name} plays {bot.game}, not {definition.id}")
        if version.status != BotVersion.Status.READY:
            raise TournamentError(
                f"{bot.name} v{version.number} is not ready ({version.get_status_display()})"
            )
        if not bot.enabled:
            raise TournamentError(f"bot {bot.name} is disabled")
    # the ladder's rules, replaced key by key by `options` (as a challenge's)
    wanted = {**LadderSettings.get().options_for(definition.id), **(options or {})}
    try:
        clean = check_options(definition, wanted, [players])
    except OptionError as exc:
        raise TournamentError(f"options: {exc}") from None
    seed = secrets.randbits(62) if seed is None else seed
    plan = schedule(len(versions), players, games, seed)
    limit = settings.TOURNAMENT_MAX_MATCHES
    if len(plan) > limit:
        raise TournamentError(
            f"{len(versions)} bots at {players} players and {games} games per table make "
            f"{len(plan):,} matches; the limit is {limit:,} (TOURNAMENT_MAX_MATCHES)"
        )
    with transaction.atomic():
        tournament = Tournament.objects.create(
            name=name,
            game=definition.id,
            players=players,
            games=games,
            seed=seed,
            options=clean,
            created_by=created_by,
        )
        TournamentEntry.objects.bulk_create(
            TournamentEntry(tournament=tournament, position=i, version=v, label=seat_label(v))
            for i, v in enumerate(versions)
        )
        matches = Match.objects.bulk_create(
            Match(
                game=definition.id,
                seat_count=players,
                seed=pairing.seed,
                options=clean,
                rules_version=definition.rules_version,
                kind=Match.Kind.TOURNAMENT,
                rated=False,
                # one group a table: its rotations share the seeds
                group=uuid.uuid5(
                    GROUP_NAMESPACE, f"{tournament.pk}:{'-'.join(map(str, sorted(pairing.seats)))}"
                ),
                requested_by=created_by,
                tournament=tournament,
            )
            for pairing in plan
        )
        MatchSeat.objects.bulk_create(
            MatchSeat(match=match, seat=seat, version=versions[b])
            for match, pairing in zip(matches, plan, strict=True)
            for seat, b in enumerate(pairing.seats)
        )
        send_matches()
    return tournament


def cancel_tournament(tournament: Tournament, why: str) -> int:
    """Cancel a running tournament: its queued matches are cancelled (those
    being played finish and count). Its final table is stored once none is
    being played (`finish_tournaments`): the results at cancel time and those
    of the matches played then. Returns how many were cancelled;
    TournamentError when it is not running."""
    why = why.strip() or "cancelled by an operator"
    with transaction.atomic():
        locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
        if locked.status != Tournament.Status.RUNNING:
            raise TournamentError(f"tournament {locked.pk} is {locked.status}, not running")
        # cancelled first, so that the end of its queue does not finish it
        locked.status = Tournament.Status.CANCELLED
        locked.reason = why[:200]
        locked.finished_at = timezone.now()
        locked.save(update_fields=["status", "reason", "finished_at"])
        queued = locked.matches.filter(status=Match.Status.QUEUED).values_list("pk", flat=True)
        cancelled, _ = cancel_queued_matches(
            list(queued), f"not played: tournament cancelled ({why})"[:200], "was cancelled"
        )
        finish_tournaments([locked.pk])
    tournament.refresh_from_db()
    return cancelled


def target_depth() -> int:
    """Tournament matches kept sent and waiting in the ladder's queue, all
    tournaments together: as many as the scheduler keeps for one game."""
    return settings.QUEUE_DEPTH_PER_WORKER * max(1, WorkerHeartbeat.alive().count())


def send_matches() -> int:
    """Send the next matches of the running tournaments, oldest tournament
    first, until `target_depth()` of them wait in the queue; how many were
    sent. The rest stay queued in the database unsent (`Match.pk >
    Tournament.sent_through`) until the beat's next fill.

    Tournament matches go to the ladder's queue ("<queue>.ladder", oldest
    first): uploads' validation is still taken first, and since the queue
    holds at most one game's depth of them next to the ladder's depth per
    game, the ladder keeps playing while a tournament of thousands of
    matches runs, and the tournament takes about one game's share of the
    workers. Call it inside a transaction or not: the sends go after commit."""
    with transaction.atomic():
        running = list(
            Tournament.objects.select_for_update()
            .filter(status=Tournament.Status.RUNNING)
            .order_by("created_at", "pk")
        )
        waiting = Match.objects.filter(
            kind=Match.Kind.TOURNAMENT, status=Match.Status.QUEUED, tournament__in=running
        )
        room = target_depth() - sum(
            waiting.filter(tournament=t, pk__lte=t.sent_through).count() for t in running
        )
        sent = 0
        for tournament in running:
            if room <= 0:
                break
            ids = list(
                waiting.filter(tournament=tournament, pk__gt=tournament.sent_through)
                .order_by("pk")
                .values_list("pk", flat=True)[:room]
            )
            if not ids:
                continue
            for match_id in ids:
                enqueue(match_id, Match.Kind.TOURNAMENT)
            Tournament.objects.filter(pk=tournament.pk).update(sent_through=ids[-1])
            room -= len(ids)
            sent += len(ids)
    return sent
