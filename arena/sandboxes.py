"""Choosing the sandbox backend for matches, on behalf of the ladder.

The ladder never imports `sandbox` itself (DESIGN.md: ladder → arena →
sandbox); it asks here which backend a setting resolves to and whether it
can run bots.
"""

from __future__ import annotations

from dataclasses import dataclass

import sandbox


@dataclass(frozen=True)
class SandboxStatus:
    requested: str  # the setting: auto, docker or process
    backend: str  # the backend it resolves to, or "" when none can run
    safe_for_untrusted: bool
    problem: str  # "" when the backend can launch bots here
    docker_problem: str  # why Docker can't be used here ("" when it can)


def sandbox_status(requested: str) -> SandboxStatus:
    try:
        docker_problem = sandbox.get_backend("docker").self_check() or ""
    except sandbox.SandboxError as exc:
        docker_problem = str(exc)
    try:
        backend = sandbox.get_backend(requested)
    except sandbox.SandboxError as exc:
        return SandboxStatus(requested, "", False, str(exc), docker_problem)
    problem = backend.self_check() or ""
    return SandboxStatus(
        requested, backend.name, backend.safe_for_untrusted, problem, docker_problem
    )
