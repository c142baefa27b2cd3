"""Tries to gain privileges: setuid(0), unshare a user namespace, mount a
tmpfs, chroot.

Expected: a LINE where every attempt failed (EPERM or similar).
"""

import ctypes
import json
import os
import sys

sys.stdin.readline()
libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER, CLONE_NEWNS = 0x10000000, 0x00020000


def call(func) -> str:
    try:
        rc = func()
    except OSError as exc:
        return f"error:{exc.errno}"
    if rc is not None and rc != 0:
        return f"error:{ctypes.get_errno()}"
    return "ok"


result = {
    "setuid0": call(lambda: os.setuid(0)),
    "unshare_user": call(lambda: libc.unshare(CLONE_NEWUSER)),
    "unshare_mount": call(lambda: libc.unshare(CLONE_NEWNS)),
    "mount": call(lambda: libc.mount(b"none", b"/tmp", b"tmpfs", 0, None)),
    "chroot": call(lambda: os.chroot("/tmp")),
    "uid": os.getuid(),
}
print(json.dumps(result), flush=True)
sys.stdin.readline()
