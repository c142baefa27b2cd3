"""A small server tournament played to the end by a real Celery worker on
PostgreSQL and Redis, its bots in the Docker sandbox."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from ladder.bots import install_builtin
from ladder.models import Match, Rating, Tournament
from ladder.tournament_table import standings
from ladder.tournaments import create_tournament
from tests.ladder.conftest import wait_for, worker_processes

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.docker,
    pytest.mark.django_db(transaction=True),
]


def test_a_worker_plays_a_tournament_to_the_end(media_dir, settings) -> None:
    # fewer sent at once than the tournament has: the worker sends the rest
    settings.QUEUE_DEPTH_PER_WORKER = 2
    bots = [
        install_builtin("splendor-duel", "greedy", bot_name="t-greedy"),
        install_builtin("splendor-duel", "random", bot_name="t-random-a"),
        install_builtin("splendor-duel", "random", bot_name="t-random-b"),
    ]
    tournament = create_tournament(
        game="splendor-duel",
        versions=[b.active_version for b in bots],
        games=2,
        players=2,
        name="end to end",
        seed=21,
    )
    tournament.refresh_from_db()
    assert tournament.matches.count() == 6
    assert tournament.matches.filter(pk__lte=tournament.sent_through).count() == 2
    with worker_processes(
        1, media_dir, {"SANDBOX_BACKEND": "docker", "QUEUE_DEPTH_PER_WORKER": "2"}
    ):
        wait_for(
            lambda: Tournament.objects.get(pk=tournament.pk).status != Tournament.Status.RUNNING,
            timeout_s=420,
            what="the tournament's 6 matches to be played",
        )
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED and tournament.finished_at
    matches = tournament.matches.all()
    assert {m.status for m in matches} == {Match.Status.FINISHED}
    assert all(m.replay and not m.rated and m.rating_seq is None for m in matches)
    assert not Rating.objects.filter(bot__in=bots, elo_games__gt=0).exists()  # unrated
    table = standings(tournament)
    assert table.progress.finished == 6 and table.progress.queued == 0
    assert sorted(r.games for r in table.rows) == [4, 4, 4]
    assert sum(r.wins for r in table.rows) == pytest.approx(6)
    out = StringIO()
    call_command("tournament", "show", str(tournament.pk), stdout=out)
    print(out.getvalue())
    assert "splendor-duel: 6 games, 2 seats, 2 games per table, first seed 21" in out.getvalue()
