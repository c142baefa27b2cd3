"""The sandbox's own parts: line reassembly, frame demultiplexing, the
stderr tail, backend choice, the image check and the reaper."""

from __future__ import annotations

import dataclasses
import math
import os
import struct
import subprocess
import threading
import time
from pathlib import Path

import pytest

import sandbox
from sandbox import ExitKind, SandboxError
from sandbox.base import check_bot_dir, classify_exit
from sandbox.streams import STDERR, STDOUT, FrameDemux, LineBuffer, Tail

from .conftest import BOTS, LIMITS, SESSION, SESSION_LABEL, Harness


def frame(stream: int, payload: bytes) -> bytes:
    return struct.pack(">BxxxL", stream, len(payload)) + payload


def test_demux_handles_frames_split_anywhere_and_lines_across_frames():
    data = (
        frame(STDOUT, b'{"a": ')
        + frame(STDERR, b"log\n")
        + frame(STDOUT, b'1}\n{"b"')
        + frame(STDOUT, b": 2}\n")
    )
    for step in (1, 3, 7, len(data)):
        demux, lines, tail = FrameDemux(), LineBuffer(100), Tail(100)
        for start in range(0, len(data), step):
            for stream, payload in demux.feed(data[start : start + step]):
                (lines if stream == STDOUT else tail).feed(payload)
        assert [lines.pop_line(), lines.pop_line(), lines.pop_line()] == [
            b'{"a": 1}',
            b'{"b": 2}',
            None,
        ]
        assert tail.text() == "log\n"


def test_line_buffer_caps_a_line_but_keeps_the_complete_ones_before_it():
    lines = LineBuffer(5)
    lines.feed(b"12345\n123")
    lines.feed(b"456")
    assert lines.pop_line() == b"12345"
    assert lines.pop_line() is None
    assert lines.too_large
    lines.feed(b"\nok\n")  # nothing after an over-long line is trusted
    assert lines.pop_line() is None and lines.too_large


def test_line_buffer_rejects_a_long_line_that_arrives_whole():
    lines = LineBuffer(5)
    lines.feed(b"123456\n")
    assert lines.pop_line() is None
    assert lines.too_large


def test_tail_keeps_the_last_bytes_and_counts_all():
    tail = Tail(4)
    for chunk in (b"abc", b"defgh", b"ij"):
        tail.feed(chunk)
    assert tail.text() == "ghij"
    assert tail.total_bytes == 10
    tail.feed(b"\xff")
    assert tail.text() == "hij\ufffd"


def test_exit_classification_order():
    assert (
        classify_exit(
            running_at_stop=False, reason=ExitKind.TIMEOUT, exit_code=137, oom_killed=True
        )
        is ExitKind.MEMORY
    )
    assert (
        classify_exit(running_at_stop=True, reason=ExitKind.TIMEOUT, exit_code=137, oom_killed=True)
        is ExitKind.TIMEOUT
    )
    assert (
        classify_exit(running_at_stop=True, reason=None, exit_code=137, oom_killed=False)
        is ExitKind.RUNNING_AT_STOP
    )
    assert (
        classify_exit(running_at_stop=False, reason=None, exit_code=0, oom_killed=False)
        is ExitKind.EXITED
    )
    assert (
        classify_exit(running_at_stop=False, reason=None, exit_code=139, oom_killed=False)
        is ExitKind.CRASHED
    )


def test_bot_dir_must_hold_a_readable_main(tmp_path):
    with pytest.raises(SandboxError, match="unusable"):
        check_bot_dir(tmp_path / "missing")
    (tmp_path / "main.py").write_text("")
    tmp_path.chmod(0o700)
    with pytest.raises(SandboxError, match="readable by others"):
        check_bot_dir(tmp_path)
    tmp_path.chmod(0o755)
    assert check_bot_dir(tmp_path) == tmp_path.resolve()


def test_get_backend_names(monkeypatch):
    with pytest.raises(SandboxError, match="unknown sandbox backend"):
        sandbox.get_backend("vm")
    process = sandbox.get_backend("process")
    assert process.name == "process" and not process.safe_for_untrusted
    docker = sandbox.get_backend("docker")
    assert docker.name == "docker" and docker.safe_for_untrusted
    monkeypatch.setenv("SANDBOX_BACKEND", "process")
    assert sandbox.get_backend().name == "process"


