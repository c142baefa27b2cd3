"""Choosing the sandbox backend for matches, on behalf of the ladder and of
`arena tournament`.

The ladder never imports `sandbox` itself (the import direction is ladder →
arena → sandbox, tests/test_boundaries.py); it asks here which backend a setting resolves to and whether it
can run bots.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import shutil
import tempfile
import time
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

import sandbox

log = logging.getLogger(__name__)


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


def usable_backend(requested: str) -> sandbox.Backend:
    """The backend `requested` resolves to; SandboxError naming why it cannot
    run bots here (`arena play --sandbox docker` without the bot image)."""
    backend = sandbox.get_backend(requested)
    problem = backend.self_check()
    if problem:
        raise sandbox.SandboxError(f"the {backend.name} sandbox cannot run bots here: {problem}")
    return backend


def check_local_sandbox(requested: str, bots: Collection[tuple[str, Path]]) -> str:
    """For a local run of many matches (`arena tournament`): the backend
    `requested` resolves to, once it can run bots here and every bot's
    directory is usable by it; SandboxError naming the problem otherwise,
    so that it is told once instead of failing every match."""
    backend = usable_backend(requested)
    for label, path in bots:
        try:
            backend.check_bot_dir(path)
        except sandbox.SandboxError as exc:
            raise sandbox.SandboxError(f"{label}: {exc}") from None
    # an echo bot through it: a bot image without this version's bot library
    # would crash (or mislead) every bot that imports gemarena_sdk
    work = Path(tempfile.mkdtemp(prefix="gemarena-check-"))
    try:
        work.chmod(0o755)  # the bot's user reads its code from here
        ok, detail = sandbox_self_test(backend.name, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if not ok:
        raise sandbox.SandboxError(f"the sandbox's self-test failed: {detail}")
    return backend.name


#: the echo bot of the self-test: answers every line with the same line,
#: except the line "lib", which it answers with the id of the bot library it
#: can import (arena/sdk_lib.py), or why it cannot
_ECHO_BOT = b"""import json, os, sys
try:
    import gemarena_sdk
    try:
        with open(os.path.join(os.path.dirname(gemarena_sdk.__file__), "BOT_LIB_ID")) as f:
            lib = "id " + f.read().strip()
    except OSError:
        lib = "no id file"
except Exception as exc:
    lib = "import failed: " + repr(exc)
for line in sys.stdin:
    if line.strip() == '"lib"':
        line = json.dumps(lib) + "\\n"
    sys.stdout.write(line)
    sys.stdout.flush()
