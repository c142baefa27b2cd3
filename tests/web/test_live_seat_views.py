"""`live.json?seat=N` from the positions a web process keeps
(ladder/live_positions.py): the same answers, byte for byte, as the view
that re-simulated the whole match from its seed on every poll, and a poll
of a viewer following the match re-simulates only the new steps.

The live steps are the ones a worker wrote while real bots (random, with a
debug note every move) played in the process sandbox. alice and bob own
bots, carol is staff (tests/web/conftest.py).
"""

from __future__ import annotations

import copy
import json
import random
import uuid

import pytest
from django.urls import reverse

from arena import get_game
from ladder import tasks, views_replay
from ladder.bots import install_builtin
from ladder.live_positions import Positions, positions
from ladder.matches import create_match
from ladder.models import LiveStep, Match
from tests.web.conftest import random_steps
from tests.web.test_replay_views import noting_version, private_dirs  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_positions_kept():
    positions.clear()
    yield
    positions.clear()


def resimulated_from_the_seed(match: Match, seat: int, after: int, limit: int):
    """`views_replay.live_seat_frames` as it was before positions were kept:
    the reference the answers are compared with."""
    state = get_game(match.game).new(match.seat_count, match.seed, match.options)
    out = [views_replay.start_frame(match, seat)] if after < 0 else []
    rows = LiveStep.objects.filter(match=match, step__lt=max(after, 0) + limit).order_by("step")
    count = 0
    for index, data in enumerate(rows.values_list("data", flat=True).iterator()):
        if int(data["step"]) != index:
            raise views_replay.LiveSeatUnavailable(f"live step {index} is missing")
        actor = data.get("seat")
        action = data.get("action") or data.get("secret_action")
        if actor is None or not action:
            raise views_replay.LiveSeatUnavailable(
                f"live step {index} was recorded without its action"
            )
        frame = views_replay.live_frame(data)
        try:
            if actor == seat and action != frame["action"]:
                frame.update(action=action, description=state.describe_action(actor, action))
            state.apply(int(actor), str(action))
        except ValueError as exc:
            raise views_replay.LiveSeatUnavailable(f"live step {index}: {exc}") from None
        if index >= after:
            frame["view"] = state.observation(seat)
            if data.get("note") and actor == seat:
                frame["note"] = data["note"]
            out.append(frame)
            count += 1
    return out, count


def worker_steps(game: str, lineup, options: dict, monkeypatch) -> tuple[Match, list[dict]]:
    """A match of `lineup` played to its end by the worker, and every step
    the worker handed its LiveRecorder (the rows go when the result is in)."""
    events: list[dict] = []
    on_step = tasks.LiveRecorder.on_step

    def spy(recorder, step: dict) -> None:
        events.append(copy.deepcopy(step))
        on_step(recorder, step)

    with monkeypatch.context() as patch:
        patch.setattr(tasks.LiveRecorder, "on_step", spy)
        match = create_match(game, lineup, options=options, rated=False)  # a bot twice
        assert tasks.run_match.run(match.pk) == "finished"
    match.refresh_from_db()
    assert len(events) == match.steps > 20
    return match, events


def running(like: Match, lineup, events) -> Match:
    """A running match like `like`, its worker having written `events`."""
    match = create_match(like.game, lineup, seed=like.seed, options=like.options)
    recorder = tasks.LiveRecorder(match.pk, match.claim_for("worker@test"))
    for event in events:
        recorder.on_step(event)
    recorder.flush()
    match.refresh_from_db()
    return match


def poll(client, match: Match, seat: int, after: int, monkeypatch) -> tuple[bytes, bytes]:
    """The answer to `live.json?after=…&seat=…` and the reference's."""
    url = reverse("match_live_json", args=[match.pk])
    params = {"after": after, "seat": seat}
    with monkeypatch.context() as patch:
        patch.setattr(views_replay, "live_seat_frames", resimulated_from_the_seed)
        reference = client.get(url, params)
    answer = client.get(url, params)
    assert reference.status_code == answer.status_code == 200
    return answer.content, reference.content


