"""Sends SIGKILL to its parent, to PID 1 and to every process it may signal
(kill -1), then keeps answering.

Expected: a LINE with the outcomes, then a LINE for the next request too:
the bot and its container survive; the referee is untouched.
"""

import json
import os
import signal
import sys

sys.stdin.readline()
result = {}
for label, pid in (("parent", os.getppid()), ("pid1", 1), ("all", -1)):
    try:
        os.kill(pid, signal.SIGKILL)
        result[label] = "sent"
    except OSError as exc:
        result[label] = f"error:{exc.errno}"
result["ppid"] = os.getppid()
print(json.dumps(result), flush=True)
for _line in sys.stdin:
    print('{"alive": true}', flush=True)
