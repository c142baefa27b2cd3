"""Bot names are unique per game up to look-alikes (capitals, '_' for '-',
0/o, 1/l/i, rn/m, vv/w, cl/d, runs of separators and one at the end): in
`ladder.bots.name_taken` for the message, and in the database for the race
between two uploads at the same moment."""

from __future__ import annotations

import io

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.loader import MigrationLoader

from ladder import bots as bot_service
from ladder.bots import (
    NameTakenError,
    UploadError,
    create_bot,
    delete_empty_bot,
    name_key,
    rename_bot,
)
from ladder.models import Bot
from tests.ladder.conftest import migrating

GAME = "splendor-duel"

#: names that pass for one another on a leaderboard (the demo bots' among them)
LOOK_ALIKES = [
    ("sd-greedy", "SD_Greedy"),
    ("blaise-greedy", "b1aise-greedy"),
    ("blaise-greedy", "bIaise-greedy"),
    ("carl-search", "car1-search"),
    ("carl-search", "carI-search"),
    ("dora-greedy", "d0ra-greedy"),
    ("dora-greedy", "DORA-GREEDY"),
    ("emmy-random", "ernmy-random"),
    ("emmy-random", "emrny-random"),
    ("wolf", "vvolf"),
    ("dart", "clart"),
    ("loop", "1OOP"),
    ("mm", "rnrn"),
    ("vvv", "wv"),
    # separators: one at the end is hardly seen, a run reads as one
    ("dora-greedy", "dora-greedy-"),
    ("dora-greedy", "Dora_Greedy__"),
    ("dora-greedy", "dora--greedy"),
    ("dora-greedy", "dora_-_greedy"),
    ("a-b", "a" + "-" * 38 + "b"),  # the longest run a 40-character name holds
    ("a", "a" + "_" * 39),
]

#: names that differ on a leaderboard and must both be allowed
DISTINCT = [
    ("alpha", "alpa"),
    ("alpha", "alpha2"),
    ("greedy", "greedy-2"),
    ("bot-1", "bot-2"),
    ("rn", "n"),
    ("vv", "v"),
    ("nn", "m"),
    ("bot", "b-ot"),
    ("ab", "a-b"),
    ("a-b-c", "a-bc"),
]


@pytest.mark.parametrize("name, look_alike", LOOK_ALIKES)
def test_look_alikes_share_a_key(name: str, look_alike: str) -> None:
    assert name_key(name) == name_key(look_alike)


@pytest.mark.parametrize("name, other", DISTINCT)
def test_names_that_look_different_keep_their_own_key(name: str, other: str) -> None:
    assert name_key(name) != name_key(other)


@pytest.mark.django_db
@pytest.mark.parametrize("name, look_alike", LOOK_ALIKES)
def test_the_database_computes_the_same_key(alice, name: str, look_alike: str) -> None:
    """`name_key` (for the message) and `BOT_NAME_KEY` (for the constraint)
    must agree, or a name would pass one and fail the other."""
    from ladder.models import BOT_NAME_KEY

    bot = Bot.objects.create(owner=alice, game=GAME, name=look_alike)
    keyed = Bot.objects.annotate(key=BOT_NAME_KEY).get(pk=bot.pk)
    assert keyed.key == name_key(look_alike) == name_key(name)


@pytest.mark.django_db
@pytest.mark.parametrize("name, look_alike", LOOK_ALIKES)
def test_a_look_alike_is_refused_naming_the_bot_as_spelled(alice, bob, name, look_alike) -> None:
    create_bot(alice, GAME, name)
    with pytest.raises(NameTakenError) as refused:
        create_bot(bob, GAME, look_alike)
    assert str(refused.value) == (f"a {GAME} bot named {name!r} exists already; pick another name")
    assert list(Bot.objects.values_list("name", flat=True)) == [name]


