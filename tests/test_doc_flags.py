"""Every flag a command's --help lists is named in the document that
describes the command, and every flag the document gives a command exists
(found by a QA pass as a new contributor: `python -m sandbox.image ensure
--image`, `arena play --out`, `ladder.loadtest --keep` were in no document)."""

from __future__ import annotations

import functools
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARENA = str(Path(sys.executable).with_name("arena"))
PY = [sys.executable]
#: a command as typed in the docs -> its argv, and the documents describing it
COMMANDS: dict[str, tuple[list[str], list[str]]] = {
    "arena games": ([ARENA, "games"], ["docs/bots.md", "docs/operations.md"]),
    "arena bench": (
        [ARENA, "bench"],
        ["docs/games/splendor-duel.md", "docs/games/edel-stein-reich.md"],
    ),
    "arena play": ([ARENA, "play"], ["docs/bots.md", "docs/protocol.md", "docs/sandbox.md"]),
    "arena tournament": (
        [ARENA, "tournament"],
        ["docs/bots.md", "docs/protocol.md", "docs/sandbox.md"],
    ),
    "arena replay show": ([ARENA, "replay", "show"], ["docs/replays.md"]),
    "arena upload": ([ARENA, "upload"], ["docs/api.md"]),
    "arena matches": ([ARENA, "matches"], ["docs/api.md"]),
    "python -m sandbox check": (
        [*PY, "-m", "sandbox", "check"],
        ["docs/sandbox.md", "docs/operations.md"],
    ),
    "python -m sandbox reap": (
        [*PY, "-m", "sandbox", "reap"],
        ["docs/sandbox.md", "docs/operations.md"],
    ),
    "python -m sandbox.image ensure": ([*PY, "-m", "sandbox.image", "ensure"], ["docs/sandbox.md"]),
    "python -m sandbox.bench": ([*PY, "-m", "sandbox.bench"], ["docs/sandbox.md"]),
    "python -m arena.bench_match": ([*PY, "-m", "arena.bench_match"], ["docs/protocol.md"]),
    "python -m ladder.ratings.simulate": (
        [*PY, "-m", "ladder.ratings.simulate"],
        ["docs/ratings.md"],
    ),
    "python -m ladder.ratings.bench": ([*PY, "-m", "ladder.ratings.bench"], ["docs/ratings.md"]),
    "python -m ladder.loadtest": ([*PY, "-m", "ladder.loadtest"], ["docs/scale.md"]),
    "python -m ladder.membench": ([*PY, "-m", "ladder.membench"], ["docs/scale.md"]),
    "python -m ladder.bench": ([*PY, "-m", "ladder.bench"], ["docs/web.md"]),
    "python -m ladder.bench_live": ([*PY, "-m", "ladder.bench_live"], ["docs/web.md"]),
    "manage.py recompute_ratings": ([*PY, "manage.py", "recompute_ratings"], ["docs/ratings.md"]),
    "manage.py tournament create": (
        [*PY, "manage.py", "tournament", "create"],
        ["docs/operations.md"],
    ),
    "manage.py tournament cancel": (
        [*PY, "manage.py", "tournament", "cancel"],
        ["docs/operations.md"],
    ),
}
#: flags whose --help says all there is to say: argparse's and every Django command's
COMMON = {
    "--help",
    "--version",
    "--verbosity",
    "--settings",
    "--pythonpath",
    "--traceback",
    "--no-color",
    "--force-color",
    "--skip-checks",
}
SELF_EXPLANATORY = {
    "arena bench": {"--seed"},
    "python -m arena.bench_match": {"--game", "--sandbox"},
}


@functools.cache
def help_flags(argv: tuple[str, ...]) -> set[str]:
    shown = subprocess.run([*argv, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    options = shown.stdout.split("options:", 1)[1]
    return set(re.findall(r"(?:^|[\s,])(--[a-z][a-z-]*)", options))


def doc_text(docs: list[str]) -> str:
    return "\n".join((ROOT / doc).read_text() for doc in docs)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_flag_of_the_help_is_in_the_commands_document(command: str) -> None:
    argv, docs = COMMANDS[command]
    flags = help_flags(tuple(argv))
    assert flags, f"{command} --help lists no flags"
    text = doc_text(docs)
    exempt = COMMON | SELF_EXPLANATORY.get(command, set())
    missing = sorted(f for f in flags - exempt if not re.search(rf"{f}(?![a-z-])", text))
    assert not missing, f"{command}: {missing} are in --help but not in {docs}"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_flag_the_docs_give_a_command_exists(command: str) -> None:
    """A flag written on the same line as the command, after it."""
    argv, _ = COMMANDS[command]
    flags = help_flags(tuple(argv)) | {"--help"}
    sources = [ROOT / "README.md", ROOT / "Makefile", *sorted((ROOT / "docs").rglob("*.md"))]
    unknown = []
    for source in sources:
        for line in source.read_text().splitlines():
            # the rest of the line up to the end of a code span or table cell
            for found in re.finditer(rf"{re.escape(command)}(?![a-z_.-])([^`|]*)", line):
                for flag in re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", found[1]):
                    if flag not in flags:
                        unknown.append(f"{source.relative_to(ROOT)}: {command} {flag}")
    assert not unknown, unknown
