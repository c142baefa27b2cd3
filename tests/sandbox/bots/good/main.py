"""Control bot: answers every line with {"ok": true, "n": <count>, "echo": <line>}.

Expected: a LINE for every request; stopped while running (RUNNING_AT_STOP).
"""

import json
import sys

for n, line in enumerate(sys.stdin, 1):
    sys.stdout.write(json.dumps({"ok": True, "n": n, "echo": line.strip()}) + "\n")
