"""main.py is compiled in a child process with its own time and memory
limits (ladder/compile_check.py), not in the web process: a load test's
1 MB files took ~2 s each to compile there, held the worker's GIL and grew it
by hundreds of MiB for good."""

from __future__ import annotations

import builtins
import resource
import subprocess

import pytest

from ladder import uploads
from ladder.uploads import CheckUnavailable, UploadError, check_upload

MIB = 1 << 20


def slow_source(lines: int) -> bytes:
    """About 13 bytes a line; 80,000 lines take ~1.7 s and ~430 MiB to compile here."""
    return b'f"{a}{b}{c}"\n' * lines


def big_source() -> bytes:
    """A 600 kB list literal: ~200 MiB to compile, in well under a second."""
    return b"x = [" + b"1," * 300_000 + b"]\n"


@pytest.fixture
def compiled_here(monkeypatch) -> list[str]:
    """The uploads compiled in this (the web) process: the child is another
    interpreter, which this does not reach."""
    seen: list[str] = []
    real = builtins.compile

    def spy(source, filename, *args, **kwargs):
        if filename == "bot.py":
            seen.append(filename)
        return real(source, filename, *args, **kwargs)

    monkeypatch.setattr(builtins, "compile", spy)
    return seen


@pytest.fixture
def children(monkeypatch) -> list[subprocess.Popen]:
    """The check children started, in order."""
    started: list[subprocess.Popen] = []
    real = subprocess.Popen

    def spy(*args, **kwargs):
        child = real(*args, **kwargs)
        started.append(child)
        return child

    monkeypatch.setattr(uploads.subprocess, "Popen", spy)
    return started


def test_the_compile_runs_in_a_child_and_the_verdicts_stay(compiled_here, children) -> None:
    assert check_upload("bot.py", b"x = 1\n").files == {"main.py": b"x = 1\n"}
    with pytest.raises(UploadError, match="^bot.py has a syntax error on line 2: "):
        check_upload("bot.py", b"x = 1\ndef broken(:\n")
    with pytest.raises(UploadError, match="nests too deeply"):
        check_upload("bot.py", b"x = " + b"-" * 200_000 + b"1\n")
    assert len(children) == 3 and all(c.returncode == 0 for c in children)
    assert compiled_here == []


def test_a_file_over_the_time_limit_is_refused(settings, children, monkeypatch) -> None:
    settings.UPLOAD_CHECK_SECONDS = 1
    # CPU time stops this file; a busy CI machine must not make it "starved"
    # first (it did once: no verdict in 3 s of wall clock)
    monkeypatch.setattr(uploads, "STARVED_GRACE_SECONDS", 60.0)
    settings.UPLOAD_CHECK_MEMORY_MIB = 8192  # time, not memory, stops this one
    settings.BOT_UPLOAD_MAX_BYTES = 4 * MIB
    with pytest.raises(UploadError) as caught:
        check_upload("slow.py", slow_source(240_000))  # ~5 s here without the limit
    assert str(caught.value) == "slow.py took longer than 1 s to check"
    assert children[0].returncode is not None  # killed and reaped, not left running


def test_a_file_over_the_memory_limit_is_refused(settings) -> None:
    settings.UPLOAD_CHECK_MEMORY_MIB = 100
    with pytest.raises(UploadError) as caught:
        check_upload("big.py", big_source())
    assert str(caught.value) == "big.py needs more than 100 MiB to check"
    settings.UPLOAD_CHECK_MEMORY_MIB = 1024
    assert check_upload("big.py", big_source()).files["main.py"] == big_source()


def test_the_web_process_does_not_grow_by_the_compile(settings) -> None:
    """The child's peak memory is the child's: this process's peak RSS stays
    where it was while a file that needs ~430 MiB to compile is checked."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    check_upload("heavy.py", slow_source(80_000))
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
    child_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    assert child_peak > 300 * MIB
    assert grown < 50 * MIB


def test_no_child_process_is_the_servers_fault(monkeypatch, caplog) -> None:
    def cannot_spawn(*args, **kwargs):
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(uploads.subprocess, "Popen", cannot_spawn)
    with pytest.raises(CheckUnavailable) as caught:
        check_upload("bot.py", b"x = 1\n")
    assert not isinstance(caught.value, UploadError)  # not a refusal of the file
    assert "nothing counts against your hourly limit" in str(caught.value)
    assert "Resource temporarily unavailable" in caplog.text  # the cause is logged


def test_the_checks_before_the_child_are_unchanged(monkeypatch) -> None:
    """Not UTF-8 and NUL bytes are answered without a child."""
    monkeypatch.setattr(uploads.subprocess, "Popen", None)
    with pytest.raises(UploadError, match="^bot.py is not UTF-8 text"):
        check_upload("bot.py", b"print('caf\xe9')\n")
    with pytest.raises(UploadError, match="contains NUL bytes; it cannot be compiled"):
        check_upload("bot.py", b"x = 1\x00\n")


def test_a_busy_process_answers_busy(settings, monkeypatch) -> None:
    """Every check slot taken for longer than the wait: the server's fault too."""
    settings.UPLOAD_CHECK_SECONDS = 1
    settings.UPLOAD_CHECK_CONCURRENCY = 1
    monkeypatch.setattr(uploads, "SLOT_WAIT_SECONDS", 0.05)
    slots = uploads._check_slots()
    assert slots.acquire(timeout=1)
    try:
        with pytest.raises(CheckUnavailable) as caught:
            check_upload("bot.py", b"x = 1\n")
        assert str(caught.value) == uploads.BUSY
    finally:
        slots.release()
    assert check_upload("bot.py", b"x = 1\n")


