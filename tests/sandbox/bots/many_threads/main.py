"""Starts idle threads until the system refuses (at most 1000), then reports.

Expected: Docker: fewer threads than the pids limit (threads are pids).
Process backend (slot uid): RLIMIT_NPROC counts threads too.
"""

import json
import sys
import threading

sys.stdin.readline()
stop = threading.Event()
count, error = 0, ""
for _ in range(1000):
    try:
        threading.Thread(target=stop.wait, daemon=True).start()
    except RuntimeError as exc:
        error = str(exc)
        break
    count += 1
print(json.dumps({"threads": count, "error": error}), flush=True)
stop.wait(600)
