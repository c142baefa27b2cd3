"""The sandbox API: run one untrusted program and move JSON lines.

This package knows nothing of games or Django. A backend launches a bot (a
directory holding `main.py`) under `Limits` and returns a `BotProcess` that
can send a line, read one line before a deadline, and stop with an
`ExitReport`. Backends: `docker` (production) and `process` (development).
"""

from __future__ import annotations

import math
import os
import stat
import time
from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path

from sandbox.streams import LineBuffer, Tail


class SandboxError(Exception):
    """A failure of the sandbox itself (daemon down, image missing): a system
    fault, never the bot's."""


class ReadStatus(StrEnum):
    LINE = "line"  # a complete line arrived
    TIMEOUT = "timeout"  # the deadline passed first
    EOF = "eof"  # the bot closed stdout / exited
    TOO_LARGE = "too_large"  # the line exceeded max_line_bytes


@dataclass(frozen=True)
class ReadResult:
    status: ReadStatus
    line: bytes = b""  # without the trailing newline; raw bytes, not decoded
    elapsed_ms: float = 0.0


#: The least memory a bot starts in: Python, the SDK and the engines a bot may
#: import. Measured with builtin:random (the SDK alone) and builtin:greedy and
#: builtin:search (the engines): the process sandbox (RLIMIT_AS counts address
#: space) needs 16 and 28 MiB, the docker one 6 (Docker's own floor) and 15
#: MiB. Below that a bot dies at start, or in Docker pages so slowly that no
#: seat answers in time (a "system fault"). 32 leaves a little room.
MIN_MEMORY_MIB = 32


@dataclass(frozen=True)
class Limits:
    memory_mib: int = 256
    cpus: float = 1.0
    pids: int = 64
    startup_ms: int = 10_000  # allowance for the container/process to start
    max_line_bytes: int = 1 << 20
    stderr_tail_bytes: int = 64 * 1024
    tmpfs_mib: int = 16
    file_size_mib: int = 1
    nofile: int = 64

    def __post_init__(self) -> None:
        # to Docker and tmpfs, 0 or -1 means "no limit": refuse, never pass on
        for name, value in asdict(self).items():
            kinds, what = ((int, float), "a number") if name == "cpus" else ((int,), "an integer")
            least = MIN_MEMORY_MIB if name == "memory_mib" else 0
            wrong = isinstance(value, bool) or not isinstance(value, kinds)
            if wrong or not 0 < value < math.inf or value < least:
                bound = f"of at least {least} (a bot needs that to start)" if least else "above 0"
                raise ValueError(f"sandbox limit {name}={value!r}: expected {what} {bound}")


class ExitKind(StrEnum):
    RUNNING_AT_STOP = "running_at_stop"  # alive until we stopped it (normal)
    EXITED = "exited"  # exited by itself
    CRASHED = "crashed"  # non-zero exit / signal not caused by us
    MEMORY = "memory"  # killed for exceeding the memory limit
    TIMEOUT = "timeout"  # we killed it after a deadline passed
    OUTPUT_TOO_LARGE = "output_too_large"  # we killed it for a too-long line


@dataclass
class ExitReport:
    kind: ExitKind
    exit_code: int | None
    oom_killed: bool = False
    stderr_tail: str = ""
    detail: str = ""
    extra: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        data = asdict(self)
        data["kind"] = str(self.kind)
        return data


def ms_since(start: float) -> float:
    """Milliseconds since a time.monotonic() reading, to the microsecond."""
    return round((time.monotonic() - start) * 1000, 3)


