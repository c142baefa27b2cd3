"""Golden replays: fixed-seed games whose every state is pinned.

A golden file holds a game's seed, seat count, options, rules version, the
actions of a uniform-random playout, a digest of the snapshot every
DIGEST_EVERY steps and the final snapshot. test_golden.py re-simulates them;
any change in what the engine does shows up as a failing step.

Regenerate after an intended rules change (and a rules_version bump):

    .venv/bin/python -m tests.arena.golden_replays                 # rewrite every file
    .venv/bin/python -m tests.arena.golden_replays --game splendor-duel --seeds 1 2 3
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

from arena.engine import GameState
from arena.registry import get_game
from tests.arena.playout import play, replay

GOLDEN_DIR = Path(__file__).with_name("golden")
DIGEST_EVERY = 10


def digest(state: GameState) -> str:
    text = json.dumps(state.snapshot(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def record(game_id: str, seats: int, seed: int) -> dict[str, Any]:
    game = get_game(game_id)
    playout = play(game, seats, seed)
    states = replay(game, seats, seed, playout.moves)
    digests = [digest(s) for step, s in enumerate(states) if step % DIGEST_EVERY == 0]
    final = playout.final
    return {
        "game": game.id,
        "rules_version": game.rules_version,
        "seats": seats,
        "seed": seed,
        "options": {},
        "moves": [[seat, action] for seat, action in playout.moves],
        "digest_every": DIGEST_EVERY,
        "digests": digests,
        "outcome": final.outcome().to_json(),
        "final_snapshot": final.snapshot(),
    }


def path_for(game_id: str, seats: int, seed: int) -> Path:
    return GOLDEN_DIR / f"{game_id}-{seats}p-seed{seed}.json"


def write(data: dict[str, Any]) -> Path:
    path = path_for(data["game"], data["seats"], data["seed"])
    GOLDEN_DIR.mkdir(exist_ok=True)
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", help="record new files for this game id")
    parser.add_argument("--seats", type=int, default=None)
    parser.add_argument("--seeds", type=int, nargs="*", default=[1, 2, 3])
    args = parser.parse_args(argv)
    if args.game:
        seats = args.seats or get_game(args.game).seat_counts[0]
        jobs = [(args.game, seats, seed) for seed in args.seeds]
    else:
        jobs = []
        for path in sorted(GOLDEN_DIR.glob("*.json")):
            old = json.loads(path.read_text(encoding="utf-8"))
            jobs.append((old["game"], old["seats"], old["seed"]))
    for job in jobs:
        print(f"wrote {write(record(*job))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
