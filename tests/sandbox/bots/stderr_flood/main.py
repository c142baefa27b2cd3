"""Writes 20 MB to stderr, then a marker, then a valid reply.

Expected: the reply arrives (LINE); the stderr tail is bounded and ends with
the marker.
"""

import sys

sys.stdin.readline()
chunk = "e" * 65535 + "\n"
for _ in range(20_000_000 // len(chunk)):
    sys.stderr.write(chunk)
sys.stderr.write("END-OF-FLOOD\n")
sys.stderr.flush()
print('{"ok": true}', flush=True)
sys.stdin.readline()
