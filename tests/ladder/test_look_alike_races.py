"""Bots of one look-alike set leave it at the same moment (deleted, or
renamed to another key), in real concurrent transactions on PostgreSQL: the
set ends with exactly one holder under the database's constraint, the oldest
bot left, no error reaches either user, and nothing else changes.

The ladder's departures take turns (`ladder.bots.take_look_alike_turn`):
each test keeps the first transaction open until the second is at its turn,
and commits either before the second asks for it or while it waits. Two
users deleted at once whose bots cross two sets are the deadlock that the
turn ends. A migration's departure takes no turn, so it can still look for
the oldest kept bot while the ladder's departure of that bot is not
committed, and its write then changes no row: the race
`ladder.bots.anchor_look_alikes` retries for."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.test import Client
from django.urls import reverse

from ladder.bots import (
    NameTakenError,
    anchor_every_look_alike_set,
    create_bot,
    delete_empty_bot,
    rename_bot,
)
from ladder.models import Bot
from tests.ladder.test_bot_names import GAME, kept_set, marks, refused_by_the_database

User = get_user_model()

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

#: how long a step waits for the other transaction before the test fails
STEP_TIMEOUT_S = 30
#: the write of `anchor_look_alikes` that takes a kept bot out of its mark
UNMARK = 'UPDATE "ladder_bot" SET "kept_look_alike" = '
#: the first statement of `take_look_alike_turn`'s lock (its row may not
#: exist yet: then the wait is on its insert)
TURN = 'FROM "ladder_counter"'

WHEN = ["before the write", "while the write waits"]


def blocked_by(blocker_pid: int, pid: int) -> bool:
    """Whether backend `pid` waits for a lock that `blocker_pid` holds (any
    connection may ask, the blocker's own too)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s = ANY(pg_blocking_pids(%s))", [blocker_pid, pid])
        return cursor.fetchone()[0]


def backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def race(first: Callable[[], None], second: Callable[[], None], pause_at: str, when: str) -> list:
    """Run `first` in a transaction of its own thread and keep it open; then
    `second` in another thread, up to its first statement that contains
    `pause_at`; then commit `first` ("before the write": before that
    statement is sent; "while the write waits": once the statement waits for
    a row lock of `first`); then let `second` finish. Returns the errors of
    both, as the users would have seen them."""
    first_done, second_paused, first_committed = (threading.Event() for _ in range(3))
    pids: dict[str, int] = {}
    errors: list = []

    def run_first() -> None:
        try:
            pids["first"] = backend_pid()
            with transaction.atomic():
                first()
                first_done.set()
                if not second_paused.wait(STEP_TIMEOUT_S):
                    errors.append(f"the second transaction never reached {pause_at!r}")
                elif when == "while the write waits":
                    wait_until_blocked(pids["first"], pids["second"])
        except Exception as exc:
            errors.append(exc)
        finally:
            first_done.set()
            first_committed.set()
            connection.close()

    def wait_until_blocked(first_pid: int, second_pid: int) -> None:
        # a bounded watch of pg_locks: what it waits for is an event, not a time
        deadline = time.monotonic() + STEP_TIMEOUT_S
        while not blocked_by(first_pid, second_pid):
            if time.monotonic() > deadline:
                errors.append(f"the second transaction never waited at {pause_at!r}")
                return
            first_committed.wait(0.005)  # not set yet: a pause between two looks

    def pause(execute, sql, params, many, context):
        if pause_at in sql and not second_paused.is_set():
            second_paused.set()
            if when == "before the write":
                first_committed.wait(STEP_TIMEOUT_S)
        return execute(sql, params, many, context)

    def run_second() -> None:
        try:
            pids["second"] = backend_pid()
            if not first_done.wait(STEP_TIMEOUT_S):
                errors.append("the first transaction never got done")
            with connection.execute_wrapper(pause):
                second()
        except Exception as exc:
            errors.append(exc)
        finally:
            second_paused.set()
            connection.close()

    threads = [threading.Thread(target=run_first), threading.Thread(target=run_second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(3 * STEP_TIMEOUT_S)
    assert not any(thread.is_alive() for thread in threads), "a racing transaction hangs"
    return errors


def deleted(bot: Bot) -> Callable[[], None]:
    return lambda: delete_empty_bot(bot)


def renamed(bot: Bot, name: str) -> Callable[[], None]:
    return lambda: rename_bot(bot, name)


def renamed_by_a_migration(bot: Bot, name: str) -> Callable[[], None]:
    """What the docstring of `anchor_every_look_alike_set` tells a data
    migration to do: rename with update() (no turn taken), then hand on the
    sets left without a holder."""

    def rename() -> None:
        Bot.objects.filter(pk=bot.pk).update(name=name, kept_look_alike=False)
        anchor_every_look_alike_set(Bot)

    return rename


@pytest.mark.parametrize("when", WHEN)
@pytest.mark.parametrize(
    "leave_held, held_after",
    [(deleted, {}), (lambda bot: renamed(bot, "alices-random"), {"alices-random": False})],
    ids=["held deleted", "held renamed"],
)
@pytest.mark.parametrize(
    "leave_kept, kept_after",
    [(deleted, {}), (lambda bot: renamed(bot, "bobs-random"), {"bobs-random": False})],
    ids=["kept deleted", "kept renamed"],
)
def test_the_held_and_the_oldest_kept_bot_leave_at_once(
    alice, bob, leave_held, held_after, leave_kept, kept_after, when
) -> None:
    """The oldest kept bot leaves first, uncommitted; the held bot's
    departure waits for its turn, then finds the next kept bot as its set's
    next holder."""
    held, kept, later = kept_set(alice, bob)
    errors = race(leave_kept(kept), leave_held(held), TURN, when)
    assert errors == []
    assert marks() == {"ada-randorn": False} | held_after | kept_after
    assert refused_by_the_database(alice, "Ada_Random")
    with pytest.raises(NameTakenError, match="bot named 'ada-randorn' exists already"):
        create_bot(alice, GAME, "ada-random")


@pytest.mark.parametrize("when", WHEN)
@pytest.mark.parametrize(
    "leave_kept, kept_after",
    [(deleted, {}), (lambda bot: renamed(bot, "bobs-random"), {"bobs-random": False})],
    ids=["kept deleted", "kept renamed"],
)
def test_a_migration_hands_on_a_set_whose_oldest_kept_bot_is_leaving(
    alice, bob, leave_kept, kept_after, when
) -> None:
    """A migration renames the held bot while the oldest kept bot's departure
    is not committed: it finds that bot as the set's next holder, its unmark
    changes no row once the other commits, and the retry gives the set to
    the next kept bot."""
    held, kept, later = kept_set(alice, bob)
    errors = race(leave_kept(kept), renamed_by_a_migration(held, "alices-random"), UNMARK, when)
    assert errors == []
    assert marks() == {"ada-randorn": False, "alices-random": False} | kept_after
    assert refused_by_the_database(alice, "Ada_Random")


@pytest.mark.parametrize("when", WHEN)
def test_the_kept_bot_leaves_while_the_held_one_hands_it_the_set(alice, bob, when) -> None:
    """The other order: the held bot's departure unmarks the oldest kept bot,
    uncommitted, while that bot is being deleted. The delete waits for its
    turn, then hands the set on itself."""
    held, kept, later = kept_set(alice, bob)
    errors = race(deleted(held), deleted(kept), TURN, when)
    assert errors == []
    assert marks() == {"ada-randorn": False}
    assert refused_by_the_database(alice, "ADA_RAND0M")


@pytest.mark.parametrize("when", WHEN)
def test_the_same_bot_deleted_twice_at_once(alice, bob, when) -> None:
    """Two deletes of the held bot (two clicks, or the API called twice):
    the second finds it gone, which is what it asked for, not an error; the
    set is handed on once."""
    held, kept, later = kept_set(alice, bob)
    errors = race(deleted(held), deleted(Bot.objects.get(pk=held.pk)), TURN, when)
    assert errors == []
    assert marks() == {"ADA-rand0m": False, "ada-randorn": True}
    assert refused_by_the_database(alice, "ada_random")


def crossed_sets(alice, bob) -> None:
    """Two look-alike sets that cross two owners: alice's bot holds one set
    and bob's holds the other, and each has a kept bot in the other's set."""
    create_bot(alice, GAME, "ada-random")  # holds ada-random's set
    create_bot(bob, GAME, "bob-greedy")  # holds bob-greedy's set
    Bot.objects.create(owner=bob, game=GAME, name="ADA-rand0m", kept_look_alike=True)
    Bot.objects.create(owner=alice, game=GAME, name="b0b-greedy", kept_look_alike=True)


def admin_deletes(client, user) -> Callable[[], object]:
    return lambda: client.post(reverse("admin:auth_user_delete", args=[user.pk]), {"post": "yes"})


def admin_action_deletes(client, user) -> Callable[[], object]:
    changelist = reverse("admin:auth_user_changelist")
    data = {"action": "delete_selected", "_selected_action": [user.pk], "post": "yes"}
    return lambda: client.post(changelist, data)


def together(
    requests: list[Callable[[], object]], pause_at: str | list[str], staggered: bool = False
) -> tuple[list, list]:
    """Run each request in a thread of its own; the first statement of each
    that contains `pause_at` (one for all, or one per request) waits until
    the other request has reached its own, is waiting for a lock of this
    one, or is done, so that each request has done what comes before its
    pause when either goes on. `staggered`: the second request starts only
    once the first is at its pause (or done), so that what the first does
    before its pause comes before anything of the second. Returns the
    responses and the errors."""
    pauses = [pause_at] * len(requests) if isinstance(pause_at, str) else pause_at
    reached = [threading.Event() for _ in requests]
    done = [threading.Event() for _ in requests]
    pids: dict[int, int] = {}
    responses: list = [None] * len(requests)
    errors: list = []

    def run(i: int) -> None:
        other = 1 - i

        def pause(execute, sql, params, many, context):
            if pauses[i] in sql and not reached[i].is_set():
                reached[i].set()
                deadline = time.monotonic() + STEP_TIMEOUT_S
                while not (
                    reached[other].is_set()
                    or done[other].is_set()
                    or (other in pids and blocked_by(pids[i], pids[other]))
                ):
                    if time.monotonic() > deadline:
                        errors.append(
                            f"request {other} neither reached {pauses[other]!r} nor waited"
                        )
                        break
                    done[other].wait(0.005)
            return execute(sql, params, many, context)

        try:
            deadline = time.monotonic() + STEP_TIMEOUT_S
            while staggered and i == 1 and not (reached[0].is_set() or done[0].is_set()):
                if time.monotonic() > deadline:
                    errors.append(f"request 0 never reached {pauses[0]!r}")
                    break
                done[0].wait(0.005)
            pids[i] = backend_pid()
            with connection.execute_wrapper(pause):
                responses[i] = requests[i]()
        except Exception as exc:
            errors.append(exc)
        finally:
            done[i].set()
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(requests))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(3 * STEP_TIMEOUT_S)
    assert not any(thread.is_alive() for thread in threads), "a racing request hangs"
    return responses, errors


@pytest.mark.parametrize("how", [admin_deletes, admin_action_deletes], ids=["page", "action"])
def test_two_users_whose_bots_cross_two_sets_deleted_at_once(alice, bob, admin_user, how) -> None:
    """Each deletion hands a set of the other user's bots on: alice's takes
    her held bot out of one set, whose next holder is bob's kept bot, and
    bob's the same the other way. Before, both removed their own bots and
    then each waited for the other's to unmark a kept bot: PostgreSQL found
    the deadlock and one request failed with a server error."""
    crossed_sets(alice, bob)
    clients = [Client(raise_request_exception=False) for _ in range(2)]
    for client in clients:
        client.force_login(admin_user)
    requests = [how(clients[0], alice), how(clients[1], bob)]
    responses, errors = together(requests, UNMARK)
    assert errors == []
    assert [response.status_code for response in responses] == [302, 302]
    assert not Bot.objects.exists()
    assert not User.objects.filter(pk__in=[alice.pk, bob.pk]).exists()
