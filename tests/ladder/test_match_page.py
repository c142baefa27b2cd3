"""The match page keeps to the API's privacy rules (docs/api.md, docs/web.md):
the seed only once the match is over, a platform error only for staff, and
the viewer's help tells the truth about live debug notes."""

from __future__ import annotations

import pytest
from django.test import Client

from ladder.bots import add_version, create_bot
from ladder.matches import create_match
from ladder.models import Bot, Match
from tests.ladder.conftest import RANDOM_BOT

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user(
        "sam", "sam@example.org", "sam-pass-123", is_staff=True
    )


def ready_bot(owner, name: str) -> Bot:
    bot = create_bot(owner, "splendor-duel", name)
    add_version(bot, "main.py", RANDOM_BOT + f"# {name}\n".encode(), validate=False)
    bot.refresh_from_db()
    return bot


@pytest.fixture
def match(alice, bob) -> Match:
    bots = [ready_bot(alice, "alpha"), ready_bot(bob, "beta")]
    return create_match("splendor-duel", [b.active_version for b in bots])


def page(client: Client, match: Match) -> str:
    response = client.get(f"/matches/{match.pk}/")
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize("status", ["queued", "running"])
def test_seed_is_hidden_until_the_match_is_over(client, alice, match, status) -> None:
    Match.objects.filter(pk=match.pk).update(status=status)
    client.force_login(alice)  # even a seat's owner: the seed deals the hidden cards
    assert str(match.seed) not in page(client, match)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
    assert f"seed {match.seed}" in page(client, match)


def test_platform_error_is_for_staff_only(client, alice, staff, match) -> None:
    Match.objects.filter(pk=match.pk).update(
        status=Match.Status.ERRORED, error="system fault: /srv/gemarena/secret-path exploded"
    )
    for viewer in (None, alice):
        if viewer:
            client.force_login(viewer)
        text = page(client, match)
        assert "The platform failed to run this match" in text
        assert "secret-path" not in text
    client.force_login(staff)
    assert "secret-path" in page(client, match)


def test_live_viewer_help_does_not_promise_notes_only_after_the_end(client, alice, match) -> None:
    # live.json sends the owner's notes while the match runs (ladder/views_replay.py)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING)
    client.force_login(alice)
    text = page(client, match)
    assert "Debug notes are shown for your own bots only." in text
    assert "once the match is over" not in text
