"""`arena upload` and `arena matches` against a live test server (HTTP over 127.0.0.1)."""

from __future__ import annotations

import json
import time
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from arena import cmd_upload
from arena.cli import main
from ladder.bots import mark_ready
from ladder.matches import create_match
from ladder.models import Bot, BotVersion, Match
from tests.api.conftest import RANDOM_BOT, ready_bot

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def cli_env(monkeypatch, tmp_path, live_server, alice_token):
    """The CLI pointed at the live server with alice's token, and no config file."""
    monkeypatch.setenv("GEMARENA_URL", live_server.url)
    monkeypatch.setenv("GEMARENA_TOKEN", alice_token)
    monkeypatch.delenv("GEMARENA_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))  # no config file
    return live_server


@pytest.fixture
def bot_dir(tmp_path) -> Path:
    folder = tmp_path / "mybot"
    (folder / "lib").mkdir(parents=True)
    (folder / "main.py").write_bytes(RANDOM_BOT)
    (folder / "lib" / "helper.py").write_text("X = 1\n")
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "main.cpython-311.pyc").write_bytes(b"\x00junk")
    (folder / ".env").write_text("SECRET=1\n")
    (folder / "splendor-duel-seed0.replay.json.gz").write_bytes(b"\x1f\x8b")
    return folder


