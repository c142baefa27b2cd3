"""Memory hog: touches 16 MiB blocks until 1 GiB, then would answer.

Expected: no reply (EOF); exit report MEMORY (Docker: OOMKilled, exit 137;
process backend: MemoryError under RLIMIT_AS).
"""

import sys

sys.stdin.readline()
blocks = []
for _ in range(64):
    blocks.append(b"\x01" * (16 << 20))
print('{"survived": true}', flush=True)
