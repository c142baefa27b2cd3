"""The library directory bots may import: `gemarena_sdk` (a copy of
arena/sdk.py, fast to import), `arena` (the engines, for bots that search)
and `sandbox` (which `arena/__init__` imports).

The sandbox backends put one such directory on the bot's sys.path: the
process backend mounts it at run time (`extra_lib`), the Docker image copies
it in at build time:

    python -m sandbox.image ensure --force --extra-lib "$(python -m arena.sdk_lib)"

Directories are content-addressed (var/bot-lib/<hash>/), so staging twice
with unchanged sources is free and concurrent stagers never clash.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("arena", "sandbox")
SUFFIXES = (".py", ".json", ".md", ".txt")


def var_dir() -> Path:
    return Path(os.environ.get("GEMARENA_VAR_DIR") or ROOT / "var")


def _files() -> list[tuple[str, Path]]:
    found = []
    for package in PACKAGES:
        base = ROOT / package
        for path in sorted(base.rglob("*")):
            if "__pycache__" in path.parts or not path.is_file() or path.suffix not in SUFFIXES:
                continue
            found.append((str(path.relative_to(ROOT)), path))
    found.append(("gemarena_sdk.py", ROOT / "arena" / "sdk.py"))
    return found


#: the file in the library directory that names its sources (bot_lib_id)
LIB_ID_FILE = "BOT_LIB_ID"


def _lib_id(files: list[tuple[str, Path]]) -> str:
    digest = hashlib.sha256()
    for rel, path in files:
        digest.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


@functools.cache
def bot_lib_id() -> str:
    """The library's id for the current sources: the staged directory's name
    and the content of its LIB_ID_FILE, so a bot image can be checked against
    the worker that uses it (arena/sandboxes.py, the self-test)."""
    return _lib_id(_files())


def stage_bot_lib(parent: Path | None = None) -> Path:
    """The staged library directory for the current sources (created if needed)."""
    parent = Path(parent) if parent is not None else var_dir() / "bot-lib"
    files = _files()
    lib_id = _lib_id(files)
    target = parent / lib_id
    if target.is_dir():
        return target
    parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".stage-", dir=parent))
    try:
        for rel, path in files:
            dest = tmp / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest)
            dest.chmod(0o644)
        (tmp / LIB_ID_FILE).write_text(lib_id + "\n")
        (tmp / LIB_ID_FILE).chmod(0o644)
        for folder in [tmp, *(p for p in tmp.rglob("*") if p.is_dir())]:
            folder.chmod(0o755)  # bots run as an unprivileged user
        try:
            tmp.rename(target)
        except OSError:
            if not target.is_dir():
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return target


@functools.cache
def bot_lib() -> Path:
    """stage_bot_lib() once per process."""
    return stage_bot_lib()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m arena.sdk_lib",
        description="Stage the bot library for the current sources and print its directory.",
    )
    parser.add_argument(
        "parent",
        nargs="?",
        type=Path,
        help="where the <id>/ directory goes (default: $GEMARENA_VAR_DIR/bot-lib, var/bot-lib)",
    )
    args = parser.parse_args(argv)
    print(stage_bot_lib(args.parent))
    return 0


if __name__ == "__main__":
    sys.exit(main())