@pytest.mark.django_db
@pytest.mark.parametrize("name, other", DISTINCT)
def test_names_that_look_different_are_both_accepted(alice, bob, name, other) -> None:
    create_bot(alice, GAME, name)
    create_bot(bob, GAME, other)
    Bot.objects.all().delete()
    # and in the database, past the Python check
    Bot.objects.create(owner=alice, game=GAME, name=name)
    Bot.objects.create(owner=bob, game=GAME, name=other)


@pytest.mark.django_db
def test_the_database_refuses_a_look_alike(alice, bob) -> None:
    Bot.objects.create(owner=alice, game=GAME, name="sd-greedy")
    for look_alike in ("SD-Greedy", "sd_greedy", "Sd_GREEDY", "sd-greecly", "sd-greeciy"):
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
            Bot.objects.create(owner=alice, game=game, name="race-b0t")
            return ""
        return real_name_taken(game, name, exclude_pk, owner)

    real_name_taken = bot_service.name_taken
    monkeypatch.setattr(bot_service, "name_taken", not_yet_stored)
    with transaction.atomic():
        with pytest.raises(NameTakenError) as refused:
            create_bot(bob, GAME, "Race_Bot")  # looks like race-b0t
        assert Bot.objects.filter(owner=bob).count() == 0  # the outer transaction works
    assert str(refused.value) == (
        "a splendor-duel bot named 'race-b0t' exists already; pick another name"
    )
    assert looked == ["Race_Bot"]


def kept_set(alice, bob) -> tuple[Bot, Bot, Bot]:
    """A look-alike set as migration 0011 leaves it: the oldest bot under the
    constraint, two later ones kept outside it."""
    held = create_bot(alice, GAME, "ada-random")
    kept = Bot.objects.create(owner=bob, game=GAME, name="ADA-rand0m", kept_look_alike=True)
    later = Bot.objects.create(owner=bob, game=GAME, name="ada-randorn", kept_look_alike=True)
    return held, kept, later


def refused_by_the_database(owner, name: str) -> bool:
    try:
        with transaction.atomic():
            Bot.objects.create(owner=owner, game=GAME, name=name)
    except IntegrityError:
        return True
    return False


def marks() -> dict[str, bool]:
    return dict(Bot.objects.values_list("name", "kept_look_alike"))


@pytest.mark.django_db
def test_the_oldest_kept_look_alike_holds_the_set_when_the_held_bot_is_deleted(alice, bob):
    """Only the unmarked bot of a set is under the constraint: once it is
    deleted (a bot without uploads may be), the oldest kept one takes its
    place, or two uploads at the same moment could both store a look-alike
    that `name_taken` refuses one at a time."""
    held, kept, later = kept_set(alice, bob)
    delete_empty_bot(later)  # a kept bot leaves: the held one still holds
    assert marks() == {"ada-random": False, "ADA-rand0m": True}
    later = Bot.objects.create(owner=bob, game=GAME, name="ada-randorn", kept_look_alike=True)
    delete_empty_bot(held)
    assert marks() == {"ADA-rand0m": False, "ada-randorn": True}
    assert refused_by_the_database(alice, "Ada_Random")
    with pytest.raises(NameTakenError, match="named 'ADA-rand0m' exists already"):
        create_bot(alice, GAME, "ada-random")
    # the same through a cascade: the user deleted with their bots
    bob.delete()
    assert not Bot.objects.exists()
    create_bot(alice, GAME, "ada-random")  # the whole set is gone: the name is free


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_an_upload_racing_the_held_bots_deletion_is_refused(alice, bob) -> None:
    """The race itself: an upload that passed `name_taken` stores a
    look-alike while the held bot's deletion is not yet committed. Its
    insert waits for the deletion; once that commits, the oldest kept bot
    holds the set in the constraint, which refuses the insert (before, it
    went through)."""
    import threading
    import time

    held, kept, later = kept_set(alice, bob)
    backend, outcome = [], []

    def upload() -> None:
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                backend.append(cursor.fetchone()[0])
            with transaction.atomic():
                Bot.objects.create(owner=alice, game=GAME, name="Ada_Random")
            outcome.append("stored")
        except IntegrityError:
            outcome.append("refused")
        finally:
            connection.close()

    with transaction.atomic():
        delete_empty_bot(held)
        other = threading.Thread(target=upload)
        other.start()
        waiting = False
        while not (waiting or outcome):  # until the insert waits for this transaction
            time.sleep(0.01)
            if backend:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT 1 FROM pg_locks WHERE pid = %s AND NOT granted", backend)
                    waiting = cursor.fetchone() is not None
    other.join()
    assert waiting and outcome == ["refused"]
    assert marks() == {"ADA-rand0m": False, "ada-randorn": True}


