"""Moderation in the admin: deactivating a user, deleting, what actions skip."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from ladder.bots import add_version, create_bot, install_builtin
from ladder.leaderboard import recompute_elo
from ladder.matches import create_match
from ladder.models import (
    Bot,
    BotVersion,
    Match,
    Rating,
    RatingHistory,
    RefusedUpload,
)
from ladder.scheduler import playing_bots
from ladder.tokens import create_token
from tests.ladder.test_admin import act, change_form_data, played, url

pytestmark = pytest.mark.django_db

GAME = "splendor-duel"


@pytest.fixture
def user_url():
    return lambda view, *args: reverse(f"admin:auth_user_{view}", args=args)


def test_deactivating_a_user_takes_their_bots_off_the_ladder(
    admin_client, client, alice, bob, user_url
) -> None:
    mine = install_builtin(GAME, "random", owner=alice, bot_name="rude-name")
    theirs = install_builtin(GAME, "random", owner=bob, bot_name="bobs")
    third = install_builtin(GAME, "random", owner=bob, bot_name="bobs2")
    ladder = create_match(GAME, [mine.active_version, theirs.active_version])
    challenge = create_match(
        GAME, [theirs.active_version, mine.active_version], kind=Match.Kind.CHALLENGE, rated=False
    )
    others = create_match(GAME, [theirs.active_version, third.active_version])
    pending = add_version(mine, "bot.py", b"print('v2')\n")
    _, token = create_token(alice, "cli")
    client.force_login(alice)
    assert client.get("/api/me").status_code == 200

    page = admin_client.get(user_url("change", alice.pk))
    data = change_form_data(page)
    data.pop("is_active")  # the box unticked
    joined = data.pop("date_joined")  # shown as two boxes
    data |= {"date_joined_0": f"{joined:%Y-%m-%d}", "date_joined_1": f"{joined:%H:%M:%S}"}
    response = admin_client.post(user_url("change", alice.pk), data, follow=True)
    message = " ".join(str(m) for m in response.context["messages"])
    assert "alice deactivated: logged out, API tokens refused" in message
    assert "1 of their bots disabled" in message
    assert "4 queued matches cancelled" in message and "1 pending uploads rejected" in message

    mine.refresh_from_db()
    assert not mine.enabled
    assert mine not in playing_bots(GAME)
    for match in (ladder, challenge, *pending.validation_matches.all()):
        match.refresh_from_db()
        assert match.status == Match.Status.CANCELLED, match
    others.refresh_from_db()
    assert others.status == Match.Status.QUEUED  # nobody else's match
    pending.refresh_from_db()
    assert pending.status == BotVersion.Status.REJECTED
    # logged out, and the token no longer works
    assert client.get("/api/me").status_code == 401
    assert client.get("/api/me", HTTP_AUTHORIZATION=f"Bearer {token}").status_code == 401

    # enabling a deactivated user's bot is refused, saying why: by the action...
    message = act(admin_client, Bot, "enable_bots", [mine, theirs])
    assert "1 bots enabled. 1 skipped: their owner's account is deactivated" in message
    # ...and on its page
    data = change_form_data(admin_client.get(url(Bot, "change", mine.pk))) | {"enabled": "on"}
    response = admin_client.post(url(Bot, "change", mine.pk), data)
    assert "alice is deactivated: reactivate them under Users first" in response.content.decode()
    assert not Bot.objects.get(pk=mine.pk).enabled


def test_the_scheduler_skips_bots_of_users_deactivated_elsewhere(alice) -> None:
    bot = install_builtin(GAME, "random", owner=alice, bot_name="shell-banned")
    assert bot in playing_bots(GAME)
    type(alice).objects.filter(pk=alice.pk).update(is_active=False)  # the shell, say
    assert bot not in playing_bots(GAME)


def test_the_deactivate_action_spares_the_acting_admin(admin_client, admin_user, alice, user_url):
    bot = install_builtin(GAME, "random", owner=alice, bot_name="acted-on")
    response = admin_client.post(
        user_url("changelist"),
        {"action": "deactivate_users", "_selected_action": [alice.pk, admin_user.pk]},
        follow=True,
    )
    message = " ".join(str(m) for m in response.context["messages"])
    assert "1 users deactivated" in message and "cannot deactivate yourself" in message
    alice.refresh_from_db()
    admin_user.refresh_from_db()
    assert not alice.is_active and admin_user.is_active
    assert not Bot.objects.get(pk=bot.pk).enabled


def test_deleting_what_has_results_is_refused_with_a_reason(admin_client, alice, user_url) -> None:
    mine = install_builtin(GAME, "random", owner=alice, bot_name="played")
    other = install_builtin(GAME, "random", bot_name="opponent")
    matches = [played([mine.active_version, other.active_version]) for _ in range(3)]
    ratings = {r.bot_id: (r.elo, r.elo_games) for r in Rating.objects.all()}
    history = RatingHistory.objects.count()
    pages = [
        url(Bot, "delete", mine.pk),
        url(BotVersion, "delete", mine.active_version_id),
        user_url("delete", alice.pk),
    ]
    for page in pages:
        text = admin_client.get(page).content.decode()
        assert "in 3 matches" in text and "instead" in text, page
        assert "permission" not in text, page
        assert admin_client.post(page, {"post": "yes"}).status_code == 200
    # the bulk action refuses the same way
    response = admin_client.post(
        url(Bot, "changelist"),
        {"action": "delete_selected", "_selected_action": [mine.pk], "post": "yes"},
    )
    assert "a bot with uploads cannot be deleted" in response.content.decode()
    # matches cannot be deleted at all: no button, no action, 403
    assert (
        admin_client.post(url(Match, "delete", matches[0].pk), {"post": "yes"}).status_code == 403
    )
    assert "delete_selected" not in admin_client.get(url(Match, "changelist")).content.decode()

    assert Bot.objects.filter(pk=mine.pk).exists() and Match.objects.count() == 3
    assert RatingHistory.objects.count() == history
    assert {r.bot_id: (r.elo, r.elo_games) for r in Rating.objects.all()} == ratings
    assert recompute_elo(GAME, write=False).differences == []


def test_refusing_a_deletion_does_not_read_the_whole_history(admin_client, alice) -> None:
    mine = install_builtin(GAME, "random", owner=alice, bot_name="busy")
    other = install_builtin(GAME, "random", bot_name="opponent")

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            admin_client.get(url(Bot, "delete", mine.pk))
        return len(captured)

    played([mine.active_version, other.active_version])
    few = queries()
    for _ in range(10):
        played([mine.active_version, other.active_version])
    assert queries() == few


def test_what_never_played_can_be_deleted(admin_client, alice, user_url) -> None:
    empty = create_bot(alice, GAME, "typo-name")  # a bot without uploads, and its rating
    response = admin_client.post(url(Bot, "delete", empty.pk), {"post": "yes"})
    assert response.status_code == 302
    assert not Bot.objects.filter(pk=empty.pk).exists()
    # a user whose uploads were all refused, with a bot left without uploads
    create_bot(alice, GAME, "left-over")
    RefusedUpload.objects.create(owner=alice)
    response = admin_client.post(user_url("delete", alice.pk), {"post": "yes"})
    assert response.status_code == 302
    assert not type(alice).objects.filter(pk=alice.pk).exists()


def test_actions_say_what_they_skipped(admin_client, monkeypatch) -> None:
    from ladder import admin_matches

    monkeypatch.setattr(admin_matches, "enqueue", lambda mid, kind: None)
    a = install_builtin(GAME, "random", bot_name="skip-a")
    b = install_builtin(GAME, "random", bot_name="skip-b")
    lineup = [a.active_version, b.active_version]
    finished = played(lineup)
    running = create_match(GAME, lineup)
    running.claim_for("worker@test")
    queued = create_match(GAME, lineup)
    cancelled = create_match(GAME, lineup)
    Match.objects.filter(pk=cancelled.pk).update(status=Match.Status.CANCELLED)

    message = act(admin_client, Match, "rerun_matches", [finished, running, queued, cancelled])
    assert "0 errored matches queued again, 1 finished matches copied (unrated)." in message
    assert "1 cancelled and 1 queued and 1 running matches not re-run." in message
    assert Match.objects.get(pk=running.pk).status == Match.Status.RUNNING

    message = act(admin_client, Match, "cancel_queued", [finished, running, queued])
    assert "1 queued matches cancelled. 1 finished and 1 running matches left as they are." in (
        message
    )
    assert Match.objects.get(pk=running.pk).status == Match.Status.RUNNING
    assert Match.objects.get(pk=finished.pk).status == Match.Status.FINISHED

    Bot.objects.filter(pk=b.pk).update(enabled=False)
    message = act(admin_client, Bot, "disable_bots", [a, b])
    assert message.startswith("1 bots disabled.") and "1 were disabled already." in message
