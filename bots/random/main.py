"""Random bot (any game): plays a uniformly random legal action."""

import random

from gemarena_sdk import run

rng = random.Random()


def decide(observation, legal):
    return rng.choice(legal)


if __name__ == "__main__":
    run(decide)
