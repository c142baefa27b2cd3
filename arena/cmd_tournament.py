"""`arena tournament GAME BOT... --games N`: a round robin in the sandbox."""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
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
from arena.runner_bots import BotNotFound, resolve_bot, unique_labels
from arena.runner_types import BotSpec, MatchRequest, MatchResult, SystemFault
from arena.tournament import Standing, fit_elo, pair_results, schedule, wilson_interval


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game")
    parser.add_argument(
        "bots", nargs="+", metavar="BOT", help="directory, .py file or builtin:NAME"
    )
    parser.add_argument("--games", type=int, required=True, help="games per group of bots")
    parser.add_argument(
        "--players", type=int, default=None, help="seats per game (default: the game's smallest)"
    )
    parser.add_argument("--jobs", "-j", type=int, default=1, help="matches played at once")
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument(
        "--replays",
        type=Path,
        default=None,
        help="write every replay into this directory (created if missing)",
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
            raise ValueError(f"{players} seats need at least {players} bots")
        if args.games < 1:
            raise ValueError("--games must be at least 1")
        if args.jobs < 1:
            raise ValueError("--jobs must be at least 1")
        tc = settings["time"]
        if args.replays:
            make_replay_dir(args.replays)
    except (BotNotFound, OptionError, ValueError) as exc:
        print(f"arena tournament: {exc}", file=sys.stderr)
        return 2
    labels = unique_labels([label for label, _ in bots])
    plan = schedule(len(bots), players, args.games, args.seed)

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
        )
        return index, play_match(request)

    standings = [Standing() for _ in bots]
    pairs: list[tuple[int, int, float]] = []
    errors = 0
    t0 = time.monotonic()
    with ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(play, i) for i in range(len(plan))]
        for done, future in enumerate(as_completed(futures), 1):
            try:
                index, result = future.result()
            except SystemFault as exc:
                errors += 1
                print(f"\nsystem fault (match not counted): {exc}", file=sys.stderr)
                continue
            seats = plan[index].seats
            _count(standings, seats, result)
            pairs += [(seats[a], seats[b], s) for a, b, s in pair_results(result.outcome.ranks)]
            if args.replays:
                save_replay(args.replays / f"{game.id}-{index:05d}.replay.json.gz", result.replay)
            _progress(done, len(plan), t0)
    print(file=sys.stderr)
    elo, ci = fit_elo(len(bots), pairs)
    print(f"{game.id}: {len(plan) - errors} games, {players} seats, {time.monotonic() - t0:.1f} s")
    print_notice(game.id, options)
    print(
        f"{'bot':<28} {'games':>5} {'win rate':>8} {'1st alone':>9} {'95% CI':>13}"
        f" {'avg rank':>8} {'faults':>6} {'Elo':>6} {'95% CI':>8}"
    )
    order = sorted(range(len(bots)), key=lambda b: -elo[b])
    for b in order:
        st = standings[b]
        avg = st.rank_sum / st.games if st.games else 0.0
        lo, hi = wilson_interval(st.sole_firsts, st.games)
        interval = f"{lo * 100:.1f}–{hi * 100:.1f}%"
        print(
            f"{labels[b]:<28} {st.games:>5} {st.win_rate:>8.1%} {st.sole_first_rate:>9.1%}"
            f" {interval:>13} {avg:>8.2f} {st.faults:>6} {elo[b]:>6.0f} {'±':>2}{ci[b]:<5.0f}"
        )
    return 1 if errors else 0


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


def _count(standings: list[Standing], seats: tuple[int, ...], result: MatchResult) -> None:
    ranks = result.outcome.ranks
    firsts = sum(1 for r in ranks if r == 1)
    for seat, bot in enumerate(seats):
        st = standings[bot]
        st.games += 1
        st.rank_sum += ranks[seat]
        if ranks[seat] == 1:
            st.wins += 1 / firsts
            st.sole_firsts += firsts == 1
        if result.faults[seat] is not None:
            st.faults += 1


def _progress(done: int, total: int, t0: float) -> None:
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
