"""Docker backend (production): one long-lived, hardened container per bot
per match, spoken to over the attach socket.

The flag set and the pitfalls it avoids are described in docs/sandbox.md.
Only this module imports docker-py.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import secrets
import select
import socket
import threading
import time
from pathlib import Path
from typing import Any

from sandbox import guard
from sandbox.base import (
    Backend,
    BotProcess,
    ExitKind,
    ExitReport,
    Limits,
    SandboxError,
    classify_exit,
)
from sandbox.streams import STDERR, STDOUT, FrameDemux, LineBuffer, Tail

log = logging.getLogger(__name__)

IMAGE_ENV = "SANDBOX_IMAGE"
DEFAULT_IMAGE = "gemarena-bot:current"
RUNTIME_ENV = "SANDBOX_DOCKER_RUNTIME"  # e.g. "runsc" for gVisor, when installed

LABEL = "gemarena.sandbox"  # "1" on every container this package creates
LABEL_CREATED = "gemarena.sandbox.created"  # unix time, for the reaper
LABEL_BOT = "gemarena.sandbox.bot"

BOT_UID = "65534:65534"
BOT_COMMAND = ["/usr/bin/python3", "-I", "-u", "/bot/main.py"]
#: PID 1 of the container: sandbox/bot_init.py's text, run as the same
#: interpreter's `-c` program, confines itself and then starts BOT_COMMAND
#: (it replaces Docker's tini; why in that file)
INIT_COMMAND = [
    "/usr/bin/python3",
    "-I",
    "-S",
    "-c",
    (Path(__file__).with_name("bot_init.py")).read_text(),
]
INIT_MACHINES = ("x86_64", "aarch64")  # bot_init.SYSCALLS
BOT_ENV = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/tmp",
    "LANG": "C.UTF-8",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONUNBUFFERED": "1",
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}
API_TIMEOUT_S = 30
WAIT_TIMEOUT_S = 10
SIGKILL_EXIT = 128 + 9  # our init passes on the bot's death by SIGKILL as 137
OOM_EVENT_WAIT_S = 1.0  # how long a SIGKILL we did not send waits for an "oom" event
_STOP_DRAIN_BYTES = 1 << 20
_RECV_BYTES = 1 << 16


def image_name() -> str:
    return os.environ.get(IMAGE_ENV) or DEFAULT_IMAGE


def container_name(name: str) -> str:
    slug = re.sub(r"[^a-zA-Z0-9_.-]+", "-", name).strip("-.")[:40] or "bot"
    return f"gemarena-bot-{slug}-{secrets.token_hex(4)}"


def _api_errors() -> tuple[type[BaseException], ...]:
    import docker.errors
    import requests.exceptions

    return (docker.errors.DockerException, requests.exceptions.RequestException, OSError)


#: Containers this process created but could not remove because the engine did
#: not answer (or a create whose answer was lost): removed at the next launch,
#: once the engine is back. The age reaper stays the last resort for a process
#: that dies first.
_unremoved: set[str] = set()
_unremoved_lock = threading.Lock()


def _remove_container(api: Any, ref: str) -> str | None:
    """Force-remove container `ref` (id or name); None when it is gone, else
    why not, and then it is kept for the next launch to retry."""
    import docker.errors

    try:
        api.remove_container(ref, force=True, v=True)
    except docker.errors.NotFound:
        pass
    except _api_errors() as exc:
        with _unremoved_lock:
            _unremoved.add(ref)
        return f"{exc.__class__.__name__}: {exc}"
    with _unremoved_lock:
        _unremoved.discard(ref)
    guard.release(ref)
    return None


def _retry_removals(api: Any) -> None:
    with _unremoved_lock:
        pending = sorted(_unremoved)
    for ref in pending:
        problem = _remove_container(api, ref)
        if problem:
            log.info("container %s still not removed: %s", ref, problem)
            return  # the engine is still away: the rest waits too
        log.info("removed container %s, left while the engine did not answer", ref)


class DockerBackend(Backend):
    name = "docker"
    safe_for_untrusted = True

    def __init__(self, image: str | None = None, runtime: str | None = None) -> None:
        self.image = image or image_name()
        self.runtime = runtime or os.environ.get(RUNTIME_ENV) or None
        self._client: Any = None

    def api(self) -> Any:
        """The low-level docker-py client (created on first use)."""
        if self._client is None:
            try:
                import docker
            except ImportError as exc:
                raise SandboxError("docker-py is not installed") from exc
            try:
                self._client = docker.APIClient(
                    **docker.utils.kwargs_from_env(), timeout=API_TIMEOUT_S, version="auto"
                )
            except _api_errors() as exc:
                raise SandboxError(f"Docker engine unreachable: {exc}") from exc
        return self._client

    def engine_problem(self) -> str | None:
        """None when the Docker engine answers, else why not."""
        try:
            self.api().ping()
        except SandboxError as exc:
            return str(exc)
        except _api_errors() as exc:
            return f"Docker engine unreachable: {exc}"
        return None

    def self_check(self) -> str | None:
        problem = self.engine_problem() or self.confinement_problem()
        if problem:
            return problem
        try:
            self.api().inspect_image(self.image)
        except _api_errors() as exc:
            return (
                f"bot image {self.image!r} missing ({exc.__class__.__name__}); "
                'build it with python -m sandbox.image ensure --extra-lib "$(python -m '
                'arena.sdk_lib)" (with the Python of the arena command, in the sources or '
                "the arena download; `make image` in the sources does the same), or for a "
                'server deploy/build-bot-image.sh --extra-lib "$(python -m arena.sdk_lib)"'
            )
        return None

    def confinement_problem(self) -> str | None:
        """None when the engine's machines can run our init's seccomp filter
        (sandbox/bot_init.py), else why not: without it every bot would fail
        to start, and be blamed for it."""
        try:
            info = self.api().info()
        except _api_errors() as exc:
            return f"Docker engine unreachable: {exc}"
        machine = info.get("Architecture") or "?"
        if machine not in INIT_MACHINES:
            return f"the Docker engine runs on {machine}: bots are confined on {INIT_MACHINES} only"
        if not any("name=seccomp" in opt for opt in info.get("SecurityOptions") or ()):
            return "the Docker engine has no seccomp support: bots cannot be confined"
        return None

    def host_config(self, bot_dir: Path, limits: Limits) -> Any:
        import docker.types

        mib = 1024 * 1024
        return self.api().create_host_config(
            network_mode="none",
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            read_only=True,
            tmpfs={"/tmp": f"rw,noexec,nosuid,nodev,size={limits.tmpfs_mib}m"},
            pids_limit=limits.pids,
            mem_limit=limits.memory_mib * mib,
            memswap_limit=limits.memory_mib * mib,  # equal: no swap
            nano_cpus=int(limits.cpus * 1e9),
            ulimits=[
                docker.types.Ulimit(name="nofile", soft=limits.nofile, hard=limits.nofile),
                docker.types.Ulimit(name="core", soft=0, hard=0),
                docker.types.Ulimit(
                    name="fsize", soft=limits.file_size_mib * mib, hard=limits.file_size_mib * mib
                ),
            ],
            ipc_mode="none",  # no /dev/shm: multiprocessing locks fail, documented
            init=False,  # PID 1 is ours (INIT_COMMAND): confined, reaps zombies
            oom_score_adj=1000,  # under host memory pressure, bots die first
            log_config=docker.types.LogConfig(type="none"),
            mounts=[docker.types.Mount("/bot", str(bot_dir), type="bind", read_only=True)],
            runtime=self.runtime,
        )

    def launch(
        self, bot_dir: Path, limits: Limits, name: str, labels: dict[str, str] | None = None
    ) -> DockerBot:
        bot_dir = self.check_bot_dir(bot_dir)
        api = self.api()
        _retry_removals(api)
        cname = container_name(name)
        all_labels = {
            **(labels or {}),
            LABEL: "1",
            LABEL_CREATED: f"{time.time():.3f}",
            LABEL_BOT: name[:200],
        }
        try:
            created = api.create_container(
                self.image,
                [*INIT_COMMAND, *BOT_COMMAND],
                name=cname,
                hostname="bot",
                user=BOT_UID,
                working_dir="/bot",
                environment=BOT_ENV,
                labels=all_labels,
                stdin_open=True,
                tty=False,
                detach=False,  # with stdin_open this sets StdinOnce=true: our EOF reaches the bot
                network_disabled=True,
                host_config=self.host_config(bot_dir, limits),
            )
        except _api_errors() as exc:
            import docker.errors

            if not isinstance(exc, docker.errors.APIError):
                # no answer: the engine may have created it all the same
                _remove_container(api, cname)
            raise SandboxError(f"cannot create container {cname}: {exc}") from exc
        cid = created["Id"]
        guard.watch(cid)  # removed even if this process dies before stop()
        sock = None
        try:
            # attach before start, or early output is lost
            sock = api.attach_socket(
                cid, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1}
            )
            api.start(cid)
        except BaseException as exc:
            _close_attach(sock)
            _remove_container(api, cid)
            if isinstance(exc, Exception):
                raise SandboxError(f"cannot start container {cname}: {exc}") from exc
            raise
        return DockerBot(api, cid, cname, sock, limits)


def _raw_socket(sock: Any) -> socket.socket:
    # attach_socket gives a SocketIO wrapper (no sendall) over a unix socket
    raw = getattr(sock, "_sock", sock)
    if not isinstance(raw, socket.socket):
        raise SandboxError("attach socket is not a plain socket (use a unix DOCKER_HOST)")
    return raw


def _close_attach(sock: Any) -> None:
    if sock is None:
        return
    raw = getattr(sock, "_sock", None)
    for action in (
        lambda: raw.shutdown(socket.SHUT_RDWR) if raw is not None else None,
        sock.close,
        lambda: raw.close() if raw is not None else None,
        lambda: sock._response.close() if hasattr(sock, "_response") else None,
    ):
        with contextlib.suppress(Exception):
            action()


class DockerBot(BotProcess):
    def __init__(self, api: Any, cid: str, name: str, sock: Any, limits: Limits) -> None:
        self.name = name
        self.container_id = cid
        self.limits = limits
        self._api = api
        self._sock = sock
        try:
            self._raw = _raw_socket(sock)
        except SandboxError:
            _close_attach(sock)
            raise
        self._raw.setblocking(False)
        self._poll = select.poll()
        self._poll.register(self._raw, select.POLLIN)
        self._demux = FrameDemux()
        self._stdout = LineBuffer(limits.max_line_bytes)
        self._stderr = Tail(limits.stderr_tail_bytes)
        self._eof = False
        self._input_broken = False
        self._closed = False
        self._report: ExitReport | None = None
        self._started = time.monotonic()
        self._created_wall = time.time()

    # -- reading -------------------------------------------------------------

    def _recv(self, discard_stdout: bool = False) -> int:
        """One recv; routes frames. Returns the bytes read (0 at EOF/no data)."""
        try:
            data = self._raw.recv(_RECV_BYTES)
        except (BlockingIOError, InterruptedError):
            return 0
        except OSError:
            data = b""
        if not data:
            self._eof = True
            return 0
        for stream, payload in self._demux.feed(data):
            if stream == STDOUT:
                if not discard_stdout:
                    self._stdout.feed(payload)
            elif stream == STDERR:
                self._stderr.feed(payload)
        return len(data)

    def _output_ended(self) -> bool:
        return self._eof or self._closed

    def _wait_and_read(self, timeout_ms: int) -> None:
        if self._poll.poll(timeout_ms):
            self._recv()

    # -- writing -------------------------------------------------------------

    def send_line(self, line: bytes, timeout_s: float = 5.0) -> bool:
        if b"\n" in line:
            raise ValueError("a line must not contain a newline")
        if self._closed or self._eof or self._input_broken:
            return False
        view = memoryview(line + b"\n")
        deadline = time.monotonic() + timeout_s
        while view:
            try:
                sent = self._raw.send(view)
            except (BlockingIOError, InterruptedError):
                sent = 0
            except OSError:
                self._input_broken = True
                return False
            view = view[sent:]
            if not view:
                break
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._input_broken = True  # a partial line: nothing more may follow
                return False
            select.select([], [self._raw], [], remaining)
        return True

    # -- teardown --------------------------------------------------------------

    def kill(self) -> None:
        if self._report is not None:
            return
        with contextlib.suppress(*_api_errors()):
            self._api.kill(self.container_id)  # the attach stream then ends

    def stop(self, reason: ExitKind | None = None) -> ExitReport:
        if self._report is not None:
            return self._report
        t0 = time.monotonic()
        details: list[str] = []
        try:
            self._drain_available()
        except Exception as exc:  # best effort: never skip the removal below
            details.append(f"drain: {exc.__class__.__name__}: {exc}")
        finally:
            # alive = we had not seen its output end; decided before closing
            # its stdin, which lets a well-behaved bot exit by itself
            running = not self._eof
            # close the socket before kill: a bot blocked writing to an unread
            # stream otherwise makes `kill` hang for the whole API timeout
            self._closed = True
            _close_attach(self._sock)
        exit_code: int | None = None
        oom = False
        killed = False
        api = self._api
        try:
            if api.inspect_container(self.container_id)["State"]["Running"]:
                killed = True
                with contextlib.suppress(*_api_errors()):
                    api.kill(self.container_id)  # may race with the bot's own exit
            api.wait(self.container_id, timeout=WAIT_TIMEOUT_S)
            state = api.inspect_container(self.container_id)["State"]
            exit_code = state.get("ExitCode")
            oom = bool(state.get("OOMKilled"))
            if not oom and exit_code == SIGKILL_EXIT and not killed and not running:
                oom = self._oom_event_seen()
        except _api_errors() as exc:
            details.append(f"teardown: {exc.__class__.__name__}: {exc}")
        finally:
            problem = _remove_container(api, self.container_id)
            if problem:
                details.append(f"remove failed (retried at the next launch): {problem}")
                log.error("cannot remove container %s: %s", self.name, problem)
        kind = classify_exit(
            running_at_stop=running, reason=reason, exit_code=exit_code, oom_killed=oom
        )
        self._report = ExitReport(
            kind=kind,
            exit_code=exit_code,
            oom_killed=oom,
            stderr_tail=self._stderr.text(),
            detail="; ".join(details),
            extra={
                "backend": "docker",
                "container": self.name,
                **self._usage(t0),
            },
        )
        return self._report

    def _oom_event_seen(self) -> bool:
        """Whether the engine logged an "oom" event for this container.

        A SIGKILL we did not send is a memory kill or the bot killing itself.
        The engine's State.OOMKilled depends on the kernel's OOM notice
        reaching it before the exit (Docker 20.10 once reported a memory kill
        under load as exit 137 with OOMKilled false, so it showed as a
        crash); the "oom" event is logged whenever the notice comes, so look
        for it, for a moment.
        """
        since = int(self._created_wall) - 60  # generous: the filter is the container id
        deadline = time.monotonic() + OOM_EVENT_WAIT_S
        while True:
            events = self._api.events(
                since=since,
                until=f"{time.time():.6f}",
                filters={"container": self.container_id, "event": "oom"},
                decode=True,
            )
            try:
                if any(True for _ in events):
                    return True
            finally:
                events.close()
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.1)

    def _drain_available(self) -> None:
        """Collect stderr already on its way (the daemon copies stdout and
        stderr separately, so a reply can overtake the last debug lines),
        bounded in bytes and time."""
        if self._eof:
            return
        got = 0
        deadline = time.monotonic() + 0.05
        while got < _STOP_DRAIN_BYTES and time.monotonic() < deadline:
            if not self._poll.poll(10):
                return
            n = self._recv(discard_stdout=True)
            if n == 0:
                return
            got += n
