"""Compile an upload's main.py in a child process with its own limits.

Run by `ladder.uploads` as `python -I -S compile_check.py SECONDS MIB`, the
source on stdin: the standard library only, never Django (the child must not
load the web process's settings or grow to its size). It sets its own CPU
time and address-space limits before it reads the source, compiles it (which
runs none of it) and writes one JSON line: its verdict.

    {"verdict": "ok", "games": [["splendor-duel", 30]]}
                               the games main.py names in the SDK's
                               run(..., game="…") and the line of each
                               (arena/bot_game.py; null: not literally,
                               or not read: see `games_named`)
    {"verdict": "syntax", "lineno": 3, "msg": "invalid syntax"}
    {"verdict": "value", "msg": "source code string cannot contain null bytes"}
    {"verdict": "nesting"}     the parser's own depth limits (RecursionError,
                               or a MemoryError far below the memory limit)
    {"verdict": "memory"}      a MemoryError near the memory limit
    {"verdict": "crash", "error": "SystemError: ..."}
                               any other exception of the compiler

Before it compiles it writes the line `compiling` (COMPILING), so that the
parent can tell a child the source crashed (a C stack overflow in the
compiler: SIGSEGV after that line) from one that died before it got there.
A child that runs out of CPU time is killed by SIGXCPU (RLIMIT_CPU; SIGKILL a
second later) and writes no verdict. The parent also kills one that has no
verdict after twice that of wall-clock time (a starved child: the server's fault).
"""

from __future__ import annotations

import importlib.util
import json
import resource
import sys
from pathlib import Path

MIB = 1 << 20
#: the line written before the compile starts
COMPILING = "compiling"
#: stdlib only and nothing else of arena's: loaded as a top-level module, as
#: the arena package (its engines) would not fit in this child's limits
BOT_GAME = Path(__file__).resolve().parents[1] / "arena" / "bot_game.py"


def limit(seconds: int, mib: int) -> None:
    """The child's limits: CPU seconds (SIGXCPU, then SIGKILL a second
    later) and address space (allocations beyond it fail: MemoryError)."""
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
    resource.setrlimit(resource.RLIMIT_AS, (mib * MIB, mib * MIB))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def peak_bytes() -> int:
    """The largest address space this process had (VmPeak); 0 if unknown."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmPeak:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def verdict(source: bytes, seconds: int, mib: int) -> dict:
    try:
        text = source.decode("utf-8-sig")  # the parent checked it is UTF-8
        compile(text, "main.py", "exec", dont_inherit=True)
    except SyntaxError as exc:
        return {"verdict": "syntax", "lineno": exc.lineno, "msg": exc.msg}
    except ValueError as exc:
        return {"verdict": "value", "msg": str(exc)}
    except RecursionError:
        return {"verdict": "nesting"}
    except MemoryError:
        text = None  # free what can be freed before the verdict is written
        # Python 3.11's parser says MemoryError (with no message) to a stack
        # overflow, after a few MiB; memory that really ran out ran out near
        # the limit (a failed allocation asks for at most about what is held).
        if peak_bytes() >= mib * MIB // 2:
            return {"verdict": "memory"}
        return {"verdict": "nesting"}
    except Exception as exc:  # a bug of the compiler that this source finds
        return {"verdict": "crash", "error": f"{type(exc).__name__}: {exc}"[:300]}
    used = resource.getrusage(resource.RUSAGE_SELF)
    return {"verdict": "ok", "games": games_named(text, seconds, used.ru_utime + used.ru_stime)}


def games_named(text: str, seconds: int, used: float) -> list | None:
    """What `arena.bot_game.games_named` finds in the source. Parsed only when
    it mentions a game at all: most bots cost no second parse. Not read (None:
    it passes, as a game named non-literally does) when compiling it took more
    than a fifth of the CPU time: parsing to an AST takes up to 2.3 times as
    long as compiling (1.2 to 2.3 for large files of different shapes), and
    must not cost a file that compiles in time its verdict. `used`: the CPU
    seconds this child has spent so far."""
    if "game" not in text:
        return []
    if used > seconds / 5:
        return None
    spec = importlib.util.spec_from_file_location("bot_game", BOT_GAME)
    bot_game = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bot_game)
    return bot_game.games_named_in(text)


def main(argv: list[str]) -> int:
    seconds, mib = int(argv[1]), int(argv[2])
    limit(seconds, mib)
    source = sys.stdin.buffer.read()
    sys.stdout.write(COMPILING + "\n")
    sys.stdout.flush()
    sys.stdout.write(json.dumps(verdict(source, seconds, mib)) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
