"""Finding bots: built-in example bots and the BOT arguments of the CLI.

A built-in bot `builtin:NAME` is the directory bots/<game package>/NAME/ when
the game has its own, else the game-agnostic bots/NAME/ (the random bot).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

from arena.registry import get_game

BOTS_ENV = "GEMARENA_BOTS_DIR"
BUILTIN_PREFIX = "builtin:"


class BotNotFound(ValueError):
    """A bot argument that names no usable bot; the message says why."""


def bots_root() -> Path:
    return Path(os.environ.get(BOTS_ENV) or Path(__file__).resolve().parent.parent / "bots")


def _package(game: str) -> str:
    return get_game(game).id.replace("-", "_")


def builtin_names(game: str) -> list[str]:
    root = bots_root()
    names = set()
    for folder in (root / _package(game), root):
        if folder.is_dir():
            names.update(p.parent.name for p in folder.glob("*/main.py"))
    return sorted(names)


def builtin_bot_dir(game: str, name: str) -> Path:
    """The directory of built-in bot `name` for `game` (BotNotFound if none)."""
    root = bots_root()
    for folder in (root / _package(game) / name, root / name):
        if (folder / "main.py").is_file():
            return folder
    known = ", ".join(builtin_names(game)) or "none"
    raise BotNotFound(f"no built-in bot {name!r} for {game} (built-in: {known})")


def unique_labels(labels: list[str]) -> list[str]:
    """Bot labels told apart: a second `esr` is `esr#2`, a third `esr#3`."""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label}#{seen[label]}")
    return out


def no_main_py_hint(names: list[str]) -> str:
    """What to add when a bot (a folder, a zip; `names` its file paths, `/`
    separated) has no main.py but Python files at its top level: a newcomer
    named the entry point bot.py or mybot.py."""
    scripts = sorted(name for name in names if name.endswith(".py") and "/" not in name)
    if not scripts:
        return ""
    shown = ", ".join(scripts[:3]) + (", …" if len(scripts) > 3 else "")
    return f" (it holds {shown}: a bot starts from main.py; rename the file that calls run())"


#: the last line of a bot's stderr when an import failed
MISSING_MODULE = re.compile(r"ModuleNotFoundError: No module named '([A-Za-z0-9_.]+)'\s*$")


#: the line that puts a bot's own folder on sys.path (docs/bots.md, the
#: starter's README): appended, so that the sandbox's gemarena_sdk and
#: engines come first, not a copy in the folder (the starter kit's
#: gemarena_sdk.py, for running it with plain python3, ages with the kit)
BOT_FOLDER_ON_PATH = "sys.path.append(os.path.dirname(os.path.abspath(__file__)))"


def import_hint(stderr_tail: str, source: Path | None, single_file: bool = False) -> str:
    """What to do about a bot that crashed on an import (its stderr's last
    line), "" for any other crash. `source` is the folder of the bot as the
    author has it (None for a built-in bot), `single_file` when only its
    main.py was given: a module there is the bot's own file."""
    found = MISSING_MODULE.search(stderr_tail)
    if found is None or source is None:
        return ""
    top = found.group(1).split(".")[0]
    if (source / f"{top}.py").is_file() or (source / top).is_dir():
        # the sandbox's isolated mode (python3 -I) keeps the bot's folder off sys.path
        fix = f"start main.py with `import os, sys` and `{BOT_FOLDER_ON_PATH}`"
        if single_file:
            return f"{top} is next to the .py file given, which plays alone: give their folder, and {fix}"
        return (
            f"{top} is in the bot's folder, but bots run as python3 -I (isolated), without "
            f"their folder on sys.path: {fix}"
        )
    return (
        f"{top} is not in the sandbox: a bot can import the standard library, "
        "gemarena_sdk, the engines (arena) and the files of its own folder"
    )


