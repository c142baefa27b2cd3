"""The one chokepoint for uploaded bot code.

A bot is a single `.py` file or a `.zip` with `main.py` at its root (or in the
one folder that holds everything, which is dropped). Everything
is checked in memory before anything is stored, so a rejected upload leaves
no trace. Each rejection is an `UploadError` whose message tells the author
what to fix.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import lzma
import signal
import stat
import subprocess
import sys
import threading
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from django.conf import settings

from arena import no_main_py_hint, wrong_game_refusal
from ladder.compile_check import COMPILING

#: Longest file or folder name Linux filesystems take, and longest path inside a bot (bytes).
NAME_MAX_BYTES = 255
PATH_MAX_BYTES = 1024
#: the child that compiles main.py (stdlib only: it never loads Django)
COMPILE_CHECK = Path(__file__).with_name("compile_check.py")
#: signals of a child that crashed (not one that was stopped or ran out of CPU time)
CRASH_SIGNALS = frozenset(
    {signal.SIGSEGV, signal.SIGBUS, signal.SIGABRT, signal.SIGILL, signal.SIGFPE}
)
#: how long an upload waits for one of its web process's check slots
#: (UPLOAD_CHECK_CONCURRENCY) before it is answered "busy": short, as a
#: waiting upload holds one of the process's threads that pages need
SLOT_WAIT_SECONDS = 1.0
#: wall-clock seconds a check child gets beyond twice its CPU-time limit
#: before it counts as starved by a busy machine (the server's fault)
STARVED_GRACE_SECONDS = 1.0
NOT_CHECKED = (
    "the server could not check your upload just now; nothing was stored and nothing "
    "counts against your hourly limit, please try again later"
)
BUSY = (
    "the server is busy checking other uploads; nothing was stored and nothing "
    "counts against your hourly limit, please try again in a minute"
)

logger = logging.getLogger(__name__)


class UploadError(ValueError):
    """The upload is refused; the message is for the bot's author."""


class CheckUnavailable(Exception):
    """The server could not check the upload (no child process to compile it,
    or every check slot busy): not the file's fault, nothing was stored or
    counted, and trying later may work."""


@dataclass(frozen=True)
class CheckedUpload:
    """A bot's code that passed every check: file name → bytes (main.py included)."""

    original_name: str
    data: bytes
    files: dict[str, bytes]
    sha256: str

    @property
    def size_bytes(self) -> int:
        return len(self.data)


def check_upload(name: str, data: bytes, game: str | None = None) -> CheckedUpload:
    """Check an upload, for a bot of `game` when given; raise UploadError with
    the reason, or return its files."""
    max_bytes = settings.BOT_UPLOAD_MAX_BYTES
    if len(data) > max_bytes:
        raise UploadError(f"the file is {len(data):,} bytes; the limit is {max_bytes:,} bytes")
    if not data:
        raise UploadError("the file is empty")
    lower = name.lower()
    original_name = PurePosixPath(name).name or "main.py"
    if lower.endswith(".py"):
        files = {"main.py": data}
        shown = original_name  # the author's name for it; it runs as main.py
    elif lower.endswith(".zip"):
        files = _unzip(data)
        shown = "main.py"
    else:
        raise UploadError(
            "upload a single .py file or a .zip with main.py at its root "
            "(or in the one folder that holds everything)"
        )
    _check_main(files["main.py"], shown, game)
    return CheckedUpload(original_name, data, files, hashlib.sha256(data).hexdigest())


def check_not_identical(checked: CheckedUpload, previous_sha256: str) -> None:
    """Refuse a file identical to the bot's latest version (checked under the
    bot's lock by `ladder.bots.add_version`)."""
    if checked.sha256 == previous_sha256:
        raise UploadError("this file is identical to the bot's latest version")