class BotProcess(ABC):
    """One running bot. Not thread-safe: one reader/writer at a time, except
    kill(), which any thread may call."""

    name: str

    @abstractmethod
    def send_line(self, line: bytes, timeout_s: float = 5.0) -> bool:
        """Write one line (a newline is added). False if the bot no longer
        accepts input (closed stdin, exited, or blocked past timeout_s)."""

    # Backends keep the bot's output in these (sandbox.streams) and provide
    # the two hooks below; the deadline rules of reading live here, once.
    _stdout: LineBuffer
    _stderr: Tail
    _started: float  # time.monotonic() at launch

    def _usage(self, t0: float) -> dict[str, float]:
        """Report figures both backends measure alike; t0 = teardown start."""
        return {
            "stdout_bytes": self._stdout.total_bytes,
            "stderr_bytes": self._stderr.total_bytes,
            "lifetime_ms": round((t0 - self._started) * 1000, 1),
            "teardown_ms": ms_since(t0),
        }

    @abstractmethod
    def _output_ended(self) -> bool:
        """True once no more stdout can arrive (EOF, closed, stopped)."""

    @abstractmethod
    def _wait_and_read(self, timeout_ms: int) -> None:
        """Wait up to timeout_ms for output and feed what came into the buffers."""

    def read_line(self, deadline_s: float) -> ReadResult:
        """Read one stdout line; deadline_s is an absolute time.monotonic()."""
        start = time.monotonic()
        last_look = False
        while True:
            line = self._stdout.pop_line()
            if line is not None:
                return ReadResult(ReadStatus.LINE, line, ms_since(start))
            if self._stdout.too_large:
                return ReadResult(ReadStatus.TOO_LARGE, b"", ms_since(start))
            if self._output_ended():
                return ReadResult(ReadStatus.EOF, b"", ms_since(start))
            remaining = deadline_s - time.monotonic()
            if remaining <= 0:
                if last_look:  # a stderr flood must not keep us past the deadline
                    return ReadResult(ReadStatus.TIMEOUT, b"", ms_since(start))
                last_look = True  # one look at what already arrived
            self._wait_and_read(max(0, int(remaining * 1000 + 0.999)))

    def stderr_tail(self) -> str:
        """The bounded tail of stderr seen so far (decoded with replacement)."""
        return self._stderr.text()

    @abstractmethod
    def kill(self) -> None:
        """End the bot's processes now, from any thread, leaving its streams
        open: a thread waiting for its output sees the output end. stop()
        must still follow. Never raises."""

    @abstractmethod
    def stop(self, reason: ExitKind | None = None) -> ExitReport:
        """Tear down (idempotent): close streams, kill, wait, remove.
        `reason` records why we stopped it (TIMEOUT, OUTPUT_TOO_LARGE).
        Never raises for the bot's sake; teardown trouble goes in `detail`."""

    def __enter__(self) -> BotProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


class Backend(ABC):
    name: str
    #: False for backends that must not run untrusted code in production
    safe_for_untrusted: bool

    @abstractmethod
    def launch(
        self, bot_dir: Path, limits: Limits, name: str, labels: dict[str, str] | None = None
    ) -> BotProcess:
        """Start `python3 -I -u main.py` in bot_dir. Raises SandboxError on a
        system failure; a bot that dies at start shows up as EOF on read."""

    @abstractmethod
    def self_check(self) -> str | None:
        """None when the backend can launch bots here, else the reason."""

    def check_bot_dir(self, bot_dir: Path) -> Path:
        """The absolute bot directory if this backend's bot user can read it,
        else SandboxError. `launch` calls it; callers may call it up front so
        that no bot is started (or blamed) for a directory the sandbox cannot
        use."""
        return check_bot_dir(bot_dir)


def classify_exit(
    *, running_at_stop: bool, reason: ExitKind | None, exit_code: int | None, oom_killed: bool
) -> ExitKind:
    """One rule for every backend: a memory kill the bot did not survive wins,
    then the reason we stopped it for, then how it ended by itself."""
    if oom_killed and not running_at_stop:
        return ExitKind.MEMORY
    if reason is not None:
        return reason
    if running_at_stop:
        return ExitKind.RUNNING_AT_STOP
    return ExitKind.EXITED if exit_code == 0 else ExitKind.CRASHED


def check_bot_dir(bot_dir: Path, *, ancestors: bool = False) -> Path:
    """The absolute bot directory, or SandboxError: it must hold main.py and
    both must be readable by others, since bots run as an unprivileged user.
    With `ancestors`, every directory above it must be searchable by others
    too: needed when the sandbox itself opens the path as that user (the
    process backend as root, where bubblewrap would fail with "Can't find
    source path … Permission denied"). A bad directory is the platform's
    fault (uploads are checked before)."""
    bot_dir = Path(bot_dir).resolve()
    main = bot_dir / "main.py"
    try:
        dir_mode = os.stat(bot_dir).st_mode
        main_mode = os.stat(main).st_mode
    except OSError as exc:
        raise SandboxError(f"bot directory unusable: {exc}") from exc
    if not stat.S_ISDIR(dir_mode) or not stat.S_ISREG(main_mode):
        raise SandboxError(f"{bot_dir} must be a directory holding a main.py file")
    if dir_mode & 0o005 != 0o005 or main_mode & 0o004 != 0o004:
        raise SandboxError(f"{bot_dir} and its main.py must be readable by others (chmod o+rX)")
    if ancestors:
        for parent in bot_dir.parents:
            try:
                mode = os.stat(parent).st_mode
            except OSError as exc:
                raise SandboxError(f"bot directory unusable: {exc}") from exc
            if mode & 0o001 == 0:
                raise SandboxError(
                    f"{parent} is not searchable by others (chmod o+x), so the sandbox "
                    f"user cannot reach the bot in {bot_dir}"
                )
    return bot_dir