@pytest.mark.django_db
def test_renaming_the_held_bot_hands_the_set_to_the_oldest_kept_one(alice, bob) -> None:
    held, kept, later = kept_set(alice, bob)
    rename_bot(later, "bobs-random")  # a kept bot leaves its set, unmarked
    assert (later.name, later.kept_look_alike) == ("bobs-random", False)
    assert marks() == {"ada-random": False, "ADA-rand0m": True, "bobs-random": False}
    rename_bot(held, "alices-random")
    assert marks() == {"alices-random": False, "ADA-rand0m": False, "bobs-random": False}
    assert refused_by_the_database(alice, "ada-random")
    assert refused_by_the_database(alice, "B0bs_Random")


@pytest.mark.django_db
def test_a_rename_that_loses_the_race_is_a_name_error(alice, bob, monkeypatch) -> None:
    """A look-alike stored after the rename's check and before its write: the
    database refuses the write, and the rename says which bot took the name,
    with nothing changed and the caller's transaction usable."""
    bot = create_bot(alice, GAME, "first-name")
    calls = []

    def stored_in_between(game, name, exclude_pk=None, owner=None):
        calls.append(name)
        if len(calls) == 1:  # another upload stores a look-alike right after this look
            Bot.objects.create(owner=bob, game=game, name="new-narne")
            return ""
        return real_name_taken(game, name, exclude_pk, owner)

    real_name_taken = bot_service.name_taken
    monkeypatch.setattr(bot_service, "name_taken", stored_in_between)
    with transaction.atomic():
        with pytest.raises(NameTakenError, match="bot named 'new-narne' exists already"):
            rename_bot(bot, "new-name")
        assert Bot.objects.get(pk=bot.pk).name == "first-name"  # the transaction works
    assert bot.name == "first-name"
    assert calls == ["new-name", "new-name"]


