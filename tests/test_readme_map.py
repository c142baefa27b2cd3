"""README's "Where things live" map stays true: every
file it names exists, and every module and package of the mapped folders is
named in its row (found by a QA pass as a new contributor: `forms.py`,
`ratings/results.py` and `sandbox/reaper.py` were missing or unnamed)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: folders whose every module (and package) the map names in the row of the
#: nearest folder it has a row for
MAPPED = [
    "arena",
    "sandbox",
    "ladder",
    "ladder/api",
    "ladder/ratings",
    "ladder/management/commands",
    "config",
    "deploy",
    "bots",
    "static/js",
]


def map_rows() -> dict[str, str]:
    """Each row's folder (`ladder/api/`, or `.ci/run`) -> the row's text."""
    text = (ROOT / "README.md").read_text()
    table = text.split("\n## Where things live\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in table.splitlines():
        cells = line.split(" | ")
        if not line.startswith("| `") or len(cells) < 2:
            continue
        for folder in re.findall(r"`([^`]+)`", cells[0]):
            rows[folder] = line
    return rows


def row_of(path: str, rows: dict[str, str]) -> str:
    """The row of the nearest folder above `path` the map has a row for."""
    owners = [folder for folder in rows if path.startswith(folder) and folder.endswith("/")]
    assert owners, f"{path}: no row of the map covers it"
    return rows[max(owners, key=len)]


def named(row: str) -> list[str]:
    return re.findall(r"`([^`\s]+)`", row)


def test_the_map_is_found() -> None:
    rows = map_rows()
    assert {"config/", "arena/", "ladder/api/", "tests/", ".ci/run"} <= set(rows)


@pytest.mark.parametrize("folder", sorted(map_rows()))
def test_every_path_the_map_names_exists(folder: str) -> None:
    row = map_rows()[folder]
    assert (ROOT / folder).exists(), folder
    first, rest = row.split(" | ", 1)
    bases = [ROOT / f for f in re.findall(r"`([^`]+/)`", first)]
    candidates = [ROOT, *bases, *(p for base in bases for p in base.rglob("*") if p.is_dir())]
    missing = []
    for name in named(rest):
        if not re.search(r"\.(py|js|md|sh|yaml|example|in)$|/$", name) or name.startswith("/"):
            continue  # a command, a URL or a setting, not a path
        pattern = name.rstrip("/")
        if not any(list(where.glob(pattern)) for where in candidates):
            missing.append(name)
    assert not missing, f"README's map, row {folder}: no such path {missing}"


def modules(folder: str) -> list[str]:
    """Modules, packages and (in deploy/, bots/, static/js/) files and folders."""
    plain_files = folder in {"deploy", "bots", "static/js"}
    found = []
    for path in sorted((ROOT / folder).iterdir()):
        if path.name.startswith(".") or path.name == "__pycache__":
            continue
        if path.is_dir() and (plain_files or (path / "__init__.py").exists()):
            found.append(f"{folder}/{path.name}/")
        elif (
            path.is_file() and (plain_files or path.suffix == ".py") and path.name != "__init__.py"
        ):
            found.append(f"{folder}/{path.name}")
    return found


@pytest.mark.parametrize("folder", MAPPED)
def test_every_module_is_named_in_its_row(folder: str) -> None:
    rows = map_rows()
    unnamed = []
    for path in modules(folder):
        if path in rows or any(other.startswith(path) for other in rows):
            continue  # a folder with rows of its own
        row = row_of(path, rows)
        names = named(row)
        name = path.rstrip("/").rsplit("/", 1)[1]
        stem = name.removesuffix(".py")
        shown = [name, f"{name}/", f"{folder}/{name}"]
        if folder == "ladder/management/commands":
            shown.append(stem)  # commands are named as they are typed
        shown += [n for n in names if n.startswith(f"{name}/")]  # `management/commands/`
        if not any(n in names for n in shown) and not any(
            Path(path.rstrip("/")).match(n) for n in names if "*" in n
        ):
            unnamed.append(path)
    assert not unnamed, f"README's map does not name {unnamed}"
