"""`arena upload`: send a bot to a Gem Arena server as a new version.

A directory is zipped first (its contents, with main.py at the root; caches,
hidden files and the replays `arena play` writes left out). A main.py that
names another game than the bot's (`run(decide, game="…")`,
arena/bot_game.py) is refused before anything is sent, with the server's
message and exit status 2. Server and token: see arena/api_client.py or
docs/api.md ("The command line").
"""

from __future__ import annotations

import argparse
import io
import math
import sys
import time
import zipfile
from pathlib import Path

from arena.api_client import SERVER_HELP, Client, ClientError, find_bot, load_config
from arena.bot_game import games_named_in, wrong_game_refusal
from arena.protocol import terminal_safe
from arena.runner_bots import nested_main_py_hint, no_main_py_hint

#: exit status when --wait ran out with the version still pending
STILL_PENDING = 3
#: exit status when main.py names another game than the bot's (nothing sent)
WRONG_GAME = 2
POLL_S = 2.0


def _set_bot_path(parser: argparse.ArgumentParser, namespace, value: str) -> None:
    earlier = namespace.path
    if earlier is not None:
        parser.error(
            f"two bots given, {earlier!r} and {value!r} (a word after --wait that is "
            "not a number is BOT_DIR_OR_FILE)"
        )
    namespace.path = value


class _BotPath(argparse.Action):
    """BOT_DIR_OR_FILE, unless `--wait` took it already (see _Wait)."""

    def __call__(self, parser, namespace, value, option_string=None) -> None:
        _set_bot_path(parser, namespace, value)


class _Wait(argparse.Action):
    """`--wait [SECONDS]` takes the next word only when it is a number: argparse
    alone would take any word, and read `--bot NAME --wait ./mybot` as waiting
    for "./mybot" seconds. A word that is not a number is BOT_DIR_OR_FILE."""

    def __call__(self, parser, namespace, value, option_string=None) -> None:
        try:
            seconds = self.const if value is None else float(value)
        except ValueError:  # a bare --wait, then the bot
            _set_bot_path(parser, namespace, value)
            seconds = self.const
        if not 0 < seconds < math.inf:  # nan is refused too
            parser.error(f"argument --wait: SECONDS must be a positive number, not {value!r}")
        setattr(namespace, self.dest, seconds)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = SERVER_HELP
    path = parser.add_argument(
        "path",
        action=_BotPath,
        default=None,
        metavar="BOT_DIR_OR_FILE",
        help="a folder with main.py, a .py or a .zip",
    )
    path.required = False  # `--wait` may take it; run() checks that it came
    parser.add_argument("--bot", required=True, metavar="NAME", help="the bot's name on the server")
    parser.add_argument(
        "--game",
        help="the bot's game (needed with --create, or if NAME is ambiguous); a main.py "
        "that names another game than the bot's in run(..., game=...) is not sent (exit status 2)",
    )
    parser.add_argument(
        "--create", action="store_true", help="create the bot if you have none of that name"
    )
    parser.add_argument(
        "--wait",
        action=_Wait,
        nargs="?",
        const=600.0,
        default=None,
        metavar="SECONDS",
        help="wait for validation to accept or reject the version, at most SECONDS "
        "(a positive number; default 600)",
    )


def package(path: Path) -> tuple[str, bytes]:
    """(file name, bytes) to upload: a folder becomes a zip of its contents."""
    if not path.exists():
        raise ClientError(f"{path} does not exist")
    if path.is_file():
        return path.name, path.read_bytes()
    if not (path / "main.py").is_file():
        names = [p.name for p in path.iterdir() if p.is_file()]
        raise ClientError(
            f"{path} has no main.py at its top level"
            + (no_main_py_hint(names) or nested_main_py_hint(str(path), path))
        )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for item in sorted(path.rglob("*")):
            relative = item.relative_to(path)
            if any(part.startswith(".") or part == "__pycache__" for part in relative.parts):
                continue
            if item.name.endswith(".replay.json.gz"):  # `arena play .` writes them here
                continue
            if item.is_file() and not item.is_symlink() and item.suffix != ".pyc":
                archive.write(item, relative.as_posix())
    return f"{path.resolve().name or 'bot'}.zip", buffer.getvalue()


