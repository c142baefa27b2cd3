"""Run one untrusted program and move lines: the sandbox API and its backends.

Knows nothing of games or Django. `get_backend("auto")` gives the Docker
backend when the engine answers and the bot image exists, else the process
backend (not safe for untrusted code) with a logged warning.
"""

from __future__ import annotations

import logging
import os

from sandbox.base import (
    Backend,
    BotProcess,
    ExitKind,
    ExitReport,
    Limits,
    ReadResult,
    ReadStatus,
    SandboxError,
)

log = logging.getLogger(__name__)

BACKEND_ENV = "SANDBOX_BACKEND"
BACKEND_NAMES = ("auto", "docker", "process")

__all__ = [
    "BACKEND_NAMES",
    "Backend",
    "BotProcess",
    "ExitKind",
    "ExitReport",
    "Limits",
    "ReadResult",
    "ReadStatus",
    "SandboxError",
    "get_backend",
]


def get_backend(name: str | None = None) -> Backend:
    """The backend called `name` (auto, docker or process; default: the
    SANDBOX_BACKEND variable, else auto). Naming docker or process returns
    it even when it cannot run here: ask `self_check()` for the reason."""
    name = (name or os.environ.get(BACKEND_ENV) or "auto").strip().lower()
    if name not in BACKEND_NAMES:
        raise SandboxError(f"unknown sandbox backend {name!r}; choose one of {BACKEND_NAMES}")
    if name in ("auto", "docker"):
        from sandbox.docker_backend import DockerBackend

        docker = DockerBackend()
        if name == "docker":
            return docker
        problem = docker.self_check()
        if problem is None:
            return docker
        log.warning("sandbox: using the process backend, NOT SAFE FOR UNTRUSTED CODE: %s", problem)
    from sandbox.process_backend import ProcessBackend

    return ProcessBackend()
