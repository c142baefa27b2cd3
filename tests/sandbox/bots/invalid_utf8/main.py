"""Answers with bytes that are not UTF-8 (and a NUL, and a lone surrogate).

Expected: a LINE carrying exactly those bytes: the sandbox passes raw bytes
and never decodes them; the protocol layer rejects them.
"""

import sys

sys.stdin.readline()
sys.stdout.buffer.write(b"\xff\xfe\xc3\x28\x00 \xed\xa0\x80\n")
sys.stdout.flush()
sys.stdin.readline()
