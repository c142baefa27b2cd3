"""Keeping the ladder busy: plan matches with the pure pairing code, queue them.

The queue is kept at QUEUE_DEPTH_PER_WORKER ladder matches per live worker and
per game. Pairing itself (who plays whom, mirrored pairs and rotated tables,
no starvation) is `ladder.ratings.pairing`; this module only feeds it the
bots' current numbers (fitted rating, games, last played, owner, and who has
met whom in rated matches) and stores what it plans.
"""

from __future__ import annotations

import logging
import random
import secrets
import uuid

from django.conf import settings
from django.db import transaction

from arena import OptionError, all_games
from ladder.leaderboard import rated_pair_games
from ladder.matches import create_match
from ladder.models import PLAYS_ON_LADDER, Bot, Counter, LadderSettings, Match, WorkerHeartbeat
from ladder.ratings.pairing import PairingBot, plan_matches

log = logging.getLogger(__name__)

GROUP_NAMESPACE = uuid.UUID("6f1d8c52-3f0e-4b7a-9a52-5d3c1e7b2a10")


def target_depth() -> int:
    return settings.QUEUE_DEPTH_PER_WORKER * max(1, WorkerHeartbeat.alive().count())


def playing_bots(game: str) -> list[Bot]:
    return list(
        Bot.objects.filter(PLAYS_ON_LADDER, game=game)
        # a deactivated user's bots are disabled by the admin; this holds
        # when the flag was changed elsewhere (the shell, another tool)
        .filter(owner__is_active=True)
        .select_related("rating", "active_version")
        .order_by("pk")
    )


def pairing_input(bots: list[Bot]) -> list[PairingBot]:
    rows = []
    for bot in bots:
        rating = getattr(bot, "rating", None)
        rows.append(
            PairingBot(
                bot_id=bot.pk,
                rating=rating.fitted if rating else None,
                games=rating.elo_games if rating else 0,
                last_played=bot.last_played_at.timestamp() if bot.last_played_at else None,
                # the platform's own bots are trusted code: nothing to keep apart
                owner=None if bot.is_builtin else bot.owner_id,
            )
        )
    return rows


def fill_game(game, ladder: LadderSettings, depth: int, rng: random.Random) -> int:
    """Queue the ladder matches `game` lacks; call it holding the lock of the
    game's group counter."""
    queued = Match.objects.filter(
        game=game.id, kind=Match.Kind.LADDER, status=Match.Status.QUEUED
    ).count()
    missing = depth - queued
    bots = playing_bots(game.id)
    seat_options = [n for n in game.seat_counts if n <= len(bots)]
    if missing <= 0 or not seat_options:
        return 0
    options = ladder.options_for(game.id)
    try:
        game.validate_options(options)
    except OptionError as exc:
        # Checked when saved; only an engine upgrade can make them stale.
        # Wrong rules are worse than no matches: this game waits.
        log.error("ladder options of %s no longer valid, no matches queued: %s", game.id, exc)
        return 0
    seats = rng.choice(seat_options)
    groups = max(1, -(-missing // seats))
    by_id = {b.pk: b for b in bots}
    first = Counter.next(f"group:{game.id}", groups)
    plan = plan_matches(
        pairing_input(bots),
        seats,
        groups,
        rng,
        first_group=first,
        pair_games=rated_pair_games(game.id),
    )
    for planned in plan:
        create_match(
            game.id,
            [by_id[b].active_version for b in planned.seats],
            kind=Match.Kind.LADDER,
            rated=True,
            seed=planned.seed,
            options=options,
            group=uuid.uuid5(GROUP_NAMESPACE, f"{game.id}:{planned.group}"),
        )
    return len(plan)


def fill_queue(rng: random.Random | None = None) -> int:
    """Queue ladder matches up to the target depth; returns how many were created."""
    ladder = LadderSettings.get()
    if ladder.paused:
        return 0
    rng = rng or random.Random(secrets.randbits(64))
    depth = target_depth()
    created = 0
    for game in all_games():
        with transaction.atomic():
            # One filler per game at a time (two beats, or a backlog of ticks
            # taken by two workers at once): the queue is counted under the
            # lock of the game's group counter, which every fill takes anyway.
            Counter.lock(f"group:{game.id}")
            created += fill_game(game, ladder, depth, rng)
    return created
