"""Challenges: unrated matches between a user's bot and bots the user picks.

`create_challenge` is the one place their rules live; the API
(`POST /api/challenges`, ladder/api/matches.py) and the challenge page
(ladder/views_challenge.py) both call it and turn a `ChallengeError` into
their own kind of answer (an error body, a message on the form). The rules
and their errors are listed in docs/api.md, "Challenges".
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from django.conf import settings
from django.db import transaction

from arena import OptionError, get_game
from ladder.game_options import check_options
from ladder.matches import create_match
from ladder.models import Bot, LadderSettings, Match, lock_user

#: ids beyond this are no database id (and overflow SQLite's integers)
MAX_ID = 2**63 - 1
#: a challenge's options as compact JSON, in bytes. They are stored on the match
#: and checked by setting up a table; the largest legitimate value, Edel, Stein &
#: Reich's whole components.json, is about 6 KB.
MAX_OPTIONS_BYTES = 64 * 1024
#: why a challenge with somebody else's bot is refused
NOT_YOURS = "you can challenge only with a bot of your own"


class ChallengeError(Exception):
    """A challenge refused: `status` is the HTTP status the API answers with,
    `field` the request field at fault ("bot", "opponents", "options" or None)."""

    def __init__(self, status: int, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.field = field


def options_bytes(options: Mapping[str, Any]) -> int:
    """The size of `options` as compact JSON, the measure MAX_OPTIONS_BYTES limits."""
    return len(
        json.dumps(options, ensure_ascii=False, separators=(",", ":")).encode(
            errors="surrogatepass"
        )
    )


def open_challenges(user) -> int:
    """How many of `user`'s challenges are queued or running."""
    return Match.objects.filter(
        kind=Match.Kind.CHALLENGE,
        requested_by=user,
        status__in=[Match.Status.QUEUED, Match.Status.RUNNING],
    ).count()


def refuse_over_challenge_limit(user) -> None:
    """ChallengeError 429 when `user` has MAX_OPEN_CHALLENGES challenges queued or running."""
    open_count = open_challenges(user)
    limit = settings.MAX_OPEN_CHALLENGES
    if open_count >= limit:
        raise ChallengeError(
            429,
            f"you have {open_count} challenges queued or running; the limit is "
            f"{limit}. Wait for one to finish.",
        )


def create_challenge(
    user, bot_id: int, opponents: Sequence[int], options: Mapping[str, Any]
) -> Match:
    """A queued unrated match between `user`'s bot `bot_id` (seat 0) and the
    `opponents` (seats 1, 2, ... in this order), played with the ladder's
    options replaced key by key by `options`.

    Every bot must be of the same game, enabled, and have a ready version; the
    number of seats must be one the game is played by. ChallengeError otherwise."""
    # First, unlocked: a request over the limit costs no option check (a large
    # `components` takes seconds). Checked again under the lock below.
    refuse_over_challenge_limit(user)
    bot = (
        Bot.objects.select_related("active_version").filter(pk=bot_id).first()
        if 0 < bot_id <= MAX_ID
        else None
    )
    if bot is None:
        raise ChallengeError(404, f"no bot with id {bot_id}", field="bot")
    if bot.owner_id != user.pk:
        raise ChallengeError(403, NOT_YOURS, field="bot")
    game = get_game(bot.game)
    seat_count = 1 + len(opponents)
    if seat_count not in game.seat_counts:
        allowed = ", ".join(str(n - 1) for n in game.seat_counts)
        raise ChallengeError(
            422,
            f"{game.id} is played by {', '.join(map(str, game.seat_counts))} seats: "
            f"choose {allowed} opponents, not {len(opponents)}",
            field="opponents",
        )
    ids = [bot.pk, *opponents]
    if len(set(ids)) != len(ids):
        raise ChallengeError(422, "each bot may take only one seat", field="opponents")
    wanted_ids = [i for i in ids if 0 < i <= MAX_ID]
    found = {
        b.pk: b for b in Bot.objects.select_related("active_version").filter(pk__in=wanted_ids)
    }
    lineup = []
    for entry_id in ids:
        entry = found.get(entry_id)
        field = "bot" if entry_id == bot.pk else "opponents"
        if entry is None:
            raise ChallengeError(404, f"no bot with id {entry_id}", field=field)
        if entry.game != game.id:
            raise ChallengeError(
                422, f"bot {entry.name} plays {entry.game}, not {game.id}", field=field
            )
        if not entry.enabled:
            raise ChallengeError(409, f"bot {entry.name} is disabled", field=field)
        if entry.active_version is None:
            raise ChallengeError(409, f"bot {entry.name} has no ready version yet", field=field)
        lineup.append(entry.active_version)
    size = options_bytes(options)
    if size > MAX_OPTIONS_BYTES:
        raise ChallengeError(
            422,
            f"the options are {size:,} bytes as JSON; the limit is {MAX_OPTIONS_BYTES:,} bytes",
            field="options",
        )
    # The ladder's rules, with the request's options replacing them key by key.
    ladder_options = LadderSettings.get().options_for(game.id)
    wanted = {**ladder_options, **options}
    try:
        # Sets this table up once: options that suit the game but not this many
        # seats (components that do not deal out) fail here, not on a worker.
        clean = check_options(game, wanted, [seat_count])
        longest = game.max_steps(game.validate_options(ladder_options))
    except OptionError as exc:
        raise ChallengeError(422, str(exc), field="options") from None
    if game.max_steps(clean) > longest:
        # a longer game only holds a worker longer (and its replay grows)
        raise ChallengeError(
            422,
            f"a challenge may shorten {game.id} but not lengthen it: at most {longest} "
            "steps, as on the ladder (option step_cap)",
            field="options",
        )
    with transaction.atomic():
        lock_user(user)
        refuse_over_challenge_limit(user)  # again: another request may have won the race
        return create_match(
            game.id,
            lineup,
            kind=Match.Kind.CHALLENGE,
            rated=False,
            options=clean,
            requested_by=user,
        )