class WrongGame(ClientError):
    """main.py names another game than the bot's: nothing was sent."""


def main_py(filename: str, data: bytes) -> tuple[str, bytes] | None:
    """(what the server calls it, main.py's bytes) of what `package` made:
    a .py itself, or a zip's main.py at its root or in the one folder that
    holds everything; None when there is none to read (the server says why)."""
    if filename.lower().endswith(".py"):
        return filename, data
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = [info.filename for info in archive.infolist() if not info.is_dir()]
            tops = {name.split("/", 1)[0] for name in names}
            for candidate in ["main.py", *(f"{top}/main.py" for top in tops if len(tops) == 1)]:
                if candidate in names:
                    return "main.py", archive.read(candidate)
    except (zipfile.BadZipFile, ValueError, OSError, RuntimeError, NotImplementedError):
        pass
    return None


def check_game(filename: str, data: bytes, game: str) -> None:
    """WrongGame, with the server's message, when main.py names another game
    than `game` (`arena.bot_game`); a file it cannot read is the server's to judge."""
    found = main_py(filename, data)
    if found is None:
        return
    shown, source = found
    try:
        text = source.decode("utf-8-sig")
    except UnicodeDecodeError:
        return
    refusal = wrong_game_refusal(games_named_in(text), game, shown)
    if refusal:
        raise WrongGame(f"{refusal} (nothing was sent)")


def run(args: argparse.Namespace) -> int:
    if args.path is None:
        print("arena upload: BOT_DIR_OR_FILE is missing: which bot to upload?", file=sys.stderr)
        return 2
    try:
        return _upload(args)
    except WrongGame as exc:
        print(f"arena upload: {exc}", file=sys.stderr)
        return WRONG_GAME
    except ClientError as exc:
        print(f"arena upload: {exc}", file=sys.stderr)
        return 1


def _upload(args: argparse.Namespace) -> int:
    client = Client(load_config())
    client.require_token()
    filename, data = package(Path(args.path))
    if args.game:
        check_game(filename, data, args.game)  # before any request
    bot = find_bot(client, args.bot, args.game, mine=True)
    if bot is not None and not args.game:
        check_game(filename, data, bot["game"])  # its game is known now; the file is not sent
    if bot is None:
        if not args.create:
            raise ClientError(
                f"you have no bot named {args.bot!r}"
                + (f" for {args.game}" if args.game else "")
                + "; add --create --game GAME to create it"
            )
        if not args.game:
            raise ClientError("--create needs --game (see `arena games`)")
        bot = client.post_json("/api/bots", {"game": args.game, "name": args.bot})
        print(f"created bot {bot['name']} ({bot['game']}), id {bot['id']}")
        try:
            version = client.post_file(f"/api/bots/{bot['id']}/versions", "file", filename, data)
        except ClientError:
            # a first upload that was refused or failed leaves no empty bot behind (as on the web page)
            client.request("DELETE", f"/api/bots/{bot['id']}")
            print(f"removed bot {bot['name']} again: its first upload did not go through")
            raise
    else:
        version = client.post_file(f"/api/bots/{bot['id']}/versions", "file", filename, data)
    print(
        f"uploaded {filename} ({len(data):,} bytes) as {bot['name']} v{version['number']} "
        f"(version id {version['id']}): {version['status']}"
    )
    if args.wait is None or version["status"] != "pending":
        return report(version)
    deadline = time.monotonic() + args.wait
    while version["status"] == "pending":
        if time.monotonic() >= deadline:
            print(
                f"still validating after {args.wait:g} s; check again with "
                f"GET /api/versions/{version['id']}"
            )
            return STILL_PENDING
        sleep(POLL_S)
        version = client.get(f"/api/versions/{version['id']}")
    return report(version)


def report(version: dict) -> int:
    if version["status"] == "ready":
        print(f"v{version['number']} is ready and now plays on the ladder")
    elif version["status"] == "rejected":
        print(f"v{version['number']} was rejected: {version['reject_reason']}")
        if version.get("stderr_tail"):
            print("its stderr ended with:")
            print(terminal_safe(version["stderr_tail"].rstrip()))
        return 1
    else:
        print("validation matches are queued; add --wait to wait for the verdict")
    return 0


def sleep(seconds: float) -> None:
    time.sleep(seconds)
