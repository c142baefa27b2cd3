"""Sleeps an hour after reading the request.

Expected: TIMEOUT at the deadline (wall clock: sleeping is not free).
"""

import sys
import time

sys.stdin.readline()
time.sleep(3600)
