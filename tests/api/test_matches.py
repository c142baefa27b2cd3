"""Matches over the API: lists and filters, details and their private parts,
replay downloads, and the rules of a challenge."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from ladder.leaderboard import refit
from ladder.matches import create_match
from ladder.models import Bot, Match
from tests.api.conftest import ready_bot
from tests.api.test_auth_errors import assert_error

ESR_COMPONENTS = (
    Path(__file__).resolve().parents[2] / "arena/games/edel_stein_reich/data/components.json"
)

pytestmark = pytest.mark.django_db


def replay_of(response) -> dict:
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/gzip"
    assert "attachment" in response["Content-Disposition"]
    return json.loads(gzip.decompress(response.content))


def notes_by_seat(replay: dict) -> dict[int, int]:
    counts = {0: 0, 1: 0}
    for step in replay["steps"]:
        if step.get("note"):
            counts[step["seat"]] += 1
    return counts


def test_played_match_detail_and_privacy(client, as_alice, as_charlie, played_match) -> None:
    url = f"/api/matches/{played_match.pk}"
    public = client.get(url).json()
    assert public["status"] == "finished" and public["rated"] is True
    assert sorted(s["rank"] for s in public["seats"]) == [1, 2]
    assert [s["bot"]["name"] for s in public["seats"]] == ["alpha", "beta"]
    assert all(s["elo_change"] is not None for s in public["seats"])
    assert all(s["stderr_tail"] is None for s in public["seats"])
    assert public["seed"] == played_match.seed  # over, so no longer secret
    assert public["replay_url"] == f"{url}/replay"
    # who moved first: as the replay's first step (the seed drew it)
    assert public["first_mover"] == replay_of(client.get(f"{url}/replay"))["steps"][0]["seat"]

    mine = as_alice.get(url).json()["seats"]
    assert "private-stderr-line" in mine[0]["stderr_tail"]  # alice owns alpha
    assert mine[1]["stderr_tail"] is None  # bob's beta
    staff = as_charlie.get(url).json()["seats"]
    assert all("private-stderr-line" in s["stderr_tail"] for s in staff)


def test_replay_keeps_debug_notes_only_for_the_callers_seats(
    client, as_alice, as_bob, as_charlie, played_match
) -> None:
    url = f"/api/matches/{played_match.pk}/replay"
    full = notes_by_seat(replay_of(as_charlie.get(url)))
    assert full[0] > 0 and full[1] > 0  # staff get the stored file whole
    with played_match.replay.open("rb") as f:
        assert as_charlie.get(url).content == f.read()
    assert notes_by_seat(replay_of(client.get(url))) == {0: 0, 1: 0}
    assert notes_by_seat(replay_of(as_alice.get(url))) == {0: full[0], 1: 0}
    assert notes_by_seat(replay_of(as_bob.get(url))) == {0: 0, 1: full[1]}
    stripped = replay_of(client.get(url))
    assert len(stripped["steps"]) == played_match.steps  # nothing else removed


def test_queued_match_hides_its_seed_and_has_no_replay(client, alpha, beta) -> None:
    match = create_match("splendor-duel", [alpha.active_version, beta.active_version])
    body = client.get(f"/api/matches/{match.pk}").json()
    assert body["status"] == "queued" and body["seed"] is None and body["replay_url"] is None
    assert body["first_mover"] is None  # known with the result
    assert_error(client.get(f"/api/matches/{match.pk}/replay"), 409, "conflict")
    assert_error(client.get("/api/matches/987654/replay"), 404, "not_found")


def test_system_error_text_is_for_staff_only(client, as_charlie, alpha, beta) -> None:
    match = create_match("splendor-duel", [alpha.active_version, beta.active_version])
    Match.objects.filter(pk=match.pk).update(status="errored", error="Traceback: docker died")
    assert client.get(f"/api/matches/{match.pk}").json()["error"] is None
    assert as_charlie.get(f"/api/matches/{match.pk}").json()["error"] == "Traceback: docker died"


def test_match_list_filters(client, alice, bob, alpha, beta) -> None:
    gamma = ready_bot(alice, "gamma")
    ladder = create_match("splendor-duel", [alpha.active_version, beta.active_version])
    other = create_match(
        "splendor-duel", [gamma.active_version, beta.active_version], kind="challenge", rated=False
    )
    Match.objects.filter(pk=other.pk).update(status="cancelled")

    def ids(query: str) -> list[int]:
        response = client.get(f"/api/matches?{query}")
        assert response.status_code == 200, response.content
        return [m["id"] for m in response.json()["results"]]

    assert ids("") == [other.pk, ladder.pk]
    assert ids(f"bot={alpha.pk}") == [ladder.pk]
    assert ids(f"bot={beta.pk}") == [other.pk, ladder.pk]
    assert ids("kind=challenge") == [other.pk]
    assert ids("status=queued") == [ladder.pk]
    assert ids("game=edel-stein-reich") == []
    assert ids("page_size=1&page=2") == [ladder.pk]
    assert client.get("/api/matches?page_size=1").json()["count"] == 2


def challenge(client, bot: int, opponents: list[int], **extra):
    body = {"bot": bot, "opponents": opponents, **extra}
    return client.post("/api/challenges", body, "application/json")


def test_challenge_creates_an_unrated_match(as_alice, alice, trio) -> None:
    red, green, blue = trio
    response = challenge(as_alice, red.pk, [blue.pk, green.pk], options={"money_visible": False})
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["kind"] == "challenge" and body["rated"] is False
    assert body["status"] == "queued" and body["requested_by"] == "alice"
    assert [s["bot"]["name"] for s in body["seats"]] == ["red", "blue", "green"]
    assert body["options"]["money_visible"] is False
    match = Match.objects.get(pk=body["id"])
    assert (match.kind, match.rated, match.requested_by) == ("challenge", False, alice)


@pytest.mark.parametrize(
    "case, status, code, field",
    [
        ("not_mine", 403, "forbidden", "bot"),
        ("too_few_seats", 422, "invalid", "opponents"),
        ("too_many_seats", 422, "invalid", "opponents"),
        ("same_bot_twice", 422, "invalid", "opponents"),
        ("other_game", 422, "invalid", "opponents"),
        ("unknown_bot", 404, "not_found", "opponents"),
        ("unknown_own_bot", 404, "not_found", "bot"),
        ("no_ready_version", 409, "conflict", "opponents"),
        ("disabled", 409, "conflict", "opponents"),
        ("bad_option", 422, "invalid", "options"),
        ("server_file_option", 422, "invalid", "options"),
        ("components_do_not_deal", 422, "invalid", "options"),
        ("nul_in_options", 422, "invalid", "options"),
    ],
)
def test_challenge_rules(as_alice, alice, bob, trio, alpha, case, status, code, field) -> None:
    red, green, blue = trio
    bot, opponents, extra = red.pk, [green.pk, blue.pk], {}
    if case == "not_mine":
        bot, opponents = blue.pk, [red.pk, green.pk]
    elif case == "too_few_seats":
        opponents = [blue.pk]
    elif case == "too_many_seats":
        extra_bots = [ready_bot(bob, f"x{i}", game="edel-stein-reich").pk for i in range(3)]
        opponents = [green.pk, blue.pk, *extra_bots]
    elif case == "same_bot_twice":
        opponents = [blue.pk, blue.pk]
    elif case == "other_game":
        opponents = [green.pk, alpha.pk]
    elif case == "unknown_bot":
        opponents = [green.pk, 99999]
    elif case == "unknown_own_bot":  # docs/api.md: the field is `bot`
        bot = 99999
    elif case == "no_ready_version":
        empty = Bot.objects.create(owner=bob, game="edel-stein-reich", name="empty")
        opponents = [green.pk, empty.pk]
    elif case == "disabled":
        Bot.objects.filter(pk=blue.pk).update(enabled=False)
    elif case == "bad_option":
        extra = {"options": {"barter_winner": "nobody"}}
    elif case == "server_file_option":
        extra = {"options": {"components": "/etc/passwd"}}
    elif case == "components_do_not_deal":  # valid data, but 25 cards for 3 seats
        data = json.loads(ESR_COMPONENTS.read_text())
        data["set_aside"]["3"] = 5
        extra = {"options": {"components": json.dumps(data)}}
    elif case == "nul_in_options":  # PostgreSQL's jsonb cannot hold it: was a 500 there
        data = json.loads(ESR_COMPONENTS.read_text())
        data["title"] = "house\u0000values"
        extra = {"options": {"components": json.dumps(data)}}
    error = assert_error(challenge(as_alice, bot, opponents, **extra), status, code, field)
    assert error["message"]
    assert not Match.objects.filter(kind="challenge").exists()


def test_challenge_needs_a_user_and_is_capped(client, as_alice, alpha, beta, settings) -> None:
    assert_error(challenge(client, alpha.pk, [beta.pk]), 401, "unauthenticated")
    settings.MAX_OPEN_CHALLENGES = 2
    for _ in range(2):
        assert challenge(as_alice, alpha.pk, [beta.pk]).status_code == 201
    assert_error(challenge(as_alice, alpha.pk, [beta.pk]), 429, "rate_limited")
    assert Match.objects.filter(kind="challenge").count() == 2


def test_games_and_leaderboard(client, played_match, alpha, beta) -> None:
    games = {g["id"]: g for g in client.get("/api/games").json()}
    assert games["splendor-duel"]["seat_counts"] == [2]
    assert games["edel-stein-reich"]["seat_counts"] == [3, 4, 5]
    assert "house values" in games["edel-stein-reich"]["notice"]
    assert {o["name"] for o in games["splendor-duel"]["options"]} >= {"first_seat"}
    assert client.get("/api/games/splendor-duel").json() == games["splendor-duel"]
    assert_error(client.get("/api/games/chess"), 404, "not_found")
    assert_error(client.get("/api/games/chess/leaderboard"), 404, "not_found")

    refit("splendor-duel")
    board = client.get("/api/games/splendor-duel/leaderboard").json()
    assert board["count"] == 2 and board["fitted_at"] is not None
    winner = next(s for s in played_match.seats.all() if s.rank == 1).version.bot.name
    top, second = board["results"]
    assert (top["rank"], top["bot"]["name"], top["games"], top["win_rate"]) == (1, winner, 1, 1.0)
    assert second["rank"] == 2 and second["win_rate"] == 0.0
    assert top["fitted_low"] < top["fitted"] < top["fitted_high"]
    assert top["provisional"] is True and top["last_played_at"] is not None
    assert top["bot"]["owner"] in {"alice", "bob"}
    paged = client.get("/api/games/splendor-duel/leaderboard?page_size=1&page=2").json()
    assert [r["bot"]["name"] for r in paged["results"]] == [second["bot"]["name"]]


def test_a_challenge_may_shorten_the_game_but_not_lengthen_it(as_alice, alpha, beta) -> None:
    """A step cap of 100 000 kept a worker busy for ten minutes and gave a
    169 MB replay viewer (found by a QA adversary); the ladder's cap is the
    most a challenge may ask for."""
    too_long = challenge(as_alice, alpha.pk, [beta.pk], options={"step_cap": 2001})
    error = assert_error(too_long, 422, "invalid", "options")
    assert "at most 2000 steps, as on the ladder" in error["message"]
    shorter = challenge(as_alice, alpha.pk, [beta.pk], options={"step_cap": 300})
    assert shorter.status_code == 201, shorter.content
    assert shorter.json()["options"]["step_cap"] == 300
    assert Match.objects.filter(kind="challenge").count() == 1


@pytest.mark.postgres
def test_match_list_reads_an_index_not_the_whole_history() -> None:
    """GET /api/matches (newest first) sorted every match ever played on each
    request: a sequential scan, 30 ms at 20,000 matches and linear beyond
    (found by QA). The (created_at, id) index gives the page directly."""
    from django.db import connection

    page = Match.objects.order_by("-created_at", "-pk")[:50]  # as list_matches orders
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # the table is tiny here
        plan = page.explain()
    assert "match_newest_first" in plan and "Sort" not in plan, plan


def test_match_list_walks_the_whole_history_with_a_cursor(client, alpha, beta, bob) -> None:
    """QA (200,000 matches): deep pages took 0.4-0.8 s, OFFSET reading every
    match before them. `next` is the `before` of the following step: every
    match once, in the order of the pages (also among matches created at the
    same moment), unmoved by matches created during the walk."""
    from datetime import timedelta

    from django.utils import timezone

    versions = [alpha.active_version, beta.active_version]
    made = [create_match("splendor-duel", versions) for _ in range(7)]
    same = timezone.now() - timedelta(hours=1)
    Match.objects.filter(pk__in=[m.pk for m in made[2:5]]).update(created_at=same)
    gamma = ready_bot(bob, "gamma")
    other = create_match("splendor-duel", [gamma.active_version, beta.active_version])

    def get(query: str) -> dict:
        response = client.get(f"/api/matches?{query}")
        assert response.status_code == 200, response.content
        return response.json()

    everything = [m["id"] for m in get("page_size=100")["results"]]
    assert len(everything) == 8 and get("page_size=100")["next"] is None
    walked, query = [], "page_size=3"
    for step in range(10):  # bounded: 8 matches, 3 a step
        answer = get(query)
        assert answer["count"] == (8 if step == 0 else 9)  # whatever the cursor
        walked += [m["id"] for m in answer["results"]]
        if step == 0:  # a new match goes first in the list, not into the walk
            create_match("splendor-duel", versions)
        if answer["next"] is None:
            break
        assert answer["next"] == walked[-1]
        query = f"page_size=3&before={answer['next']}"
    assert walked == everything
    # page numbers count from the cursor; the filters still apply
    assert [m["id"] for m in get(f"page_size=2&page=2&before={everything[0]}")["results"]] == (
        everything[3:5]
    )
    alphas = [i for i in everything if i != other.pk]
    mine = get(f"bot={alpha.pk}&page_size=100&before={alphas[2]}")
    assert [m["id"] for m in mine["results"]] == alphas[3:] and mine["next"] is None
    assert get(f"page_size=1&page=2&before={everything[-1]}")["results"] == []
    assert_error(client.get("/api/matches?before=999999"), 404, "not_found", "query.before")
    assert_error(client.get("/api/matches?before=0"), 422, "invalid", "query.before")


@pytest.mark.postgres
def test_match_list_cursor_reads_the_index_from_the_cursor_on() -> None:
    """The step after a cursor starts in the newest-first index at that match:
    no sort of the history, no OFFSET reading all that comes before it."""
    from django.db import connection

    from ladder.api.matches import after

    alpha, beta = ready_bot_pair()
    match = create_match("splendor-duel", [alpha.active_version, beta.active_version])
    page = after(Match.objects.order_by("-created_at", "-pk"), match.pk)[:50]
    with connection.cursor() as cursor:
        for scan in ("seqscan", "bitmapscan"):  # the table is tiny here
            cursor.execute(f"SET LOCAL enable_{scan} = off")
        plan = page.explain()
    assert "match_newest_first" in plan and "Sort" not in plan, plan


def ready_bot_pair() -> tuple[Bot, Bot]:
    from django.contrib.auth import get_user_model

    owner = get_user_model().objects.create_user("cursor-owner", password="x")
    return ready_bot(owner, "cursor-a"), ready_bot(owner, "cursor-b")


def test_a_bots_match_list_is_the_history_filtered_by_bot(client, alice, bob, alpha, beta) -> None:
    """`bot=` selects the matches any version of the bot played, once each
    (also a match where it held two seats), in the list's order (ties in
    created_at by id), with every other filter, page and cursor; its CSV
    lists the same matches. The list is checked against the matches sorted
    here."""
    from datetime import timedelta

    from django.utils import timezone

    from ladder.bots import add_version
    from tests.api.conftest import RANDOM_BOT

    v1 = alpha.active_version
    v2 = add_version(alpha, "main.py", RANDOM_BOT, validate=False)
    gamma = ready_bot(bob, "gamma")
    lineups = [[v1, beta.active_version], [beta.active_version, v2], [v2, v1]]
    made = [create_match("splendor-duel", lineups[i % 3]) for i in range(9)]
    made.append(create_match("splendor-duel", [gamma.active_version, beta.active_version]))
    made.append(create_match("splendor-duel", [v2, gamma.active_version], kind="challenge"))
    now = timezone.now()
    # ties: three matches created at the same moment, one created out of id order
    Match.objects.filter(pk__in=[m.pk for m in made[2:5]]).update(created_at=now - timedelta(1))
    Match.objects.filter(pk=made[7].pk).update(created_at=now - timedelta(2))
    finished = [m.pk for m in made[::2]]
    Match.objects.filter(pk__in=finished).update(status="finished", finished_at=now)
    Match.objects.filter(pk=made[0].pk).update(finished_at=now - timedelta(3))

    def expected(**only) -> list[int]:
        mine = Match.objects.filter(seats__version__bot=alpha).filter(**only).distinct()
        return [m.pk for m in sorted(mine, key=lambda m: (m.created_at, m.pk), reverse=True)]

    def listed(query: str) -> list[int]:
        response = client.get(f"/api/matches?bot={alpha.pk}&{query}")
        assert response.status_code == 200, response.content
        return [m["id"] for m in response.json()["results"]]

    everything = expected()
    assert len(everything) == 10 and listed("page_size=100") == everything
    assert client.get(f"/api/matches?bot={alpha.pk}").json()["count"] == 10
    walked, query = [], "page_size=3"
    while True:
        answer = client.get(f"/api/matches?bot={alpha.pk}&{query}").json()
        walked += [m["id"] for m in answer["results"]]
        if answer["next"] is None:
            break
        query = f"page_size=3&before={answer['next']}"
    assert walked == everything
    assert listed("page_size=4&page=2") == everything[4:8]
    assert listed(f"page_size=2&page=2&before={everything[1]}") == everything[4:6]
    assert listed("kind=challenge") == expected(kind="challenge")
    assert listed("status=finished") == expected(status="finished")
    assert listed("game=edel-stein-reich") == []
    since = (now - timedelta(hours=1)).isoformat().replace("+00:00", "Z")
    assert listed(f"finished_after={since}") == expected(finished_at__gte=now - timedelta(hours=1))
    csv = client.get(f"/api/matches.csv?bot={alpha.pk}")
    rows = b"".join(csv.streaming_content).decode().splitlines()[1:]
    in_csv = list(dict.fromkeys(int(row.split(",")[0]) for row in rows))
    assert in_csv == expected(status="finished")
