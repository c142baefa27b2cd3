"""Process backend (development without Docker): a subprocess with rlimits in
its own session, inside bubblewrap when it is installed.

NOT SAFE FOR UNTRUSTED CODE. There is no CPU cap across processes, no
memory cgroup (RLIMIT_AS only), a seccomp filter (the Docker init's, by
bubblewrap's --seccomp) that bubblewrap's own PID 1 escapes and the bot can
reach through /proc/1/mem, and without bubblewrap none, and the bot sees the
whole host as the user running it. When run as root, each
bot gets its own otherwise unused uid, which makes RLIMIT_NPROC effective
and lets stop() sweep every process the bot left, even outside its group.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import random
import resource
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from sandbox import bot_init
from sandbox.base import (
    Backend,
    BotProcess,
    ExitKind,
    ExitReport,
    Limits,
    SandboxError,
    check_bot_dir,
    classify_exit,
)
from sandbox.streams import LineBuffer, Tail

#: The memory limit here is RLIMIT_AS, which counts reserved address space,
#: and glibc reserves a 64 MiB malloc arena for each new thread: under 256 MiB
#: a bot could start only about 6 threads (in Docker, where memory is counted
#: as used, 60 or so). With one arena, shared by all threads, each thread
#: costs its stack only (a second arena, made when threads contend for the
#: first, would take 64 MiB again at random moments).
ADDRESS_SPACE_ENV = {"MALLOC_ARENA_MAX": "1"}

log = logging.getLogger(__name__)

PYTHON_ENV = "SANDBOX_PROCESS_PYTHON"
UID_FIRST, UID_COUNT = 61000, 1000  # slot uids used when running as root
#: One lock file per slot uid, held (flock) while a bot runs under it: a uid is
#: never handed to two bots at once, across threads and worker processes.
#: (The bot's clean-up kills every process of its uid: a shared uid would kill
#: another match's bot.)
UID_LOCK_DIR = Path(tempfile.gettempdir()) / "gemarena-sandbox-uids"
EXTRA_LIB_MOUNT = "/opt/arena/lib"
WARNING = (
    "process sandbox: NOT SAFE FOR UNTRUSTED CODE (no CPU/memory cgroups, partial seccomp%s); "
    "use the Docker backend for real bots"
)
_warned = False
_MIB = 1024 * 1024
_READ_BYTES = 1 << 16


def _warn_once(bwrap: str | None) -> None:
    global _warned
    if not _warned:
        _warned = True
        log.warning(WARNING, "" if bwrap else "; no bubblewrap: the bot sees the host")


def _processes() -> list[tuple[int, int, int]]:
    """(pid, uid, pgid) of every live process on the host (zombies are dead:
    they hold no resources and init reaps them)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            uid = os.stat(f"/proc/{entry}").st_uid
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            state, pgid = fields[0], int(fields[2])
        except (OSError, ValueError, IndexError):
            continue
        if state not in ("Z", "X"):
            found.append((int(entry), uid, pgid))
    return found


