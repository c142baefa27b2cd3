"""`arena tournament GAME BOT... --games N`: a round robin in the sandbox."""

from __future__ import annotations

import argparse
import json
import secrets
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from concurrent.futures import wait as futures_wait
from pathlib import Path

from arena.cmd_common import (
    add_match_arguments,
    check_replay_folder,
    match_settings,
    print_notice,
)
from arena.engine import OptionError
from arena.registry import get_game
from arena.replay import save_replay
from arena.runner import play_match
from arena.runner_bots import BUILTIN_PREFIX, BotNotFound, resolve_bot, unique_labels
from arena.runner_types import BotSpec, MatchRequest, MatchResult, SystemFault
from arena.sandboxes import check_local_sandbox, reap_sandboxes
from arena.tournament import (
    Standing,
    count_game,
    pair_results,
    schedule,
    standings_rows,
    table_lines,
)
from sandbox import SandboxError

EPILOG = """\
The table, best first: games counted (system faults are not); win rate (rank 1,
shared firsts split); 1st alone (ahead of every other seat) with its 95% Wilson
interval; average rank; games with a fault; a local Elo (mean 1500, Bradley-Terry
over every pair of seats) with half its 95% interval. Ctrl-C starts no new game
and prints the standings so far; a second one ends the running games at once.
Details: docs/bots.md."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("game", help="the game's id (`arena games` lists them)")
    parser.add_argument(
        "bots", nargs="+", metavar="BOT", help="directory, .py file or builtin:NAME"
    )
    parser.add_argument("--games", type=int, required=True, help="games per group of bots")
    parser.add_argument(
        "--players", type=int, default=None, help="seats per game (default: the game's smallest)"
    )
    parser.add_argument("--jobs", "-j", type=int, default=1, help="matches played at once")
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="the first game's seed; the next seeds follow it (seed, seed+1, …). It fixes "
        "the engine's deal and draws, not the bots' own randomness",
    )
    parser.add_argument(
        "--replays",
        type=Path,
        default=None,
        help="write every replay into this directory (created if missing)",
    )
    parser.add_argument(
        "--json",
        type=Path,
        default=None,
        metavar="FILE",
        help="also write the standings and every counted game (seed, bots by seat, ranks, "
        "faults) to FILE as JSON",
    )
    add_match_arguments(parser)


def run(args: argparse.Namespace) -> int:
    workdir = Path(tempfile.mkdtemp(prefix="gemarena-tournament-"))
    workdir.chmod(0o755)
    try:
        return _run(args, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _run(args: argparse.Namespace, workdir: Path) -> int:
    try:
        game = get_game(args.game)
        players = min(game.seat_counts) if args.players is None else args.players
        game.check_seats(players)
        settings = match_settings(args, game.id)
        options = game.validate_options(settings["options"])
        bots = [resolve_bot(arg, game.id, workdir) for arg in args.bots]
        if len(bots) < players:
            filled = [*args.bots, *[args.bots[-1]] * (players - len(bots))]
            seats = f" --players {players}" * (args.players is not None)
            raise ValueError(
                f"{players} seats need at least {players} bots; a bot may be named more than "
                f"once: arena tournament {game.id} {' '.join(filled)} --games {args.games}{seats}"
            )
        if args.games < 1:
            raise ValueError("--games must be at least 1")
        if args.jobs < 1:
            raise ValueError("--jobs must be at least 1")
        tc = settings["time"]
        if args.replays:
            make_replay_dir(args.replays)
        if args.json and (args.json.is_dir() or not args.json.parent.is_dir()):
            raise ValueError(f"--json {args.json}: give a file in an existing directory")
        # what would fail every match is told once, before the first
        backend = check_local_sandbox(args.sandbox, bots)
    except (BotNotFound, OptionError, ValueError, SandboxError) as exc:
        print(f"arena tournament: {exc}", file=sys.stderr)
        return 2
    labels = unique_labels([label for label, _ in bots])
    names = [label for label, _ in bots]
    for arg, label, name in zip(args.bots, labels, names, strict=True):
        if names.count(name) > 1 and not arg.startswith(BUILTIN_PREFIX):
            # two folders called mybot: say which is which
            print(f"{label} = {arg}", file=sys.stderr)
    plan = schedule(len(bots), players, args.games, args.seed)
    if args.replays:
        taken = [
            p for i in range(len(plan)) if (p := replay_path(args.replays, game.id, i)).exists()
        ]
        if taken:
            print(
                f"arena tournament: --replays {args.replays} already holds {len(taken)} of this "
                f"run's replay names ({taken[0].name}, …), from an earlier run: give a new or "
                "empty folder, so that nothing is overwritten",
                file=sys.stderr,
            )
            return 2
    # this run's label on its containers: an interrupted run removes its own
    instance = f"tournament-{secrets.token_hex(4)}"
    print(f"sandbox: {backend}; {len(plan)} games", file=sys.stderr)
    if args.games % players:
        print(
            f"note: --games {args.games} is not a multiple of the {players} seats: "
            "the bots of a group do not sit in every seat equally often",
            file=sys.stderr,
        )

    def play(index: int) -> tuple[int, MatchResult]:
        pairing = plan[index]
        request = MatchRequest(
            game=game.id,
            bots=[BotSpec(labels[b], bots[b][1]) for b in pairing.seats],
            seed=pairing.seed,
            options=options,
            time=tc,
            memory_mib=settings["memory_mib"],
            sandbox=args.sandbox,
            match_id=f"t{index}",
            instance=instance,
        )
        return index, play_match(request)

    standings = [Standing() for _ in bots]
    games: list[list[tuple[int, int, float]]] = []
    records: list[dict] = []  # every counted game, for --json
    errors = 0
    stopped = ""  # why the run ended early
    t0 = time.monotonic()
    pool = ThreadPoolExecutor(args.jobs)
    futures = [pool.submit(play, i) for i in range(len(plan))]
    try:
        for done, future in enumerate(as_completed(futures), 1):
            try:
                index, result = future.result()
            except SystemFault as exc:
                errors += 1
                print(f"{_after_bar()}system fault (match not counted): {exc}", file=sys.stderr)
                continue
            seats = plan[index].seats
            count_game(
                standings, seats, result.outcome.ranks, [f is not None for f in result.faults]
            )
            records.append(
                {
                    "index": index,
                    "seed": plan[index].seed,
                    "bots": [labels[b] for b in seats],
                    "ranks": list(result.outcome.ranks),
                    "faults": [f.kind.value if f else None for f in result.faults],
                    "reason": result.outcome.reason,
                }
            )
            games.append(
                [(seats[a], seats[b], s) for a, b, s in pair_results(result.outcome.ranks)]
            )
            if args.replays:
                path = replay_path(args.replays, game.id, index)
                try:
                    save_replay(path, result.replay)
                except OSError as exc:
                    stopped = f"cannot write the replay {path}: {exc.strerror or exc}"
                    break
            _progress(done, len(plan), t0)
    except KeyboardInterrupt:
        stopped = "interrupted"
    finally:
        _stop(pool, futures, instance if backend == "docker" else "")
    if _progress_shown():
        print(file=sys.stderr)
    counted = len(games)
    if stopped:
        print(f"arena tournament: {stopped}: the standings of the {counted} games played so far:",
              file=sys.stderr)  # fmt: skip
    rows = standings_rows(labels, standings, games)
    _print_table(game, options, players, len(games), rows, time.monotonic() - t0)
    if args.json:
        document = {
            "game": game.id,
            "seats": players,
            "options": options,
            "time": tc.to_json(),
            "memory_mib": settings["memory_mib"],
            "sandbox": backend,
            "first_seed": args.seed,
            "games_per_group": args.games,
            "planned": len(plan),
            "counted": len(games),
            "system_faults": errors,
            "stopped": stopped or None,
            "standings": rows,
            "games": sorted(records, key=lambda g: g["index"]),
        }
        try:
            args.json.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n")
        except OSError as exc:
            print(f"arena tournament: --json {args.json}: {exc.strerror or exc}", file=sys.stderr)
            return 2
    if stopped:
        return 130 if stopped == "interrupted" else 2
    return 1 if errors else 0


def _stop(pool: ThreadPoolExecutor, futures: list, instance: str) -> None:
    """No new game starts; the games being played end. A second Ctrl-C while
    they do removes this run's containers (`instance`; "" when it has none),
    which ends them at once, instead of leaving them behind."""
    pool.shutdown(wait=False, cancel_futures=True)
    running = [f for f in futures if not f.done()]
    if not running:
        return
    print(
        f"{_after_bar()}waiting for the {len(running)} game(s) being played to end "
        "(Ctrl-C again to stop them)",
        file=sys.stderr,
    )
    try:
        futures_wait(running)
    except KeyboardInterrupt:
        if instance:
            removed = reap_sandboxes(older_than_s=0, instance=instance)
            print(f"removed {len(removed)} container(s) of this run", file=sys.stderr)
        futures_wait(running)  # their bots are gone: they end now


def _print_table(game, options, players: int, counted: int, rows, seconds: float) -> None:
    games = f"{counted} game{'' if counted == 1 else 's'}"
    print(f"{game.id}: {games}, {players} seats, {seconds:.1f} s")
    print_notice(game.id, options)
    print("\n".join(table_lines(rows)))


def replay_path(folder: Path, game: str, index: int) -> Path:
    return folder / f"{game}-{index:05d}.replay.json.gz"


def make_replay_dir(folder: Path) -> None:
    """Create the --replays directory (and its parents) before any game is
    played; ValueError if that is not possible."""
    what = f"--replays {folder}"
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{what} exists and is not a directory")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"{what}: cannot create it: {exc.strerror or exc}") from None
    check_replay_folder(folder, what)


def _progress_shown() -> bool:
    """The progress bar is drawn on a terminal only (no \\r lines in logs)."""
    return sys.stderr.isatty()


def _after_bar() -> str:
    """A new line after the progress bar, where there is one."""
    return "\n" if _progress_shown() else ""


def _progress(done: int, total: int, t0: float) -> None:
    if not _progress_shown():
        return
    width = 30
    filled = width * done // total
    rate = done / max(time.monotonic() - t0, 1e-9)
    eta = (total - done) / rate if rate else 0
    bar = "#" * filled + "." * (width - filled)
    print(
        f"\r[{bar}] {done}/{total}  {rate:.1f} games/s  eta {eta:.0f} s",
        end="",
        file=sys.stderr,
        flush=True,
    )
