"""Every section of the rules reference that the engines and their tests cite
(`§N` or `§N.M`) is explained in the game's reference page, whose table
"Section numbers of the rules reference" stands in for `RULES.md`, which is
not in the source repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GAMES = {
    "splendor_duel": "splendor-duel",
    "edel_stein_reich": "edel-stein-reich",
}
CITED = re.compile(r"§(\d+(?:\.\d+)?)")
ROW = re.compile(r"^\| (\d+(?:\.\d+)?) \| \S", re.M)


def cited(package: str) -> set[str]:
    found: set[str] = set()
    for folder in (ROOT / "arena" / "games" / package, ROOT / "tests" / "arena" / package):
        for path in folder.rglob("*.py"):
            found.update(CITED.findall(path.read_text(encoding="utf-8")))
    return found


def explained(game: str) -> set[str]:
    text = (ROOT / "docs" / "games" / f"{game}.md").read_text(encoding="utf-8")
    section = text.split("## Section numbers of the rules reference", 1)
    assert len(section) == 2, f"docs/games/{game}.md has no section-number table"
    return set(ROW.findall(section[1].split("\n## ", 1)[0]))


@pytest.mark.parametrize("package, game", GAMES.items())
def test_every_cited_section_is_explained(package: str, game: str) -> None:
    numbers = cited(package)
    assert len(numbers) > 10, numbers  # the scan found the citations
    missing = sorted(numbers - explained(game), key=lambda n: [int(p) for p in n.split(".")])
    assert not missing, f"docs/games/{game}.md does not explain §{', §'.join(missing)}"
