"""References between documents resolve: a document named next to a quoted
section (`docs/operations.md "Watching it"`, `"Snapshot" in splendor-duel.md`,
`operations.md, Settings`) exists and has a heading of that name, and a
Markdown link to a file of the repository points at one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").rglob("*.md")),
    *sorted(ROOT.glob("bots/starter/*.in")),
    *sorted(ROOT.glob("templates/**/*.html")),
    *(
        p
        for package in ("arena", "ladder", "sandbox", "config", "tests")
        for p in sorted((ROOT / package).rglob("*.py"))
    ),
]
DOC = r"(?:docs/)?(?:games/)?[a-z][a-z-]*\.md"
REFERENCES = [
    re.compile(rf"(?P<doc>{DOC})`?,? \(?\"(?P<section>[^\"]{{3,80}})\""),
    re.compile(
        rf"\"(?P<section>[^\"]{{3,80}})\" in (?:the )?(?:source repository's )?`?(?P<doc>{DOC})"
    ),
    re.compile(rf"(?P<doc>{DOC}), (?P<section>[A-Z][a-z]+)\)"),
]
#: `see "Static files"`, `under "Restore"`: a section of the same document
SAME_DOCUMENT = re.compile(
    r"(?:see|under) \"(?P<section>[^\"]{3,80})\"(?! in (?:the |docs/)?[\w-]*\.md)"
)


def document(name: str) -> Path | None:
    bare = name.removeprefix("docs/")
    for candidate in (ROOT / "docs" / bare, ROOT / "docs" / "games" / bare, ROOT / name):
        if candidate.is_file():
            return candidate
    return None


def headings(path: Path) -> set[str]:
    return {
        line.lstrip("#").strip().lower()
        for line in path.read_text().splitlines()
        if re.match(r"#{1,6} ", line)
    }


def references() -> list[tuple[str, str, str]]:
    found = []
    for source in SOURCES:
        if source == Path(__file__):
            continue
        text = " ".join(source.read_text().split())  # a reference may span lines
        name = str(source.relative_to(ROOT))
        for pattern in REFERENCES:
            for match in pattern.finditer(text):
                found.append((name, match["doc"], match["section"]))
        if source.suffix == ".md":
            found += [(name, name, match["section"]) for match in SAME_DOCUMENT.finditer(text)]
    return sorted(set(found))


def test_references_are_found() -> None:
    found = {(doc, section) for _, doc, section in references()}
    assert ("docs/operations.md", "Watching it") in found
    assert ("docs/operations.md", "Rebuilding the bot image") in found
    assert ("docs/operations.md", "Settings") in found
    assert ("docs/operations.md", "Restore") in found  # the same document


@pytest.mark.parametrize(("source", "doc", "section"), references())
def test_a_quoted_section_is_a_heading_of_its_document(source: str, doc: str, section: str) -> None:
    path = document(doc)
    assert path is not None, f"{source}: no document {doc}"
    wanted = section.lower()
    # a heading may add a parenthesis: "Snapshot (`snapshot()`, `GameDef.restore`)"
    found = [h for h in headings(path) if h == wanted or h.startswith(f"{wanted} (")]
    assert found, f'{source}: {doc} has no heading "{section}"'


def test_markdown_links_to_repository_files_resolve() -> None:
    broken = []
    for source in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for target in re.findall(r"\]\(([^)\s]+)\)", source.read_text()):
            if re.match(r"[a-z]+:|#|/", target):
                continue  # another site, an anchor, or an address of the server
            if not (source.parent / target.split("#")[0]).exists():
                broken.append(f"{source.relative_to(ROOT)}: {target}")
    assert not broken, broken


def test_tests_the_docs_cite_exist() -> None:
    """The docs cite tests as evidence (`test_recompute_equals_incremental_bit_for_bit`,
    `tests/web/test_forms_a11y.py`); a renamed test would leave the claim unbacked."""
    code = "\n".join(path.read_text() for path in (ROOT / "tests").rglob("*.py"))
    files = {path.name for path in (ROOT / "tests").rglob("test_*.py")}
    missing = []
    for source in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for name in sorted(set(re.findall(r"\b(test_[a-z0-9_]+(?:\.py)?)\b", source.read_text()))):
            found = name in files if name.endswith(".py") else re.search(rf"def {name}\b", code)
            if not found:
                missing.append(f"{source.relative_to(ROOT)}: {name}")
    assert not missing, missing
