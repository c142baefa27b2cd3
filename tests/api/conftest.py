"""API test fixtures: the ladder's cast (alice, bob) plus charlie, who is staff;
tokens for them; bots with ready versions; one match really played."""

from __future__ import annotations

import pytest
from django.test import Client

from ladder import tasks
from ladder.bots import add_version, create_bot
from ladder.matches import create_match
from ladder.models import Bot, Match
from ladder.tokens import create_token
from tests.ladder import conftest as ladder_fixtures
from tests.ladder.conftest import RANDOM_BOT

# the ladder's fixtures, shared: a private media folder (autouse), alice and bob
media_dir = ladder_fixtures.media_dir
alice = ladder_fixtures.alice
bob = ladder_fixtures.bob

#: plays randomly, writes one line of stderr and a debug note on every move
NOTE_BOT = b"""import random
import sys

from gemarena_sdk import run

rng = random.Random(7)
said = []


def decide(observation, legal):
    if not said:
        print("private-stderr-line", file=sys.stderr)
        said.append(1)
    return rng.choice(legal), "private-note"


if __name__ == "__main__":
    run(decide)
"""


@pytest.fixture(autouse=True)
def fast_passwords(settings) -> None:
    # The cast's passwords are never checked here; a slow hash only costs CPU.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def charlie(django_user_model):
    return django_user_model.objects.create_user(
        "charlie", "charlie@example.org", "charlie-pass-123", is_staff=True
    )


def bearer(raw: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {raw}"}


@pytest.fixture
def alice_token(alice) -> str:
    return create_token(alice, "alice's laptop")[1]


@pytest.fixture
def bob_token(bob) -> str:
    return create_token(bob, "bob's ci")[1]


@pytest.fixture
def charlie_token(charlie) -> str:
    return create_token(charlie, "ops")[1]


@pytest.fixture
def as_alice(alice_token) -> Client:
    return Client(headers=bearer(alice_token))


@pytest.fixture
def as_bob(bob_token) -> Client:
    return Client(headers=bearer(bob_token))


@pytest.fixture
def as_charlie(charlie_token) -> Client:
    return Client(headers=bearer(charlie_token))


def ready_bot(owner, name: str, game: str = "splendor-duel", code: bytes = RANDOM_BOT) -> Bot:
    """A bot whose first version is ready (validation skipped)."""
    bot = create_bot(owner, game, name)
    add_version(bot, "main.py", code, validate=False)
    bot.refresh_from_db()
    return bot


@pytest.fixture
def alpha(alice) -> Bot:
    return ready_bot(alice, "alpha", code=NOTE_BOT)


@pytest.fixture
def beta(bob) -> Bot:
    return ready_bot(bob, "beta", code=NOTE_BOT)


@pytest.fixture
def played_match(alpha, beta, settings) -> Match:
    """A rated ladder match alpha (seat 0) vs beta, played for real in the process sandbox."""
    settings.SANDBOX_BACKEND = "process"
    settings.MOVE_MS = 2000
    settings.STARTUP_MS = 15000
    match = create_match("splendor-duel", [alpha.active_version, beta.active_version])
    assert tasks.run_match.run(match.pk) == "finished"
    match.refresh_from_db()
    return match


@pytest.fixture
def trio(alice, bob) -> tuple[Bot, Bot, Bot]:
    """Three-seat bots of edel-stein-reich: two of alice's, one of bob's."""
    return (
        ready_bot(alice, "red", game="edel-stein-reich"),
        ready_bot(alice, "green", game="edel-stein-reich"),
        ready_bot(bob, "blue", game="edel-stein-reich"),
    )
