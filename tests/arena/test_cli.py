"""The arena command: play, replay, tournament, new-bot, and its errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.api_client import ClientError, load_config
from arena.cli import main
from arena.replay import load_replay
from tests.arena.bots import BASE


def test_play_writes_a_replay_that_verifies(tmp_path: Path, capsys) -> None:
    out = tmp_path / "m.json.gz"
    code = main(["play", "splendor-duel", "builtin:random", "builtin:random", "--seed", "4",
                 "--sandbox", "process", "--out", str(out)])  # fmt: skip
    text = capsys.readouterr().out
    assert code == 0, text
    assert "rank 1" in text and "seat 1" in text
    # which sandbox played, as `arena tournament` says too (found by a QA bot author)
    assert "; process sandbox" in text
    assert load_replay(out)["seed"] == 4
    # the same bot twice is told apart, as in a tournament (found by a QA bot author)
    assert "builtin:random#2" in text
    assert load_replay(out)["seats"] == ["builtin:random", "builtin:random#2"]
    assert main(["replay", "verify", str(out)]) == 0
    assert main(["replay", "show", str(out), "--step", "2"]) == 0
    assert "step 2" in capsys.readouterr().out


def test_replay_show_prints_the_options_arena_play_needs(tmp_path: Path, capsys) -> None:
    """A bot author replaying a downloaded match needs its seed and the options
    that differ from the defaults, in the form `arena play` takes them."""
    out = tmp_path / "m.json.gz"
    argv = ["play", "splendor-duel", "builtin:random", "builtin:random", "--seed", "4",
            "-o", "first_seat=1", "--sandbox", "process", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    capsys.readouterr()
    assert main(["replay", "show", str(out), "--step", "0"]) == 0
    header = capsys.readouterr().out.splitlines()
    assert ", seed 4, " in header[0]
    assert "  options: -o first_seat=1" in header  # 1, not "1": JSON numbers stay numbers
    assert main(["play", "splendor-duel", "builtin:random", "builtin:random",
                 "--sandbox", "process", "--out", str(out)]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["replay", "show", str(out), "--step", "0"]) == 0
    assert "options:" not in capsys.readouterr().out  # the defaults: nothing to give


def test_option_args_name_a_document_as_a_file() -> None:
    from arena.cmd_common import option_args

    options = {"components": {"gem_cards": []}, "untaken_event": "keep", "barter_winner": "offer"}
    assert option_args("edel-stein-reich", options) == [
        "-o components=FILE",
        "-o untaken_event=keep",
    ]


def test_play_can_show_the_bots_stderr(tmp_path: Path, capsys) -> None:
    bot = BASE / "talker.py"
    BASE.mkdir(parents=True, exist_ok=True)
    bot.write_text(
        "import sys\nfrom gemarena_sdk import run\n"
        "def decide(obs, legal, request):\n"
        "    print('thinking about', len(legal), 'actions')\n"
        "    return legal[0]\n"
        "run(decide)\n"
    )
    bot.chmod(0o644)
    argv = ["play", "splendor-duel", str(bot), "builtin:random", "--sandbox", "process",
            "--no-replay"]  # fmt: skip
    assert main(argv) == 0
    assert "thinking about" not in capsys.readouterr().out  # not by default
    assert main([*argv, "--stderr"]) == 0
    out = capsys.readouterr().out
    assert "--- stderr of seat 0" in out and "thinking about" in out
    assert "--- stderr of seat 1 (builtin:random): nothing" in out


def test_listed_option_defaults_can_be_typed_back(capsys) -> None:
    """`arena games --options` shows each default as `--option` reads it."""
    from arena.cmd_common import parse_options
    from arena.registry import get_game

    assert main(["games", "--options"]) == 0
    listed = [(game, line.split()[1]) for game, line in _option_lines(capsys.readouterr().out)]
    assert len(listed) >= 4
    for game, pair in listed:
        name = pair.partition("=")[0]
        assert parse_options([pair]) == {name: get_game(game).options[name].default}, pair


def _option_lines(out: str):
    game = None
    for line in out.splitlines():
        if not line.startswith(" "):
            game = line.split()[0]
        elif line.split()[0] == "--option":
            yield game, line


def test_verify_fails_on_a_tampered_replay(tmp_path: Path) -> None:
    from arena.replay import save_replay

    out = tmp_path / "m.json.gz"
    assert main(["play", "splendor-duel", "builtin:random", "builtin:random", "--sandbox",
                 "process", "--out", str(out)]) == 0  # fmt: skip
    replay = load_replay(out)
    replay["outcome"]["reason"] = "made up"
    save_replay(out, replay)
    assert main(["replay", "verify", str(out)]) == 1


def test_replay_commands_refuse_a_damaged_replay_in_one_line(tmp_path: Path, capsys) -> None:
    """A step without its seat made `arena replay verify` and `show` end in a
    KeyError traceback; now each says which field is wrong and exits 1."""
    from arena.replay import save_replay

    out = tmp_path / "m.json.gz"
    assert main(["play", "splendor-duel", "builtin:random", "builtin:random", "--sandbox",
                 "process", "--out", str(out)]) == 0  # fmt: skip
    replay = load_replay(out)
    del replay["steps"][3]["seat"]
    save_replay(out, replay)
    capsys.readouterr()
    assert main(["replay", "verify", str(out)]) == 1
    assert "step 3: 'seat' must be a seat number 0..1" in capsys.readouterr().out
    for extra in ([], ["--all"], ["--step", "1"]):
        assert main(["replay", "show", str(out), *extra]) == 1
        captured = capsys.readouterr()
        assert captured.err == "arena replay: replay step 3: 'seat' must be a seat number 0..1\n"
        assert captured.out == ""


@pytest.mark.parametrize(
    "argv, words",
    [
        (["play", "splendor-duel", "nowhere/bot.py", "builtin:random"], "no such file"),
        (["play", "splendor-duel", "nowhere", "builtin:random"], "no such bot"),
        (["play", "splendor-duel", "builtin:nope", "builtin:random"], "no built-in bot"),
        (["play", "chess", "builtin:random", "builtin:random"], "unknown game"),
        (
            ["play", "splendor-duel", "builtin:random", "builtin:random", "-o", "x=1"],
            "unknown option",
        ),
        (["play", "splendor-duel", "builtin:random"], "seats"),
    ],
)
def test_clear_errors(argv: list[str], words: str, capsys) -> None:
    assert main([*argv, "--sandbox", "process", "--no-replay"]) == 2
    assert words in capsys.readouterr().err


def test_play_with_too_few_bots_shows_a_command_line_that_fits(capsys, monkeypatch) -> None:
    """The newcomer's `arena play edel-stein-reich mybot builtin:random`: one
    BOT per seat, said with a line to copy, before any bot is looked up."""
    from arena import cmd_play

    _no_match_may_be_played(monkeypatch, cmd_play)
    assert main(["play", "edel-stein-reich", "mybot", "builtin:random", "--no-replay"]) == 2
    assert (
        "arena play: edel-stein-reich is played by 3, 4, 5 seats, not 2: name one bot per seat "
        "(the same one again, or a built-in), e.g. arena play edel-stein-reich mybot "
        "builtin:random builtin:random\n"
    ) in capsys.readouterr().err
    assert main(["play", "splendor-duel", "a", "b", "c", "--no-replay"]) == 2
    assert "e.g. arena play splendor-duel a b\n" in capsys.readouterr().err


def test_a_folder_whose_entry_point_has_another_name(tmp_path: Path, capsys, monkeypatch) -> None:
    """A newcomer's bot.py: `arena play` and `arena upload` say what the folder holds
    (the upload before it sends anything: the address answers nothing)."""
    monkeypatch.setenv("GEMARENA_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("GEMARENA_TOKEN", "ga_test")
    (tmp_path / "bot.py").write_text("")
    (tmp_path / "notes.txt").write_text("")
    hint = "(it holds bot.py: a bot starts from main.py; rename the file that calls run())"
    assert main(["play", "splendor-duel", str(tmp_path), "builtin:random", "--no-replay"]) == 2
    assert f"{tmp_path}: the directory has no main.py {hint}" in capsys.readouterr().err
    argv = ["upload", str(tmp_path), "--bot", "b", "--game", "splendor-duel", "--create"]
    assert main(argv) != 0
    assert f"{tmp_path} has no main.py at its top level {hint}" in capsys.readouterr().err


def test_the_starter_kit_one_folder_too_high_or_still_zipped(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    """A newcomer runs the kit README's `arena play splendor-duel . …` where
    they unzipped it, or gives the .zip itself: both say what to give."""
    monkeypatch.setenv("GEMARENA_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("GEMARENA_TOKEN", "ga_test")
    (tmp_path / "splendor-duel-bot").mkdir()
    (tmp_path / "splendor-duel-bot" / "main.py").write_text("")
    (tmp_path / "kit.zip").write_bytes(b"PK\x05\x06" + bytes(18))
    hint = f"(give the folder that holds it: {tmp_path / 'splendor-duel-bot'})"
    assert main(["play", "splendor-duel", str(tmp_path), "builtin:random", "--no-replay"]) == 2
    assert f"{tmp_path}: the directory has no main.py {hint}" in capsys.readouterr().err
    argv = ["upload", str(tmp_path), "--bot", "b", "--game", "splendor-duel", "--create"]
    assert main(argv) != 0
    assert f"{tmp_path} has no main.py at its top level {hint}" in capsys.readouterr().err
    kit = str(tmp_path / "kit.zip")
    assert main(["play", "splendor-duel", kit, "builtin:random", "--no-replay"]) == 2
    assert f"{kit}: a .zip is played unzipped: `unzip {kit}`" in capsys.readouterr().err


def test_a_bot_that_cannot_start(tmp_path: Path, capsys) -> None:
    broken = BASE / "broken.py"
    broken.write_text("import no_such_module\n")
    broken.chmod(0o644)
    replay = tmp_path / "broken.replay.json.gz"
    code = main(["play", "splendor-duel", str(broken), "builtin:random", "--sandbox", "process",
                 "--out", str(replay)])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 1  # played, with a forfeit: a script sees it in the exit status
    assert "FORFEIT crash" in out and "no_such_module" in out
    # where, said once as the runner's detail says it (QA: "at step 0: ... the start message")
    said = "crash: closed its output before answering the start message (exit code 1)"
    assert f"FORFEIT {said}" in out
    assert main(["replay", "show", str(replay), "--step", "0"]) == 0
    assert f"forfeit: {said}" in capsys.readouterr().out


def test_a_bot_that_imports_its_own_file_is_told_how(capsys) -> None:
    """The newcomer's first split into two files: main.py imports helper.py,
    which isolated mode keeps off sys.path. The crash says what to add."""
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="split-", dir=BASE))
    (folder / "helper.py").write_text("def pick(legal):\n    return legal[0]\n")
    (folder / "main.py").write_text(
        "from gemarena_sdk import run\nfrom helper import pick\n"
        "run(lambda observation, legal: pick(legal))\n"
    )
    for path in (folder, *folder.iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)
    argv = ["builtin:random", "--sandbox", "process", "--no-replay"]
    assert main(["play", "splendor-duel", str(folder), *argv]) == 1
    out = capsys.readouterr().out
    assert "No module named 'helper'" in out
    assert "hint: helper is in the bot's folder, but bots run as python3 -I" in out
    assert "sys.path.append(os.path.dirname(os.path.abspath(__file__)))" in out
    assert main(["play", "splendor-duel", str(folder / "main.py"), *argv]) == 1
    out = capsys.readouterr().out
    assert "hint: helper is next to the .py file given, which plays alone: give their" in out


def test_import_hint_names_what_a_bot_can_import(tmp_path: Path) -> None:
    from arena.runner_bots import import_hint

    tail = "Traceback ...\nModuleNotFoundError: No module named 'numpy'\n"
    assert "numpy is not in the sandbox: a bot can import the standard library" in (
        import_hint(tail, tmp_path)
    )
    assert import_hint(tail, None) == ""  # a built-in bot
    assert import_hint("ValueError: bad\n", tmp_path) == ""
    (tmp_path / "lib").mkdir()
    assert "lib is in the bot's folder" in import_hint(
        "ModuleNotFoundError: No module named 'lib.search'", tmp_path
    )


@pytest.mark.parametrize("game", ["splendor-duel", "edel-stein-reich"])
def test_new_bot_plays_as_it_says(game: str, capsys) -> None:
    target = BASE / f"newbot-{game}"
    assert main(["new-bot", game, str(target)]) == 0
    hint = capsys.readouterr().out.split("try: ", 1)[1].split()
    readme = " ".join((target / "README.md").read_text().split())
    assert (target / "main.py").is_file() and game in readme
    # no server known here: the README names the site's pages and the source files
    assert f"/docs/bots/ and /docs/games/{game}/ on the Gem Arena site" in readme
    assert "docs/bots.md" in readme and "{reference}" not in readme
    assert main(["new-bot", game, str(target)]) == 2  # not empty
    assert hint[:3] == ["arena", "play", game]
    assert main([*hint[1:], "--sandbox", "process", "--no-replay"]) == 0  # the printed command
    assert "FORFEIT" not in capsys.readouterr().out


@pytest.mark.parametrize(
    "written_for, played",
    [("splendor-duel", "edel-stein-reich"), ("edel-stein-reich", "splendor-duel")],
)
def test_a_starter_started_for_the_other_game_forfeits_and_says_why(
    written_for: str, played: str, capsys
) -> None:
    """The starter names its game: played (or uploaded) for the other game it
    does not quietly pick legal moves of a game it was not written for."""
    target = BASE / f"wronggame-{written_for}"
    assert main(["new-bot", written_for, str(target)]) == 0
    others = ["builtin:random"] * (2 if played == "edel-stein-reich" else 1)
    code = main(["play", played, str(target), *others, "--sandbox", "process", "--no-replay"])
    out = capsys.readouterr().out
    assert code == 1
    assert "FORFEIT crash: closed its output before answering the start message" in out
    assert f"stderr: sdk: this bot is written for {written_for}" in out
    assert f"started for a match of {played}" in out


def test_tournament_table(capsys) -> None:
    code = main(["tournament", "splendor-duel", "builtin:random", "builtin:random", "--games", "4",
                 "--jobs", "2", "--sandbox", "process"])  # fmt: skip
    captured = capsys.readouterr()
    assert code == 0
    assert "sandbox: process; 4 games" in captured.err
    assert "\r" not in captured.err  # no progress bar where stderr is no terminal
    assert captured.out.startswith("splendor-duel: 4 games, 2 seats")
    assert "Elo" in captured.out and "builtin:random#2" in captured.out


def test_new_bot_onto_an_existing_file_is_a_clear_error(tmp_path: Path, capsys) -> None:
    existing = tmp_path / "main.py"
    existing.write_text("print('mine')\n")
    assert main(["new-bot", "splendor-duel", str(existing)]) == 2
    assert f"{existing} exists and is not a directory" in capsys.readouterr().err
    assert existing.read_text() == "print('mine')\n"


def test_a_reader_that_leaves_early_ends_the_command_quietly(tmp_path: Path) -> None:
    """`arena replay show … | head` must not end in a BrokenPipeError traceback."""
    replay = tmp_path / "game.json.gz"
    assert main(["play", "splendor-duel", "builtin:random", "builtin:random",
                 "--sandbox", "process", "--out", str(replay)]) == 0  # fmt: skip
    arena = Path(sys.executable).with_name("arena")
    show = subprocess.Popen(
        [str(arena), "replay", "show", str(replay)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    show.stdout.close()  # the reader is gone before the first line
    _, err = show.communicate(timeout=60)
    assert show.returncode == 141
    assert b"Traceback" not in err and b"BrokenPipe" not in err


def test_play_keeps_the_replay_when_its_reader_leaves_early(tmp_path: Path) -> None:
    """`arena play … | head -1` used to print the result first and write the
    replay after: the closed pipe ended the command in between and the match's
    replay was lost. The replay is now written before anything is printed."""
    replay = tmp_path / "game.json.gz"
    arena = Path(sys.executable).with_name("arena")
    play = subprocess.Popen(
        [str(arena), "play", "splendor-duel", "builtin:random", "builtin:random",
         "--sandbox", "process", "--seed", "3", "--out", str(replay)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},  # each print reaches the pipe at once
    )  # fmt: skip
    play.stdout.close()  # the reader is gone before the first line
    _, err = play.communicate(timeout=120)
    assert play.returncode == 141, err
    assert load_replay(replay)["seed"] == 3


def test_a_named_config_file_that_is_missing_is_an_error(tmp_path: Path) -> None:
    missing = tmp_path / "typo.toml"
    with pytest.raises(ClientError, match=f"GEMARENA_CONFIG names {missing}, which is not a file"):
        load_config({"GEMARENA_CONFIG": str(missing)})
    assert load_config({"XDG_CONFIG_HOME": str(tmp_path)}).url  # no file by default: defaults


def test_an_unreachable_default_server_says_to_set_gemarena_url(tmp_path: Path) -> None:
    """A newcomer who never set GEMARENA_URL reaches for 127.0.0.1:8000; the
    message says that is the default and how to name the site. The network
    edge is faked: a real server may listen on that port here."""
    import urllib.error

    from arena.api_client import DEFAULT_URL, Client

    def refused(*args, **kwargs):
        raise urllib.error.URLError(ConnectionRefusedError(111, "Connection refused"))

    client = Client(load_config({"XDG_CONFIG_HOME": str(tmp_path)}))
    client._opener.open = refused
    with pytest.raises(ClientError, match="is the default, a server on this machine: set GEMAR"):
        client.get("/api/games")
    client = Client(load_config({"GEMARENA_URL": "http://arena.example.org"}))
    client._opener.open = refused
    with pytest.raises(ClientError) as raised:
        client.get("/api/games")
    assert str(raised.value).endswith("Connection refused") and DEFAULT_URL not in str(raised.value)


def _no_match_may_be_played(monkeypatch, module) -> None:
    def play_match(*args, **kwargs):
        raise AssertionError("a match was played despite a bad argument")

    monkeypatch.setattr(module, "play_match", play_match)


def test_play_checks_where_the_replay_goes_before_playing(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    """A replay that cannot be written is a clear error before the match, not a
    FileNotFoundError after it (found by a tester)."""
    from arena import cmd_play

    _no_match_may_be_played(monkeypatch, cmd_play)
    argv = ["play", "splendor-duel", "builtin:random", "builtin:random", "--sandbox", "process"]
    missing = tmp_path / "no" / "such" / "x.json.gz"
    assert main([*argv, "--out", str(missing)]) == 2
    assert f"--out {missing}: {missing.parent} is not an existing directory" in (
        capsys.readouterr().err
    )
    assert main([*argv, "--out", str(tmp_path)]) == 2
    assert f"--out {tmp_path} is a directory" in capsys.readouterr().err
    (tmp_path / "afile").write_text("")
    assert main([*argv, "--out", str(tmp_path / "afile" / "x.json.gz")]) == 2
    assert "is not an existing directory" in capsys.readouterr().err


def test_play_in_a_docker_sandbox_without_the_bot_image_says_so_before_playing(
    capsys, monkeypatch
) -> None:
    """`arena play --sandbox docker` (the FAQ's advice) before the image is
    built: the sandbox's reason, as `arena tournament` tells it, not a
    "system fault" with the engine's 404 after the match started."""
    from arena import cmd_play

    _no_match_may_be_played(monkeypatch, cmd_play)
    monkeypatch.setenv("SANDBOX_IMAGE", f"gemarena-bot:no-such-tag-{os.getpid()}")
    argv = ["play", "splendor-duel", "builtin:random", "builtin:random", "--no-replay"]
    assert main([*argv, "--sandbox", "docker"]) == 2
    assert "arena play: the docker sandbox cannot run bots here: " in capsys.readouterr().err


def test_tournament_checks_the_replay_folder_before_playing(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    from arena import cmd_tournament

    _no_match_may_be_played(monkeypatch, cmd_tournament)
    afile = tmp_path / "afile"
    afile.write_text("mine\n")
    argv = ["tournament", "splendor-duel", "builtin:greedy", "builtin:random", "--games", "1",
            "--sandbox", "process"]  # fmt: skip
    assert main([*argv, "--replays", str(afile)]) == 2
    assert f"--replays {afile} exists and is not a directory" in capsys.readouterr().err
    assert afile.read_text() == "mine\n"
    assert main([*argv, "--replays", str(afile / "sub")]) == 2
    assert f"--replays {afile / 'sub'}: cannot create it" in capsys.readouterr().err


def test_tournament_creates_the_replay_folder(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "new" / "replays"
    assert main(["tournament", "splendor-duel", "builtin:greedy", "builtin:random", "--games", "1",
                 "--sandbox", "process", "--replays", str(folder)]) == 0  # fmt: skip
    assert [p.name for p in folder.iterdir()] == ["splendor-duel-00000.replay.json.gz"]
    # a second run into the same folder would overwrite the first's replays
    first = (folder / "splendor-duel-00000.replay.json.gz").read_bytes()
    capsys.readouterr()
    assert main(["tournament", "splendor-duel", "builtin:random", "builtin:random", "--games", "1",
                 "--sandbox", "process", "--replays", str(folder)]) == 2  # fmt: skip
    assert "already holds 1 of this run's replay names" in capsys.readouterr().err
    assert (folder / "splendor-duel-00000.replay.json.gz").read_bytes() == first


@pytest.mark.parametrize(
    "extra, words",
    [
        (["--players", "0"], "splendor-duel is played by 2 seats, not 0"),
        (["--players", "-2"], "splendor-duel is played by 2 seats, not -2"),
        (["--jobs", "0"], "--jobs must be at least 1"),
        (["-j", "-1"], "--jobs must be at least 1"),
        (["--games", "0"], "--games must be at least 1"),
    ],
)
def test_tournament_refuses_counts_below_one(extra, words, capsys, monkeypatch) -> None:
    """0 is not "the default": --players and --jobs are refused like --games."""
    from arena import cmd_tournament

    _no_match_may_be_played(monkeypatch, cmd_tournament)
    argv = ["tournament", "splendor-duel", "builtin:greedy", "builtin:random", "--games", "1",
            "--sandbox", "process"]  # fmt: skip
    assert main([*argv, *extra]) == 2
    assert words in capsys.readouterr().err


@pytest.mark.parametrize("command", ["play", "tournament"])
@pytest.mark.parametrize("value", ["0", "8", "31"])
def test_a_memory_limit_no_bot_can_start_in_is_refused(command, value, capsys, monkeypatch):
    """--memory-mib 8 ended in two start-up crashes (process sandbox) or a
    "worker is too slow" system fault (Docker); --memory-mib 0 in a traceback
    from the tournament's threads. Refused before playing, naming the floor."""
    from importlib import import_module

    from sandbox.base import MIN_MEMORY_MIB

    _no_match_may_be_played(monkeypatch, import_module(f"arena.cmd_{command}"))
    argv = [command, "splendor-duel", "builtin:greedy", "builtin:random", "--sandbox", "process",
            "--memory-mib", value, *(["--no-replay"] if command == "play" else ["--games", "1"])]  # fmt: skip
    assert main(argv) == 2
    assert f"memory_mib={value}: expected an integer of at least {MIN_MEMORY_MIB}" in (
        capsys.readouterr().err
    )


@pytest.mark.parametrize("backend", ["process", pytest.param("docker", marks=pytest.mark.docker)])
def test_bots_that_import_the_engines_start_in_the_least_memory(backend, capsys) -> None:
    """The floor is enough for the SDK and the engines in either sandbox."""
    from sandbox.base import MIN_MEMORY_MIB

    assert main(["play", "splendor-duel", "builtin:greedy", "builtin:search", "--sandbox",
                 backend, "--no-replay", "--memory-mib", str(MIN_MEMORY_MIB)]) == 0  # fmt: skip
    assert "FORFEIT" not in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, path, wait",
    [
        (["mybot", "--bot", "b", "--wait"], "mybot", 600.0),  # as docs/api.md shows it
        (["mybot", "--bot", "b", "--wait", "30"], "mybot", 30.0),
        (["--bot", "b", "--wait", "mybot"], "mybot", 600.0),  # once "invalid float value"
        (["--bot", "b", "--wait", "2.5", "mybot"], "mybot", 2.5),
        (["--wait", "--bot", "b", "mybot"], "mybot", 600.0),
        (["mybot", "--bot", "b"], "mybot", None),
    ],
)
def test_upload_wait_takes_only_a_number(argv, path, wait) -> None:
    """`--wait [SECONDS]` leaves a word that is not a number to BOT_DIR_OR_FILE."""
    from arena.cli import build_parser

    args = build_parser().parse_args(["upload", *argv])
    assert (args.path, args.wait) == (path, wait)


@pytest.mark.parametrize(
    "argv, words",
    [
        (["mybot", "--bot", "b", "--wait", "nan"], "SECONDS must be a positive number, not 'nan'"),
        (["mybot", "--bot", "b", "--wait", "inf"], "SECONDS must be a positive number, not 'inf'"),
        (["mybot", "--bot", "b", "--wait", "0"], "SECONDS must be a positive number, not '0'"),
        (["mybot", "--bot", "b", "--wait", "-1"], "SECONDS must be a positive number, not '-1'"),
        (["mybot", "--bot", "b", "--wait", "soon"], "two bots given, 'mybot' and 'soon'"),
        (["--bot", "b", "--wait", "mybot", "other"], "two bots given, 'mybot' and 'other'"),
    ],
)
def test_upload_wait_refuses_what_never_ends_or_never_waits(argv, words, capsys) -> None:
    """nan and inf never reached the deadline; 0 and -1 did not wait at all."""
    with pytest.raises(SystemExit) as exit_:
        main(["upload", *argv])
    assert exit_.value.code == 2
    assert words in capsys.readouterr().err


def test_upload_without_a_bot_is_an_argument_error(capsys) -> None:
    assert main(["upload", "--bot", "b", "--wait"]) == 2
    assert "BOT_DIR_OR_FILE is missing" in capsys.readouterr().err


def test_local_results_of_edel_stein_reich_say_they_use_house_values(tmp_path, capsys) -> None:
    """Only `arena games` and the site said so; a local result or replay
    showed money scores from invented cards without a word."""
    out = tmp_path / "esr.replay.json.gz"
    three = ["builtin:random"] * 3
    assert (
        main(["play", "edel-stein-reich", *three, "--sandbox", "process", "--out", str(out)]) == 0
    )
    assert "note: Plays with house values" in capsys.readouterr().out
    assert main(["replay", "show", str(out)]) == 0
    assert "note: Plays with house values" in capsys.readouterr().out
    argv = ["tournament", "edel-stein-reich", *three, "--games", "1", "--sandbox", "process"]
    assert main(argv) == 0
    assert "note: Plays with house values" in capsys.readouterr().out
    assert main(["play", "splendor-duel", *three[:2], "--sandbox", "process", "--no-replay"]) == 0
    assert "note:" not in capsys.readouterr().out


@pytest.mark.parametrize("command", ["play", "tournament"])
@pytest.mark.parametrize(
    "flag, value, least", [("--move-ms", "0", 1), ("--startup-ms", "-1", 1), ("--bank-ms", "-5", 0)]
)
def test_time_limits_below_their_floor_name_the_option(
    command, flag, value, least, capsys, monkeypatch
) -> None:
    """--move-ms 0 said "TimeControl.startup_ms and move_ms must be positive"
    (QA organizer): the message names the option the user typed."""
    from importlib import import_module

    _no_match_may_be_played(monkeypatch, import_module(f"arena.cmd_{command}"))
    argv = [command, "splendor-duel", "builtin:greedy", "builtin:random", "--sandbox", "process",
            flag, value, *(["--no-replay"] if command == "play" else ["--games", "1"])]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"{flag} {value}: give at least {least} (milliseconds)" in err
    assert "TimeControl" not in err


def test_replay_show_of_a_step_out_of_range_prints_only_the_error(tmp_path: Path, capsys) -> None:
    """The match's header came first, then the error (QA organizer)."""
    replay = tmp_path / "m.json.gz"
    assert main(["play", "splendor-duel", "builtin:random", "builtin:random",
                 "--sandbox", "process", "--out", str(replay)]) == 0  # fmt: skip
    steps = len(load_replay(replay)["steps"])
    capsys.readouterr()
    assert main(["replay", "show", "--step", str(steps + 1), str(replay)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"arena replay: step {steps + 1} is outside 0..{steps}\n"
    assert main(["replay", "show", "--step", str(steps), str(replay)]) == 0


def test_a_table_with_too_few_bots_says_how_to_fill_it(capsys, monkeypatch) -> None:
    """A new Edel, Stein & Reich author tries the Splendor Duel habit, one
    opponent: the error says how to fill the 3 seats, as a command to copy."""
    from arena import cmd_tournament

    _no_match_may_be_played(monkeypatch, cmd_tournament)
    argv = ["tournament", "edel-stein-reich", "builtin:greedy", "builtin:random", "--games", "1",
            "--sandbox", "process"]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "3 seats need at least 3 bots" in err
    assert "a bot may be named more than once:" in err
    hint = err.split("named more than once: ", 1)[1].split("\n", 1)[0].split()
    assert hint == ["arena", "tournament", "edel-stein-reich", "builtin:greedy", "builtin:random",
                    "builtin:random", "--games", "1"]  # fmt: skip


def test_play_in_docker_warns_when_the_bot_image_holds_another_bot_library(
    monkeypatch, capsys
) -> None:
    """`arena tournament` refuses a bot image built from other sources; `arena
    play`, one match, played on with it and said nothing, so a bot author whose
    image predated an upgrade tested against the old SDK and engines. It now
    warns after the match, from the image's label (no extra container)."""
    import dataclasses

    import arena.cmd_play
    import sandbox.image
    from arena.sdk_lib import bot_lib_id

    real_play = arena.cmd_play.play_match
    monkeypatch.setattr(  # as if Docker had played it, without needing an engine
        arena.cmd_play,
        "play_match",
        lambda *a, **k: dataclasses.replace(real_play(*a, **k), sandbox="docker"),
    )
    labels = {sandbox.image.LIB_LABEL: "0123456789abcdef"}
    monkeypatch.setattr(sandbox.image, "image_labels", lambda image: labels)
    argv = ["play", "splendor-duel", "builtin:random", "builtin:random", "--sandbox",
            "process", "--no-replay"]  # fmt: skip
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "warning: the bot image gemarena-bot:" in err
    assert f"(0123456789abcdef; this arena command's is {bot_lib_id()})" in err
    assert 'python -m sandbox.image ensure --extra-lib "$(python -m arena.sdk_lib)"' in err

    labels[sandbox.image.LIB_LABEL] = bot_lib_id()  # the right library: nothing said
    assert main(argv) == 0
    assert "warning" not in capsys.readouterr().err
    labels.clear()  # an image without the label (built before it): nothing said either
    assert main(argv) == 0
    assert "warning" not in capsys.readouterr().err


def test_the_folder_recipe_keeps_the_sandboxs_sdk_before_a_copy_in_the_folder(capsys) -> None:
    """The starter kit holds gemarena_sdk.py (for plain `python3 main.py`).
    With the recipe its README gave, `sys.path.insert(0, <folder>)`, that copy,
    as old as the kit, shadowed the sandbox's SDK once the bot was split into
    files. The recipe of the README now puts the folder last."""
    import tempfile

    from arena.runner_bots import BOT_FOLDER_ON_PATH

    readme = (Path(__file__).parents[2] / "bots" / "starter" / "README.md.in").read_text()
    recipe = readme.split("adds it itself:", 1)[1].split("##", 1)[0]
    lines = [line.strip() for line in recipe.strip().splitlines()]
    assert lines == ["import os, sys", BOT_FOLDER_ON_PATH]  # what the hint says too
    folder = Path(tempfile.mkdtemp(prefix="stale-sdk-", dir=BASE))
    (folder / "gemarena_sdk.py").write_text("raise ImportError('the stale copy of the kit')\n")
    (folder / "helper.py").write_text("def pick(legal):\n    return legal[0]\n")
    (folder / "main.py").write_text(
        "\n".join(lines) + "\nfrom gemarena_sdk import run\nfrom helper import pick\n"
        "run(lambda observation, legal: pick(legal))\n"
    )
    for path in (folder, *folder.iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)
    argv = ["builtin:random", "--sandbox", "process", "--no-replay"]
    code = main(["play", "splendor-duel", str(folder), *argv])
    out = capsys.readouterr().out
    assert "FORFEIT" not in out and code == 0, out


def test_a_bots_stderr_reaches_the_terminal_without_its_escape_sequences(capsys) -> None:
    """`arena play --stderr`, a crash's stderr lines and `arena upload`'s
    rejection printed a bot's stderr raw: an opponent's bot could retitle the
    terminal, move the cursor or wipe the summary's FORFEIT line."""
    from arena.cmd_upload import report

    bot = BASE / "escapes.py"
    bot.write_text(
        "import sys\n"
        "sys.stderr.write('\\x1b]0;owned\\x07\\x1b[2K\\x1b[1Ahidden\\rline\\n')\n"
        "sys.stderr.flush()\n"
        "raise SystemExit(3)\n"
    )
    bot.chmod(0o644)
    argv = ["play", "splendor-duel", str(bot), "builtin:random", "--sandbox", "process",
            "--no-replay", "--stderr"]  # fmt: skip
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\r" not in out
    assert "\\x1b]0;owned\\x07\\x1b[2K\\x1b[1Ahidden\\rline" in out
    assert out.count("owned") == 2  # under the FORFEIT line, and in the --stderr part

    tail = "Traceback\n\x1b[2Kgone\n"
    assert report({"status": "rejected", "number": 2, "reject_reason": "r", "stderr_tail": tail})
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\\x1b[2Kgone" in out
