"""Spins forever after reading the request.

Expected: TIMEOUT at the deadline; stop(TIMEOUT) reports TIMEOUT.
"""

import sys

sys.stdin.readline()
while True:
    pass
