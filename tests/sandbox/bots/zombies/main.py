"""Forks 20 children that exit at once and never waits for them.

Expected: a LINE reporting 20 zombies; all gone after stop.
"""

import json
import os
import sys
import time

sys.stdin.readline()
for _ in range(20):
    if os.fork() == 0:
        os._exit(0)
time.sleep(0.3)
zombies = 0
for entry in os.listdir("/proc"):
    if entry.isdigit():
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] == "Z" and int(fields[1]) == os.getpid():
            zombies += 1
print(json.dumps({"zombies": zombies}), flush=True)
for _line in sys.stdin:
    print('{"alive": true}', flush=True)
