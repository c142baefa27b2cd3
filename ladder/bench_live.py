"""Live view benchmark: the cost of one `live.json` poll of a running match
with many live steps, everyone's view and a seat's, for a viewer that
already has the first K frames (the viewer polls `after=<its last frame>`).

    DATABASE_URL=postgres://gemarena:gemarena@127.0.0.1/gemarena_bench \\
        python -m ladder.bench_live --steps 200 1000

For each game and each step count N it makes a running match whose worker
has written N live steps (through the worker's own `LiveRecorder`, as the
runner hands them over), and times polls with K = -1 (a first load: at
most 400 frames), N/2, N-5 (a viewer following the match: the last five
steps are new) and N (nothing new); seat 0's twice, the second time with
the positions this process kept cleared before each poll (a web process's
first poll of the match, `ladder/live_positions.py`). The steps are those
of a game played here by seeded random players that, bargaining in Edel,
Stein & Reich, raise as little as they can (so a game lasts long enough:
the first seed whose game is not over after N steps is taken). Everything
it writes is in one transaction, rolled back at the end: any database will
do, and it is left as it was. Figures and the command: docs/web.md.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

#: (game, seats) benchmarked
GAMES = (("splendor-duel", 2), ("edel-stein-reich", 5))
#: seeds tried for a game that lasts the steps asked for
MAX_SEEDS = 300


def log(text: str) -> None:
    print(text, flush=True)


def patient_pick(state, rng: random.Random) -> tuple[int, str]:
    """A seeded random legal action of the first seat to act; in a bargain
    the smallest count offered (Edel, Stein & Reich games then last about
    three times as many steps as with uniformly random actions)."""
    seat = state.to_act()[0]
    legal = state.legal_actions(seat)
    offers = [a for a in legal if a.startswith("offer ")]
    if offers:
        return seat, min(offers, key=lambda a: int(a[7:]))
    return seat, rng.choice(legal)


def long_game(game: str, seats: int, steps: int) -> tuple[int, list[tuple[int, str]]] | None:
    """(seed, the first `steps` actions) of the first seed whose game is not
    over after `steps` actions; None if none of MAX_SEEDS seeds lasts that long."""
    from arena import get_game

    definition = get_game(game)
    for seed in range(MAX_SEEDS):
        state, rng, actions = definition.new(seats, seed), random.Random(seed), []
        while len(actions) < steps and not state.is_over():
            seat, action = patient_pick(state, rng)
            state.apply(seat, action)
            actions.append((seat, action))
        if len(actions) == steps and not state.is_over():
            return seed, actions
    return None


def runner_events(game: str, seats: int, seed: int, actions) -> Iterator[dict[str, Any]]:
    """What the runner hands `LiveRecorder.on_step` for these actions (arena/runner.py)."""
    from arena import get_game

    state = get_game(game).new(seats, seed)
    for step, (seat, action) in enumerate(actions):
        description = state.describe_action(seat, action)
        secret = state.secret_action(seat, action)
        state.apply(seat, action)
        yield {
            "step": step,
            "seat": seat,
            "action": action,
            "think_ms": 1.0,
            "note": "",
            "forced": False,
            "description": description,
            "secret": secret,
            "view": state.spectator_view(),
        }


def running_match(owner, game: str, seats: int, steps: int):
    """A running match of `owner`'s bots with `steps` live steps written, or None."""
    from ladder.bots import add_version, create_bot
    from ladder.matches import create_match
    from ladder.tasks import LiveRecorder

    found = long_game(game, seats, steps)
    if found is None:
        return None
    seed, actions = found
    bot = create_bot(owner, game, f"bench-live-{game[:3]}-{steps}")
    version = add_version(bot, "main.py", b"# never run: the benchmark writes the steps\n", False)
    match = create_match(game, [version] * seats, seed=seed)
    recorder = LiveRecorder(match.pk, match.claim_for("bench-live@127.0.0.1"))
    for event in runner_events(game, seats, seed, actions):
        recorder.on_step(event)
    recorder.flush()
    return match


def poll_points(steps: int) -> list[tuple[str, int]]:
    """(what the viewer has, `after`) of each poll timed."""
    return [
        ("nothing (first load)", -1),
        ("half", steps // 2),
        ("all but 5", steps - 5),
        ("all", steps),
    ]


def report(steps_wanted: list[int], repeats: int) -> None:
    """Times the polls, signed in as a staff user (who may see every seat)."""
    from django.contrib.auth import get_user_model
    from django.urls import reverse

    from ladder.bench import measure
    from ladder.live_positions import positions

    staff = get_user_model().objects.create_user("bench-live-staff", is_staff=True)
    load = os.getloadavg()[0]
    log(f"\n(load average {load:.1f} on {os.cpu_count()} CPUs; median of {repeats} polls)\n")
    log("| game | live steps | the viewer has | view | ms | CPU ms | queries | bytes |")
    log("| --- | ---: | --- | --- | ---: | ---: | ---: | ---: |")
    for game, seats in GAMES:
        for steps in steps_wanted:
            match = running_match(staff, game, seats, steps)
            if match is None:
                log(f"| {game} | {steps} | no game of {MAX_SEEDS} seeds lasts so long | | | | | |")
                continue
            url = reverse("match_live_json", args=[match.pk])
            for has, after in poll_points(steps):
                for view, query, before in (
                    ("everyone", f"?after={after}", None),
                    ("seat 0", f"?after={after}&seat=0", None),
                    # a web process that has kept no position of the match
                    ("seat 0, first poll here", f"?after={after}&seat=0", positions.clear),
                ):
                    ms, cpu_ms, queries, status, size = measure(url + query, repeats, staff, before)
                    if status != 200:
                        raise RuntimeError(f"{url}{query} answered {status}")
                    log(
                        f"| {game} | {steps} | {has} (after={after}) | {view} | {ms:.1f} | "
                        f"{cpu_ms:.1f} | {queries} | {size:,} |"
                    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ladder.bench_live", description=" ".join(__doc__.split("\n\n")[0].split())
    )
    parser.add_argument(
        "--steps", type=int, nargs="+", default=[200, 1000], help="live steps (200 1000)"
    )
    parser.add_argument("--repeats", type=int, default=9, help="timed polls of each kind (9)")
    args = parser.parse_args(argv)
    if not all(10 <= n <= 5000 for n in args.steps) or not 1 <= args.repeats <= 1000:
        parser.error("--steps must be 10..5000 and --repeats 1..1000")
    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection, transaction

    call_command("migrate", verbosity=0)
    settings.DEBUG = False
    media = Path(tempfile.mkdtemp(prefix="gemarena-bench-live-"))
    settings.MEDIA_ROOT = media  # the bots' uploads, never run
    log(f"python -m ladder.bench_live on {connection.vendor} ({connection.settings_dict['NAME']})")
    try:
        with transaction.atomic():
            report(args.steps, args.repeats)
            transaction.set_rollback(True)
    finally:
        shutil.rmtree(media, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
