"""A starter bot for {game}. Edit `decide`; run it with

    arena play {game} . builtin:random

The referee sends JSON lines on stdin; `gemarena_sdk` (on every bot's path in
the sandbox) answers them by calling `decide`. Print debug output freely: it
goes to stderr, your private log, shown to you in the match page.
"""

import random

from gemarena_sdk import run

rng = random.Random()


def decide(observation, legal):
    """Return one of the strings in `legal` (or (action, note) with a short
    note shown to you in the replay)."""
    action = rng.choice(legal)
    return action, f"picked 1 of {{len(legal)}}"


if __name__ == "__main__":
    run(decide)