def _unzip(data: bytes) -> dict[str, bytes]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise UploadError(f"not a readable zip archive ({exc})") from None
    max_files = settings.BOT_ZIP_MAX_FILES
    max_total = settings.BOT_ZIP_MAX_UNPACKED_BYTES
    max_ratio = settings.BOT_ZIP_MAX_RATIO
    if len(infos) > max_files:
        raise UploadError(f"the zip holds {len(infos)} entries; the limit is {max_files}")
    declared = sum(i.file_size for i in infos)
    if declared > max_total:
        raise UploadError(
            f"the zip unpacks to {declared:,} bytes; the limit is {max_total:,} bytes"
        )
    # The ratio is checked per entry from the headers (a quick, precise message)
    # and for the whole archive from what was really unpacked, which a
    # doctored compressed size in the headers cannot hide.
    unpack_cap = min(max_total, max_ratio * len(data))
    files: dict[str, bytes] = {}
    total = 0
    for info in infos:
        path = _safe_member_name(info)
        if info.is_dir() or _finder_metadata(path):
            continue
        if path == ".":
            raise UploadError(f"{info.filename!r} is not a valid file name inside a zip")
        if info.compress_size and info.file_size / info.compress_size > max_ratio:
            raise UploadError(
                f"{info.filename!r} compresses {info.file_size / info.compress_size:.0f}:1; "
                f"archives compressing more than {max_ratio}:1 are refused (zip bomb)"
            )
        if info.flag_bits & 0x1:
            raise UploadError(f"{info.filename!r} is encrypted; upload a zip without a password")
        try:
            with archive.open(info) as member:
                # Read at most one byte past what the header claims and past the
                # caps: a lying header cannot make us unpack more than allowed.
                content = member.read(min(info.file_size, unpack_cap - total) + 1)
        except (
            zipfile.BadZipFile,
            RuntimeError,
            NotImplementedError,
            OSError,
            EOFError,
            zlib.error,
            lzma.LZMAError,
        ) as exc:
            raise UploadError(f"cannot unpack {info.filename!r}: {exc}") from None
        total += len(content)
        if len(content) > info.file_size or total > max_total:
            raise UploadError("the zip unpacks to more than it declares (zip bomb)")
        if total > unpack_cap:
            raise UploadError(
                f"the zip unpacks to more than {max_ratio} times its {len(data):,} bytes; "
                f"archives compressing more than {max_ratio}:1 are refused (zip bomb)"
            )
        if path in files:
            raise UploadError(f"the zip holds {path!r} twice")
        files[path] = content
    _check_file_tree(files)
    files = _without_wrapping_folder(files)
    if "main.py" not in files:
        nested = sorted(p for p in files if p.endswith("/main.py"))
        hint = (
            f" (found {nested[0]!r}: put main.py at the root, or zip only the folder that holds it)"
            if nested
            else no_main_py_hint(list(files))
        )
        raise UploadError("the zip has no main.py at its root" + hint)
    return files


def _finder_metadata(path: str) -> bool:
    """What macOS's "Compress" adds to a zip of a folder: the __MACOSX/ copy
    of every file's attributes and .DS_Store files. Kept, they made a second
    top folder, and a zip of the one folder holding main.py was refused."""
    parts = path.split("/")
    return parts[0] == "__MACOSX" or parts[-1] == ".DS_Store"


def _safe_member_name(info: zipfile.ZipInfo) -> str:
    name = info.filename
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        raise UploadError(f"{name!r} is a symbolic link; links are not allowed in a bot")
    if "\\" in name or "\x00" in name:
        raise UploadError(f"{name!r} is not a valid path inside a zip")
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or (path.parts and ":" in path.parts[0]):
        raise UploadError(f"{name!r} points outside the bot's folder (path traversal)")
    return str(path)


def _check_file_tree(files: dict[str, bytes]) -> None:
    """Refuse paths a filesystem would not take: over-long names, and a file
    that is also the folder of another file."""
    for path in files:
        if len(path.encode()) > PATH_MAX_BYTES:
            raise UploadError(
                f"{path[:60]!r}… is a path of {len(path.encode())} bytes; "
                f"the limit is {PATH_MAX_BYTES}"
            )
        for part in PurePosixPath(path).parts:
            if len(part.encode()) > NAME_MAX_BYTES:
                raise UploadError(
                    f"{part[:60]!r}… is a name of {len(part.encode())} bytes; "
                    f"file and folder names are limited to {NAME_MAX_BYTES}"
                )
    for path in files:
        for folder in PurePosixPath(path).parents:
            if str(folder) in files:
                raise UploadError(f"{str(folder)!r} is both a file and the folder of {path!r}")


def _without_wrapping_folder(files: dict[str, bytes]) -> dict[str, bytes]:
    """A zip made of a folder ("mybot/main.py", "mybot/lib/x.py"), as the
    starter kit and most "compress this folder" tools make it, is that
    folder's contents; any other layout is kept as it is."""
    if "main.py" in files:
        return files
    tops = {path.split("/", 1)[0] for path in files}
    top = tops.pop() if len(tops) == 1 else ""
    if not top or f"{top}/main.py" not in files:
        return files
    return {path[len(top) + 1 :]: content for path, content in files.items()}


