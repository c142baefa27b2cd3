"""Writes 1 MiB chunks to stdout forever, never a newline.

Expected: TOO_LARGE once the line cap is passed; stop is quick
(OUTPUT_TOO_LARGE) even though the bot is blocked writing.
"""

import sys

sys.stdin.readline()
chunk = b"x" * (1 << 20)
while True:
    sys.stdout.buffer.write(chunk)
