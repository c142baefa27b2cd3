"""Removes a process's bot containers when that process dies without doing so.

`stop()` removes a container in `finally`, but nothing runs in a referee
killed by SIGKILL (the OOM killer, a worker's hard time limit) or by a
SIGTERM it does not handle (`arena play` stopped by `timeout` or `kill`).
Measured: after SIGTERM to `arena play` mid-match, the bot that was
thinking kept spinning a CPU in its container; only the age reaper (3 h by
default, and only where it runs) would have removed it.

So the Docker backend tells a guard, one small child process per referee
process started at its first launch, each container it creates and each one
it removed. The guard reads those lines on a pipe; when the pipe ends (its
parent died, however) it force-removes whatever is still listed, then exits.
It runs in its own session, so a Ctrl-C to the terminal's process group
does not end it before its parent.

    python -m sandbox.guard    # reads "+<id>" / "-<id>" lines on stdin
"""

from __future__ import annotations

import atexit
import contextlib
import os
import subprocess
import sys
import threading

_lock = threading.Lock()
_proc: subprocess.Popen | None = None
_owner_pid = 0  # the process that started _proc (a fork must start its own)
API_WAIT_S = 30  # at exit, for the guard's removals (the engine's API timeout)


def _send(line: str) -> None:
    """Best effort: a guard that cannot be told is restarted once."""
    global _proc, _owner_pid
    with _lock:
        for _ in range(2):
            if _proc is None or _owner_pid != os.getpid() or _proc.poll() is not None:
                _proc = subprocess.Popen(
                    [sys.executable, "-m", "sandbox.guard"],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.DEVNULL,  # its stderr is ours: what it removed
                    start_new_session=True,
                    cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                    close_fds=True,
                )
                _owner_pid = os.getpid()
            try:
                _proc.stdin.write(line.encode() + b"\n")  # type: ignore[union-attr]
                _proc.stdin.flush()  # type: ignore[union-attr]
                return
            except OSError:
                _proc = None


def _forget_in_child() -> None:
    """A forked child must not hold the pipe: the guard of its parent would
    then wait for the child's end too. It starts its own when it launches."""
    global _proc
    if _proc is not None and _proc.stdin is not None:
        with contextlib.suppress(OSError):
            os.close(_proc.stdin.fileno())
    _proc = None


os.register_at_fork(after_in_child=_forget_in_child)


@atexit.register
def _end() -> None:
    """At a normal exit: end the pipe and wait for the guard (it removes what
    a thread left running), so that no process is left unwaited."""
    global _proc
    with _lock:
        if _proc is None or _owner_pid != os.getpid():
            return
        with contextlib.suppress(OSError):
            _proc.stdin.close()  # type: ignore[union-attr]
        with contextlib.suppress(subprocess.TimeoutExpired):
            _proc.wait(timeout=API_WAIT_S)
        _proc = None


def watch(container_id: str) -> None:
    """Remove this container if this process dies before `release`."""
    _send(f"+{container_id}")


def release(container_id: str) -> None:
    """The container is gone (removed by us): nothing left to guard."""
    _send(f"-{container_id}")


def main() -> int:
    import signal

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)  # only the end of the pipe ends us
    left: set[str] = set()
    for raw in sys.stdin.buffer:
        line = raw.decode(errors="replace").strip()
        if line.startswith("+"):
            left.add(line[1:])
        elif line.startswith("-"):
            left.discard(line[1:])
    if not left:
        return 0
    from sandbox.base import SandboxError
    from sandbox.docker_backend import DockerBackend

    try:
        api = DockerBackend().api()
    except SandboxError as exc:
        print(f"sandbox.guard: {len(left)} containers left to the reaper: {exc}", file=sys.stderr)
        return 1
    for cid in sorted(left):
        try:
            api.remove_container(cid, force=True, v=True)
            said = "removed"
        except Exception as exc:  # gone already (404), or the engine away: the reaper's
            said = f"not removed: {exc.__class__.__name__}: {exc}"
        print(f"sandbox.guard: container {cid[:12]} {said}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
