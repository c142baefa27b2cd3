"""Engine code is pure: the same seed and actions give the same game (arena/engine.py).

An AST scan of every module under arena/games/ (plus arena/engine.py and
arena/rng.py) fails the build when engine code imports a source of
randomness or time, does I/O, or imports Django.

One exemption, by convention: a module named ``loader.py`` inside a game
package is the only place allowed to read files (its data at import time),
so it may import I/O modules (os, io, pathlib, importlib...) and call open().
It is never exempt from the randomness, clock, process and Django rules.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENGINE_FILES = sorted((ROOT / "arena" / "games").rglob("*.py")) + [
    ROOT / "arena" / "engine.py",
    ROOT / "arena" / "rng.py",
]
LOADER_NAME = "loader.py"

#: never imported by engine code, loader or not
FORBIDDEN = {
    "random", "secrets", "uuid", "time", "datetime", "zoneinfo", "calendar",
    "django", "threading", "multiprocessing", "concurrent", "asyncio", "signal",
    "socket", "ssl", "select", "selectors", "subprocess", "urllib", "http",
    "requests", "sqlite3", "logging",
}  # fmt: skip
#: I/O: allowed only in a loader module
IO_MODULES = {
    "os", "io", "pathlib", "sys", "shutil", "tempfile", "glob", "fnmatch",
    "importlib", "pickle", "shelve", "fileinput", "mmap", "builtins",
}  # fmt: skip
FORBIDDEN_CALLS = {"exec", "eval", "compile", "__import__", "breakpoint", "globals"}
IO_CALLS = {"open", "input", "print"}


def problems(source: str, is_loader: bool) -> list[str]:
    """What breaks the purity rules in one module's source."""
    found = []
    banned_modules = FORBIDDEN if is_loader else FORBIDDEN | IO_MODULES
    banned_calls = FORBIDDEN_CALLS if is_loader else FORBIDDEN_CALLS | IO_CALLS
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        for name in names:
            if name.split(".")[0] in banned_modules:
                found.append(f"line {node.lineno}: imports {name}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in banned_calls:
                found.append(f"line {node.lineno}: calls {node.func.id}()")
    return found


@pytest.mark.parametrize("path", ENGINE_FILES, ids=[str(p.relative_to(ROOT)) for p in ENGINE_FILES])
def test_engine_module_is_pure(path: Path) -> None:
    bad = problems(path.read_text(encoding="utf-8"), is_loader=path.name == LOADER_NAME)
    assert not bad, f"{path.relative_to(ROOT)} is not pure: " + "; ".join(bad)


def test_every_game_package_is_scanned() -> None:
    scanned = {p.parent.name for p in ENGINE_FILES}
    assert {"splendor_duel", "edel_stein_reich"} <= scanned


@pytest.mark.parametrize(
    ("source", "is_loader"),
    [
        ("import random", False),
        ("from time import perf_counter", False),
        ("import os.path", False),
        ("from pathlib import Path", False),
        ("data = open('x').read()", False),
        ("print('debug')", False),
        ("from django.conf import settings", True),
        ("import random", True),
        ("eval('1')", True),
    ],
)
def test_the_scan_catches_impurity(source: str, is_loader: bool) -> None:
    assert problems(source, is_loader)


def test_the_loader_may_read_files() -> None:
    assert problems("import json\nfrom importlib import resources\nopen('x')", True) == []
