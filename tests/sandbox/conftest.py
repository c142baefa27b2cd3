"""Sandbox test set-up: the backends, skipped or mandatory, and a harness that
launches the hostile bots and checks that nothing is left behind.

Docker tests (marker `docker`) are skipped with the reason printed when the
engine or the bot image is missing, unless REQUIRE_DOCKER=1: then they fail.
When the engine answers but the image is missing, the session builds the
host-copy image first, with the bot library (`python -m sandbox.image ensure`),
and rebuilds it when its bot library is another version's.
"""

from __future__ import annotations

import functools
import hashlib
import os
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from sandbox import BotProcess, ExitReport, Limits, ReadStatus, SandboxError

BOTS = Path(__file__).parent / "bots"
SESSION_LABEL = "gemarena.test.session"
SESSION = uuid.uuid4().hex[:12]
LIMITS = Limits(
    memory_mib=128,
    cpus=1.0,
    pids=64,
    startup_ms=10_000,
    max_line_bytes=64 * 1024,
    stderr_tail_bytes=4096,
)


def require_docker() -> bool:
    return os.environ.get("REQUIRE_DOCKER", "").strip().lower() in {"1", "true", "yes", "on"}


@functools.cache
def docker_problem() -> str | None:
    """None when Docker bots can run; builds the image when it is missing or
    its bot library is not these sources' (a direct pytest run after an edit)."""
    try:
        from sandbox.docker_backend import DockerBackend
        from sandbox.image import ensure
    except ImportError as exc:
        return f"docker-py missing: {exc}"
    backend = DockerBackend()
    problem = backend.engine_problem()
    if problem:
        return problem
    from arena.sdk_lib import bot_lib

    try:
        said = ensure(backend.image, extra_libs=(bot_lib(),))
    except SandboxError as exc:
        return f"bot image {backend.image} missing or stale, and the build failed: {exc}"
    if said != f"{backend.image} present":
        print(f"\nsandbox: {said}")
    return backend.self_check()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    # before tests/conftest.py probes the engine: build the image if needed
    if item.get_closest_marker("docker") is not None:
        docker_problem()


@pytest.fixture(scope="session")
def docker_backend():
    problem = docker_problem()
    if problem:
        if require_docker():
            pytest.fail(f"REQUIRE_DOCKER=1 but {problem}", pytrace=False)
        pytest.skip(f"docker: {problem}")
    from sandbox.docker_backend import DockerBackend

    return DockerBackend()


@pytest.fixture(scope="session")
def process_backend():
    from sandbox.process_backend import ProcessBackend

    backend = ProcessBackend()
    problem = backend.self_check()
    if problem:
        pytest.skip(f"process backend: {problem}")
    return backend


@pytest.fixture(scope="session")
def plain_process_backend():
    from sandbox.process_backend import ProcessBackend

    backend = ProcessBackend(use_bwrap=False)
    problem = backend.self_check()
    if problem:
        pytest.skip(f"process backend: {problem}")
    return backend


@pytest.fixture(
    params=[
        pytest.param("docker", marks=pytest.mark.docker),
        "process",
        "plain_process",
    ]
)
def backend(request):
    return request.getfixturevalue(f"{request.param}_backend")


def tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if "__pycache__" in path.parts:
            continue
        digest.update(str(path.relative_to(root)).encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


class Harness:
    """Launches case bots on one backend; `finish` checks the aftermath."""

    def __init__(self, backend) -> None:
        self.backend = backend
        self.report: ExitReport | None = None

    def needs(
        self,
        *,
        bwrap: bool = False,
        slot_uid: bool = False,
        cgroups: bool = False,
        seccomp: bool = False,
    ) -> None:
        """Skip on a process backend that cannot contain this case."""
        if self.backend.name != "process":
            return
        if cgroups:
            pytest.skip("process backend: no CPU cap across processes (no cgroups)")
        if seccomp and not self.backend.bwrap:
            pytest.skip("process backend without bubblewrap: no seccomp filter")
        if bwrap and not self.backend.bwrap:
            pytest.skip("process backend without bubblewrap cannot contain this case")
        if slot_uid and not self.backend.dedicated_uids:
            pytest.skip("process backend: RLIMIT_NPROC needs a dedicated uid (run as root)")

    @contextmanager
    def launched(self, case: str, limits: Limits = LIMITS) -> Iterator[BotProcess]:
        bot = self.backend.launch(BOTS / case, limits, case, labels={SESSION_LABEL: SESSION})
        try:
            yield bot
        finally:
            self.report = bot.stop()

    def ask(self, bot: BotProcess, line: bytes = b'{"go": 1}', wait_s: float = 10.0):
        assert bot.send_line(line)
        return bot.read_line(time.monotonic() + wait_s)

    def leftovers(self, bot: BotProcess) -> list:
        if self.backend.name == "docker":
            api = self.backend.api()
            found = api.containers(all=True, filters={"label": [f"{SESSION_LABEL}={SESSION}"]})
            return [c["Names"] for c in found]
        return bot.leftovers()

    def finish(self, bot: BotProcess) -> ExitReport:
        """After the case: the report exists, nothing is left behind and
        the next launch on this backend works."""
        report = bot.stop()
        assert self.leftovers(bot) == [], "bot left something running"
        with self.launched("good") as good:
            reply = self.ask(good, b'{"after": 1}')
            assert reply.status is ReadStatus.LINE, reply
        assert self.report is not None and self.report.kind == "running_at_stop", self.report
        return report


@pytest.fixture
def harness(backend) -> Iterator[Harness]:
    before = tree_digest(BOTS)
    yield Harness(backend)
    assert tree_digest(BOTS) == before, "a bot changed the bot directories on the host"
