"""Plays the first legal action with the SDK, printing to stdout (which the
SDK must divert to stderr) and leaving long notes."""

from gemarena_sdk import run


def decide(observation, legal, request):
    print(f"thinking about step {request['step']}")
    return legal[0], "n" * 1000


run(decide)