def test_auto_falls_back_to_process_when_the_image_is_missing(monkeypatch, caplog):
    monkeypatch.setenv("SANDBOX_IMAGE", "gemarena-bot:no-such-tag-" + SESSION)
    assert sandbox.get_backend("auto").name == "process"
    assert "NOT SAFE FOR UNTRUSTED CODE" in caplog.text


@pytest.mark.docker
def test_self_check_names_a_missing_image(docker_backend):
    from sandbox.docker_backend import DockerBackend

    assert docker_backend.self_check() is None
    problem = DockerBackend("gemarena-bot:no-such-tag-" + SESSION).self_check()
    assert problem and "missing" in problem
    # the command that builds it where the bot author is: the arena download
    # has neither the Makefile nor deploy/ (ladder.views_docs.RUNNER_PARTS)
    assert 'build it with python -m sandbox.image ensure --extra-lib "$(python -m' in problem


@pytest.mark.docker
def test_self_check_refuses_an_engine_where_bots_cannot_be_confined(docker_backend, monkeypatch):
    from sandbox.bot_init import SYSCALLS
    from sandbox.docker_backend import INIT_MACHINES

    assert set(INIT_MACHINES) == set(SYSCALLS)
    api = docker_backend.api()
    info = api.info()
    monkeypatch.setattr(api, "info", lambda: {**info, "SecurityOptions": ["name=apparmor"]})
    assert "no seccomp support" in (docker_backend.self_check() or "")
    monkeypatch.setattr(api, "info", lambda: {**info, "Architecture": "s390x"})
    assert "runs on s390x" in (docker_backend.self_check() or "")


@pytest.mark.docker
def test_ensure_rebuilds_a_host_copy_image_whose_bot_library_is_stale(docker_backend, tmp_path):
    """`python -m sandbox.image ensure --extra-lib DIR` compares the image's
    gemarena.bot-lib label with DIR's BOT_LIB_ID: a direct pytest run (or
    `make run`) after an edit of the engines gets this version's library."""
    import docker

    from sandbox.image import LIB_LABEL, ensure, image_labels

    api = docker.APIClient(timeout=60)

    def tags() -> set[str]:
        return {t for i in api.images(name="gemarena-bot") for t in i["RepoTags"] or ()}

    libs = []
    for lib_id in ("00000000000000aa", "00000000000000bb"):
        lib = tmp_path / lib_id
        lib.mkdir()
        (lib / "BOT_LIB_ID").write_text(f"{lib_id}\n")
        (lib / "marker.py").write_text(f"ID = {lib_id!r}\n")
        libs.append(lib)
    image = f"gemarena-bot:test-ensure-{SESSION}"
    before = tags()
    try:
        assert ensure(image, extra_libs=(libs[0],)).startswith("built gemarena-bot:hc-")
        assert image_labels(image)[LIB_LABEL] == "00000000000000aa"
        assert ensure(image, extra_libs=(libs[0],)) == f"{image} present"
        assert ensure(image) == f"{image} present"  # no library asked for: any will do
        assert ensure(image, extra_libs=(libs[1],)).startswith("built gemarena-bot:hc-")
        assert image_labels(image)[LIB_LABEL] == "00000000000000bb"
    finally:
        for tag in tags() - before:
            api.remove_image(tag, force=True)
    assert image_labels(image) is None


@pytest.mark.docker
def test_ensure_leaves_an_image_it_did_not_build_alone(docker_backend):
    """A production (debootstrap) image under the alias is the operator's:
    ensure reports the stale library instead of replacing it."""
    import docker

    from sandbox.image import ensure, image_labels

    api = docker.APIClient(timeout=60)
    image = f"gemarena-bot:test-foreign-{SESSION}"
    kind = (image_labels(docker_backend.image) or {}).get("gemarena.image.kind")
    assert kind == "hostcopy"  # the session's image, below re-labelled as not ours
    container = api.create_container(
        docker_backend.image, ["true"], labels={SESSION_LABEL: SESSION}
    )
    try:
        api.commit(
            container["Id"],
            repository="gemarena-bot",
            tag=image.split(":")[1],
            changes=["LABEL gemarena.image.kind=debootstrap gemarena.bot-lib=00000000000000cc"],
        )
    finally:
        api.remove_container(container["Id"], force=True)
    try:
        lib = Path(__file__).parent / "bots"  # any directory; its BOT_LIB_ID is written below
        said = ensure(image, extra_libs=(lib,))
        assert said == f"{image} present"  # no BOT_LIB_ID in it: nothing to compare
        other = Path(os.environ.get("TMPDIR", "/tmp")) / f"gemarena-lib-{SESSION}"
        other.mkdir(exist_ok=True)
        try:
            (other / "BOT_LIB_ID").write_text("00000000000000dd\n")
            said = ensure(image, extra_libs=(other,))
        finally:
            (other / "BOT_LIB_ID").unlink()
            other.rmdir()
        assert said.startswith(f"{image} present, left as it is (debootstrap)"), said
        assert "00000000000000cc" in said and "00000000000000dd" in said
        assert image_labels(image)["gemarena.bot-lib"] == "00000000000000cc"
    finally:
        api.remove_image(image, force=True)