class ProcessBackend(Backend):
    name = "process"
    safe_for_untrusted = False

    def __init__(
        self,
        python: str | None = None,
        use_bwrap: bool | None = None,
        extra_lib: Path | None = None,
    ) -> None:
        """use_bwrap: None = when installed; extra_lib: a directory of
        packages bots may import (the image's /opt/arena/lib)."""
        self.bwrap = shutil.which("bwrap") if use_bwrap is not False else None
        if use_bwrap and not self.bwrap:
            raise SandboxError("bubblewrap (bwrap) is not installed")
        # the distribution's interpreter: readable by the slot uids, under /usr
        default = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else "python3"
        self.python = python or os.environ.get(PYTHON_ENV) or shutil.which(default) or default
        if self.bwrap and not os.path.realpath(self.python).startswith("/usr/"):
            raise SandboxError(f"{self.python}: under bubblewrap only /usr is visible")
        self.extra_lib = Path(extra_lib).resolve() if extra_lib else None
        self.dedicated_uids = os.geteuid() == 0
        self._checked: str | None | bool = False
        _warn_once(self.bwrap)

    def self_check(self) -> str | None:
        if self._checked is False:
            try:
                with self._filter() as fd:
                    probe = self._command(Path("/"), Limits(), None, ["-c", "pass"], fd)
                    result = subprocess.run(
                        probe, capture_output=True, timeout=20, cwd="/", pass_fds=_fds(fd)
                    )
                self._checked = (
                    None
                    if result.returncode == 0
                    else f"cannot start {self.python}: {result.stderr.decode(errors='replace')[-300:]}"
                )
            except (OSError, subprocess.TimeoutExpired) as exc:
                self._checked = f"cannot start {self.python}: {exc}"
        return self._checked  # type: ignore[return-value]

    def _command(
        self,
        bot_dir: Path,
        limits: Limits,
        extra_lib: Path | None,
        argv: list[str],
        filter_fd: int | None = None,
    ) -> list[str]:
        if not self.bwrap:
            return [self.python, "-I", "-u", *argv]
        cmd = [
            self.bwrap,
            "--unshare-all",  # own net (only lo), pid, ipc, uts, cgroup namespaces
            "--unshare-user",
            "--disable-userns",
            "--new-session",
            "--cap-drop", "ALL",
            "--uid", "65534", "--gid", "65534",
            "--hostname", "bot",
            "--ro-bind", "/usr", "/usr",
            "--symlink", "usr/lib", "/lib",
            "--symlink", "usr/lib64", "/lib64",
            "--symlink", "usr/bin", "/bin",
            "--proc", "/proc",
            "--dev", "/dev",
            "--size", str(limits.tmpfs_mib * _MIB), "--tmpfs", "/tmp",
            "--ro-bind", str(bot_dir), "/bot",
        ]  # fmt: skip
        if extra_lib:
            cmd += ["--ro-bind", str(extra_lib), EXTRA_LIB_MOUNT]
        if filter_fd is not None:
            cmd += ["--seccomp", str(filter_fd)]  # the Docker init's filter (bot_init.py)
        if threading.current_thread() is threading.main_thread():
            # PDEATHSIG fires when the launching *thread* ends: main thread only
            cmd.append("--die-with-parent")
        cmd += [
            "--remount-ro", "/",
            "--chdir", "/bot",
            "--clearenv",
            "--setenv", "PATH", "/usr/bin",
            "--setenv", "HOME", "/tmp",
            "--setenv", "LANG", "C.UTF-8",
            "--setenv", "OMP_NUM_THREADS", "1",
            "--setenv", "OPENBLAS_NUM_THREADS", "1",
            *(arg for name, value in ADDRESS_SPACE_ENV.items()
              for arg in ("--setenv", name, value)),
            self.python, "-I", "-u", *argv,
        ]  # fmt: skip
        return cmd

    @contextlib.contextmanager
    def _filter(self) -> Iterator[int | None]:
        """A pipe holding the seccomp filter for bubblewrap's --seccomp (the
        one the Docker backend's init installs), or None: no bubblewrap, or a
        machine the filter does not know."""
        if not self.bwrap or os.uname().machine not in bot_init.SYSCALLS:
            yield None
            return
        read, write = os.pipe()
        try:
            os.write(write, bot_init.compiled())  # a few hundred bytes: fits the pipe
            os.close(write)
            write = -1
            yield read
        finally:
            for fd in (read, write):
                if fd >= 0:
                    os.close(fd)

    def _pick_uid(self) -> tuple[int, int]:
        """A slot uid no process uses and no other bot holds, with its lock's fd."""
        UID_LOCK_DIR.mkdir(mode=0o700, exist_ok=True)
        busy = {uid for _, uid, _ in _processes()}
        for _ in range(200):
            uid = UID_FIRST + random.randrange(UID_COUNT)
            if uid in busy:
                continue
            fd = os.open(UID_LOCK_DIR / f"{uid}.lock", os.O_CREAT | os.O_RDWR, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            return uid, fd
        raise SandboxError("no free sandbox uid")

    def check_bot_dir(self, bot_dir: Path) -> Path:
        # as root, bubblewrap (or python) runs as the slot uid and must be
        # able to walk down to the directory itself
        return check_bot_dir(bot_dir, ancestors=self.dedicated_uids)

    def launch(
        self, bot_dir: Path, limits: Limits, name: str, labels: dict[str, str] | None = None
    ) -> ProcessBot:
        bot_dir = self.check_bot_dir(bot_dir)
        uid, uid_lock = self._pick_uid() if self.dedicated_uids else (None, None)
        if self.extra_lib:
            where = EXTRA_LIB_MOUNT if self.bwrap else str(self.extra_lib)
            main = "/bot/main.py" if self.bwrap else str(bot_dir / "main.py")
            argv = [
                "-c",
                f"import sys,runpy; sys.path.insert(1, {where!r}); sys.argv = [{main!r}]; "
                f"runpy.run_path({main!r}, run_name='__main__')",
            ]
        else:
            argv = ["/bot/main.py" if self.bwrap else "main.py"]
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp", **ADDRESS_SPACE_ENV}

        def limit() -> None:  # runs in the child between fork and exec
            for res, value in (
                (resource.RLIMIT_AS, limits.memory_mib * _MIB),
                (resource.RLIMIT_FSIZE, limits.file_size_mib * _MIB),
                (resource.RLIMIT_NOFILE, limits.nofile),
                (resource.RLIMIT_CORE, 0),
            ):
                resource.setrlimit(res, (value, value))
            if uid is not None:  # per real uid: only meaningful with a dedicated uid
                resource.setrlimit(resource.RLIMIT_NPROC, (limits.pids, limits.pids))

        try:
            with self._filter() as fd:
                cmd = self._command(bot_dir, limits, self.extra_lib, argv, fd)
                proc = subprocess.Popen(
                    cmd,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    cwd=str(bot_dir) if not self.bwrap else "/",
                    env=env,
                    start_new_session=True,
                    preexec_fn=limit,
                    user=uid,
                    group=uid,
                    extra_groups=[] if uid is not None else None,
                    pass_fds=_fds(fd),
                )
        except OSError as exc:
            if uid_lock is not None:
                os.close(uid_lock)
            raise SandboxError(f"cannot start {cmd[0]}: {exc}") from exc
        return ProcessBot(proc, name, limits, uid, uid_lock)


class ProcessBot(BotProcess):
    def __init__(
        self,
        proc: subprocess.Popen,
        name: str,
        limits: Limits,
        uid: int | None,
        uid_lock: int | None = None,
    ) -> None:
        self.name = name
        self.pid = proc.pid
        self.pgid = proc.pid  # start_new_session: the bot leads its own group
        self.uid = uid
        self._uid_lock = uid_lock  # released when the bot is stopped
        self._proc = proc
        assert proc.stdin and proc.stdout and proc.stderr
        self._in, self._out, self._err = (
            proc.stdin.fileno(),
            proc.stdout.fileno(),
            proc.stderr.fileno(),
        )
        for fd in (self._in, self._out, self._err):
            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
        self._poll = select.poll()
        self._poll.register(self._out, select.POLLIN)
        self._poll.register(self._err, select.POLLIN)
        self._stdout = LineBuffer(limits.max_line_bytes)
        self._stderr = Tail(limits.stderr_tail_bytes)
        self._eof = False
        self._err_open = True
        self._input_broken = False
        self._report: ExitReport | None = None
        self._started = time.monotonic()

    def _read(self, fd: int) -> None:
        try:
            data = os.read(fd, _READ_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if fd == self._out:
            if data:
                self._stdout.feed(data)
            else:
                self._eof = True
                self._poll.unregister(fd)
        elif data:
            self._stderr.feed(data)
        else:
            self._err_open = False
            self._poll.unregister(fd)

    def _output_ended(self) -> bool:
        return self._eof or self._report is not None

    def _wait_and_read(self, timeout_ms: int) -> None:
        for fd, _ in self._poll.poll(timeout_ms):
            self._read(fd)

    def send_line(self, line: bytes, timeout_s: float = 5.0) -> bool:
        if b"\n" in line:
            raise ValueError("a line must not contain a newline")
        if self._report is not None or self._input_broken:
            return False
        view = memoryview(line + b"\n")
        deadline = time.monotonic() + timeout_s
        while view:
            try:
                view = view[os.write(self._in, view) :]
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:  # EPIPE: the bot closed stdin or exited
                self._input_broken = True
                return False
            if not view:
                break
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._input_broken = True
                return False
            poller = select.poll()
            poller.register(self._in, select.POLLOUT)
            poller.poll(int(remaining * 1000) + 1)
        return True

    def leftovers(self) -> list[int]:
        """Pids still in the bot's group or, with a dedicated uid, of its uid."""
        return [
            pid
            for pid, uid, pgid in _processes()
            if pgid == self.pgid or (self.uid is not None and uid == self.uid)
        ]

    def _kill_all(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pgid, signal.SIGKILL)
        if self.uid is not None:
            # kill(-1) as the bot's uid reaches every process it owns,
            # including those that left the group with setsid()
            subprocess.run(
                ["kill", "-KILL", "-1"], user=self.uid, group=self.uid, extra_groups=[],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
            )  # fmt: skip

    def kill(self) -> None:
        if self._report is None:
            self._kill_all()  # its pipes then end

    def stop(self, reason: ExitKind | None = None) -> ExitReport:
        if self._report is not None:
            return self._report
        t0 = time.monotonic()
        details: list[str] = []
        try:
            self._drain_stderr()
        except Exception as exc:  # best effort: never skip the kill below
            details.append(f"drain: {exc.__class__.__name__}: {exc}")
        # alive = its output had not ended (as for Docker); a bot whose
        # output ended gets a moment to exit by itself, so its own code counts
        running = not self._eof and self._proc.poll() is None
        if self._eof:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(timeout=0.5)
        for stream in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            with contextlib.suppress(OSError):
                stream.close()  # type: ignore[union-attr]
        self._kill_all()
        try:
            code = self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            details.append("process did not die within 10 s")
            code = None
        for _ in range(50):  # the uid sweep is asynchronous: give it a moment
            if not self.leftovers():
                break
            self._kill_all()
            time.sleep(0.01)
        else:
            details.append(f"left processes behind: {_describe(self.leftovers())}")
        if self._uid_lock is not None:
            # free again (a process left behind keeps it busy: _pick_uid skips
            # uids that any live process has)
            os.close(self._uid_lock)
            self._uid_lock = None
        exit_code = 128 - code if code is not None and code < 0 else code
        tail = self._stderr.text()
        oom = bool(exit_code) and "MemoryError" in "\n".join(tail.strip().splitlines()[-2:])
        self._report = ExitReport(
            kind=classify_exit(
                running_at_stop=running, reason=reason, exit_code=exit_code, oom_killed=oom
            ),
            exit_code=exit_code,
            oom_killed=oom,
            stderr_tail=tail,
            detail="; ".join(details),
            extra={
                "backend": "process",
                "bwrap": "--unshare-all" in self._proc.args,
                **self._usage(t0),
            },
        )
        return self._report

    def _drain_stderr(self) -> None:
        got, deadline = 0, time.monotonic() + 0.05
        while self._err_open and got < _MIB and time.monotonic() < deadline:
            if not self._poll.poll(0):
                return
            before = self._stderr.total_bytes
            self._read(self._err)
            if self._stderr.total_bytes == before:
                return
            got += self._stderr.total_bytes - before


def _fds(fd: int | None) -> tuple[int, ...]:
    return () if fd is None else (fd,)


def _describe(pids: list[int]) -> str:
    out = []
    for pid in pids:
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:80]
        except OSError:
            cmd = "?"
        out.append(f"{pid} ({cmd.strip()})")
    return ", ".join(out)
