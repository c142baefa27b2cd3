"""The web pages' cast: alice (a bot author), bob (another author), carol
(staff), anonymous visitors; bots with versions and finished matches built
directly in the database (no worker needed)."""

from __future__ import annotations

import random

import pytest
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone

from arena import get_game, replay_to_bytes
from ladder import tasks
from ladder.bots import add_version, create_bot
from ladder.matches import create_match
from ladder.models import Bot, Match, MatchSeat
from ladder.results import SEAT_RESULT_FIELDS, apply_ratings
from tests.ladder.conftest import RANDOM_BOT, alice, bob, media_dir  # noqa: F401 (fixtures)


@pytest.fixture
def carol(django_user_model):
    return django_user_model.objects.create_user(
        "carol", "carol@example.org", "carol-pass-123", is_staff=True
    )


def make_bot(owner, name: str, game: str = "splendor-duel") -> Bot:
    """A bot with one accepted version (no validation matches)."""
    bot = create_bot(owner, game, name)
    add_version(bot, "main.py", RANDOM_BOT + f"# {name}\n".encode(), validate=False)
    bot.refresh_from_db()
    return bot


def fake_replay(match: Match, notes: dict[int, str] | None = None) -> bytes:
    notes = notes or {}
    steps = [
        {"seat": seat, "action": f"pass{seat}", "think_ms": 1.0, "note": note}
        for seat, note in sorted(notes.items())
    ]
    return replay_to_bytes(
        {
            "format": "gemarena-replay",
            "version": 1,
            "game": match.game,
            "rules_version": match.rules_version,
            "seed": match.seed,
            "options": match.options,
            "seats": [f"seat{i}" for i in range(match.seat_count)],
            "time": {},
            "steps": steps,
            "engine_outcome": None,
            "outcome": {
                "ranks": list(range(1, match.seat_count + 1)),
                "scores": [0] * match.seat_count,
                "reason": "test",
            },
            "faults": [None] * match.seat_count,
        }
    )


def recorded(lineup, replay: dict) -> Match:
    """A finished match of `lineup` (bot versions, by seat) with `replay` as its
    replay file and result (tests/arena/playout.py: scripted_replay)."""
    match = create_match(replay["game"], lineup, seed=replay["seed"], options=replay["options"])
    outcome = replay["outcome"]
    with transaction.atomic():
        for s in match.seats.all():
            s.rank, s.score = outcome["ranks"][s.seat], outcome["scores"][s.seat]
            s.save(update_fields=["rank", "score"])
        match.status = Match.Status.FINISHED
        match.started_at = match.finished_at = timezone.now()
        match.steps = len(replay["steps"])
        match.reason = outcome["reason"]
        match.replay.save(
            f"match-{match.pk}.json.gz", ContentFile(replay_to_bytes(replay)), save=False
        )
        match.save()
    return match


def play(
    bots: list[Bot],
    ranks: list[int],
    *,
    faults: dict[int, str] | None = None,
    stderr: dict[int, str] | None = None,
    notes: dict[int, str] | None = None,
) -> Match:
    """A finished, rated ladder match with the given ranks, recorded like a worker would."""
    faults, stderr = faults or {}, stderr or {}
    match = create_match(bots[0].game, [b.active_version for b in bots])
    seats = list(match.seats.select_related("version__bot").order_by("seat"))
    with transaction.atomic():
        for s, rank in zip(seats, ranks, strict=True):
            s.rank, s.score = rank, float(len(ranks) - rank)
            s.fault = faults.get(s.seat, "")
            s.fault_detail = f"{s.fault} at step 3" if s.fault else ""
            s.stderr_tail = stderr.get(s.seat, "")
            s.think_ms = 10
        match.status = Match.Status.FINISHED
        match.started_at = match.finished_at = timezone.now()
        match.reason = "the game ended"
        match.replay.save(
            f"match-{match.pk}.json.gz", ContentFile(fake_replay(match, notes)), save=False
        )
        apply_ratings(match, seats)
        MatchSeat.objects.bulk_update(seats, SEAT_RESULT_FIELDS)
        match.save()
        Bot.objects.filter(pk__in=[b.pk for b in bots]).update(last_played_at=match.finished_at)
    return match


@pytest.fixture(autouse=True)
def fast_password_hashing(settings) -> None:
    # The real hasher costs ~0.5 s per user on a busy machine; the pages do not care.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def random_steps(game: str, seats: int, seed: int, options: dict, count: int, rng_seed: int = 1):
    """What LiveRecorder receives for the first `count` steps of a game,
    random actions and no `secret` flag (every action shown)."""
    rng = random.Random(rng_seed)

    def pick(_, state):
        seat = state.to_act()[0]
        return seat, rng.choice(state.legal_actions(seat))

    yield from _recorder_events(get_game(game).new(seats, seed, options), count, pick, False)


def _recorder_events(state, count: int, pick, secret: bool):
    """LiveRecorder's events for `count` steps from `state`; `pick(i, state)`
    gives step i's seat and action; `secret`: flag secret choices as the
    runner does (arena/runner.py)."""
    for i in range(count):
        seat, action = pick(i, state)
        event = {"step": i, "seat": seat, "action": action}
        event["description"] = state.describe_action(seat, action)
        if secret:
            event["secret"] = state.secret_action(seat, action)
        state.apply(seat, action)
        event.update(view=state.spectator_view(), forced=False, note=f"live note of seat {seat}")
        yield event


def noting_bot(note: str) -> bytes:
    """A random bot that sends `note` as its debug note with every action."""
    return f"""
import random
from gemarena_sdk import run

rng = random.Random()

def decide(observation, legal):
    return rng.choice(legal), {note!r}

if __name__ == "__main__":
    run(decide)
""".encode()


def runner_events(replay: dict, count: int):
    """What the runner hands LiveRecorder for the first `count` steps of
    `replay` (arena/runner.py: `secret` as the game says)."""
    state = get_game(replay["game"]).new(len(replay["seats"]), replay["seed"], replay["options"])
    steps = replay["steps"]

    def pick(i, _):
        return steps[i]["seat"], steps[i]["action"]

    yield from _recorder_events(state, min(count, len(steps)), pick, True)


def live_from(replay: dict, lineup, count: int) -> Match:
    match = create_match(replay["game"], lineup, seed=replay["seed"], options=replay["options"])
    recorder = tasks.LiveRecorder(match.pk, match.claim_for("worker@test"))
    for event in runner_events(replay, count):
        recorder.on_step(event)
    recorder.flush()
    return match
