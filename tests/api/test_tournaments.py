"""GET /api/tournaments and /api/tournaments/{id}: the list (paged, filtered
by game and status, running first) and one tournament's standings, which are
`ladder.tournament_table.standings`' numbers; matches say their tournament."""

from __future__ import annotations

import pytest
from django.test import Client

from ladder.models import Bot, Match, Tournament
from ladder.tournament_table import standings
from ladder.tournaments import cancel_tournament
from tests.web.conftest import make_bot
from tests.web.test_tournaments import finish, names_at, start

pytestmark = pytest.mark.django_db


@pytest.fixture
def cups(alice, bob):
    """A running Splendor Duel cup with four of its six matches played, a
    finished one (opal won), a cancelled one, and an Edel, Stein & Reich one."""
    bots = [make_bot(alice, "ruby"), make_bot(bob, "opal"), make_bot(alice, "jade")]
    running = start(bots)
    for i, match in enumerate(running.matches.order_by("pk")[:4]):
        names = names_at(match)
        faults = {names.index("opal"): "timeout"} if i == 0 else {}
        finish(match, [1 if n == "ruby" else 2 for n in names], faults)
    done = start(bots[:2], name="Autumn cup", games=1)
    for match in done.matches.all():
        finish(match, [1, 2] if names_at(match)[0] == "opal" else [2, 1])
    Tournament.objects.filter(pk=done.pk).update(status=Tournament.Status.FINISHED)
    stopped = start(bots[1:], name="Spring cup", games=1)
    cancel_tournament(stopped, "a bot misbehaved")
    esr = [make_bot(bob, f"esr-{i}", game="edel-stein-reich") for i in range(3)]
    gems = start(esr, name="Gem traders", games=3, players=3)
    return {"running": running, "done": done, "stopped": stopped, "gems": gems, "bots": bots}


def names(body: dict) -> list[str]:
    return [t["name"] for t in body["results"]]


def test_the_list_is_running_first_then_newest_first(client: Client, cups) -> None:
    body = client.get("/api/tournaments").json()
    assert body["count"] == 4 and body["page"] == 1 and body["page_size"] == 50
    assert names(body) == ["Gem traders", "Winter cup", "Spring cup", "Autumn cup"]
    winter, spring, autumn = body["results"][1:]
    assert winter["progress"] == {
        "total": 6, "queued": 2, "running": 0, "finished": 4, "errored": 0, "cancelled": 0,
    }  # fmt: skip
    assert winter["bots"] == 3 and winter["players"] == 2 and winter["games"] == 2
    assert winter["seed"] is None, "the seed tells the deals still to come"
    assert winter["winner"] is None and spring["winner"] is None
    assert autumn["winner"] == {"label": "opal v1", "bot": cups["bots"][1].pk}
    assert autumn["seed"] == cups["done"].seed and autumn["status"] == "finished"
    assert spring["reason"] == "a bot misbehaved" and spring["progress"]["cancelled"] == 1


def test_the_list_is_filtered_and_paged(client: Client, cups) -> None:
    assert names(client.get("/api/tournaments?game=edel-stein-reich").json()) == ["Gem traders"]
    assert names(client.get("/api/tournaments?status=finished").json()) == ["Autumn cup"]
    both = client.get("/api/tournaments?game=splendor-duel&status=running").json()
    assert names(both) == ["Winter cup"] and both["count"] == 1
    second = client.get("/api/tournaments?page=2&page_size=3").json()
    assert names(second) == ["Autumn cup"] and second["count"] == 4
    assert client.get("/api/tournaments?game=chess").json()["count"] == 0
    wrong = client.get("/api/tournaments?status=paused")
    assert wrong.status_code == 422
    assert wrong.json()["error"]["field"] == "query.status"