@pytest.mark.docker
def test_container_name_and_labels(docker_backend):
    from sandbox.docker_backend import BOT_COMMAND, INIT_COMMAND, LABEL, LABEL_CREATED

    bot = docker_backend.launch(
        BOTS / "good", sandbox.Limits(), "seat 1/x", labels={SESSION_LABEL: SESSION}
    )
    try:
        info = docker_backend.api().inspect_container(bot.container_id)
        labels = info["Config"]["Labels"]
        assert bot.name.startswith("gemarena-bot-seat-1-x-")
        assert labels[LABEL] == "1" and abs(float(labels[LABEL_CREATED]) - time.time()) < 60
        config, host = info["Config"], info["HostConfig"]
        assert config["StdinOnce"] and config["OpenStdin"] and not config["Tty"]
        assert config["User"] == "65534:65534"
        assert host["NetworkMode"] == "none" and host["CapDrop"] == ["ALL"]
        assert host["ReadonlyRootfs"] and host["LogConfig"]["Type"] == "none"
        # PID 1 is our own init (sandbox/bot_init.py), not Docker's tini
        assert not host["Init"] and config["Cmd"][:5] == INIT_COMMAND, config["Cmd"][:4]
        assert config["Cmd"][5:] == BOT_COMMAND
        assert host["Memory"] == host["MemorySwap"] and host["PidsLimit"] == 64
        assert [m["Source"] for m in info["Mounts"]] == [str((BOTS / "good").resolve())]
    finally:
        bot.stop()


def _session_containers(api) -> list[str]:
    return [
        c["Id"] for c in api.containers(all=True, filters={"label": f"{SESSION_LABEL}={SESSION}"})
    ]


@pytest.mark.docker
def test_a_container_the_engine_would_not_remove_goes_at_the_next_launch(
    docker_backend, monkeypatch
):
    """The engine stops answering between a bot's end and its removal: the
    stop reports it, and the next launch (engine back) removes it."""
    import requests

    from sandbox import docker_backend as module

    api = docker_backend.api()
    labels = {SESSION_LABEL: SESSION}

    def no_answer(*args, **kwargs):
        raise requests.exceptions.ConnectionError("engine cut (test)")

    first = docker_backend.launch(BOTS / "good", sandbox.Limits(), "unremoved", labels=labels)
    second = None
    try:
        monkeypatch.setattr(api, "remove_container", no_answer)
        report = first.stop()
        assert "remove failed (retried at the next launch)" in report.detail
        monkeypatch.undo()
        assert _session_containers(api) == [first.container_id]
        assert first.container_id in module._unremoved

        second = docker_backend.launch(BOTS / "good", sandbox.Limits(), "after", labels=labels)
        assert _session_containers(api) == [second.container_id]
        assert first.container_id not in module._unremoved
    finally:
        monkeypatch.undo()
        for bot in (first, second):
            if bot is not None:
                bot.stop()
        for cid in _session_containers(api):
            api.remove_container(cid, force=True)


