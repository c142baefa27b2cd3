"""Real worker processes on real PostgreSQL and Redis.

- four workers record results of overlapping bots at once: the ratings equal a
  sequential recompute and no update is lost;
- a worker killed with SIGKILL mid-match: the reaper requeues the match (or,
  sooner, the worker itself when it starts again under its name), it finishes
  exactly once, and no container is left running;
- a pool process over its memory cap is replaced after its match, and no
  match is lost or played twice.
"""

from __future__ import annotations

import json
import os
import signal
import time

import pytest
from django.conf import settings

from ladder.bots import add_version, install_builtin
from ladder.leaderboard import recompute_elo
from ladder.matches import create_match
from ladder.models import GameFit, Match, MatchSeat, Rating, RatingHistory, WorkerHeartbeat
from ladder.tasks import reap_stale_matches, refit_ratings
from tests.ladder.conftest import (
    RANDOM_BOT,
    named_workers,
    paced_random_bot,
    wait_for,
    worker_processes,
)

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

# slow for its first 20 replies (6 s): the kill 2 s after the containers
# start lands mid-match, and the requeued match then plays out quickly
SLOW_BOT = paced_random_bot(0.3, slow_replies=20)


def test_four_workers_lose_no_update(media_dir) -> None:
    bots = [install_builtin("splendor-duel", "random", bot_name=f"w-{i}") for i in range(5)]
    versions = [b.active_version for b in bots]
    lineups = [(i, j) for i in range(5) for j in range(5) if i != j] * 2  # 40 matches
    for i, j in lineups:
        create_match("splendor-duel", [versions[i], versions[j]])
    with worker_processes(4, media_dir, {"SANDBOX_BACKEND": "process"}):
        wait_for(
            lambda: not Match.objects.exclude(status=Match.Status.FINISHED).exists(),
            timeout_s=240,
            what="40 matches to finish on 4 workers",
        )
    workers = set(Match.objects.values_list("worker", flat=True))
    assert len(workers) >= 2, f"only {workers} took part"
    assert RatingHistory.objects.count() == 2 * len(lineups)
    assert sum(Rating.objects.filter(bot__in=bots).values_list("elo_games", flat=True)) == 80
    seqs = sorted(Match.objects.values_list("rating_seq", flat=True))
    assert seqs == list(range(seqs[0], seqs[0] + len(lineups)))
    report = recompute_elo("splendor-duel", write=False)
    assert report.matches == len(lineups)
    assert report.differences == []


def test_an_uploads_validation_overtakes_the_queued_ladder_matches(media_dir) -> None:
    """The ladder's matches wait in their own queue: a worker takes the
    validation of a new upload before them, though they were queued first."""

    a, b, author = (
        install_builtin("splendor-duel", "random", bot_name=n) for n in ("q-a", "q-b", "q-new")
    )
    ladder = [create_match("splendor-duel", [a.active_version, b.active_version]) for _ in range(6)]
    version = add_version(author, "main.py", RANDOM_BOT + b"\n# a new version\n")
    validations = list(Match.objects.filter(validates=version))
    assert len(validations) == settings.VALIDATION_MATCHES
    with worker_processes(1, media_dir, {"SANDBOX_BACKEND": "process"}):
        wait_for(
            lambda: not Match.objects.exclude(status=Match.Status.FINISHED).exists(),
            timeout_s=180,
            what="the ladder and validation matches to finish",
        )
    started = dict(Match.objects.values_list("pk", "started_at"))
    first_ladder = min(started[m.pk] for m in ladder)
    assert all(started[m.pk] < first_ladder for m in validations), started
    version.refresh_from_db()
    assert version.status == version.Status.READY


