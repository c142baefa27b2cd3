"""Four processes spin for 1.5 s of wall time; reports CPU seconds used per
wall second.

Expected: Docker: at most about the CPU quota (1.0). The process backend has
no CPU cap across processes (documented), so it is not asserted there.
"""

import json
import os
import sys
import time

sys.stdin.readline()
WALL = 1.5
start = time.monotonic()
children = []
for _ in range(3):
    pid = os.fork()
    if pid == 0:
        while time.monotonic() - start < WALL:
            pass
        os._exit(0)
    children.append(pid)
while time.monotonic() - start < WALL:
    pass
for pid in children:
    os.waitpid(pid, 0)
wall = time.monotonic() - start
times = os.times()
cpu = times.user + times.system + times.children_user + times.children_system
print(json.dumps({"cpu_per_wall": cpu / wall}), flush=True)