@pytest.mark.docker
def test_a_create_whose_answer_was_lost_leaves_nothing(docker_backend, monkeypatch):
    """The engine creates the container but the answer never arrives: launch
    fails, and the container it cannot know the id of goes by name at the
    next launch."""
    import requests

    from sandbox import docker_backend as module

    api = docker_backend.api()
    labels = {SESSION_LABEL: SESSION}
    real_create = api.create_container

    def lost_answer(*args, **kwargs):
        real_create(*args, **kwargs)
        raise requests.exceptions.ConnectionError("answer lost (test)")

    def no_answer(*args, **kwargs):
        raise requests.exceptions.ConnectionError("engine cut (test)")

    bot = None
    try:
        monkeypatch.setattr(api, "create_container", lost_answer)
        monkeypatch.setattr(api, "remove_container", no_answer)
        with pytest.raises(SandboxError, match="cannot create container"):
            docker_backend.launch(BOTS / "good", sandbox.Limits(), "lost", labels=labels)
        monkeypatch.undo()
        [orphan] = _session_containers(api)
        assert api.inspect_container(orphan)["Name"].lstrip("/") in module._unremoved

        bot = docker_backend.launch(BOTS / "good", sandbox.Limits(), "after", labels=labels)
        assert _session_containers(api) == [bot.container_id]
        assert not module._unremoved
    finally:
        monkeypatch.undo()
        if bot is not None:
            bot.stop()
        for cid in _session_containers(api):
            api.remove_container(cid, force=True)


@pytest.mark.docker
def test_a_memory_kill_the_engine_did_not_flag_is_found_in_its_events(docker_backend, monkeypatch):
    """Docker 20.10 under load once ended a memory kill with exit 137 and
    OOMKilled false (the OOM notice came after the exit): the engine's "oom"
    event still makes it a memory kill, not a crash."""
    api = docker_backend.api()
    real_inspect = api.inspect_container

    def oom_flag_lost(container):
        found = real_inspect(container)
        found["State"]["OOMKilled"] = False
        return found

    bot = docker_backend.launch(
        BOTS / "memory_hog", LIMITS, "oom-flag-lost", labels={SESSION_LABEL: SESSION}
    )
    try:
        assert bot.send_line(b'{"go": 1}')
        assert bot.read_line(time.monotonic() + 30).status is sandbox.ReadStatus.EOF
        monkeypatch.setattr(api, "inspect_container", oom_flag_lost)
        report = bot.stop()
    finally:
        monkeypatch.undo()
        bot.stop()
    assert (report.kind, report.exit_code, report.oom_killed) == (ExitKind.MEMORY, 137, True)
    assert _session_containers(api) == []


@pytest.mark.docker
def test_reaper_removes_only_old_labelled_containers(docker_backend):
    from sandbox.docker_backend import LABEL, LABEL_CREATED
    from sandbox.reaper import reap

    api = docker_backend.api()
    old = {LABEL: "1", LABEL_CREATED: str(time.time() - 7200), SESSION_LABEL: SESSION}
    fresh = {**old, LABEL_CREATED: str(time.time())}
    unlabelled = {SESSION_LABEL: SESSION, LABEL_CREATED: str(time.time() - 7200)}
    ids = []
    try:
        for name, labels in (("old", old), ("fresh", fresh), ("foreign", unlabelled)):
            created = api.create_container(
                docker_backend.image, ["/usr/bin/python3", "-c", "pass"],
                name=f"gemarena-test-reap-{name}-{SESSION}", labels=labels,
                host_config=api.create_host_config(network_mode="none"),
            )  # fmt: skip
            ids.append(created["Id"])
        removed = reap(3600, api=api, extra_labels={SESSION_LABEL: SESSION})
        assert removed == [f"gemarena-test-reap-old-{SESSION}"]
        left = api.containers(all=True, filters={"label": f"{SESSION_LABEL}={SESSION}"})
        assert sorted(c["Names"][0] for c in left) == sorted(
            [f"/gemarena-test-reap-fresh-{SESSION}", f"/gemarena-test-reap-foreign-{SESSION}"]
        )
    finally:
        for cid in ids:
            try:
                api.remove_container(cid, force=True)
            except Exception:
                pass


def test_process_slot_uids_are_never_handed_out_twice(monkeypatch, tmp_path) -> None:
    """Two matches (threads or worker processes) picking at once must not share
    a uid: a bot's clean-up kills every process of its uid."""
    from sandbox import process_backend

    monkeypatch.setattr(process_backend, "UID_LOCK_DIR", tmp_path / "uids")
    picks = iter([5, 5, 6])
    monkeypatch.setattr(process_backend.random, "randrange", lambda n: next(picks))
    backend = process_backend.ProcessBackend()
    other = process_backend.ProcessBackend()  # another match's backend
    first, first_lock = backend._pick_uid()
    second, second_lock = other._pick_uid()  # before the first bot has even started
    assert (first, second) == (process_backend.UID_FIRST + 5, process_backend.UID_FIRST + 6)
    os.close(first_lock)
    monkeypatch.setattr(process_backend.random, "randrange", lambda n: 5)
    again, again_lock = backend._pick_uid()  # released: free for the next bot
    assert again == first
    for fd in (second_lock, again_lock):
        os.close(fd)