def test_the_housekeeper_refits_while_the_only_worker_plays_a_long_match(media_dir) -> None:
    """The beat's refit goes to the housekeeping queue: the housekeeper takes
    it at once, though the only match worker is busy with a long match (a
    match worker would have taken it only after that match). The
    housekeeper plays no match and writes no heartbeat row."""
    a, b, slow = (
        install_builtin("splendor-duel", "random", bot_name=n) for n in ("hk-a", "hk-b", "hk-slow")
    )
    quick = create_match("splendor-duel", [a.active_version, b.active_version])
    paced = add_version(slow, "slow.py", paced_random_bot(0.4), validate=False)
    long = create_match("splendor-duel", [paced, a.active_version])
    env = {"SANDBOX_BACKEND": "process"}
    media = media_dir
    # prefork, as `make run` has it: at the end the group's SIGTERM reaches the
    # pool process playing the long match, which gives it back at once (the
    # solo pool would finish the match first, or be killed 30 s later)
    with named_workers(
        ["hk", "w"], media, {"hk": env, "w": env}, pool="prefork", housekeepers=("hk",)
    ):
        wait_for(
            lambda: b"ready." in (media.parent / f"{media.name}-hk.log").read_bytes(),
            timeout_s=60,
            what="the housekeeper to start",
        )
        wait_for(
            lambda: Match.objects.get(pk=long.pk).status == Match.Status.RUNNING,
            timeout_s=60,
            what="the quick match to finish and the long one to start",
        )
        assert Match.objects.get(pk=quick.pk).status == Match.Status.FINISHED
        assert not GameFit.objects.filter(game="splendor-duel", matches__gt=0).exists()
        refit_ratings.delay()  # as the beat sends it
        wait_for(
            lambda: GameFit.objects.filter(game="splendor-duel", matches=1).exists(),
            timeout_s=20,
            what="the housekeeper to refit",
        )
        assert Match.objects.get(pk=long.pk).status == Match.Status.RUNNING
        hostnames = set(WorkerHeartbeat.objects.values_list("hostname", flat=True))
        assert any(h.startswith("w-") for h in hostnames)
        assert not any(h.startswith("hk-") for h in hostnames), hostnames


@pytest.mark.docker
@pytest.mark.parametrize("back_by", ["reaper", "restart"])
def test_killed_worker_match_finishes_once(media_dir, settings, back_by) -> None:
    """SIGKILL mid-match. "reaper": the heartbeat goes stale and the reaper
    requeues the match. "restart": the worker starts again under its name
    while the reaper would still wait an hour, and gives the match back itself
    once the match has been quiet for quiet_limit_s() (checked at each of its
    heartbeats, every 2 s here)."""
    import docker

    settings.MATCH_STALE_SECONDS = 30 if back_by == "reaper" else 3600
    slow = install_builtin("splendor-duel", "random", bot_name="slow-a")
    other = install_builtin("splendor-duel", "random", bot_name="slow-b")

    version = add_version(slow, "slow.py", SLOW_BOT, validate=False)
    match = create_match("splendor-duel", [version, other.active_version])
    env = {
        "SANDBOX_BACKEND": "docker",
        "MATCH_STALE_SECONDS": str(settings.MATCH_STALE_SECONDS),
        "WORKER_HEARTBEAT_SECONDS": "2",
        "BANK_MS": "2000",  # a shorter quiet limit: 10 + 1 + 2 + 15 s
    }
    client = docker.from_env()
    label = f"gemarena.match={match.pk}"
    with worker_processes(1, media_dir, env) as (worker,):
        wait_for(
            lambda: client.containers.list(filters={"label": label}),
            timeout_s=60,
            what="the match's containers to start",
        )
        time.sleep(2)  # mid-match
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(timeout=10)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING
    if back_by == "reaper":
        # the worker is gone; its heartbeat goes stale; the reaper puts the match back
        Match.objects.filter(pk=match.pk).update(heartbeat_at=match.heartbeat_at.replace(year=2000))
        reap_stale_matches.run(older_than_s=0)
        assert not client.containers.list(all=True, filters={"label": label})
        match.refresh_from_db()
        assert match.status == Match.Status.QUEUED
    with worker_processes(1, media_dir, env):  # the same worker name as before
        wait_for(
            lambda: Match.objects.get(pk=match.pk).status == Match.Status.FINISHED,
            timeout_s=240,
            what="the requeued match to finish",
        )
    match.refresh_from_db()
    assert match.attempts == 2
    assert RatingHistory.objects.filter(match=match).count() == 2
    assert MatchSeat.objects.filter(match=match, rank__isnull=False).count() == 2
    assert not client.containers.list(all=True, filters={"label": label})


SLOW_STARTER = b"""
import json, random, sys, time
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "start":
        time.sleep(6)
        print(json.dumps("ready"), flush=True)
    elif msg.get("type") == "request":
        print(json.dumps(random.choice(msg["legal"])), flush=True)
    elif msg.get("type") == "end":
        break
"""


