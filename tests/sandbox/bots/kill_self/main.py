"""Reads one request, then sends SIGKILL to itself.

Expected: no reply (EOF); exit report CRASHED, not MEMORY: a SIGKILL the
sandbox did not send is a memory kill only when the OOM killer sent it.
"""

import os
import signal
import sys

sys.stdin.readline()
os.kill(os.getpid(), signal.SIGKILL)
