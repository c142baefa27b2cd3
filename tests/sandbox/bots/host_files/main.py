"""Tries to read host files and secrets: /etc/shadow, the Docker socket, the
project tree (its path comes in the request), /root, /proc/1/environ and its
own environment.

Expected: a LINE whose every probe failed; no secret anywhere in it.
"""

import json
import os
import socket
import sys

request = json.loads(sys.stdin.readline())


def read(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            return "read:" + handle.read(200).decode("latin-1")
    except OSError as exc:
        return f"error:{exc.errno}"


def connect(path: str) -> str:
    try:
        with socket.socket(socket.AF_UNIX) as sock:
            sock.settimeout(2)
            sock.connect(path)
            return "connected"
    except OSError as exc:
        return f"error:{exc.errno}"


def listdir(path: str) -> str:
    try:
        return "listed:" + ",".join(sorted(os.listdir(path))[:20])
    except OSError as exc:
        return f"error:{exc.errno}"


probes = {
    "/etc/shadow": read("/etc/shadow"),
    "project": read(request["project_file"]),
    "project_dir": listdir(request["project_dir"]),
    "/root": listdir("/root"),
    "/var/run/docker.sock": connect("/var/run/docker.sock"),
    "/run/docker.sock": connect("/run/docker.sock"),
}
result = {
    "probes": probes,
    "environ": dict(os.environ),
    "pid1_environ": read("/proc/1/environ"),
    "ppid_environ": read(f"/proc/{os.getppid()}/environ"),
}
print(json.dumps(result), flush=True)
sys.stdin.readline()