@pytest.mark.docker
def test_a_worker_stopped_with_its_whole_process_group_leaves_no_container(media_dir) -> None:
    """honcho stops `make run` with SIGTERM to the worker's whole process
    group, so the pool process playing a match is signalled too, here while
    its threads wait for three bots to start. It used to leave their
    containers behind (teardown raced the waiting threads); now it stops
    them and gives the match straight back, its attempt not counted."""
    import docker

    lineup = []
    for n in range(3):
        bot = install_builtin("edel-stein-reich", "random", bot_name=f"stop-{n}")
        lineup.append(add_version(bot, "slow.py", SLOW_STARTER, validate=False))
    match = create_match("edel-stein-reich", lineup)
    client = docker.from_env()
    label = f"gemarena.match={match.pk}"
    with worker_processes(1, media_dir, {"SANDBOX_BACKEND": "docker"}, pool="prefork") as (worker,):
        wait_for(
            lambda: len(client.containers.list(filters={"label": label})) == 3,
            timeout_s=60,
            what="the match's three containers to start",
        )
        time.sleep(1)  # the bots are still starting
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(timeout=60)
    assert not client.containers.list(all=True, filters={"label": label})
    match.refresh_from_db()
    assert match.status == Match.Status.QUEUED
    assert match.attempts == 0 and match.claim is None
    assert "worker stopped mid-match" in match.error


@pytest.mark.docker
def test_a_pool_process_over_its_memory_cap_is_replaced_and_loses_no_match(media_dir) -> None:
    """WORKER_MAX_MEMORY_MIB=1: any Python process is past it, so Celery
    replaces the pool process after every match (docs/operations.md, "Worker
    memory"). The JSON log says which process played each match: a new one
    each time, under the same worker. Every match is played once, rated once,
    and leaves no container."""
    import docker

    from arena.sandboxes import instance_label
    from ladder.models import LadderSettings

    bots = [install_builtin("splendor-duel", "random", bot_name=f"mem-{i}") for i in range(3)]
    matches = [
        create_match(
            "splendor-duel", [bots[i % 3].active_version, bots[(i + 1) % 3].active_version]
        )
        for i in range(4)
    ]
    env = {"SANDBOX_BACKEND": "docker", "WORKER_MAX_MEMORY_MIB": "1", "LOG_FORMAT": "json"}
    log = media_dir.parent / f"{media_dir.name}-mem.log"
    with named_workers(["mem"], media_dir, {"mem": env}, pool="prefork") as procs:
        wait_for(
            lambda: not Match.objects.exclude(status=Match.Status.FINISHED).exists(),
            timeout_s=300,
            what="4 matches to finish on a worker whose pool process is replaced after each",
        )
        worker_pid = procs["mem"].pid
        assert procs["mem"].poll() is None  # the worker itself lives on
    records = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    playing = [r for r in records if r["message"].startswith(f"match {r['match_id']}: playing")]
    assert sorted(r["match_id"] for r in playing) == sorted(str(m.pk) for m in matches)
    pids = [r["process"] for r in playing]
    assert len(set(pids)) == len(matches), f"pool processes {pids}"
    assert worker_pid not in pids
    replaced = [r["process"] for r in records if "passed WORKER_MAX_MEMORY_MIB" in r["message"]]
    # the last may not have left yet; a message an earlier test left on the
    # queue (its match gone: "missing") uses up a process too
    assert set(pids[:-1]) <= set(replaced), f"replaced {replaced}, played in {pids}"
    for match in Match.objects.filter(pk__in=[m.pk for m in matches]):
        assert match.attempts == 1 and match.worker == WorkerHeartbeat.objects.get().hostname
        assert RatingHistory.objects.filter(match=match).count() == 2
        assert MatchSeat.objects.filter(match=match, rank__isnull=False).count() == 2
    selector = {
        "label": [f"{k}={v}" for k, v in instance_label(LadderSettings.instance_id()).items()]
    }
    assert not docker.from_env().containers.list(all=True, filters=selector)


@pytest.mark.docker
def test_the_worker_fixture_removes_self_test_containers_of_killed_workers(media_dir) -> None:
    """A worker killed during one of its self-tests leaves the echo bot's
    container, and the test's platform is not there later to remove it: the
    worker fixture removes this instance's self-test containers at exit."""
    import docker

    import sandbox
    from arena.sandboxes import instance_label
    from ladder.models import LadderSettings

    bot_dir = media_dir / "echo"
    bot_dir.mkdir(mode=0o755)
    (bot_dir / "main.py").write_bytes(b"import sys\nfor line in sys.stdin:\n    print(line)\n")
    (bot_dir / "main.py").chmod(0o644)
    labels = {"gemarena.selftest": "1", **instance_label(LadderSettings.instance_id())}
    left = sandbox.get_backend("docker").launch(
        bot_dir, sandbox.Limits(memory_mib=64, pids=16), name="selftest-left", labels=labels
    )
    client = docker.from_env()
    selector = {"label": [f"{k}={v}" for k, v in labels.items()]}
    try:
        assert client.containers.list(all=True, filters=selector)
        with worker_processes(0, media_dir):
            pass  # the workers would have been killed here
        assert not client.containers.list(all=True, filters=selector)
    finally:
        left.stop()  # closes its socket; the container is gone already
