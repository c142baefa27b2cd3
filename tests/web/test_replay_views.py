"""The replay viewer's JSON: frames of finished matches, live steps of running ones.

Finished matches are real: played by `run_match` in the process sandbox with
bots that attach a debug note naming their owner, so the tests can see whose
notes reach whom.
"""

from __future__ import annotations

import gzip
import json
import shutil
import tempfile
from pathlib import Path

import pytest
from django.template.loader import render_to_string
from django.urls import reverse

from arena import get_game, spectator_frames
from ladder import tasks, views_replay
from ladder.bots import add_version, create_bot, install_builtin
from ladder.matches import create_match
from ladder.models import Bot, LiveStep, Match
from tests.arena.playout import scripted_replay
from tests.web.conftest import live_from, noting_bot, random_steps, recorded

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def private_dirs(settings, tmp_path):
    # readable by the sandbox's unprivileged user (pytest's tmp_path is 0700)
    media = Path(tempfile.mkdtemp(prefix="gemarena-media-"))
    media.chmod(0o755)
    settings.MEDIA_ROOT = media
    settings.VAR_DIR = tmp_path  # the frame cache lives under it
    settings.SANDBOX_BACKEND = "process"
    settings.MOVE_MS = 2000
    settings.STARTUP_MS = 15000
    yield
    shutil.rmtree(media, ignore_errors=True)


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user("alice", "alice@example.org", "pw-alice-123")


@pytest.fixture
def bob(django_user_model):
    return django_user_model.objects.create_user("bob", "bob@example.org", "pw-bob-123")


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user(
        "sam", "sam@example.org", "pw-sam-123", is_staff=True
    )


def noting_version(user, game: str):
    bot = create_bot(user, game, f"{user.username}-{game[:3]}")
    return add_version(bot, "bot.py", noting_bot(f"note from {user.username}"), False)


def played(game: str, lineup) -> Match:
    match = create_match(game, lineup)
    assert tasks.run_match.run(match.pk) == "finished"
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.replay
    return match


def get_json(client, name: str, match_id: int, **params):
    response = client.get(reverse(name, args=[match_id]), params)
    return response.status_code, response.json()


def test_frames_as_one_seat_saw_them(client, alice, bob, staff) -> None:
    """`?seat=N`: seat N's observations (its blind reservation face up, which
    everyone's view and the other seat's hide), its own notes only, cached
    apart; a seat the match has not is a 400 naming the field."""
    lineup = [noting_version(alice, "splendor-duel"), noting_version(bob, "splendor-duel")]
    replay = scripted_replay("splendor-duel", 2, 4, first=("reserve b3 deck1",))
    match = recorded(lineup, replay)
    client.force_login(staff)
    status, everyone = get_json(client, "match_frames_json", match.pk)
    assert status == 200 and everyone["seat"] is None
    views = {}
    for seat in (0, 1):
        status, views[seat] = get_json(client, "match_frames_json", match.pk, seat=seat)
        assert status == 200 and views[seat]["seat"] == seat
        assert len(views[seat]["frames"]) == len(replay["steps"]) + 1
        assert set(notes_by_seat(views[seat]["frames"])) == {seat}
        cached = views_replay.cache_dir() / f"match-{match.pk}-seat-{seat}.json.gz"
        assert json.loads(gzip.decompress(cached.read_bytes()))["key"] == views_replay.cache_key(
            match, seat
        )
    assert set(notes_by_seat(everyone["frames"])) == {0, 1}
    reserved = [
        v["frames"][1]["view"]["players"][0]["reserved"][0] for v in (everyone, *views.values())
    ]
    assert [r["card"] is not None for r in reserved] == [False, True, False]
    assert all(r["blind"] for r in reserved)

    for bad in ("2", "-1", "x", "0.5", "\u0663"):
        status, data = get_json(client, "match_frames_json", match.pk, seat=bad)
        assert status == 400, bad
        assert data["error"].startswith("seat must be a seat number 0..1"), data
    assert get_json(client, "match_frames_json", match.pk) == (200, everyone)


def notes_by_seat(frames) -> dict[int, set[str]]:
    seen: dict[int, set[str]] = {}
    for frame in frames:
        if "note" in frame:
            seen.setdefault(frame["seat"], set()).add(frame["note"])
    return seen