@pytest.mark.parametrize("raw", ["abc", "0", "-5", "nan", "inf"])
def test_a_bad_reap_age_is_refused_with_the_variable_named(monkeypatch, capsys, raw):
    from sandbox.__main__ import main
    from sandbox.reaper import REAP_AFTER_ENV, default_older_than_s

    monkeypatch.setenv(REAP_AFTER_ENV, raw)
    with pytest.raises(SandboxError, match=f"{REAP_AFTER_ENV}='{raw}': expected a number"):
        default_older_than_s()
    assert main(["reap", "--dry-run"]) == 2
    assert f"sandbox: {REAP_AFTER_ENV}='{raw}'" in capsys.readouterr().err


def test_reap_age_from_the_environment_or_three_hours(monkeypatch):
    from sandbox.reaper import REAP_AFTER_ENV, default_older_than_s

    monkeypatch.delenv(REAP_AFTER_ENV, raising=False)
    assert default_older_than_s() == 3 * 3600
    monkeypatch.setenv(REAP_AFTER_ENV, " 90.5 ")
    assert default_older_than_s() == 90.5


def test_reap_refuses_a_zero_age_on_the_command_line(capsys):
    from sandbox.__main__ import main

    assert main(["reap", "--dry-run", "--older-than", "0"]) == 2
    assert "--older-than 0: expected seconds above 0" in capsys.readouterr().err


@pytest.mark.parametrize("field", [f.name for f in dataclasses.fields(sandbox.Limits)])
@pytest.mark.parametrize("value", [0, -1])
def test_a_limit_of_zero_or_less_is_refused(field, value):
    """To Docker (and tmpfs) a memory, CPU, pids or size of 0 or -1 means no
    limit at all: such a value must never reach the backends."""
    with pytest.raises(ValueError, match=f"sandbox limit {field}="):
        sandbox.Limits(**{field: value})


@pytest.mark.parametrize("field", ["memory_mib", "cpus"])
@pytest.mark.parametrize("value", ["64", True, math.nan, math.inf])
def test_a_limit_that_is_not_a_finite_number_is_refused(field, value):
    with pytest.raises(ValueError, match=f"sandbox limit {field}="):
        sandbox.Limits(**{field: value})


@pytest.mark.parametrize("value", [1, 8, sandbox.base.MIN_MEMORY_MIB - 1])
def test_a_memory_limit_no_bot_can_start_in_is_refused(value):
    """Below the floor a bot dies at start (process) or the match ends as a
    system fault (Docker): refuse it with the floor in the message."""
    minimum = sandbox.base.MIN_MEMORY_MIB
    with pytest.raises(ValueError, match=f"memory_mib={value}: .* at least {minimum}"):
        sandbox.Limits(memory_mib=value)
    assert sandbox.Limits(memory_mib=minimum).memory_mib == minimum


def test_the_default_and_fractional_limits_are_accepted():
    assert sandbox.Limits().memory_mib == 256
    assert sandbox.Limits(cpus=0.5, memory_mib=64).cpus == 0.5


@pytest.mark.parametrize("option", ["--runs", "--messages"])
@pytest.mark.parametrize("value", ["0", "-3"])
def test_bench_refuses_a_count_below_one(option, value, capsys):
    from sandbox.bench import main

    with pytest.raises(SystemExit) as exit_info:
        main(["--backend", "process", option, value])
    assert exit_info.value.code == 2
    assert f"{option}: expected a whole number of at least 1" in capsys.readouterr().err


@pytest.mark.parametrize("option", ["--extra-lib", "--alias", "--cache"])
def test_build_script_names_an_option_given_without_its_value(option):
    script = Path(__file__).resolve().parents[2] / "deploy" / "build-bot-image.sh"
    result = subprocess.run(["bash", str(script), option], capture_output=True, text=True)
    assert result.returncode == 2, result
    assert f"{option} needs a value" in result.stderr


def test_the_production_image_installs_what_the_others_have() -> None:
    """docs/bots.md: bots import the standard library, the SDK and the
    engines, nothing else. The host-copy image (make, CI) and the process
    sandbox hold no third-party package, so neither may the production one:
    a bot that imports numpy would run on a ladder and fail locally."""
    script = Path(__file__).resolve().parents[2] / "deploy" / "build-bot-image.sh"
    packages = [
        line.split("=", 1)[1].split(",")
        for line in script.read_text().splitlines()
        if line.startswith("packages=")
    ]
    assert packages == [["python3"]]


