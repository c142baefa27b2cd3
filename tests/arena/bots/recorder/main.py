"""Plays the last legal action with a note and copies the first messages it
receives, and its replies, to stderr (used to make docs/protocol.md's
transcripts from real runs)."""

import sys

from gemarena_sdk import run

seen = 0
real_write = sys.stdout.write


def log(prefix, text):
    print(prefix + text.rstrip("\n"), file=sys.stderr, flush=True)


class Tee:
    def __init__(self, stream):
        self.stream = stream

    def __iter__(self):
        global seen
        for line in self.stream:
            seen += 1
            if seen <= 3 or '"type":"end"' in line:
                log("> ", line)
            yield line


class Out:
    def write(self, text):
        if seen <= 3:
            log("< ", text)
        return sys.__stdout__.write(text)

    def flush(self):
        sys.__stdout__.flush()


def decide(observation, legal):
    return legal[-1], f"{len(legal)} choices, took the last"


run(decide, stdin=Tee(sys.stdin), stdout=Out())