@pytest.mark.django_db(transaction=True)
def test_the_migration_renames_the_later_look_alikes(capsys) -> None:
    """A database from before the constraint may hold look-alikes: the first
    keeps its name, the later ones get a number, and the constraint holds."""
    before = [("ladder", "0006_refused_upload")]
    after = [("ladder", "0007_bot_name_key")]
    with migrating() as to:
        apps = to(before)
        user = apps.get_model("auth", "User").objects.create(username="old-timer")
        OldBot = apps.get_model("ladder", "Bot")
        names = ["Greedy", "greedy", "GREEDY", "greedy-2", "x" * 40, "X" * 40, "solo"]
        made = [OldBot.objects.create(owner=user, game=GAME, name=n) for n in names]
        OldBot.objects.create(owner=user, game="edel-stein-reich", name="greedy")
        # the model as of `after`: later migrations add columns this database lacks
        NewBot = to(after).get_model("ladder", "Bot")  # noqa: N806
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


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_look_alikes_and_lists_them(capsys) -> None:
    """Bots stored before the look-alike rule keep their names (they are in
    URLs, replays and owners' scripts): the later bot of each look-alike set
    is marked as kept and listed for the operator, and the constraint holds
    for every name given from then on."""
    before = [("ladder", "0010_gamefit_seconds")]
    after = [("ladder", "0011_bot_look_alike_key")]
    with migrating() as to:
        apps = to(before)
        User = apps.get_model("auth", "User")  # noqa: N806
        ada = User.objects.create(username="ada", email="ada@example.org")
        mallory = User.objects.create(username="mallory")
        OldBot = apps.get_model("ladder", "Bot")  # noqa: N806
        names = [(ada, "ada-random"), (mallory, "ADA-rand0m"), (mallory, "vvim")]
        names += [(ada, "wirn"), (mallory, "solo")]
        made = [OldBot.objects.create(owner=o, game=GAME, name=n) for o, n in names]
        other_game = OldBot.objects.create(
            owner=mallory, game="edel-stein-reich", name="ada-rand0m"
        )
        NewBot = to(after).get_model("ladder", "Bot")  # noqa: N806
        rows = dict(NewBot.objects.values_list("pk", "name"))
        assert [rows[bot.pk] for bot in made] == [n for _, n in names]  # nothing renamed
        kept = set(NewBot.objects.filter(kept_look_alike=True).values_list("pk", flat=True))
        assert kept == {made[1].pk, made[3].pk}  # the later one of each set
        assert rows[other_game.pk] == "ada-rand0m"
        printed = capsys.readouterr().out
        assert (
            f"bot {made[1].pk} (splendor-duel) 'ADA-rand0m' looks like bot {made[0].pk} "
            "'ada-random'; kept, owner 'mallory' <no e-mail>"
        ) in printed
        assert f"bot {made[3].pk} (splendor-duel) 'wirn' looks like bot {made[2].pk}" in printed
        assert "'solo'" not in printed
        # a new name is held to the rule, by the database too
        for look_alike in ("Ada-Rand0m", "ada-randorn", "VVIM", "w1m"):
            with pytest.raises(IntegrityError), transaction.atomic():
                NewBot.objects.create(owner_id=mallory.pk, game=GAME, name=look_alike)
        NewBot.objects.create(owner_id=mallory.pk, game=GAME, name="ada-randy")
        # and the step back restores the old constraint over the same rows
        to(before)
        with pytest.raises(IntegrityError), transaction.atomic():
            OldBot.objects.create(owner=mallory, game=GAME, name="SOLO")


@pytest.mark.django_db(transaction=True)
def test_the_separator_migration_keeps_look_alikes_and_lists_them(capsys) -> None:
    """0013 folds separators into the key: bots that looked alike only by
    them keep their names, the later one marked and listed; bots 0011 kept
    stay kept, and the step back restores 0011's constraint."""
    before = [("ladder", "0012_beats")]
    after = [("ladder", "0013_bot_look_alike_separators")]
    with migrating() as to:
        apps = to(before)
        User = apps.get_model("auth", "User")  # noqa: N806
        dora = User.objects.create(username="dora", email="dora@example.org")
        mallory = User.objects.create(username="mallory")
        OldBot = apps.get_model("ladder", "Bot")  # noqa: N806
        names = [(dora, "dora-greedy"), (mallory, "dora-greedy-"), (mallory, "dora--greedy")]
        names += [(mallory, "solo_")]
        made = [OldBot.objects.create(owner=o, game=GAME, name=n) for o, n in names]
        kept_by_0011 = OldBot.objects.create(
            owner=mallory, game=GAME, name="d0ra-greedy", kept_look_alike=True
        )
        NewBot = to(after).get_model("ladder", "Bot")  # noqa: N806
        rows = dict(NewBot.objects.values_list("pk", "name"))
        assert [rows[bot.pk] for bot in made] == [n for _, n in names]  # nothing renamed
        kept = set(NewBot.objects.filter(kept_look_alike=True).values_list("pk", flat=True))
        assert kept == {made[1].pk, made[2].pk, kept_by_0011.pk}
        printed = capsys.readouterr().out
        assert (
            f"bot {made[1].pk} (splendor-duel) 'dora-greedy-' looks like bot {made[0].pk} "
            "'dora-greedy'; kept, owner 'mallory' <no e-mail>"
        ) in printed
        assert f"bot {made[2].pk} (splendor-duel) 'dora--greedy' looks like" in printed
        assert "'solo_'" not in printed and "'d0ra-greedy'; kept" not in printed
        for look_alike in ("Dora_Greedy_", "dora_-greedy", "solo", "s0l0--"):
            with pytest.raises(IntegrityError), transaction.atomic():
                NewBot.objects.create(owner_id=mallory.pk, game=GAME, name=look_alike)
        NewBot.objects.create(owner_id=mallory.pk, game=GAME, name="dora-greedy-2")
        to(before)
        with pytest.raises(IntegrityError), transaction.atomic():
            OldBot.objects.create(owner=mallory, game=GAME, name="DORA_greedy")
        OldBot.objects.create(owner=mallory, game=GAME, name="solo")  # 0011's key