def test_reap_lists_only_the_containers_it_removed() -> None:
    """One the engine would not remove is not reported as removed; one that
    is already gone (404) is."""
    import docker.errors
    import requests

    from sandbox.docker_backend import LABEL, LABEL_CREATED
    from sandbox.reaper import reap

    def answer(status: int) -> requests.Response:
        response = requests.Response()
        response.status_code = status
        return response

    class Engine:
        def containers(self, all, filters):
            labels = {LABEL: "1", LABEL_CREATED: "100"}
            return [{"Id": f"{n}" * 12, "Names": [f"/bot-{n}"], "Labels": labels} for n in "abc"]

        def remove_container(self, cid, force, v):
            if cid.startswith("b"):
                raise docker.errors.APIError("engine busy", response=answer(500))
            if cid.startswith("c"):
                raise docker.errors.NotFound("no such container", response=answer(404))

    assert reap(60, api=Engine(), now=1000) == ["bot-a", "bot-c"]


def test_kill_from_another_thread_ends_a_wait_for_a_line(harness: Harness):
    """A match interrupted by a signal tears down while its ask threads may
    still wait on the bots: it kills them first (any thread may), the waits
    end, and only then are the bots stopped (sandbox.base.BotProcess)."""
    bot = harness.backend.launch(
        BOTS / "sleep_past_deadline", LIMITS, "waited-on", labels={SESSION_LABEL: SESSION}
    )
    try:
        assert bot.send_line(b'{"go": 1}')
        replies = []
        reader = threading.Thread(
            target=lambda: replies.append(bot.read_line(time.monotonic() + 30))
        )
        reader.start()
        time.sleep(0.5)  # the reader is waiting for a line
        bot.kill()
        reader.join(timeout=15)
        assert not reader.is_alive(), "the reader still waits after kill()"
        report = bot.stop()
    finally:
        bot.stop()
    assert replies and replies[0].status is sandbox.ReadStatus.EOF, replies
    assert replies[0].elapsed_ms < 10_000, replies
    assert report.exit_code is not None, report  # it was waited for, then removed
    assert harness.leftovers(bot) == []


def test_stop_removes_the_bot_even_when_collecting_its_last_output_fails(
    harness: Harness, monkeypatch
):
    """Collecting stderr on the way out is best effort. It used to raise
    (two threads polling one bot) and skip the kill and the removal, which
    left exited containers behind when `make run` was stopped."""
    bot = harness.backend.launch(
        BOTS / "sleep_past_deadline", LIMITS, "drain-fails", labels={SESSION_LABEL: SESSION}
    )

    def fails() -> None:
        raise RuntimeError("concurrent poll() invocation")

    drain = "_drain_available" if harness.backend.name == "docker" else "_drain_stderr"
    monkeypatch.setattr(bot, drain, fails)
    report = bot.stop()
    assert "drain: RuntimeError: concurrent poll() invocation" in report.detail
    assert harness.leftovers(bot) == []


@pytest.mark.docker
def test_a_referee_killed_mid_match_leaves_no_container(docker_backend):
    """SIGKILL (or an unhandled SIGTERM) runs no `finally`: the guard process
    removes what its parent created and did not remove."""
    import signal
    import sys

    api = docker_backend.api()
    referee = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from sandbox import Limits;"
            "from sandbox.docker_backend import DockerBackend;"
            f"bot = DockerBackend().launch(Path({str(BOTS / 'busy_loop')!r}), Limits(), 'killed',"
            f" labels={{{SESSION_LABEL!r}: {SESSION!r}}});"
            "bot.send_line(b'{}'); print(bot.container_id, flush=True); time.sleep(120)",
        ],
        stdout=subprocess.PIPE,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        cid = referee.stdout.readline().decode().strip()
        assert cid and api.inspect_container(cid)["State"]["Running"]
        referee.send_signal(signal.SIGKILL)
        referee.wait(timeout=30)
        deadline = time.monotonic() + 30
        while cid in _session_containers(api) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert cid not in _session_containers(api), "the killed referee's bot still exists"
    finally:
        referee.kill()
        referee.wait(timeout=30)
        referee.stdout.close()
        for left in _session_containers(api):
            api.remove_container(left, force=True)
