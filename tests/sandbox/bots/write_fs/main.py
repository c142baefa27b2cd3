"""Tries to write to /, /usr and /bot, to fill /tmp past its cap, to write one
file past the file-size limit, and to execute a file from /tmp.

Expected (Docker): EROFS, EROFS, EROFS, ENOSPC near the tmpfs cap, EFBIG,
EACCES (noexec). Process backend (bubblewrap): the same except that /tmp
allows exec (no noexec there, documented).
"""

import json
import os
import signal
import subprocess
import sys

sys.stdin.readline()
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # get EFBIG instead of dying


def write(path: str, size: int = 10) -> str:
    try:
        with open(path, "wb") as handle:
            handle.write(b"x" * size)
        return "ok"
    except OSError as exc:
        return f"error:{exc.errno}"


result = {
    "root": write("/gemarena-sandbox-probe"),
    "usr": write("/usr/gemarena-sandbox-probe"),
    "bot": write("/bot/gemarena-sandbox-probe"),
    "big_file": write("/tmp/big", 2 << 20),
}
written, fill_error = 0, ""
for i in range(128):  # 512 KiB files, 64 MiB at most
    outcome = write(f"/tmp/fill{i}", 512 << 10)
    if outcome != "ok":
        fill_error = outcome
        break
    written += 512 << 10
result["tmp_written"] = written
result["tmp_error"] = fill_error
for i in range(128):
    try:
        os.unlink(f"/tmp/fill{i}")
    except OSError:
        break
with open("/tmp/run.py", "w") as handle:
    handle.write("#!/usr/bin/python3\nprint('ran')\n")
os.chmod("/tmp/run.py", 0o755)
try:
    out = subprocess.run(["/tmp/run.py"], capture_output=True, timeout=10)
    result["exec_tmp"] = "ok:" + out.stdout.decode().strip()
except OSError as exc:
    result["exec_tmp"] = f"error:{exc.errno}"
print(json.dumps(result), flush=True)
sys.stdin.readline()