def _check_main(source: bytes, shown: str, game: str | None) -> None:
    """The bot's main.py compiles and, when `game` is given, names no other
    game in the SDK's `run(..., game="…")` (`arena.wrong_game_refusal`);
    messages call it `shown`, the name of the uploaded file when a single .py
    file was uploaded (it becomes main.py). The compiling, and reading the
    game it names, run in a child process (`_compile_in_child`)."""
    try:
        text = source.decode("utf-8-sig")  # Python itself accepts a leading byte-order mark
    except UnicodeDecodeError as exc:
        raise UploadError(f"{shown} is not UTF-8 text (byte {exc.start})") from None
    if "\x00" in text:
        raise UploadError(f"{shown} contains NUL bytes; it cannot be compiled")
    del text
    found = _compile_in_child(source, shown)
    kind = found.get("verdict")
    if kind == "ok":
        refusal = wrong_game_refusal(found.get("games"), game, shown) if game else ""
        if refusal:
            raise UploadError(refusal)
        return
    if kind == "syntax":
        raise UploadError(f"{shown} has a syntax error on line {found['lineno']}: {found['msg']}")
    if kind == "value":
        raise UploadError(f"{shown} cannot be compiled: {found['msg']}")
    if kind == "nesting":  # what Python's parser says to deep nesting
        raise UploadError(f"{shown} cannot be compiled: it nests too deeply for Python's parser")
    if kind == "memory":
        raise UploadError(
            f"{shown} needs more than {settings.UPLOAD_CHECK_MEMORY_MIB} MiB to check"
        )
    if kind == "crash":  # a bug of Python's that this file finds: refused and counted
        logger.warning("upload check: the compiler crashed on %s: %s", shown, found["error"])
        raise UploadError(
            f"{shown} cannot be compiled: it crashes Python's compiler ({found['error']}); "
            "simplify its deepest nesting or longest expression"
        )
    logger.error("upload check: unknown verdict %r", found)
    raise CheckUnavailable(NOT_CHECKED)


_slots_lock = threading.Lock()
_slots: tuple[int, threading.BoundedSemaphore] | None = None


def _check_slots() -> threading.BoundedSemaphore:
    """This process's UPLOAD_CHECK_CONCURRENCY slots (made anew if the setting changed)."""
    global _slots
    wanted = settings.UPLOAD_CHECK_CONCURRENCY
    with _slots_lock:
        if _slots is None or _slots[0] != wanted:
            _slots = (wanted, threading.BoundedSemaphore(wanted))
        return _slots[1]


def _compile_in_child(source: bytes, shown: str) -> dict:
    """Compile `source` in a short-lived child with its own CPU time and
    address-space limits (ladder/compile_check.py) and return its verdict.
    Compiling a pathological file in the web process held its GIL for
    seconds and grew it by hundreds of MiB for good (found by a load test).

    UploadError when the file takes more than UPLOAD_CHECK_SECONDS of CPU
    time; the verdict "crash" when the child died of a crash signal while
    compiling it; CheckUnavailable (the server's fault, nothing counted) when
    every check slot of this process stays busy, the child cannot be started,
    is starved of CPU or gives no verdict otherwise (it died before compiling,
    was stopped by another signal)."""
    seconds = settings.UPLOAD_CHECK_SECONDS
    mib = settings.UPLOAD_CHECK_MEMORY_MIB
    slots = _check_slots()
    if not slots.acquire(timeout=SLOT_WAIT_SECONDS):
        raise CheckUnavailable(BUSY)
    try:
        return _run_child(source, shown, seconds, mib)
    finally:
        slots.release()


def _run_child(source: bytes, shown: str, seconds: int, mib: int) -> dict:
    command = [sys.executable, "-I", "-S", str(COMPILE_CHECK), str(seconds), str(mib)]
    try:
        child = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={},  # none of the web process's secrets
            close_fds=True,
        )
    except OSError as exc:
        logger.error("upload check: cannot start %s: %s", command[0], exc)
        raise CheckUnavailable(NOT_CHECKED) from exc
    try:
        # The file's own limit is CPU time (RLIMIT_CPU in the child), which
        # does not depend on how busy the machine is; the wall clock only
        # bounds how long a starved child can hold this thread.
        wall = 2 * seconds + STARVED_GRACE_SECONDS
        out, err = child.communicate(source, timeout=wall)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        logger.warning("upload check: no verdict in %s s of wall-clock time", wall)
        raise CheckUnavailable(BUSY) from None
    except BaseException:
        child.kill()
        child.wait()
        raise
    if child.returncode in (-signal.SIGXCPU, -signal.SIGKILL):  # RLIMIT_CPU
        raise UploadError(f"{shown} took longer than {seconds} s to check")
    lines = out.decode("utf-8", "replace").splitlines()
    try:
        found = json.loads(lines[-1])
    except (ValueError, IndexError):
        found = None
    if isinstance(found, dict) and child.returncode == 0:
        return found
    if b"MemoryError" in err:  # ran out before it could say so
        return {"verdict": "memory"}
    if COMPILING in lines and -child.returncode in CRASH_SIGNALS:
        # died compiling this source (the compiler overflowed its C stack):
        # the file's doing, refused and counted like any other refusal
        return {"verdict": "crash", "error": signal.Signals(-child.returncode).name}
    tail = err.decode("utf-8", "replace")[-500:]
    logger.error("upload check: exit status %s, no verdict: %s", child.returncode, tail)
    raise CheckUnavailable(NOT_CHECKED)