def test_upload_a_directory_creating_the_bot(cli_env, bot_dir, alice, capsys) -> None:
    code = main(["upload", str(bot_dir), "--bot", "cli-bot", "--game", "splendor-duel", "--create"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "created bot cli-bot" in out and "v1" in out and "pending" in out
    bot = Bot.objects.get(name="cli-bot", owner=alice)
    version = bot.versions.get()
    with zipfile.ZipFile(version.upload.path) as archive:
        # no cache, no dotfiles, no replays
        assert sorted(archive.namelist()) == ["lib/helper.py", "main.py"]
    # a second upload of the same bot needs no --create
    (bot_dir / "main.py").write_bytes(RANDOM_BOT + b"# tweak\n")
    assert main(["upload", str(bot_dir), "--bot", "cli-bot"]) == 0
    assert bot.versions.count() == 2


def test_upload_waits_for_the_verdict(cli_env, alice, tmp_path, capsys, monkeypatch) -> None:
    bot = ready_bot(alice, "waiter")

    def worker_decides(seconds: float) -> None:  # instead of sleeping: the verdict arrives
        mark_ready(BotVersion.objects.filter(bot=bot).order_by("-number").first())

    monkeypatch.setattr(cmd_upload, "sleep", worker_decides)
    source = tmp_path / "v2.py"
    source.write_bytes(RANDOM_BOT + b"# v2\n")
    code = main(["upload", str(source), "--bot", "waiter", "--wait", "30"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "v2 is ready" in out


def test_upload_wait_reports_a_rejection(cli_env, alice, tmp_path, capsys, monkeypatch) -> None:
    bot = ready_bot(alice, "doomed")

    def worker_rejects(seconds: float) -> None:
        BotVersion.objects.filter(bot=bot, number=2).update(
            status="rejected",
            reject_reason="validation match 3: crash — exit 3",
            stderr_tail="boom\n",
        )

    monkeypatch.setattr(cmd_upload, "sleep", worker_rejects)
    source = tmp_path / "v2.py"
    source.write_bytes(b"import sys\nsys.exit(3)\n")
    # a bare --wait before the bot: the bot is not taken for SECONDS
    assert main(["upload", "--bot", "doomed", "--wait", str(source)]) == 1
    out = capsys.readouterr().out
    assert "rejected: validation match 3: crash" in out and "boom" in out


def test_upload_wait_gives_up_with_status_3(cli_env, alice, tmp_path, capsys, monkeypatch) -> None:
    ready_bot(alice, "slowpoke")
    monkeypatch.setattr(cmd_upload, "sleep", lambda s: time.sleep(0.01))  # no verdict comes
    source = tmp_path / "v2.py"
    source.write_bytes(RANDOM_BOT + b"# v2\n")
    assert (
        main(["upload", str(source), "--bot", "slowpoke", "--wait", "0.005"])
        == cmd_upload.STILL_PENDING
    )
    assert "still validating" in capsys.readouterr().out


def test_bot_names_are_found_whatever_their_case(cli_env, alice, tmp_path, capsys) -> None:
    """Names are unique per game in any capitals on the server; `--bot A-GREEDY`
    said "you have no bot named 'A-GREEDY'" to the owner of a-greedy."""
    bot = ready_bot(alice, "a-greedy")
    source = tmp_path / "v2.py"
    source.write_bytes(RANDOM_BOT + b"# v2\n")
    assert main(["upload", str(source), "--bot", "A-GREEDY"]) == 0, capsys.readouterr().err
    assert "as a-greedy v2" in capsys.readouterr().out
    assert bot.versions.count() == 2
    assert main(["matches", "--bot", "A-Greedy"]) == 0
    assert capsys.readouterr().out.startswith("a-greedy (splendor-duel, owner alice)")


def test_upload_errors_are_clear(
    cli_env, bot_dir, alice, bob, tmp_path, capsys, monkeypatch
) -> None:
    def fails(argv: list[str], *expected: str) -> None:
        assert main(argv) == 1
        err = capsys.readouterr().err
        for text in expected:
            assert text in err, err

    fails(["upload", str(bot_dir), "--bot", "nobody"], "no bot named 'nobody'", "--create")
    fails(["upload", str(bot_dir), "--bot", "nobody", "--create"], "--create needs --game")
    ready_bot(bob, "bobs")  # not alice's: she may not upload to it
    fails(["upload", str(bot_dir), "--bot", "bobs"], "no bot named 'bobs'")
    ready_bot(alice, "strict")
    bad = tmp_path / "bad.py"
    bad.write_text("def broken(:\n")
    fails(["upload", str(bad), "--bot", "strict"], "422 upload_rejected (file)", "syntax error")
    fails(["upload", str(tmp_path / "missing"), "--bot", "strict"], "does not exist")
    assert BotVersion.objects.filter(bot__name="strict").count() == 1
    # a refused first upload of a new bot leaves no empty bot behind
    fails(
        ["upload", str(bad), "--bot", "firsttry", "--game", "splendor-duel", "--create"],
        "syntax error",
    )
    assert not Bot.objects.filter(name="firsttry").exists()

    monkeypatch.setenv("GEMARENA_TOKEN", "ga_revoked-or-never-was")
    fails(["upload", str(bot_dir), "--bot", "strict"], "401 bad_token")
    monkeypatch.delenv("GEMARENA_TOKEN")
    fails(["upload", str(bot_dir), "--bot", "strict"], "no API token", "GEMARENA_TOKEN")
    monkeypatch.setenv("GEMARENA_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("GEMARENA_TOKEN", "ga_x")
    fails(
        ["upload", str(bot_dir), "--bot", "strict"], "cannot reach the server at http://127.0.0.1:9"
    )


def test_a_bot_written_for_another_game_is_refused_before_sending(
    cli_env, alice, tmp_path, capsys, monkeypatch
) -> None:
    """main.py names splendor-duel in the SDK's run(): as an Edel, Stein &
    Reich bot it is refused with the server's message and exit status 2,
    before any request when --game is given (the server here is unreachable),
    and before the file is sent when the bot's game comes from the server."""
    from tests.ladder.test_uploads import SPLENDOR_BOT

    folder = tmp_path / "greedy"
    folder.mkdir()
    (folder / "main.py").write_bytes(SPLENDOR_BOT)
    single = tmp_path / "greedy.py"
    single.write_bytes(SPLENDOR_BOT)
    kit = tmp_path / "kit.zip"
    with zipfile.ZipFile(kit, "w") as archive:
        archive.writestr("greedy/main.py", SPLENDOR_BOT)
    message = (
        "is written for splendor-duel (run(..., game='splendor-duel') on line 9), "
        "but this is a bot for edel-stein-reich"
    )

    def refused(argv: list[str], shown: str) -> None:
        assert main(argv) == cmd_upload.WRONG_GAME
        captured = capsys.readouterr()
        assert f"arena upload: {shown} {message}" in captured.err, captured.err
        assert "nothing was sent" in captured.err and captured.out == ""

    create = ["--bot", "baron", "--game", "edel-stein-reich", "--create"]
    refused(["upload", str(folder), *create], "main.py")
    refused(["upload", str(single), *create], "greedy.py")
    refused(["upload", str(kit), *create], "main.py")
    assert not Bot.objects.exists()
    # the bot's game known from the server: the file is still not sent
    bot = ready_bot(alice, "baron", game="edel-stein-reich")
    refused(["upload", str(folder), "--bot", "baron"], "main.py")
    assert bot.versions.count() == 1
    monkeypatch.setenv("GEMARENA_URL", "http://127.0.0.1:9")  # nothing answers there
    refused(["upload", str(folder), "--bot", "baron", "--game", "edel-stein-reich"], "main.py")
    # a bot of its own game: no refusal (the unreachable server is the next error)
    assert main(["upload", str(folder), "--bot", "x", "--game", "splendor-duel"]) == 1
    assert "cannot reach the server" in capsys.readouterr().err


def test_config_file_supplies_url_and_token(
    cli_env, alice_token, tmp_path, monkeypatch, capsys
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'url = "{cli_env.url}"\ntoken = "{alice_token}"\n')
    monkeypatch.delenv("GEMARENA_URL")
    monkeypatch.delenv("GEMARENA_TOKEN")
    monkeypatch.setenv("GEMARENA_CONFIG", str(config))
    source = tmp_path / "solo.py"
    source.write_bytes(RANDOM_BOT)
    assert (
        main(["upload", str(source), "--bot", "from-config", "--game", "splendor-duel", "--create"])
        == 0
    )
    assert Bot.objects.filter(name="from-config", owner__username="alice").exists()
    config.write_text("url = [\n")
    assert main(["matches", "--bot", "from-config"]) == 1
    assert "cannot read the config file" in capsys.readouterr().err


def test_matches_lists_a_bots_matches(cli_env, alpha, beta, capsys) -> None:
    first = create_match("splendor-duel", [alpha.active_version, beta.active_version])
    second = create_match(
        "splendor-duel", [beta.active_version, alpha.active_version], kind="challenge", rated=False
    )
    assert main(["matches", "--bot", "alpha"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("alpha (splendor-duel, owner alice): 2 matches")
    assert out[1].split()[:3] == [str(second.pk), "challenge", "queued"]
    assert out[2].split()[:3] == [str(first.pk), "ladder", "queued"]
    assert "beta v1" in out[1] and "alpha v1" in out[1]

    assert main(["matches", "--bot", "alpha", "--limit", "1"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2
    assert main(["matches", "--bot", "alpha", "--kind", "ladder", "--json"]) == 0
    assert [m["id"] for m in json.loads(capsys.readouterr().out)] == [first.pk]
    assert main(["matches", "--bot", "ghost"]) == 1
    assert "no bot named 'ghost'" in capsys.readouterr().err


def test_matches_of_a_tournament(cli_env, alpha, beta, bob, capsys, monkeypatch) -> None:
    from ladder import tournaments

    monkeypatch.setattr(tournaments, "enqueue", lambda match_id, kind, countdown=0: None)
    gamma = ready_bot(bob, "gamma")
    cup = tournaments.create_tournament(
        game="splendor-duel",
        versions=[b.active_version for b in (alpha, beta, gamma)],
        games=1,
        players=2,
        name="Winter cup",
    )
    ladder = create_match("splendor-duel", [alpha.active_version, beta.active_version])
    mine = list(cup.matches.order_by("-created_at", "-pk").values_list("pk", flat=True))
    assert main(["matches", "--tournament", str(cup.pk)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"tournament Winter cup (#{cup.pk}, running): 3 matches shown"
    assert [int(line.split()[0]) for line in out[1:]] == mine
    assert {line.split()[1] for line in out[1:]} == {"tournament"}
    # with a bot: its matches in the tournament, not its ladder match
    assert main(["matches", "--bot", "gamma", "--tournament", str(cup.pk)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("gamma (splendor-duel, owner bob) in tournament Winter cup")
    assert len(out) == 3
    assert main(["matches", "--bot", "alpha", "--tournament", str(cup.pk), "--json"]) == 0
    listed = [m["id"] for m in json.loads(capsys.readouterr().out)]
    assert ladder.pk not in listed and len(listed) == 2
    assert main(["matches", "--tournament", "999999"]) == 1
    assert "no tournament with id 999999" in capsys.readouterr().err
    assert main(["matches"]) == 2
    assert "give --bot NAME, --tournament ID or both" in capsys.readouterr().err


def test_play_with_the_ladder_rules(cli_env, settings, tmp_path, capsys, monkeypatch) -> None:
    """`--ladder-rules` plays the server ladder's options and limits; what the
    command line gives still wins."""
    from arena import cmd_play
    from arena.replay import load_replay
    from ladder.game_options import clean_ladder_options
    from ladder.models import LadderSettings

    row = LadderSettings.get()
    row.game_options = clean_ladder_options(
        {"edel-stein-reich": {"untaken_event": "keep", "priority_tiebreak": "seat"}}
    )
    row.save()
    settings.MOVE_MS, settings.BANK_MS, settings.BOT_MEMORY_MIB = 1500, 4000, 200
    requests = []

    def play_match(request, on_step=None):
        requests.append(request)
        return real_play(request, on_step=on_step)

    real_play = cmd_play.play_match
    monkeypatch.setattr(cmd_play, "play_match", play_match)
    out = tmp_path / "ladder.json.gz"
    bots = ["builtin:random"] * 3
    code = main(["play", "edel-stein-reich", *bots, "--ladder-rules", "--sandbox", "process",
                 "-o", "priority_tiebreak=less_money", "--bank-ms", "3000",
                 "--out", str(out)])  # fmt: skip
    said = capsys.readouterr()
    assert code == 0, said
    # what was fetched is said (a silent success looked like no effect)
    assert "ladder rules of http://" in said.err
    assert 'options priority_tiebreak="seat", untaken_event="keep"' in said.err
    assert "move ms 1500, bank ms 4000" in said.err and "memory mib 200" in said.err
    replay = load_replay(out)
    assert replay["options"]["untaken_event"] == "keep"  # the ladder's
    assert replay["options"]["priority_tiebreak"] == "less_money"  # the command line's
    assert replay["time"] == {"startup_ms": 10000, "move_ms": 1500, "bank_ms": 3000}
    assert requests[-1].memory_mib == 200
    # without the flag: the defaults
    assert main(["play", "edel-stein-reich", *bots, "--sandbox", "process",
                 "--out", str(out)]) == 0  # fmt: skip
    replay = load_replay(out)
    assert replay["options"]["untaken_event"] == "discard"
    assert replay["time"]["move_ms"] == 1000 and requests[-1].memory_mib is None


def test_ladder_rules_from_an_unreachable_server_is_a_clear_error(
    monkeypatch, tmp_path, capsys
) -> None:
    monkeypatch.setenv("GEMARENA_URL", "http://127.0.0.1:9")  # discard port: nothing listens
    monkeypatch.delenv("GEMARENA_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))  # no config file
    code = main(["play", "splendor-duel", "builtin:random", "builtin:random",
                 "--ladder-rules", "--no-replay"])  # fmt: skip
    assert code == 2
    err = capsys.readouterr().err
    assert "--ladder-rules: cannot reach the server at http://127.0.0.1:9" in err


def test_matches_walks_with_the_cursor_while_new_matches_arrive(
    cli_env, alpha, beta, capsys, monkeypatch
) -> None:
    """More than a page of matches, and a new one created between two requests:
    page numbers would shift and repeat the last match of the first page; the
    cursor (`before`/`next`) lists each match once, newest first."""
    from arena.api_client import Client

    versions = [alpha.active_version, beta.active_version]
    made = [create_match("splendor-duel", versions).pk for _ in range(105)]
    real_get = Client.get
    calls: list[dict] = []

    def get(self, path, query=None):
        if path == "/api/matches":
            calls.append(dict(query))
            if len(calls) == 2:  # the ladder goes on while the command reads
                create_match("splendor-duel", versions)
        return real_get(self, path, query)

    monkeypatch.setattr(Client, "get", get)
    assert main(["matches", "--bot", "alpha", "--limit", "105", "--json"]) == 0
    listed = [m["id"] for m in json.loads(capsys.readouterr().out)]
    assert listed == made[::-1]
    assert calls[1].get("before") == made[5]


def test_matches_pages_by_number_on_a_server_without_the_cursor(
    cli_env, alpha, beta, capsys, monkeypatch
) -> None:
    """A server from before `next` (its answers lack the key) is still read
    past its first page, by page number."""
    from arena.api_client import Client

    versions = [alpha.active_version, beta.active_version]
    made = [create_match("splendor-duel", versions).pk for _ in range(103)]
    real_get = Client.get

    def old_server(self, path, query=None):
        answer = real_get(self, path, query)
        if path == "/api/matches":
            assert "before" not in (query or {})
            answer.pop("next")
        return answer

    monkeypatch.setattr(Client, "get", old_server)
    assert main(["matches", "--bot", "alpha", "--limit", "150", "--json"]) == 0
    assert [m["id"] for m in json.loads(capsys.readouterr().out)] == made[::-1]


def test_matches_by_finishing_time(cli_env, alpha, beta, capsys) -> None:
    """--finished-after (included) and --finished-before (left out) select on
    the server by when a match finished; a time without an offset is UTC, a
    date its midnight, and the header says the window in UTC."""
    versions = [alpha.active_version, beta.active_version]
    ids = {}
    for name, when in {
        "eve": datetime(2026, 11, 29, 23, 30, tzinfo=UTC),
        "midnight": datetime(2026, 11, 30, tzinfo=UTC),
        "noon": datetime(2026, 11, 30, 12, tzinfo=UTC),
        "next_day": datetime(2026, 12, 1, tzinfo=UTC),
    }.items():
        match = create_match("splendor-duel", versions)
        Match.objects.filter(pk=match.pk).update(
            status="finished", created_at=when - timedelta(minutes=1), finished_at=when
        )
        ids[name] = match.pk
    create_match("splendor-duel", versions)  # queued: it has no finishing time

    def listed(*options: str) -> list[str]:
        assert main(["matches", "--bot", "alpha", "--json", *options]) == 0
        by_id = {pk: name for name, pk in ids.items()}
        return [by_id[m["id"]] for m in json.loads(capsys.readouterr().out)]

    assert listed("--finished-after", "2026-11-30") == ["next_day", "noon", "midnight"]
    assert listed("--finished-before", "2026-11-30T12:00") == ["midnight", "eve"]
    assert listed(
        "--finished-after", "2026-11-30T13:00:00+01:00", "--finished-before", "2026-12-01"
    ) == ["noon"]
    assert main(["matches", "--bot", "alpha", "--finished-after", "2026-11-30t13:00+01:00"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith(": 2 matches shown, finished from 2026-11-30T12:00:00Z"), out[0]
    assert [line.split()[0] for line in out[1:]] == [str(ids["next_day"]), str(ids["noon"])]


def test_matches_refuses_a_bad_time_without_asking_the_server(monkeypatch, tmp_path, capsys):
    """A bad --finished-after or --finished-before is a usage error (status 2)
    naming the option, said before any request: nothing listens at the URL."""
    monkeypatch.setenv("GEMARENA_URL", "http://127.0.0.1:9")  # discard port: nothing listens
    monkeypatch.delenv("GEMARENA_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    for options, message in [
        (
            ["--finished-after", "yesterday"],
            "arena matches: --finished-after: not an ISO 8601 date-time or date: 'yesterday'",
        ),
        (["--finished-before", "2026-02-30"], "--finished-before: not an ISO 8601"),
        (
            ["--finished-before", "9999-12-31T23:00-05:00"],
            "--finished-before: '9999-12-31T23:00-05:00' lies outside the years 1 to 9999",
        ),
        (
            ["--finished-after", "2026-12-01", "--finished-before", "2026-11-30T12:00+01:00"],
            "--finished-before (2026-11-30T11:00:00Z) must be later than --finished-after "
            "(2026-12-01T00:00:00Z)",
        ),
        (["--finished-after", "2026-11-30", "--finished-before", "2026-11-30T00:00Z"], "later"),
    ]:
        assert main(["matches", "--bot", "alpha", *options]) == 2, options
        err = capsys.readouterr().err
        assert message in err, err
