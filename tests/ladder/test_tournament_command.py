"""`manage.py tournament`: create, list, show, cancel; bad input stores nothing."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from ladder.models import Match, Tournament
from ladder.tournament_table import standings, table_rows
from tests.ladder.test_tournaments import make_bots, no_broker, play  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db(transaction=True)


def run(*args: str) -> str:
    from io import StringIO

    out = StringIO()
    call_command("tournament", *args, stdout=out)
    return out.getvalue()


def test_create_show_list_cancel(alice) -> None:
    bots = make_bots(alice, 3)
    printed = run(
        "create", "splendor-duel", str(bots[0].pk), "bot1", "bot2", "--games", "2",
        "--name", "cup", "--seed", "11", "--options", '{"step_cap": 300}',
    )  # fmt: skip
    tournament = Tournament.objects.get()
    assert printed == f"Tournament {tournament.pk} (cup): 6 matches queued, seed 11.\n"
    assert (tournament.players, tournament.games, tournament.seed) == (2, 2, 11)
    assert tournament.options["step_cap"] == 300
    assert [e.version for e in tournament.entries.all()] == [b.active_version for b in bots]
    first = tournament.matches.order_by("pk").first()
    play(first, [1, 2])
    shown = run("show", str(tournament.pk)).splitlines()
    assert shown[0] == f"Tournament {tournament.pk}: cup (running)"
    assert shown[1] == "splendor-duel: 1 games, 2 seats, 2 games per table, first seed 11"
    assert "matches: 6 — 5 queued, 0 running, 1 finished" in shown[3]
    assert (
        shown[4].split()
        == "bot games win rate 1st alone (95% CI) avg rank faults Elo (±95%)".split()
    )
    assert [" ".join(line.split()[:2]) for line in shown[5:]] == [
        r["bot"] for r in table_rows(standings(tournament))
    ]
    assert shown[5].startswith("bot0 v1") and shown[5].split()[2:4] == ["1", "100.0%"]
    listed = run("list")
    assert "running    splendor-duel     2 seats  1/6 played" in listed and "cup" in listed
    assert run("cancel", str(tournament.pk), "--reason", "test over") == (
        f"Tournament {tournament.pk} cancelled: 5 queued matches cancelled; "
        "matches being played finish and count.\n"
    )
    assert "(cancelled: test over)" in run("show", str(tournament.pk))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["create", "chess", "a", "b", "--games", "1"], "unknown game 'chess'"),
        (
            ["create", "splendor-duel", "bot0", "nobody", "--games", "1"],
            "no bot 'nobody': give a bot's id or its name in splendor-duel",
        ),  # fmt: skip
        (
            ["create", "splendor-duel", "bot0", "bot1", "--games", "0"],
            "games per table must be at least 1, not 0",
        ),  # fmt: skip
        (["create", "splendor-duel", "bot0", "bot0", "--games", "1"], "bot bot0 is entered twice"),
        (
            ["create", "splendor-duel", "bot0", "--games", "1"],
            "2 players per match need at least 2 bots, not 1",
        ),  # fmt: skip
        (
            ["create", "splendor-duel", "bot0", "bot1", "--games", "1", "--options", "{"],
            "--options is not JSON",
        ),  # fmt: skip
        (
            ["create", "splendor-duel", "bot0", "bot1", "--games", "1", "--options", "[]"],
            "--options must be a JSON object",
        ),  # fmt: skip
        (
            ["create", "splendor-duel", "bot0", "bot1", "--games", "1", "--players", "3"],
            "splendor-duel is played by 2 players, not 3",
        ),  # fmt: skip
        (["show", "999"], "no tournament 999"),
        (["cancel", "999"], "no tournament 999"),
    ],
)
def test_bad_input_is_refused_and_stores_nothing(alice, args, message) -> None:
    make_bots(alice, 2)
    with pytest.raises(CommandError) as caught:
        run(*args)
    assert message in str(caught.value)
    assert not Tournament.objects.exists() and not Match.objects.exists()


def test_cancelling_twice_says_why(alice) -> None:
    make_bots(alice, 2)
    run("create", "splendor-duel", "bot0", "bot1", "--games", "1")
    tournament = Tournament.objects.get()
    run("cancel", str(tournament.pk))
    with pytest.raises(CommandError, match=f"tournament {tournament.pk} is cancelled, not running"):
        run("cancel", str(tournament.pk))


def test_exit_status_and_message_on_the_command_line() -> None:
    """From a shell: a non-zero status and the reason on stderr."""
    import os
    import subprocess
    import sys

    from tests.ladder.conftest import ROOT, database_url

    done = subprocess.run(
        [sys.executable, "manage.py", "tournament", "create", "chess", "a", "b", "--games", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={**os.environ, "DATABASE_URL": database_url()},
    )  # fmt: skip
    assert done.returncode != 0
    assert "unknown game 'chess'" in done.stderr and "Traceback" not in done.stderr


def test_show_prints_a_finished_tournaments_stored_table(alice, monkeypatch) -> None:
    """Once no match is left to play, `show` prints the stored final table:
    the same lines as when it was fitted, and no fit at all."""
    import ladder.tournament_table

    make_bots(alice, 2)
    run("create", "splendor-duel", "bot0", "bot1", "--games", "2")
    tournament = Tournament.objects.get()
    for match, ranks in zip(tournament.matches.order_by("pk"), ([1, 2], [2, 1]), strict=True):
        play(match, ranks)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED and tournament.final_table
    shown = run("show", str(tournament.pk))

    def no_count(t):
        raise AssertionError("counted and fitted again")

    monkeypatch.setattr(ladder.tournament_table, "_counted", no_count)
    assert run("show", str(tournament.pk)) == shown
    assert "2 finished, 0 errored" in shown and "bot0 v1" in shown and "bot1 v1" in shown
