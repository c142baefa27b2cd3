"""docs/operations.md "Settings" lists every environment variable, with the
default and bounds `config/settings.py` gives it, and names nothing that no
code reads (found by a QA pass as a new contributor: several bounds were
only in the code)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from config import settings

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "operations.md"
#: read by docker-py, not by our code
READ_BY_DOCKER_PY = {"DOCKER_HOST", "DOCKER_CERT_PATH", "DOCKER_TLS_VERIFY"}


def documented_rows() -> dict[str, str]:
    """Each variable of the settings tables -> its table row."""
    text = DOC.read_text()
    section = text.split("\n## Settings\n", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, str] = {}
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        first = line.split("|")[1]
        for name in re.findall(r"`([A-Z][A-Z0-9_]+)`", first):
            rows[name] = line
    return rows


def settings_reads() -> list[tuple[str, str, dict[str, object]]]:
    """(helper, variable, evaluated keyword arguments) of each `env_*` call in
    config/settings.py; positional defaults are given as `default`."""
    tree = ast.parse((ROOT / "config" / "settings.py").read_text())
    namespace = vars(settings)
    reads = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        helper = node.func.id
        if not helper.startswith("env_") or not node.args:
            continue
        name = ast.literal_eval(node.args[0])
        positional = {
            "env_int": ["default", "minimum", "maximum"],
            "env_bool": ["default"],
            "env_str": ["default"],
            "env_list": ["default"],
            "env_match": ["default", "pattern", "meaning"],
            "env_choice": ["choices", "default"],
        }[helper]
        arguments = {
            key: eval(ast.unparse(arg), namespace)
            for key, arg in zip(positional, node.args[1:], strict=False)
        }
        for keyword in node.keywords:
            arguments[keyword.arg] = eval(ast.unparse(keyword.value), namespace)
        reads.append((helper, name, arguments))
    return reads


def spellings(number: int) -> set[str]:
    """How the doc may write a number: 1048576, 1,048,576, or 8 MiB."""
    out = {str(number), f"{number:,}"}
    if number >= 1 << 20 and number % (1 << 20) == 0:
        out.add(f"{number >> 20} MiB")
    return out


def mentions(row: str, number: int) -> bool:
    return any(
        re.search(rf"(?<![\d.])(?<!\d,){re.escape(s)}(?!\d|,\d)", row) for s in spellings(number)
    )


def test_the_helpers_are_found() -> None:
    names = {name for _, name, _ in settings_reads()}
    assert {"MOVE_MS", "GEMARENA_QUEUE", "LOG_LEVEL", "DEBUG"} <= names


@pytest.mark.parametrize(
    ("helper", "name", "arguments"), settings_reads(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_every_setting_is_documented_with_its_default_and_bounds(
    helper: str, name: str, arguments: dict[str, object]
) -> None:
    rows = documented_rows()
    assert name in rows, (
        f"{name} is read by config/settings.py but not in docs/operations.md, Settings"
    )
    row = rows[name]
    if helper == "env_int":
        default = arguments["default"]
        assert isinstance(default, int) and mentions(row, default), (
            f"{name}: default {default} not in {row!r}"
        )
        for bound in ("minimum", "maximum"):
            value = arguments.get(bound)
            if value is not None:
                assert mentions(row, value), (
                    f"{name}: {bound} {value} not in its row of docs/operations.md"
                )
    elif helper == "env_bool":
        shown = row.split("|")[2]
        word = "`1`" if arguments.get("default") else "`0`"
        assert word in shown or ("on" if arguments.get("default") else "off") in shown, (
            name,
            shown,
        )
    elif helper == "env_choice":
        for choice in arguments["choices"]:  # type: ignore[union-attr]
            assert f"`{choice}`" in row.lower(), f"{name}: choice {choice!r} not in its row"
        assert str(arguments["default"]) in row.split("|")[2].lower()
    elif helper == "env_match":
        assert f"`{arguments['default']}`" in row.split("|")[2]


def test_every_documented_setting_is_read_somewhere() -> None:
    sources = [
        *ROOT.glob("config/*.py"),
        *ROOT.glob("arena/**/*.py"),
        *ROOT.glob("sandbox/**/*.py"),
        *ROOT.glob("ladder/**/*.py"),
        ROOT / "Procfile",
        ROOT / "deploy" / "compose.yaml",
    ]
    code = "\n".join(path.read_text() for path in sources)
    unread = [
        name
        for name in documented_rows()
        if name not in READ_BY_DOCKER_PY and not re.search(rf"[\"'{{]{name}[\"':}}-]", code)
    ]
    assert not unread, f"docs/operations.md names settings no code reads: {unread}"


def test_the_deployment_files_set_only_documented_settings() -> None:
    """An operator copies these files; a variable in them that the doc does
    not explain cannot be set with confidence."""
    documented = documented_rows()
    files = {
        "deploy/compose.env.example": r"^#?\s?([A-Z][A-Z0-9_]+)=",
        "deploy/systemd/gemarena.env.example": r"^#?\s?([A-Z][A-Z0-9_]+)=",
        "deploy/compose.yaml": r"\$\{([A-Z][A-Z0-9_]+)",
    }
    unknown = []
    for name, pattern in files.items():
        found = set(re.findall(pattern, (ROOT / name).read_text(), flags=re.MULTILINE))
        assert found, name
        unknown += [f"{name}: {variable}" for variable in sorted(found - set(documented))]
    assert not unknown, f"not in docs/operations.md, Settings: {unknown}"