def test_a_starved_check_is_the_servers_fault(settings, monkeypatch, tmp_path) -> None:
    """The file's limit is CPU time; a child that gets no verdict within twice
    the limit of wall-clock time was starved by a busy machine (a load test's
    burst refused files for the time other checks took): not the file's fault."""
    settings.UPLOAD_CHECK_SECONDS = 1
    starved = tmp_path / "starved.py"
    starved.write_text("import time\ntime.sleep(30)\n")
    monkeypatch.setattr(uploads, "COMPILE_CHECK", starved)
    with pytest.raises(CheckUnavailable) as caught:
        check_upload("bot.py", b"x = 1\n")
    assert str(caught.value) == uploads.BUSY


def crashing_check(tmp_path, crash: str, before_compiling: bool = False):
    """The real check child, with a compiler that crashes the way `crash`
    says: no source known here crashes this Python's compiler, but one that
    overflows its C stack dies of SIGSEGV mid-compile."""
    child = tmp_path / "crashing_check.py"
    child.write_text(
        "import builtins, os, signal, sys\n"
        f"sys.path.insert(0, {str(uploads.COMPILE_CHECK.parent)!r})\n"
        "import compile_check\n"
        "def crash(*args, **kwargs):\n"
        f"    {crash}\n"
        "builtins.compile = crash\n"
        + ("os.kill(os.getpid(), signal.SIGSEGV)\n" if before_compiling else "")
        + "sys.exit(compile_check.main(sys.argv))\n"
    )
    return child


@pytest.mark.parametrize(
    ("crash", "why"),
    [
        ("os.kill(os.getpid(), signal.SIGSEGV)", "SIGSEGV"),
        ("os.abort()", "SIGABRT"),
        ("raise SystemError('unexpected node')", "SystemError: unexpected node"),
    ],
)
def test_a_file_that_crashes_the_compiler_is_refused(
    monkeypatch, tmp_path, caplog, crash, why
) -> None:
    """The file's doing, like a file over the limits: refused with a reason
    (before, a 503 "try again later" that counted nothing, so the same file
    could be sent again and again without limit)."""
    monkeypatch.setattr(uploads, "COMPILE_CHECK", crashing_check(tmp_path, crash))
    with pytest.raises(UploadError) as caught:
        check_upload("deep.py", b"x = 1\n")
    assert str(caught.value) == (
        f"deep.py cannot be compiled: it crashes Python's compiler ({why}); "
        "simplify its deepest nesting or longest expression"
    )
    assert f"the compiler crashed on deep.py: {why}" in caplog.text


def test_a_child_that_dies_before_compiling_is_the_servers_fault(monkeypatch, tmp_path) -> None:
    """Not the file's doing: it had not been compiled yet."""
    child = crashing_check(tmp_path, "pass", before_compiling=True)
    monkeypatch.setattr(uploads, "COMPILE_CHECK", child)
    with pytest.raises(CheckUnavailable) as caught:
        check_upload("bot.py", b"x = 1\n")
    assert str(caught.value) == uploads.NOT_CHECKED


def test_a_file_slow_to_compile_is_not_read_for_its_game_again() -> None:
    """The game main.py names is read in the child by a second parse, which
    takes up to 2.3 times as long as the compile: with a fifth of the CPU time used
    already, the child skips it (the file passes, as when its game is named
    non-literally) rather than risk a "took longer" refusal of a file that
    compiles in time."""
    from ladder.compile_check import games_named

    text = "from gemarena_sdk import run\nrun(decide, game='splendor-duel')\n"
    # `used` is the child's own CPU time: not this test process's, which a
    # whole suite grows past any limit (ci38 failed this way)
    assert games_named(text, seconds=5, used=0.9) == [("splendor-duel", 2)]
    assert games_named(text, seconds=5, used=1.1) is None  # past a fifth of the limit
    assert games_named("x = 1\n", seconds=5, used=4.0) == []  # no game mentioned: nothing to read