@pytest.mark.django_db(transaction=True)
def test_the_migration_hands_sets_that_lost_their_held_bot_to_the_oldest_kept(capsys) -> None:
    """Before 0014 deleting the held bot of a set left only kept bots in it,
    outside the constraint: 0014 unmarks the oldest of them, and only in
    such sets."""
    before = [("ladder", "0013_bot_look_alike_separators")]
    after = [("ladder", "0014_bot_look_alike_orphans")]
    with migrating() as to:
        apps = to(before)
        mallory = apps.get_model("auth", "User").objects.create(username="mallory")
        OldBot = apps.get_model("ladder", "Bot")  # noqa: N806

        def bot(name: str, kept: bool):
            return OldBot.objects.create(owner=mallory, game=GAME, name=name, kept_look_alike=kept)

        gone = bot("ada-random", False)
        orphans = [bot("ADA-rand0m", True), bot("ada-randorn", True)]
        held = [bot("dora-greedy", False), bot("d0ra-greedy", True)]
        OldBot.objects.create(  # another game's set has its held bot
            owner=mallory, game="edel-stein-reich", name="ada-random"
        )
        gone.delete()  # no signal for a migration's model: as before the fix
        NewBot = to(after).get_model("ladder", "Bot")  # noqa: N806
        unmarked = set(NewBot.objects.filter(kept_look_alike=False).values_list("name", "game"))
        assert unmarked == {
            ("ADA-rand0m", GAME),
            ("dora-greedy", GAME),
            ("ada-random", "edel-stein-reich"),
        }
        printed = capsys.readouterr().out
        assert f"bot {orphans[0].pk} (splendor-duel) 'ADA-rand0m': the oldest" in printed
        assert "'d0ra-greedy'" not in printed and f"bot {held[0].pk} " not in printed
        with pytest.raises(IntegrityError), transaction.atomic():
            NewBot.objects.create(owner_id=mallory.pk, game=GAME, name="ada_random")
        to(before)  # and back: the rows satisfy 0013's constraint
        with pytest.raises(IntegrityError), transaction.atomic():
            OldBot.objects.create(owner=mallory, game=GAME, name="Ada-Random")


def historical_bot():
    """The Bot of the newest migration, as a data migration gets it from
    `apps`: no methods of its own, and no signals on its deletes."""
    loader = MigrationLoader(connection)
    return loader.project_state(loader.graph.leaf_nodes()).apps.get_model("ladder", "Bot")


