"""Fork bomb: every process forks for as long as it can; the first one
reports how many forks it managed before the first failure.

Expected: Docker: fewer forks than the pids limit (EAGAIN), a LINE, all gone
after stop. Process backend (slot uid): RLIMIT_NPROC stops it the same way.
"""

import json
import os
import sys
import time


def bomb() -> None:
    end = time.monotonic() + 600
    while time.monotonic() < end:
        try:
            if os.fork() == 0:
                continue  # the child bombs too
        except OSError:
            time.sleep(0.01)


sys.stdin.readline()
forks, error = 0, ""
for _ in range(2000):  # bounded even if nothing stops it
    try:
        pid = os.fork()
    except OSError as exc:
        error = type(exc).__name__ + ":" + str(exc.errno)
        break
    if pid == 0:
        bomb()
        os._exit(0)
    forks += 1
print(json.dumps({"forks": forks, "error": error}), flush=True)
time.sleep(600)
