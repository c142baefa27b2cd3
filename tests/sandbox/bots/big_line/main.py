"""Answers with a line of exactly N bytes (N from the request, sent in many
small writes), then one of N + 1 bytes.

Expected: the first is a LINE of N bytes (reassembled across frames), the
second TOO_LARGE when N is the cap.
"""

import json
import sys

size = json.loads(sys.stdin.readline())["size"]
for length in (size, size + 1):
    for start in range(0, length, 1000):
        sys.stdout.write("y" * min(1000, length - start))
    sys.stdout.write("\n")
    sys.stdout.flush()
sys.stdin.readline()