def compare_every_poll(client, match: Match, monkeypatch) -> int:
    """Every seat's viewer follows the match from its start, the seats' polls
    taking turns, then asks for frames above other `after`s in a shuffled
    order; every answer must be the reference's. Returns the polls made."""
    polls, seats, steps = 0, range(match.seat_count), match.steps
    has = dict.fromkeys(seats, -1)
    for _ in range(steps):  # a following viewer: at most a poll per step
        for seat in seats:
            answer, reference = poll(client, match, seat, has[seat], monkeypatch)
            assert answer == reference, (seat, has[seat])
            polls += 1
            frames = json.loads(answer)["frames"]
            has[seat] = frames[-1]["step"] if frames else has[seat]
        if all(after == steps for after in has.values()):
            break
    assert set(has.values()) == {steps}
    afters = [-1, 0, 1, 2, steps // 3, steps // 2, steps - 7, steps - 1, steps, steps + 4]
    random.Random(steps).shuffle(afters)
    for after in afters:
        for seat in seats:
            answer, reference = poll(client, match, seat, after, monkeypatch)
            assert answer == reference, (seat, after)
            polls += 1
    return polls


@pytest.mark.parametrize(
    "game, options",
    [("splendor-duel", {}), ("edel-stein-reich", {"money_visible": False})],
)
def test_seat_polls_answer_as_a_resimulation_from_the_seed(
    client, alice, bob, carol, game, options, monkeypatch
) -> None:
    """Over a whole match, for every seat and `after`, a viewer following the
    match (the next poll asks above the last frame it got) and polls that
    jump back and forth. Small batches, so a poll starts where the previous
    one stopped. Then the match is played again (a new claim, after a
    platform fault) with other actions: no position of the first run is used."""
    monkeypatch.setattr(views_replay, "LIVE_BATCH", 16)
    if game == "splendor-duel":
        lineup = [noting_version(alice, game), noting_version(bob, game)]
    else:
        other = install_builtin(game, "random").active_version
        lineup = [noting_version(alice, game), other, noting_version(bob, game), other]
    finished, events = worker_steps(game, lineup, options, monkeypatch)
    match = running(finished, lineup, events)
    assert match.steps == len(events)
    client.force_login(carol)
    assert compare_every_poll(client, match, monkeypatch) > 2 * len(events) // 16

    # played again: the rows go, a new claim writes other steps from the seed
    tasks.release_after_fault(match.pk, match.claim, "test: the worker's host went away")
    assert not LiveStep.objects.filter(match=match).exists()
    match.refresh_from_db()
    claim = match.claim_for("worker@test")
    recorder = tasks.LiveRecorder(match.pk, claim)
    again = list(random_steps(game, match.seat_count, match.seed, match.options, 40, rng_seed=9))
    assert [e["action"] for e in again] != [e["action"] for e in events[:40]]
    for event in again:
        recorder.on_step(event)
    recorder.flush()
    match.refresh_from_db()
    assert match.steps == 40 and match.status == Match.Status.RUNNING
    compare_every_poll(client, match, monkeypatch)


def test_a_following_viewer_costs_only_the_new_steps(client, alice, bob, monkeypatch) -> None:
    """A poll above the previous poll's last frame re-simulates only the
    steps after it (before: every step from the seed, on every poll)."""
    game = "edel-stein-reich"
    lineup = [noting_version(alice, game), noting_version(bob, game)] * 2
    match = create_match(game, lineup, seed=5)
    recorder = tasks.LiveRecorder(match.pk, match.claim_for("worker@test"))
    steps = list(random_steps(game, 4, match.seed, match.options, 120))
    for event in steps[:100]:
        recorder.on_step(event)
    recorder.flush()
    client.force_login(alice)
    url = reverse("match_live_json", args=[match.pk])
    assert len(client.get(url, {"seat": 0, "after": 60}).json()["frames"]) == 40

    applied = []
    state_class = type(get_game(game).new(4, 1))
    apply = state_class.apply

    def counting(state, seat: int, action: str) -> None:
        applied.append(action)
        apply(state, seat, action)

    monkeypatch.setattr(state_class, "apply", counting)
    for event in steps[100:]:
        recorder.on_step(event)
    recorder.flush()
    frames = client.get(url, {"seat": 0, "after": 100}).json()["frames"]
    assert [f["step"] for f in frames] == list(range(101, 121))
    assert applied == [e["action"] for e in steps[100:]]
    applied.clear()
    assert client.get(url, {"seat": 0, "after": 120}).json()["frames"] == []
    assert applied == []


def test_positions_are_kept_to_their_limit_and_handed_out_as_clones() -> None:
    kept = Positions(limit=3)
    definition = get_game("splendor-duel")
    state = definition.new(2, 7)
    claim, other = uuid.uuid4(), uuid.uuid4()
    assert kept.nearest(1, claim, 10) is None
    kept.keep(1, claim, 0, state.clone())
    seat = state.to_act()[0]
    state.apply(seat, state.legal_actions(seat)[0])
    kept.keep(1, claim, 1, state)
    kept.keep(1, other, 5, definition.new(2, 8))
    step, found = kept.nearest(1, claim, 10)
    assert step == 1 and found == state and found is not state
    seat = found.to_act()[0]
    found.apply(seat, found.legal_actions(seat)[0])
    assert kept.nearest(1, claim, 1)[1] == state  # what was kept never changes
    assert kept.nearest(1, claim, 0)[0] == 0
    assert kept.nearest(2, claim, 10) is None
    kept.keep(2, claim, 3, definition.new(2, 9))  # the least recently used goes: (1, other, 5)
    assert kept.nearest(1, other, 10) is None
    assert kept.nearest(1, claim, 0)[0] == 0 and kept.nearest(2, claim, 3)[0] == 3
