"""A ladder match and `arena play` with the same bots, seed and options play
the same game, step for step: what a bot author replays locally is what the
ladder played (docs/bots.md, "Replaying a ladder match locally")."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from arena import get_game
from arena.cli import main
from arena.replay import load_replay, replay_from_bytes
from ladder import tasks
from ladder.bots import add_version, create_bot
from ladder.matches import create_match
from ladder.models import LadderSettings
from tests.ladder.test_game_options import set_ladder_options

pytestmark = pytest.mark.django_db(transaction=True)


def picker(index: str) -> bytes:
    """A bot without randomness or clock: the legal action at `index`."""
    return (
        "from gemarena_sdk import run\n"
        "def decide(observation, legal):\n"
        f"    return legal[{index}]\n"
        "run(decide)\n"
    ).encode()


# different bots in each seat, so that a swapped seat order shows
BOTS = [picker("0"), picker("-1"), picker("len(legal) // 2")]


@pytest.mark.parametrize(
    ("game", "ladder_options"),
    [
        ("splendor-duel", {}),  # first_seat "random": drawn from the seed
        ("edel-stein-reich", {"untaken_event": "keep", "priority_tiebreak": "seat"}),
    ],
)
def test_arena_play_replays_a_ladder_match(
    game, ladder_options, alice, settings, media_dir, capsys
) -> None:
    settings.SANDBOX_BACKEND = "process"
    settings.MOVE_MS, settings.STARTUP_MS = 2000, 15000
    set_ladder_options({game: ladder_options} if ladder_options else {})
    seats = min(get_game(game).seat_counts)
    versions, dirs = [], []
    for i, code in enumerate(BOTS[:seats]):
        bot = create_bot(alice, game, f"picker-{i}")
        versions.append(add_version(bot, "main.py", code, validate=False))
        folder = media_dir / "authors" / f"picker-{i}"  # readable by the sandbox's user
        folder.mkdir(parents=True)
        (folder / "main.py").write_bytes(code)
        (folder / "main.py").chmod(0o644)
        folder.chmod(0o755)
        folder.parent.chmod(0o755)
        dirs.append(str(folder))
    # created as the scheduler creates a ladder match
    match = create_match(game, versions, options=LadderSettings.get().options_for(game))
    assert tasks.run_match.run(match.pk) == "finished"
    match.refresh_from_db()
    ladder = replay_from_bytes(match.replay.read())

    # the seed and options `arena replay show` prints for the ladder's replay
    assert main(["replay", "show", match.replay.path]) == 0
    header = capsys.readouterr().out.splitlines()
    assert f", seed {match.seed}, " in header[0]
    given = [line.split("options: ", 1)[1] for line in header[:4] if "options: " in line]
    options = shlex.split(given[0]) if given else []
    assert bool(options) == bool(ladder_options)
    out = Path(media_dir) / "local.replay.json.gz"
    argv = ["play", game, *dirs, "--seed", str(match.seed), *options,
            "--sandbox", "process", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0, capsys.readouterr()
    local = load_replay(out)

    assert local["options"] == ladder["options"] == match.options
    assert [(s["seat"], s["action"]) for s in local["steps"]] == [
        (s["seat"], s["action"]) for s in ladder["steps"]
    ]
    assert local["outcome"] == ladder["outcome"]
    assert list(local["outcome"]["ranks"]) == [seat.rank for seat in match.seats.order_by("seat")]