def test_splendor_duel_frames_notes_and_cache(client, alice, bob, staff, monkeypatch) -> None:
    match = played(
        "splendor-duel",
        [noting_version(alice, "splendor-duel"), noting_version(bob, "splendor-duel")],
    )

    status, data = get_json(client, "match_frames_json", match.pk)
    assert status == 200
    frames = data["frames"]
    assert len(frames) == match.steps + 1
    assert [f["step"] for f in frames] == list(range(len(frames)))
    assert frames[0]["description"] == "start" and frames[0]["seat"] is None
    assert frames[1]["description"].startswith(f"seat {frames[1]['seat']} ")
    assert all(f["view"]["game"] == "splendor-duel" for f in frames)
    assert frames[-1]["view"]["outcome"] == data["outcome"]
    assert frames[-2]["view"]["outcome"] is None
    assert [p["bot"] for p in data["players"]] == ["alice-spl", "bob-spl"]
    assert len(data["game_data"]["cards"]) == 67
    # pyramid cards of every frame are described by the card data
    ids = {c for f in frames for level in f["view"]["pyramid"] for c in level if c}
    assert ids <= set(data["game_data"]["cards"])
    assert notes_by_seat(frames) == {} and data["notes_for"] == []

    client.force_login(alice)
    status, data = get_json(client, "match_frames_json", match.pk)
    assert data["notes_for"] == [0]
    assert notes_by_seat(data["frames"]) == {0: {"note from alice"}}
    # every unforced step of alice's bot carries its note
    own = [f for f in data["frames"][1:] if f["seat"] == 0 and not f["forced"]]
    assert own and all(f.get("note") == "note from alice" for f in own)

    client.force_login(bob)
    assert notes_by_seat(get_json(client, "match_frames_json", match.pk)[1]["frames"]) == {
        1: {"note from bob"}
    }
    client.force_login(staff)
    assert notes_by_seat(get_json(client, "match_frames_json", match.pk)[1]["frames"]) == {
        0: {"note from alice"},
        1: {"note from bob"},
    }

    # the derived frames are on disk; later requests do not re-simulate
    cached = views_replay.cache_dir() / f"match-{match.pk}.json.gz"
    assert json.loads(gzip.decompress(cached.read_bytes()))["key"] == views_replay.cache_key(match)

    def no_resimulation(*args, **kwargs):
        raise AssertionError("frames derived again")

    monkeypatch.setattr(views_replay, "spectator_frames", no_resimulation)
    client.logout()
    status, again = get_json(client, "match_frames_json", match.pk)
    assert status == 200 and len(again["frames"]) == len(frames)
    assert notes_by_seat(again["frames"]) == {}

    # a finished match sends live viewers to its replay
    status, live = get_json(client, "match_live_json", match.pk, after=5)
    assert status == 200
    assert live["status"] == "finished" and live["frames"] == []
    assert live["frames_url"] == reverse("match_frames_json", args=[match.pk])


def test_edel_stein_reich_frames(client, alice, bob) -> None:
    other = install_builtin("edel-stein-reich", "random").active_version
    lineup = [
        noting_version(alice, "edel-stein-reich"),
        other,
        noting_version(bob, "edel-stein-reich"),
    ]
    match = played("edel-stein-reich", lineup)

    client.force_login(bob)
    status, data = get_json(client, "match_frames_json", match.pk)
    assert status == 200
    frames = data["frames"]
    assert len(frames) == match.steps + 1
    assert data["game_data"]["events"]["certificate"]["name"] == "Certificate"
    view = frames[1]["view"]
    assert view["game"] == "edel-stein-reich" and len(view["players"]) == 3
    assert frames[-1]["view"]["phase"] == "over"
    assert any(f["action"].startswith("offer ") for f in frames[1:])
    assert notes_by_seat(frames) == {2: {"note from bob"}}
    assert data["notes_for"] == [2]


def test_unknown_match_is_404(client) -> None:
    for name in ("match_frames_json", "match_live_json"):
        status, data = get_json(client, name, 999999)
        assert status == 404 and "999999" in data["error"]


