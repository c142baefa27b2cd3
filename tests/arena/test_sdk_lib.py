"""The bot library (arena/sdk_lib.py): its id is the same wherever the
platform's sources sit, because the workers' self-test compares the id in
the bot image with their own."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from arena import sdk_lib

ROOT = Path(__file__).resolve().parents[2]


def test_staging_writes_the_id_it_is_named_by(tmp_path) -> None:
    folder = sdk_lib.stage_bot_lib(tmp_path)
    assert folder.name == sdk_lib.bot_lib_id()
    assert (folder / sdk_lib.LIB_ID_FILE).read_text() == f"{folder.name}\n"
    assert (folder / "gemarena_sdk.py").read_bytes() == (ROOT / "arena" / "sdk.py").read_bytes()
    assert sdk_lib.stage_bot_lib(tmp_path) == folder  # content-addressed: staged once


def test_the_id_follows_the_sources(tmp_path, monkeypatch) -> None:
    """A copy of the sources gives the same id; one changed byte another."""
    for package in sdk_lib.PACKAGES:
        shutil.copytree(
            ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    monkeypatch.setattr(sdk_lib, "ROOT", tmp_path)
    assert sdk_lib._lib_id(sdk_lib._files()) == sdk_lib.bot_lib_id()
    with (tmp_path / "arena" / "sdk.py").open("a") as f:
        f.write("\n")
    assert sdk_lib._lib_id(sdk_lib._files()) != sdk_lib.bot_lib_id()


def test_an_installed_wheel_carries_every_file_of_the_id() -> None:
    """A worker installed with `pip install` (docs/deployment.md, systemd)
    hashes the files of its installed packages, so the wheel must hold
    exactly the files the id is computed over: every folder of arena/ and
    sandbox/ (namespace packages, so data folders need no __init__.py) and
    the same suffixes. Checked against a built wheel by hand on 2026-12-02:
    the same 58 files."""
    find = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert find["packages"]["find"].get("namespaces", True) is True
    assert {f"{p}*" for p in sdk_lib.PACKAGES} <= set(find["packages"]["find"]["include"])
    data = find["package-data"]["*"]
    assert sorted(data) == sorted(f"*{s}" for s in sdk_lib.SUFFIXES if s != ".py")


def test_the_command_prints_the_staged_folder_and_has_a_help(tmp_path) -> None:
    """`python -m arena.sdk_lib --help` staged the library into a folder
    named `--help` (found by a QA pass over every --help)."""
    run = [sys.executable, "-m", "arena.sdk_lib"]
    shown = subprocess.run(
        [*run, "--help"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert shown.returncode == 0 and "usage: python -m arena.sdk_lib" in shown.stdout
    assert list(tmp_path.iterdir()) == []
    staged = subprocess.run(
        [*run, str(tmp_path / "lib")], capture_output=True, text=True, timeout=60
    )
    assert staged.returncode == 0, staged.stderr
    assert Path(staged.stdout.strip()) == tmp_path / "lib" / sdk_lib.bot_lib_id()


def test_the_library_holds_what_searching_bots_import(tmp_path) -> None:
    """The staged directory alone (as in the bot image) gives the engines and
    each game's determinize (docs/bots.md, "A state that matches what your
    bot sees")."""
    folder = sdk_lib.stage_bot_lib(tmp_path / "lib")
    for game in ("splendor_duel", "edel_stein_reich"):
        assert (folder / "arena" / "games" / game / "determinize.py").is_file()
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]);"
        "import arena; from arena import get_game;"
        "assert arena.__file__.startswith(sys.argv[1]), arena.__file__;"
        "g = get_game('splendor-duel'); s = g.new(2, 1);"
        "obs = json.loads(json.dumps(s.observation(0)));"
        "print(g.determinize(obs, 5).observation(0) == obs, get_game('edel-stein-reich').id)"
    )
    out = subprocess.run(
        [sys.executable, "-I", "-c", code, str(folder)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert out.stdout.split() == ["True", "edel-stein-reich"], out.stderr