@pytest.mark.django_db
def test_a_data_migration_anchors_the_sets_its_deletes_and_renames_left(alice, bob) -> None:
    """What a future data migration does after deleting or renaming bots
    with its historical model, which sends no post_delete
    (`ladder.bots.anchor_every_look_alike_set`)."""
    Bot = historical_bot()  # noqa: N806
    assert Bot is not bot_service.Bot

    def bot(owner, name: str, kept: bool = False):
        return Bot.objects.create(owner_id=owner.pk, game=GAME, name=name, kept_look_alike=kept)

    gone, kept = bot(alice, "ada-random"), bot(bob, "ADA-rand0m", True)
    bot(bob, "ada-randorn", True)
    moved, moved_kept = bot(alice, "dora-greedy"), bot(bob, "d0ra-greedy", True)
    bot(alice, "solo"), bot(bob, "s0l0", True)  # a set that keeps its held bot
    other_game = Bot.objects.create(
        owner_id=bob.pk, game="edel-stein-reich", name="ada-rand0m", kept_look_alike=True
    )
    gone.delete()
    Bot.objects.filter(pk=moved.pk).update(name="dora-search")
    unmarked = bot_service.anchor_every_look_alike_set(Bot)
    assert unmarked == [kept.pk, moved_kept.pk, other_game.pk]
    assert marks() == {
        "ADA-rand0m": False,
        "ada-randorn": True,
        "dora-search": False,
        "d0ra-greedy": False,
        "solo": False,
        "s0l0": True,
        "ada-rand0m": False,  # the other game's set: only kept bots, held again too
    }
    assert bot_service.anchor_every_look_alike_set(Bot) == []  # twice changes nothing
    for name in ("ada_random", "DORA-greedy"):
        assert refused_by_the_database(alice, name)


@pytest.mark.django_db(transaction=True)
def test_a_data_migration_anchors_by_the_key_of_its_own_time() -> None:
    """A migration that runs between 0011 and 0013 has 0011's key, which did
    not fold separators: its sets are not today's. And a Bot from before
    0011 has no sets; it is told so, rather than unmarking anything."""
    with migrating() as to:
        OldBot = to([("ladder", "0010_gamefit_seconds")]).get_model("ladder", "Bot")  # noqa: N806
        with pytest.raises(ValueError, match="a Bot from before migration 0011 has no look-alike"):
            bot_service.anchor_every_look_alike_set(OldBot)
        apps = to([("ladder", "0012_beats")])
        mallory = apps.get_model("auth", "User").objects.create(username="mallory")
        Bot = apps.get_model("ladder", "Bot")  # noqa: N806

        def bot(name: str, kept: bool = False):
            return Bot.objects.create(owner=mallory, game=GAME, name=name, kept_look_alike=kept)

        held, apart = bot("dora-greedy"), bot("dora--greedy")  # two sets under 0011's key
        oldest = bot("d0ra-greedy", True)
        bot("clora-greedy", True)
        held.delete()
        assert bot_service.anchor_every_look_alike_set(Bot) == [oldest.pk]
        unmarked = set(Bot.objects.filter(kept_look_alike=False).values_list("pk", flat=True))
        assert unmarked == {apart.pk, oldest.pk}
        with pytest.raises(IntegrityError), transaction.atomic():
            Bot.objects.create(owner=mallory, game=GAME, name="Dora_Greedy")


@pytest.mark.django_db
def test_the_migrations_hold_the_models_look_alike_key() -> None:
    """The constraint's key is written out in its migration: a change to
    `BOT_NAME_LOOK_ALIKES` needs a new migration, or the database would
    refuse other names than `name_taken` does."""
    from django.core.management import call_command

    out = io.StringIO()
    try:
        call_command("makemigrations", "ladder", check=True, dry_run=True, stdout=out)
    except SystemExit:
        pytest.fail(f"the models differ from the migrations:\n{out.getvalue()}")


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["\u0430da-random", "d\u043era", "ada\u200b", "\uff41da"])
def test_names_outside_ascii_are_refused(alice, name: str) -> None:
    """Cyrillic а, о, a zero-width space or a full-width ａ would make a look-alike
    that no key of ASCII look-alikes catches: names are ASCII only."""
    with pytest.raises(UploadError, match="bot names start with a letter or digit"):
        create_bot(alice, GAME, name)
    assert not Bot.objects.exists()