"""

#: how to rebuild the bot image with the library of these sources; the
#: first command is also the one the `arena` command's download holds
#: (no Makefile, no deploy/build-bot-image.sh: views_docs.RUNNER_PARTS)
REBUILD_HINT = (
    "rebuild the bot image from this version of the platform: "
    'python -m sandbox.image ensure --extra-lib "$(python -m arena.sdk_lib)" '
    "(with the Python of the arena command; `make image` in the sources), or "
    'deploy/build-bot-image.sh --extra-lib "$(python -m arena.sdk_lib)", '
    "or deploy/images/build-images.sh for compose"
)


def image_lib_problem() -> str:
    """ "" when the bot image's label names the bot library of the sources
    running here, or says nothing of one (an image built before the label);
    else why its bots would import another SDK and engines. Costs one
    inspect of the image, not a container (for `arena play`'s one match)."""
    from arena.sdk_lib import bot_lib_id
    from sandbox.docker_backend import image_name
    from sandbox.image import LIB_LABEL, image_labels

    image = image_name()
    labels = image_labels(image) or {}
    have, want = labels.get(LIB_LABEL), bot_lib_id()
    if have is None or have == want:
        return ""
    return (
        f"the bot image {image} holds the bot library of other sources ({have}; "
        f"this arena command's is {want}): bots that import gemarena_sdk or search "
        f"with the engines played with that one; {REBUILD_HINT}"
    )


def _bot_lib_problem(answer: str) -> str:
    """ "" when the echo bot's answer to "lib" names the library of the
    sources running here (the worker's, or the `arena` command's)."""
    from arena.sdk_lib import LIB_ID_FILE, bot_lib_id

    want = bot_lib_id()
    if answer == f"id {want}":
        return ""
    if answer.startswith("id "):
        return (
            f"the bot library in the sandbox is from other sources ({answer[3:]}; "
            f"these sources give {want}): bots that search with the engines would "
            f"play by other rules than the referee; {REBUILD_HINT}"
        )
    if answer == "no id file":
        return (
            f"the bot library in the sandbox has no {LIB_ID_FILE}, so its version is "
            f"unknown; {REBUILD_HINT}"
        )
    return (
        f"bots cannot import the SDK (gemarena_sdk) in this sandbox ({answer[:200]}), "
        f"so every bot that uses it would crash and be blamed; {REBUILD_HINT}"
    )


def sandbox_self_test(
    requested: str,
    work_dir: str | os.PathLike[str],
    timeout_s: float = 20.0,
    instance: str = "",
) -> tuple[bool, str]:
    """Run an echo bot through the sandbox `requested` resolves to; (ok, detail).

    The bot is written under `work_dir`, which must be a path the sandbox
    can see: for Docker, the engine bind-mounts it, so on a worker in a
    container it must be the same path on the Docker host (the media dir is).
    Fails on anything a match would trip over: no backend, engine or image
    missing, a bot that cannot start or answer, a container that cannot be
    removed afterwards. `instance` labels the container (see MatchRequest)
    and limits the removal of stale self-test containers to that platform's.
    """
    t0 = time.monotonic()
    try:
        backend = sandbox.get_backend(requested)
    except sandbox.SandboxError as exc:
        return False, f"no sandbox for {requested!r}: {exc}"
    problem = backend.self_check()
    if problem:
        return False, f"{backend.name}: {problem}"
    if backend.name == "docker":
        _remove_stale_self_tests(instance)
    elif getattr(backend, "extra_lib", "") is None:
        from arena.sdk_lib import bot_lib

        backend.extra_lib = bot_lib()  # mounted at run time, as for a match
    token = secrets.token_hex(8)
    bot_dir = Path(work_dir) / f"selftest-{token}"
    proc = None
    try:
        bot_dir.mkdir(parents=True, mode=0o755)
        bot_dir.chmod(0o755)  # bots run as nobody: they must read their code
        main = bot_dir / "main.py"
        main.write_bytes(_ECHO_BOT)
        main.chmod(0o644)
        limits = sandbox.Limits(memory_mib=64, pids=16, startup_ms=int(timeout_s * 1000))
        labels = {"gemarena.selftest": "1", **instance_label(instance)}
        proc = backend.launch(bot_dir, limits, name=f"selftest-{token[:8]}", labels=labels)
        ping = f'"ping {token}"'.encode()
        if not proc.send_line(ping, timeout_s=timeout_s):
            return False, f"{backend.name}: the echo bot did not accept input"
        reply = proc.read_line(time.monotonic() + timeout_s)
        if reply.status != sandbox.ReadStatus.LINE or reply.line != ping:
            tail = proc.stderr_tail()[-300:]
            return False, (
                f"{backend.name}: the echo bot answered {reply.status} {reply.line[:80]!r}"
                + (f"; stderr: {tail}" if tail else "")
            )
        if not proc.send_line(b'"lib"', timeout_s=timeout_s):
            return False, f"{backend.name}: the echo bot did not accept input"
        reply = proc.read_line(time.monotonic() + timeout_s)
        if reply.status != sandbox.ReadStatus.LINE:
            return False, f"{backend.name}: the echo bot answered {reply.status} to 'lib'"
        try:
            answer = str(json.loads(reply.line))
        except ValueError:
            answer = f"not JSON: {reply.line[:80]!r}"
        problem = _bot_lib_problem(answer)
        if problem:
            return False, f"{backend.name}: {problem}"
        report = proc.stop()
        proc = None
        if report.detail:
            return False, f"{backend.name}: teardown trouble: {report.detail}"
    except (sandbox.SandboxError, OSError) as exc:
        return False, f"{backend.name}: {exc}"
    finally:
        if proc is not None:
            proc.stop()
        shutil.rmtree(bot_dir, ignore_errors=True)
    elapsed_ms = (time.monotonic() - t0) * 1000
    return (
        True,
        f"{backend.name}: echo bot answered in {elapsed_ms:.0f} ms, bot library {answer[3:]}",
    )


#: a self-test container older than this belongs to a worker that died mid-test
_STALE_SELF_TEST_S = 120


def _remove_stale_self_tests(instance: str) -> None:
    """Self-test containers of workers that died mid-test (their timeout is
    far shorter): removed here rather than hours later by the age reaper.
    Without an instance (a bare `arena` run) nothing is removed: the
    containers could belong to any platform on this engine."""
    if not instance:
        return
    try:
        from sandbox.reaper import reap

        reap(
            _STALE_SELF_TEST_S,
            extra_labels={"gemarena.selftest": "1", **instance_label(instance)},
        )
    except Exception as exc:  # best effort; the self-test itself reports engine trouble
        log.info("stale self-test containers not removed: %s", exc)


def instance_label(instance: str) -> dict[str, str]:
    """The platform label (see MatchRequest.instance); none without an instance."""
    return {"gemarena.instance": instance} if instance else {}


def sandbox_labels(match_tag: str, instance: str = "") -> dict[str, str]:
    """The labels that find a match's sandboxes again (`instance` when set)."""
    return {"gemarena.match": match_tag, **instance_label(instance)}


def reap_sandboxes(
    older_than_s: float | None = None,
    instance: str = "",
    playing: Collection[str] = (),
) -> list[str]:
    """Remove bot containers left by a crashed worker (only ours, only old
    ones; with `instance`, only that platform's; never those of the matches
    tagged in `playing`, which are still being played however long they
    take); [] when Docker is not in use here."""
    playing = frozenset(playing)
    try:
        from sandbox.reaper import default_older_than_s, reap

        return reap(
            default_older_than_s() if older_than_s is None else older_than_s,
            extra_labels=instance_label(instance),
            spare=lambda labels: labels.get("gemarena.match") in playing,
        )
    except Exception as exc:  # best effort: no engine here, or it is down
        log.info("reaper skipped: %s", exc)
        return []


def remove_match_sandboxes(
    match_tag: str, created_before: float | None = None, instance: str = ""
) -> list[str] | None:
    """Remove the Docker sandboxes of one match (by its gemarena.match label,
    and gemarena.instance when given: another platform's match of the same
    id is never touched) created before `created_before` (unix time; default
    now), so a later attempt of the same match is never touched. Returns their names, [] when
    Docker is not used here, None when the engine cannot be reached now
    (call again later; the periodic reaper is the last resort)."""
    try:
        from sandbox.reaper import reap
    except ImportError:  # docker-py missing: no Docker sandboxes here
        return []
    try:
        return reap(
            0,
            extra_labels=sandbox_labels(match_tag, instance),
            now=time.time() if created_before is None else created_before,
        )
    except Exception as exc:  # engine unreachable
        log.info("cannot remove the sandboxes of match %s now: %s", match_tag, exc)
        return None