def nested_main_py_hint(arg: str, folder: Path) -> str:
    """What to add when `folder` (given as `arg`) has no main.py but a folder
    in it has: the starter kit unzipped here, run from one folder too high."""
    inner = sorted(
        p.name
        for p in folder.iterdir()
        if p.is_dir() and not p.name.startswith(".") and (p / "main.py").is_file()
    )
    if not inner:
        return ""
    shown = " or ".join(str(Path(arg) / name) for name in inner[:2])
    return f" (give the folder that holds it: {shown})"


def resolve_bot(arg: str, game: str, workdir: Path | None = None) -> tuple[str, Path]:
    """(label, directory) for a CLI BOT argument: builtin:NAME, a directory
    holding main.py, or a single .py file (copied as main.py into `workdir`)."""
    if arg.startswith(BUILTIN_PREFIX):
        name = arg[len(BUILTIN_PREFIX) :]
        return arg, builtin_bot_dir(game, name)
    path = Path(arg)
    if path.is_dir():
        if not (path / "main.py").is_file():
            names = [p.name for p in path.iterdir() if p.is_file()]
            raise BotNotFound(
                f"{arg}: the directory has no main.py"
                + (no_main_py_hint(names) or nested_main_py_hint(arg, path))
            )
        return path.resolve().name, path.resolve()
    if path.suffix == ".py":
        if not path.is_file():
            raise BotNotFound(f"{arg}: no such file")
        if workdir is None:
            workdir = Path(tempfile.mkdtemp(prefix="gemarena-bot-"))
            workdir.chmod(0o755)  # the sandbox user walks through it
        target = Path(tempfile.mkdtemp(prefix=path.stem + "-", dir=workdir))
        try:
            shutil.copyfile(path, target / "main.py")
        except OSError as exc:
            raise BotNotFound(f"{arg}: cannot read it ({exc.strerror or exc})") from None
        target.chmod(0o755)  # bots run as an unprivileged user
        (target / "main.py").chmod(0o644)
        return path.stem, target
    if not path.exists():
        raise BotNotFound(
            f"{arg}: no such bot (give a directory with main.py, a .py file or builtin:NAME)"
        )
    if path.suffix.lower() == ".zip":  # the starter kit, or what the author uploads
        raise BotNotFound(
            f"{arg}: a .zip is played unzipped: `unzip {arg}`, then give the folder "
            "that holds main.py (the server takes the .zip itself)"
        )
    raise BotNotFound(f"{arg}: not a directory or a .py file")


def random_opponents(game) -> str:
    """`builtin:random` for every other seat of the game's smallest table."""
    return " ".join(["builtin:random"] * (min(game.seat_counts) - 1))


def docs_reference(game) -> str:
    """Where the starter's README sends its reader for the full docs, when
    the server's own addresses are not known (`arena new-bot`)."""
    return (
        f"/docs/protocol/, /docs/bots/ and /docs/games/{game.id}/ on the Gem Arena "
        f"site you play on (in the Gem Arena sources: docs/protocol.md, "
        f"docs/bots.md and docs/games/{game.id}.md)"
    )


#: Where the starter's README says the `arena` command comes from, when the
#: server's own addresses are not known (`arena new-bot`, which has it).
RUNNER_REFERENCE = (
    "installed from the Gem Arena sources, or from /docs/gem-arena.tar.gz of the "
    "Gem Arena site you play on"
)


def starter_files(game, reference: str | None = None, runner: str | None = None) -> dict[str, str]:
    """The starter's main.py and README.md for `game` (bots/starter/*.in, str.format
    with {game}, {opponents}, {reference}: where the full docs are, by default
    `docs_reference(game)`, and {runner}: where the `arena` command comes from,
    by default RUNNER_REFERENCE; the web site's kit names its own pages)."""
    return {
        name: (bots_root() / "starter" / f"{name}.in")
        .read_text(encoding="utf-8")
        .format(
            game=game.id,
            opponents=random_opponents(game),
            reference=reference or docs_reference(game),
            runner=runner or RUNNER_REFERENCE,
        )
        for name in ("main.py", "README.md")
    }
