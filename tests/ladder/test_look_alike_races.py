"""Two bots of one look-alike set leave it at the same moment (deleted, or
renamed to another key), in real concurrent transactions on PostgreSQL: the
set ends with exactly one holder under the database's constraint, the oldest
bot left, no error reaches either user, and nothing else changes.

The race `ladder.bots.anchor_look_alikes` retries for: the bot that lets go
of the set looks for the oldest kept bot while another transaction's
departure of that bot is not committed yet, and its write then changes no
row. Each test makes that happen every time: the first transaction stays
open until the second has looked and is about to write, and commits either
before the write is sent or while the write waits for its row lock."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from django.db import connection, transaction

from ladder.bots import NameTakenError, create_bot, delete_empty_bot, rename_bot
from ladder.models import Bot
from tests.ladder.test_bot_names import GAME, kept_set, marks, refused_by_the_database

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

#: how long a step waits for the other transaction before the test fails
STEP_TIMEOUT_S = 30
#: the write of `anchor_look_alikes` that takes a kept bot out of its mark
UNMARK = 'UPDATE "ladder_bot" SET "kept_look_alike" = '
#: the row lock `delete_empty_bot` takes before it deletes
LOCK = "FOR UPDATE"

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
    """The oldest kept bot leaves first, uncommitted; the held bot leaves
    and finds that bot as its set's next holder; its unmark changes no row
    once the other commits, and the retry gives the set to the next kept bot."""
    held, kept, later = kept_set(alice, bob)
    errors = race(leave_kept(kept), leave_held(held), UNMARK, when)
    assert errors == []
    assert marks() == {"ada-randorn": False} | held_after | kept_after
    assert refused_by_the_database(alice, "Ada_Random")
    with pytest.raises(NameTakenError, match="bot named 'ada-randorn' exists already"):
        create_bot(alice, GAME, "ada-random")


@pytest.mark.parametrize("when", WHEN)
def test_the_kept_bot_leaves_while_the_held_one_hands_it_the_set(alice, bob, when) -> None:
    """The other order: the held bot's departure unmarks the oldest kept bot,
    uncommitted, while that bot is being deleted. The delete waits for the
    unmark, then hands the set on itself."""
    held, kept, later = kept_set(alice, bob)
    errors = race(deleted(held), deleted(kept), LOCK, when)
    assert errors == []
    assert marks() == {"ada-randorn": False}
    assert refused_by_the_database(alice, "ADA_RAND0M")


@pytest.mark.parametrize("when", WHEN)
def test_the_same_bot_deleted_twice_at_once(alice, bob, when) -> None:
    """Two deletes of the held bot (two clicks, or the API called twice):
    the second finds it gone, which is what it asked for, not an error; the
    set is handed on once."""
    held, kept, later = kept_set(alice, bob)
    errors = race(deleted(held), deleted(Bot.objects.get(pk=held.pk)), LOCK, when)
    assert errors == []
    assert marks() == {"ADA-rand0m": False, "ada-randorn": True}
    assert refused_by_the_database(alice, "ada_random")