def test_running_match_live_steps(client, alice, bob, staff, monkeypatch) -> None:
    lineup = [
        noting_version(alice, "edel-stein-reich"),
        noting_version(bob, "edel-stein-reich"),
        install_builtin("edel-stein-reich", "random").active_version,
    ]
    match = create_match("edel-stein-reich", lineup, seed=1234)
    claim = match.claim_for("worker@test")
    recorder = tasks.LiveRecorder(match.pk, claim)
    sent = list(random_steps("edel-stein-reich", 3, 1234, match.options, 12))
    for step in sent:
        recorder.on_step(step)
    recorder.flush()

    status, data = get_json(client, "match_live_json", match.pk)
    assert status == 200 and data["status"] == "running"
    frames = data["frames"]
    assert [f["step"] for f in frames] == list(range(13))
    start = get_game("edel-stein-reich").new(3, 1234, match.options).spectator_view()
    assert frames[0]["view"] == start and frames[0]["description"] == "start"
    assert [f["action"] for f in frames[1:]] == [s["action"] for s in sent]
    assert frames[12]["view"] == sent[-1]["view"]
    assert not any("note" in f for f in frames) and data["notes_for"] == []
    assert "seed" not in json.dumps(data)  # the seed would reveal the decks

    status, data = get_json(client, "match_live_json", match.pk, after=9)
    assert [f["step"] for f in data["frames"]] == [10, 11, 12] and not data["more"]
    assert get_json(client, "match_live_json", match.pk, after=12)[1]["frames"] == []

    monkeypatch.setattr(views_replay, "LIVE_BATCH", 4)
    data = get_json(client, "match_live_json", match.pk, after=2)[1]
    assert [f["step"] for f in data["frames"]] == [3, 4, 5, 6] and data["more"]

    assert get_json(client, "match_live_json", match.pk, after="x")[0] == 400

    # debug notes live, as in replays: the owner's own seats, every seat for staff
    acting = {s["seat"] for s in sent}
    client.force_login(bob)
    data = get_json(client, "match_live_json", match.pk)[1]
    assert data["notes_for"] == [1]
    assert notes_by_seat(data["frames"]) == ({1: {"live note of seat 1"}} if 1 in acting else {})
    client.force_login(staff)
    data = get_json(client, "match_live_json", match.pk)[1]
    assert data["notes_for"] == [0, 1, 2]
    assert notes_by_seat(data["frames"]) == {k: {f"live note of seat {k}"} for k in acting}
    assert len(acting) > 1
    client.logout()

    status, data = get_json(client, "match_frames_json", match.pk)
    assert status == 409 and data["live_url"] == reverse("match_live_json", args=[match.pk])
    assert LiveStep.objects.filter(match=match).count() == 12


def test_match_without_replay(client, alice, bob) -> None:
    lineup = [noting_version(alice, "splendor-duel"), noting_version(bob, "splendor-duel")]
    match = create_match("splendor-duel", lineup)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.ERRORED)
    status, data = get_json(client, "match_frames_json", match.pk)
    assert status == 404 and "no replay" in data["error"]
    status, data = get_json(client, "match_live_json", match.pk)
    assert status == 200 and data["status"] == "errored" and data["frames"] == []


def test_viewer_partial_has_the_hooks(alice, bob) -> None:
    lineup = [noting_version(alice, "splendor-duel"), noting_version(bob, "splendor-duel")]
    match = create_match("splendor-duel", lineup)
    html = render_to_string(
        "ladder/_replay_viewer.html", {"match": match, "viewer_is_owner_of_seats": [1]}
    )
    hooks = ("first", "prev", "play", "next", "last", "speed", "slider", "step", "action")
    for hook in (*hooks, "played-as"):
        assert f'id="replay-{hook}"' in html
    assert f'data-frames-url="{reverse("match_frames_json", args=[match.pk])}"' in html
    assert f'data-live-url="{reverse("match_live_json", args=[match.pk])}"' in html
    assert 'data-status="queued"' in html and 'data-notes-seats="1"' in html
    assert "replay_splendor_duel.js" in html and "replay_edel_stein_reich.js" not in html
    assert "Your bot&#x27;s debug note" in html or "Your bot's debug note" in html
    anonymous = render_to_string(
        "ladder/_replay_viewer.html", {"match": match, "viewer_is_owner_of_seats": []}
    )
    assert "debug note" not in anonymous


