"""Tries the network: lists interfaces, resolves a name, connects to a port
the test listens on at the host's 127.0.0.1 and ::1.

Expected: a LINE: only "lo", DNS fails, both connects fail; the host
listener sees no connection.
"""

import json
import socket
import sys

request = json.loads(sys.stdin.readline())
socket.setdefaulttimeout(2)


def attempt(func):
    try:
        return "ok:" + str(func())[:100]
    except OSError as exc:
        return f"error:{type(exc).__name__}"


def connect(family, host):
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.connect((host, request["port"]))
        return "connected"


result = {
    "interfaces": [name for _, name in socket.if_nameindex()],
    "dns": attempt(lambda: socket.getaddrinfo("deb.debian.org", 80)),
    "connect4": attempt(lambda: connect(socket.AF_INET, "127.0.0.1")),
    "connect6": attempt(lambda: connect(socket.AF_INET6, "::1")),
}
print(json.dumps(result), flush=True)
sys.stdin.readline()
