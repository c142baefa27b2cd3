"""Arguments and helpers shared by `arena play` and `arena tournament`."""

from __future__ import annotations

import argparse
import json
from typing import Any

from arena.runner_types import TimeControl

DEFAULTS = TimeControl()


def add_match_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sandbox",
        default="auto",
        choices=("auto", "docker", "process"),
        help="where bots run (default: auto = docker when usable)",
    )
    parser.add_argument(
        "--option",
        "-o",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a game option (see `arena games --options`); VALUE is JSON or text",
    )
    parser.add_argument(
        "--startup-ms",
        type=int,
        default=DEFAULTS.startup_ms,
        help=f"start-up allowance per bot (default {DEFAULTS.startup_ms})",
    )
    parser.add_argument(
        "--move-ms",
        type=int,
        default=DEFAULTS.move_ms,
        help=f"time per decision (default {DEFAULTS.move_ms})",
    )
    parser.add_argument(
        "--bank-ms",
        type=int,
        default=DEFAULTS.bank_ms,
        help=f"per-match time bank for slow moves (default {DEFAULTS.bank_ms})",
    )
    parser.add_argument("--memory-mib", type=int, default=None, help="memory limit per bot")  # fmt: skip


def parse_options(pairs: list[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        if not sep or not name:
            raise ValueError(f"--option {pair!r}: write NAME=VALUE")
        try:
            options[name] = json.loads(raw)
        except ValueError:
            options[name] = raw
    return options


def time_control(args: argparse.Namespace) -> TimeControl:
    return TimeControl(startup_ms=args.startup_ms, move_ms=args.move_ms, bank_ms=args.bank_ms)