def test_a_renamed_bot_shows_its_name_and_the_one_it_played_as(client, alice, bob) -> None:
    """Staff renamed alice's bot after the match: the match page (linking the
    bot), the viewer's players and the API's match detail give its current
    name and the one it played under, read from the replay's seat labels;
    the stored replay is history and keeps the old name."""
    match = played(
        "splendor-duel",
        [noting_version(alice, "splendor-duel"), noting_version(bob, "splendor-duel")],
    )
    stored = Path(match.replay.path).read_bytes()
    Bot.objects.filter(name="alice-spl").update(name="alice-renamed")  # as the admin saves it
    bot = Bot.objects.get(name="alice-renamed")
    expected = [("alice-renamed", "alice-spl"), ("bob-spl", None)]

    page = client.get(reverse("match", args=[match.pk])).content.decode()
    seats = page[page.index('<table class="seats">') : page.index("</table>")]
    link = f'<a href="{reverse("bot", args=[bot.pk])}">alice-renamed</a>'
    assert f'{link} <span class="muted small">played as alice-spl</span>' in seats
    assert seats.count("played as") == 1  # bob's bot kept its name

    status, data = get_json(client, "match_frames_json", match.pk)
    assert status == 200
    assert [(p["bot"], p["played_as"]) for p in data["players"]] == expected
    status, data = get_json(client, "match_live_json", match.pk)  # the live view's end
    assert [(p["bot"], p["played_as"]) for p in data["players"]] == expected

    detail = client.get(f"/api/matches/{match.pk}").json()
    assert [(s["bot"]["name"], s["played_as"]) for s in detail["seats"]] == expected
    listed = client.get("/api/matches").json()["results"][0]
    assert listed["id"] == match.pk and "played_as" not in listed["seats"][0]

    assert Path(match.replay.path).read_bytes() == stored
    Bot.objects.filter(pk=bot.pk).update(name="alice-spl")  # renamed back: nothing to say
    assert "played as" not in client.get(reverse("match", args=[match.pk])).content.decode()
    assert client.get(f"/api/matches/{match.pk}").json()["seats"][0]["played_as"] is None


def test_match_page_names_the_seat_column(client, alice, bob) -> None:
    """The seats table's first column was "#" with "seat" only in a tooltip
    (accessibility audit #12)."""
    lineup = [noting_version(alice, "splendor-duel"), noting_version(bob, "splendor-duel")]
    match = create_match("splendor-duel", lineup)
    html = client.get(reverse("match", args=[match.pk])).content.decode()
    head = html[html.index('<table class="seats">') :]
    head = head[: head.index("</thead>")]
    assert '<th class="num">Seat</th>' in head and 'title="seat"' not in head


def test_viewer_partial_for_keyboard_and_screen_readers(alice, bob) -> None:
    """Accessibility audit #8, #14: nothing to press before there is a step,
    one state per button, the step line is no live region (the hidden
    status regions speak when told), and the help says where the keys work."""
    lineup = [noting_version(alice, "splendor-duel"), noting_version(bob, "splendor-duel")]
    match = create_match("splendor-duel", lineup)
    html = render_to_string("ladder/_replay_viewer.html", {"match": match})
    for hook in ("first", "prev", "play", "next", "last", "slider"):
        tag = html[html.index(f'id="replay-{hook}"') :]
        assert " disabled" in tag[: tag.index(">")], hook
    assert "aria-pressed" not in html
    action = html[html.index('id="replay-action"') :]
    assert "aria-live" not in action[: action.index(">")]
    assert 'id="replay-announce" role="status"' in html and 'id="replay-news" role="status"' in html
    assert 'tabindex="-1"' in html[: html.index(">", html.index('id="replay"'))]
    assert "while the focus is in the replay viewer" in html
    assert "W white, B blue, G green, R red, K black, P pearl, Y gold" in html


def test_frame_cache_keeps_to_its_size(settings, tmp_path, monkeypatch) -> None:
    """The derived frames were cached forever, a file per match ever viewed
    (found by QA: about 15 kB each, a crawler fills the disk). Past
    REPLAY_FRAMES_CACHE_MB the least recently used files go, down to 90 %."""
    import os

    monkeypatch.setattr(views_replay, "cache_dir", lambda: tmp_path)
    for i in range(10):
        path = tmp_path / f"match-{i}.json.gz"
        path.write_bytes(b"x" * 1000)
        os.utime(path, (1000 + i, 1000 + i))  # match-0 is the least recently used
    (tmp_path / "match-99.json.gzabc.tmp").write_bytes(b"x" * 5000)  # being written
    assert views_replay.prune_cache(10_000) == 0
    assert views_replay.prune_cache(5_000) == 6
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == [f"match-{i}.json.gz" for i in range(6, 10)] + ["match-99.json.gzabc.tmp"]
    assert views_replay.prune_cache(0) == 4
    assert views_replay.prune_cache(0) == 0


