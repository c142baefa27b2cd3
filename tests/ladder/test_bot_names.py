"""Bot names are unique per game up to capitals and '_' for '-': in
`ladder.bots.name_taken` for the message, and in the database for the race
between two uploads at the same moment."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from ladder import bots as bot_service
from ladder.bots import NameTakenError, create_bot
from ladder.models import Bot

GAME = "splendor-duel"


@pytest.mark.django_db
def test_the_database_refuses_a_look_alike(alice, bob) -> None:
    Bot.objects.create(owner=alice, game=GAME, name="sd-greedy")
    for look_alike in ("SD-Greedy", "sd_greedy", "Sd_GREEDY"):
        with pytest.raises(IntegrityError), transaction.atomic():
            Bot.objects.create(owner=bob, game=GAME, name=look_alike)
    Bot.objects.create(owner=bob, game="edel-stein-reich", name="sd_greedy")  # another game
    assert sorted(Bot.objects.values_list("name", flat=True)) == ["sd-greedy", "sd_greedy"]


@pytest.mark.django_db
def test_a_look_alike_created_in_between_is_a_name_error(alice, bob, monkeypatch) -> None:
    """Both uploads passed `name_taken` before either was stored: the second
    gets the same message as if it had come later, and a transaction it runs
    in stays usable. (The other upload is played inside this test's
    transaction, so create_bot's rollback takes it along.)"""
    looked = []

    def not_yet_stored(game, name, exclude_pk=None, owner=None):
        if not looked:  # the other upload commits right after this look
            looked.append(name)
            Bot.objects.create(owner=alice, game=game, name="race-bot")
            return ""
        return real_name_taken(game, name, exclude_pk, owner)

    real_name_taken = bot_service.name_taken
    monkeypatch.setattr(bot_service, "name_taken", not_yet_stored)
    with transaction.atomic():
        with pytest.raises(NameTakenError) as refused:
            create_bot(bob, GAME, "Race_Bot")
        assert Bot.objects.filter(owner=bob).count() == 0  # the outer transaction works
    assert str(refused.value) == (
        "a splendor-duel bot named 'race-bot' exists already; pick another name"
    )
    assert looked == ["Race_Bot"]


@pytest.mark.django_db(transaction=True)
def test_the_migration_renames_the_later_look_alikes(capsys) -> None:
    """A database from before the constraint may hold look-alikes: the first
    keeps its name, the later ones get a number, and the constraint holds."""
    executor = MigrationExecutor(connection)
    before = [("ladder", "0006_refused_upload")]
    after = [("ladder", "0007_bot_name_key")]
    executor.migrate(before)
    try:
        apps = executor.loader.project_state(before).apps
        user = apps.get_model("auth", "User").objects.create(username="old-timer")
        OldBot = apps.get_model("ladder", "Bot")
        names = ["Greedy", "greedy", "GREEDY", "greedy-2", "x" * 40, "X" * 40, "solo"]
        made = [OldBot.objects.create(owner=user, game=GAME, name=n) for n in names]
        OldBot.objects.create(owner=user, game="edel-stein-reich", name="greedy")
        executor.loader.build_graph()
        executor.migrate(after)
        # the model as of `after`: later migrations add columns this database lacks
        NewBot = executor.loader.project_state(after).apps.get_model("ladder", "Bot")  # noqa: N806
        renamed = dict(NewBot.objects.filter(game=GAME).values_list("pk", "name"))
        assert [renamed[bot.pk] for bot in made] == [
            "Greedy",
            "greedy-3",  # greedy-2 is another bot's name
            "GREEDY-4",
            "greedy-2",
            "x" * 40,
            "X" * 38 + "-2",
            "solo",
        ]
        assert NewBot.objects.get(game="edel-stein-reich").name == "greedy"
        printed = capsys.readouterr().out
        assert f"bot {made[1].pk} (splendor-duel) 'greedy' renamed 'greedy-3'" in printed
        assert "owner 'old-timer' <no e-mail>" in printed
    finally:
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())