def test_the_detail_is_the_standings_of_the_server(client: Client, cups) -> None:
    tournament = cups["running"]
    body = client.get(f"/api/tournaments/{tournament.pk}").json()
    table = standings(tournament)
    assert [s["label"] for s in body["standings"]] == [r.label for r in table.rows]
    for rank, (shown, row) in enumerate(zip(body["standings"], table.rows, strict=True), 1):
        assert shown["rank"] == rank and shown["position"] == row.entry.position
        assert shown["bot"] == row.bot_id
        for name in ("games", "wins", "win_rate", "win_low", "win_high", "first_alone"):
            assert shown[name] == pytest.approx(getattr(row, name)), name
        for name in ("first_low", "first_high", "avg_rank", "elo", "elo_low", "elo_high"):
            assert shown[name] == pytest.approx(getattr(row, name)), name
        assert shown["faults"] == row.faults
    ruby = next(s for s in body["standings"] if s["label"] == "ruby v1")
    assert ruby["rank"] == 1 and ruby["wins"] == 4 and ruby["win_rate"] == 1
    assert [s["faults"] for s in body["standings"] if s["label"] == "opal v1"] == [1]
    assert body["entries"] == [
        {"position": i, "label": f"{b.name} v1", "bot": b.pk,
         "version": {"id": b.active_version_id, "number": 1}}
        for i, b in enumerate(cups["bots"])
    ]  # fmt: skip
    assert body["progress"]["finished"] == 4 and body["created_by"] is None
    assert body["options"] == tournament.options


def test_a_bot_without_a_finished_match_has_no_figures(client: Client, cups) -> None:
    body = client.get(f"/api/tournaments/{cups['gems'].pk}").json()
    assert [s["games"] for s in body["standings"]] == [0, 0, 0]
    assert {s["elo"] for s in body["standings"]} == {None}
    assert {s["win_rate"] for s in body["standings"]} == {None}


def test_an_unknown_tournament_is_a_json_404(client: Client) -> None:
    response = client.get("/api/tournaments/999999")
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "no tournament with id 999999"


def test_matches_say_their_tournament(client: Client, cups) -> None:
    match = cups["running"].matches.order_by("pk").first()
    assert client.get(f"/api/matches/{match.pk}").json()["tournament"] == cups["running"].pk
    listed = client.get("/api/matches?kind=tournament&page_size=100").json()["results"]
    assert {m["tournament"] for m in listed} == {
        cups[k].pk for k in ("running", "done", "stopped", "gems")
    }
    ladder = Match.objects.create(game="splendor-duel", seat_count=2, seed=1, rules_version="x")
    assert client.get(f"/api/matches/{ladder.pk}").json()["tournament"] is None


def test_the_match_list_and_csv_follow_one_tournament(client: Client, cups) -> None:
    running = cups["running"]
    mine = list(running.matches.order_by("-created_at", "-pk").values_list("pk", flat=True))
    body = client.get(f"/api/matches?tournament={running.pk}&page_size=100").json()
    assert [m["id"] for m in body["results"]] == mine and body["count"] == 6
    assert {m["tournament"] for m in body["results"]} == {running.pk}
    played = client.get(f"/api/matches?tournament={running.pk}&status=finished").json()
    assert played["count"] == 4
    # an unknown tournament selects nothing, as an unknown bot does
    none = client.get("/api/matches?tournament=999999").json()
    assert (none["count"], none["results"]) == (0, [])
    bad = client.get("/api/matches?tournament=cup").json()["error"]
    assert (bad["code"], bad["field"]) == ("invalid", "query.tournament")
    csv = client.get(f"/api/matches.csv?tournament={running.pk}")
    assert f'filename="matches-tournament-{running.pk}.csv"' in csv["Content-Disposition"]
    lines = b"".join(csv.streaming_content).decode().splitlines()
    header, rows = lines[0].split(","), [line.split(",") for line in lines[1:]]
    column = header.index("tournament")
    assert len(rows) == 8 and {r[column] for r in rows} == {str(running.pk)}
    assert [int(r[0]) for r in rows[::2]] == [m for m in mine if m in finished_ids(running)]
    page = client.get(f"/tournaments/{running.pk}/").content.decode()
    assert f'href="/api/matches?tournament={running.pk}"' in page
    assert f'href="/api/matches.csv?tournament={running.pk}" download>' in page


def finished_ids(tournament: Tournament) -> set[int]:
    return set(tournament.matches.filter(status="finished").values_list("pk", flat=True))


def test_a_renamed_bot_keeps_its_label(client: Client, cups) -> None:
    """The entry's label is the name the bot played as, like a replay's seats."""
    Bot.objects.filter(pk=cups["bots"][2].pk).update(name="jade-two")
    body = client.get(f"/api/tournaments/{cups['running'].pk}").json()
    assert [e["label"] for e in body["entries"]] == ["ruby v1", "opal v1", "jade v1"]