def test_frame_cache_prunes_as_it_writes(client, alice, bob, settings, monkeypatch) -> None:
    lineup = [noting_version(alice, "splendor-duel"), noting_version(bob, "splendor-duel")]
    first, second = played("splendor-duel", lineup), played("splendor-duel", lineup)
    monkeypatch.setattr(views_replay, "PRUNE_EVERY", 1)
    pruned = []
    monkeypatch.setattr(views_replay, "prune_cache", pruned.append)
    settings.REPLAY_FRAMES_CACHE_MB = 3
    assert get_json(client, "match_frames_json", first.pk)[0] == 200
    assert get_json(client, "match_frames_json", second.pk)[0] == 200
    assert get_json(client, "match_frames_json", first.pk)[0] == 200  # a hit writes nothing
    assert pruned == [3 << 20, 3 << 20]


def seen(frames) -> list[tuple]:
    return [(f["step"], f["seat"], f["action"], f["description"], f["view"]) for f in frames]


def test_live_as_one_seat_only_for_its_owner_and_staff(client, alice, bob, staff) -> None:
    """`live.json?seat=N`: seat N's own observations of the running match
    (its blind reservation face up), exactly what frames.json?seat=N will
    show once it is over; refused to everyone but N's owner and staff."""
    lineup = [noting_version(alice, "splendor-duel"), noting_version(bob, "splendor-duel")]
    replay = scripted_replay("splendor-duel", 2, 4, first=("reserve b3 deck1",))
    match = live_from(replay, lineup, 6)
    as_seat = [spectator_frames(replay, seat=s)[:7] for s in (0, 1)]
    card = as_seat[0][1]["view"]["players"][0]["reserved"][0]["card"]
    assert card

    # everyone's live view, and anyone else asking for a seat: the card stays hidden
    status, data = get_json(client, "match_live_json", match.pk)
    assert status == 200 and card not in json.dumps(data["frames"])
    for user in (None, bob):
        if user:
            client.force_login(user)
        status, data = get_json(client, "match_live_json", match.pk, seat=0)
        assert status == 403 and "seat 0" in data["error"] and "owner" in data["error"]
        assert "frames" not in data and card not in json.dumps(data)

    # bob's own seat: his observation, which hides alice's blind card
    status, data = get_json(client, "match_live_json", match.pk, seat=1)
    assert status == 200 and data["seat"] == 1
    assert seen(data["frames"]) == seen(as_seat[1]) and card not in json.dumps(data["frames"])
    assert notes_by_seat(data["frames"]) == {1: {"live note of seat 1"}}

    for user in (alice, staff):
        client.force_login(user)
        status, data = get_json(client, "match_live_json", match.pk, seat=0)
        assert status == 200 and seen(data["frames"]) == seen(as_seat[0])
        assert data["frames"][1]["view"]["players"][0]["reserved"][0]["card"] == card
        assert notes_by_seat(data["frames"]) == {0: {"live note of seat 0"}}
        assert data["game_data"]
    data = get_json(client, "match_live_json", match.pk, seat=0, after=3)[1]
    assert seen(data["frames"]) == seen(as_seat[0][4:]) and "game_data" not in data

    for bad in ("2", "-1", "x", "٣"):
        status, data = get_json(client, "match_live_json", match.pk, seat=bad)
        assert status == 400 and "seat must be a seat number 0..1" in data["error"]


def test_live_as_one_seat_keeps_the_others_secret_choices(client, alice, bob) -> None:
    """Edel, Stein & Reich: the live rows hide every secret choice; a seat's
    live view names its own and re-simulates the others' without naming
    them, as frames.json?seat=N does after the end."""
    lineup = [
        noting_version(alice, "edel-stein-reich"),
        noting_version(bob, "edel-stein-reich"),
        install_builtin("edel-stein-reich", "random").active_version,
    ]
    replay = scripted_replay("edel-stein-reich", 3, 3, {"money_visible": False})
    match = live_from(replay, lineup, 8)
    first = replay["steps"][0]
    client.force_login(alice if first["seat"] == 0 else bob)
    public = get_json(client, "match_live_json", match.pk)[1]["frames"]
    assert public[1]["action"] is None  # the secret choice, hidden from everyone
    assert first["action"] not in json.dumps(public)
    for seat in (0, 1):
        client.force_login(alice if seat == 0 else bob)
        status, data = get_json(client, "match_live_json", match.pk, seat=seat)
        assert status == 200
        assert seen(data["frames"]) == seen(spectator_frames(replay, seat=seat)[:9])
        named = [f["action"] for f in data["frames"][1:] if f["action"]]
        assert (first["action"] in named) == (first["seat"] == seat)
