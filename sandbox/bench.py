"""`python -m sandbox.bench`: the sandbox's costs on this machine.

For each backend that can run here: launch-to-first-reply latency for one
bot and for two bots started in parallel (median, p90), per-message round
trip (median, p99) and teardown time. Every loop is bounded in count and in
time. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from sandbox.base import Backend, BotProcess, Limits, ReadStatus, SandboxError

ECHO_BOT = "import sys\nfor line in sys.stdin:\n    sys.stdout.write(line)\n"
MESSAGE = b'{"type": "act", "step": 12, "legal": ["take a b c", "pass"]}'


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def first_reply(backend: Backend, bot_dir: Path, name: str) -> tuple[float, BotProcess]:
    start = time.perf_counter()
    bot = backend.launch(bot_dir, Limits(), name)
    try:
        if not bot.send_line(MESSAGE):
            raise SandboxError("bench bot refused its first message")
        result = bot.read_line(time.monotonic() + Limits().startup_ms / 1000)
        if result.status is not ReadStatus.LINE:
            raise SandboxError(f"bench bot did not answer: {result.status}; {bot.stderr_tail()}")
    except BaseException:
        bot.stop()
        raise
    return (time.perf_counter() - start) * 1000, bot


def timed_stop(bot: BotProcess) -> float:
    start = time.perf_counter()
    bot.stop()
    return (time.perf_counter() - start) * 1000


def bench_backend(
    backend: Backend, bot_dir: Path, runs: int, messages: int, budget_s: float
) -> dict:
    end = time.monotonic() + budget_s
    single: list[float] = []
    teardown: list[float] = []
    for i in range(runs):
        latency, bot = first_reply(backend, bot_dir, f"bench-{i}")
        single.append(latency)
        teardown.append(timed_stop(bot))
        if time.monotonic() > end:
            break
    pair: list[float] = []
    with ThreadPoolExecutor(2) as pool:
        for i in range(runs):
            start = time.perf_counter()
            futures = [
                pool.submit(first_reply, backend, bot_dir, f"bench-p{i}-{s}") for s in (0, 1)
            ]
            bots = []
            try:
                for future in futures:
                    bots.append(future.result(timeout=60)[1])
                pair.append((time.perf_counter() - start) * 1000)
            finally:
                for bot in bots:
                    teardown.append(timed_stop(bot))
            if time.monotonic() > end:
                break
    round_trip: list[float] = []
    _, bot = first_reply(backend, bot_dir, "bench-rt")
    try:
        for _ in range(messages):
            start = time.perf_counter()
            bot.send_line(MESSAGE)
            result = bot.read_line(time.monotonic() + 5)
            round_trip.append((time.perf_counter() - start) * 1000)
            if result.line != MESSAGE:
                raise SandboxError(f"echo mismatch: {result}")
            if time.monotonic() > end + 30:
                break
    finally:
        teardown.append(timed_stop(bot))
    return {
        "single": single,
        "pair": pair,
        "round_trip": round_trip,
        "teardown": teardown,
    }


def count(text: str) -> int:
    """A command-line count of at least 1 (none would leave nothing to measure)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError("expected a whole number of at least 1")
    return value


def fmt(values: list[float], q: float, digits: int = 0) -> str:
    return f"{statistics.median(values):.{digits}f} / {quantile(values, q):.{digits}f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m sandbox.bench", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--backend",
        choices=("all", "docker", "process"),
        default="all",
        help="default all (those that can run here)",
    )
    parser.add_argument(
        "--runs", type=count, default=11, help="launches per measurement (default 11)"
    )
    parser.add_argument(
        "--messages", type=count, default=1000, help="round trips per measurement (default 1000)"
    )
    parser.add_argument("--budget-s", type=float, default=120, help="time budget per backend")
    args = parser.parse_args(argv)

    makers: dict[str, Callable[[], Backend]] = {}
    if args.backend in ("all", "docker"):
        from sandbox.docker_backend import DockerBackend

        makers["docker"] = DockerBackend
    if args.backend in ("all", "process"):
        from sandbox.process_backend import ProcessBackend

        makers["process"] = ProcessBackend
        makers["process (no bwrap)"] = lambda: ProcessBackend(use_bwrap=False)
    rows = []
    with tempfile.TemporaryDirectory(prefix="gemarena-bench-") as tmp:
        bot_dir = Path(tmp)
        bot_dir.chmod(0o755)  # bots run as an unprivileged user
        (bot_dir / "main.py").write_text(ECHO_BOT)
        (bot_dir / "main.py").chmod(0o644)
        for label, make in makers.items():
            backend = make()
            problem = backend.self_check()
            if problem:
                print(f"{label}: skipped: {problem}", file=sys.stderr)
                continue
            print(f"{label}: measuring ...", file=sys.stderr)
            found = bench_backend(backend, bot_dir, args.runs, args.messages, args.budget_s)
            rows.append(
                f"| {label} | {fmt(found['single'], 0.9)} | {fmt(found['pair'], 0.9)} "
                f"| {fmt(found['round_trip'], 0.99, 3)} | {fmt(found['teardown'], 0.9)} |"
            )
    print(
        f"runs={args.runs}, messages={args.messages}; times in ms\n\n"
        "| backend | 1 bot: launch to first reply (median / p90) "
        "| 2 bots in parallel: both replied (median / p90) "
        "| round trip (median / p99) | teardown (median / p90) |\n"
        "| --- | --- | --- | --- | --- |"
    )
    print("\n".join(rows))
    return 0 if rows else 1


if __name__ == "__main__":
    sys.exit(main())
