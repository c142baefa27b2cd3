"""The import direction ladder → arena → sandbox, checked on the source.

- arena and sandbox never import Django (nor the ladder or config);
- sandbox never imports arena;
- ladder uses only the names arena/__init__.py exports, and never sandbox.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import arena

ROOT = Path(__file__).resolve().parent.parent


def imports_of(path: Path) -> list[tuple[str, list[str], int]]:
    """(module, imported names, line) for every import in a file."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append((alias.name, [], node.lineno))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module, [a.name for a in node.names], node.lineno))
    return found


def top(module: str) -> str:
    return module.split(".")[0]


def sources(package: str) -> list[Path]:
    files = sorted((ROOT / package).rglob("*.py"))
    assert files, f"no Python files under {package}/"
    return files


def boundary_violations(package: str, forbidden: set[str]) -> list[str]:
    bad = []
    for path in sources(package):
        for module, _names, line in imports_of(path):
            if top(module) in forbidden:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    return bad


@pytest.mark.parametrize(
    "package, forbidden",
    [
        ("arena", {"django", "ladder", "config", "celery"}),
        ("sandbox", {"django", "ladder", "config", "celery", "arena"}),
    ],
)
def test_pure_packages_stay_pure(package: str, forbidden: set[str]) -> None:
    assert boundary_violations(package, forbidden) == []


def ladder_violations(files: list[Path]) -> list[str]:
    exported = set(arena.__all__)
    bad = []
    for path in files:
        for module, names, line in imports_of(path):
            where = f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{line}"
            if top(module) == "sandbox":
                bad.append(f"{where} imports sandbox (go through arena)")
            elif module.startswith("arena."):
                bad.append(f"{where} imports {module} (only `from arena import …` is allowed)")
            elif module == "arena":
                for name in names:
                    if name not in exported:
                        bad.append(f"{where} uses arena.{name}, which arena does not export")
    return bad


def test_ladder_uses_only_arena_exports() -> None:
    assert ladder_violations(sources("ladder")) == []


def test_the_ladder_check_can_fail(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import sandbox\nfrom arena.engine import GameState\nfrom arena import nothing_here\n"
    )
    problems = ladder_violations([bad])
    assert len(problems) == 3, problems


def test_the_runner_download_names_every_library_its_packages_import() -> None:
    """The site's `arena` download (`ladder.views_docs.runner_pyproject`)
    installs only these: a new import in arena/ or sandbox/ must be added."""
    from ladder.views_docs import RUNNER_DEPENDENCIES

    ours = {"arena", "sandbox", "gemarena_sdk"}  # gemarena_sdk: the bots' copy of arena/sdk.py
    # installed with docker (its own dependency), whose errors it raises
    ours |= {"requests"}
    imported = {
        top(module)
        for package in ("arena", "sandbox")
        for path in sources(package)
        for module, _names, _line in imports_of(path)
    }
    assert imported - set(sys.stdlib_module_names) - ours == set(RUNNER_DEPENDENCIES)
