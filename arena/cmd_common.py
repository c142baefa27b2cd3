"""Arguments and helpers shared by `arena play` and `arena tournament`."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from arena.api_client import DEFAULT_URL, Client, ClientError, load_config
from arena.engine import option_value
from arena.registry import get_game
from arena.runner import sandbox_limits
from arena.runner_types import TimeControl
from sandbox.base import MIN_MEMORY_MIB

DEFAULTS = TimeControl()
#: the time limits and memory a command line leaves unset fall back to these
UNSET_LIMITS = {**DEFAULTS.to_json(), "memory_mib": None}


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
        "--ladder-rules",
        action="store_true",
        help="play as the server's ladder does: its game options and time and memory "
        "limits (GET /api/games/GAME); --option and the limits given here still win. "
        f"The server is GEMARENA_URL (default {DEFAULT_URL}) or `url` in "
        "~/.config/gemarena/config.toml; no token is needed",
    )
    parser.add_argument(
        "--startup-ms",
        type=int,
        default=None,
        help=f"start-up allowance per bot (default {DEFAULTS.startup_ms})",
    )
    parser.add_argument(
        "--move-ms",
        type=int,
        default=None,
        help=f"time per decision (default {DEFAULTS.move_ms})",
    )
    parser.add_argument(
        "--bank-ms",
        type=int,
        default=None,
        help=f"per-match time bank for slow moves (default {DEFAULTS.bank_ms})",
    )
    parser.add_argument("--memory-mib", type=int, default=None,
                        help=f"memory limit per bot, at least {MIN_MEMORY_MIB} "
                             "(default: the sandbox's)")  # fmt: skip


def parse_options(pairs: list[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        if not sep or not name:
            raise ValueError(f"--option {pair!r}: write NAME=VALUE")
        try:
            options[name] = option_value(raw)
        except ValueError as exc:
            raise ValueError(f"--option {name}: {exc}") from None
    return options


def match_settings(args: argparse.Namespace, game: str) -> dict[str, Any]:
    """The options, time control and memory limit of the command line, on top of
    the server ladder's with --ladder-rules. ValueError says what went wrong."""
    options = parse_options(args.option)
    limits = {name: getattr(args, name) for name in UNSET_LIMITS}
    if args.ladder_rules:
        ladder = ladder_rules(game)
        options = {**ladder["options"], **options}
        limits = {k: ladder[k] if v is None else v for k, v in limits.items()}
    limits = {k: UNSET_LIMITS[k] if v is None else v for k, v in limits.items()}
    for name, least in (("startup_ms", 1), ("move_ms", 1), ("bank_ms", 0)):
        if limits[name] < least:  # said with the option's name, not TimeControl's
            flag = "--" + name.replace("_", "-")
            raise ValueError(f"{flag} {limits[name]}: give at least {least} (milliseconds)")
    time = TimeControl(limits["startup_ms"], limits["move_ms"], limits["bank_ms"])
    if limits["memory_mib"] is not None:  # refused here, before any match starts
        sandbox_limits({"memory_mib": limits["memory_mib"]}, time)
    return {"options": options, "time": time, "memory_mib": limits["memory_mib"]}


def ladder_rules(game: str) -> dict[str, Any]:
    """What the server's ladder plays `game` with: options, time limits, memory."""
    try:
        config = load_config()
        answer = Client(config, timeout_s=30).get(f"/api/games/{game}")
        ladder = {
            "options": answer["ladder_options"],
            **{k: answer["ladder_limits"][k] for k in UNSET_LIMITS},
        }
    except ClientError as exc:
        raise ValueError(f"--ladder-rules: {exc}") from None
    except (KeyError, TypeError):
        raise ValueError(
            f"--ladder-rules: {config.url} did not say which rules its ladder plays "
            "(an older Gem Arena?); give them with --option and the limits instead"
        ) from None
    # say what was fetched: a silent success cannot be told from no effect
    shown = ", ".join(f"{k}={json.dumps(v)}" for k, v in sorted(ladder["options"].items()))
    limits = ", ".join(f"{k.replace('_', ' ')} {ladder[k]}" for k in UNSET_LIMITS)
    print(
        f"ladder rules of {config.url}: options {shown or '(the defaults)'}; {limits}",
        file=sys.stderr,
    )
    return ladder


def check_replay_folder(folder: Path, what: str) -> None:
    """ValueError unless replays can be written into `folder`. Commands check
    this before they play, so a mistyped path costs no match."""
    if not folder.is_dir():
        raise ValueError(f"{what}: {folder} is not an existing directory")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"{what}: cannot write into {folder}")


def print_notice(game_id: str, options: dict[str, Any] | None) -> None:
    """The game's notice for these options (Edel, Stein & Reich's house
    values), as `arena games` and the site show it; nothing when it has none."""
    notice = get_game(game_id).notice_for(options)
    if notice:
        print(f"  note: {notice}")


def option_args(game_id: str, options: dict[str, Any] | None) -> list[str]:
    """`-o NAME=VALUE` for each option that differs from its default: what
    `arena play` needs to play a replay's game again. A document (Edel, Stein
    & Reich's `components`) is too long for a command line: it is named
    `NAME=FILE`, for the replay's `options.NAME` saved as a file."""
    args = []
    for name, value in get_game(game_id).non_default(options or {}).items():
        if isinstance(value, (dict, list)):
            text = "FILE"
        elif isinstance(value, str) and option_value(value) == value:
            text = value
        else:  # a number, true/false/null, or text that would read as one
            text = json.dumps(value)
        args.append(f"-o {shlex.quote(f'{name}={text}')}")
    return args
