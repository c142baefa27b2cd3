"""Tries what Docker's own seccomp profile (engine 20.10) still allowed: an
AF_VSOCK socket (vsock has no network namespace: the way to a VM worker's
hypervisor), the same through the 32-bit ABI's socketcall (x86_64 only) and
through io_uring, writing to PID 1's memory, ptrace of PID 1, and an
inotify instance (their number is per uid, host-wide: one bot could use up
every other bot's).

Expected: a LINE where every attempt failed, while ordinary sockets (unix,
IPv4, IPv6, netlink) still work.
"""

import ctypes
import json
import mmap
import os
import platform
import socket
import sys

sys.stdin.readline()
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.ptrace.restype = ctypes.c_long


def attempt(func) -> str:
    try:
        func()
        return "ok"
    except OSError as exc:
        return f"error:{exc.errno}"


def syscall_result(rc: int) -> None:
    if rc < 0:
        raise OSError(ctypes.get_errno() if rc == -1 else -rc, "refused")


def socketcall_i386(family: int) -> None:
    """socketcall(SYS_SOCKET, [family, SOCK_STREAM, 0]) by `int 0x80`."""
    page = mmap.mmap(
        -1, 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x40,  # MAP_32BIT
        prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC,
    )  # fmt: skip
    base = ctypes.addressof(ctypes.c_char.from_buffer(page))
    args = base + 2048
    ctypes.memmove(args, (ctypes.c_uint32 * 3)(family, socket.SOCK_STREAM, 0), 12)
    # push rbx; mov eax, 102; mov ebx, 1; mov ecx, args; int 0x80; movsxd rax, eax; pop rbx; ret
    code = (
        b"\x53\xb8" + (102).to_bytes(4, "little") + b"\xbb\x01\x00\x00\x00\xb9"
        + args.to_bytes(4, "little") + b"\xcd\x80\x48\x63\xc0\x5b\xc3"
    )  # fmt: skip
    ctypes.memmove(base, code, len(code))
    syscall_result(ctypes.CFUNCTYPE(ctypes.c_long)(base)())


def io_uring() -> None:
    syscall_result(libc.syscall(425, 4, ctypes.create_string_buffer(120)))


def pid1_memory() -> None:
    os.close(os.open("/proc/1/mem", os.O_RDWR))


def ptrace_pid1() -> None:
    syscall_result(libc.ptrace(16, 1, 0, 0))  # PTRACE_ATTACH


result = {
    "vsock": attempt(lambda: socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM).close()),
    "io_uring": attempt(io_uring),
    "pid1_memory": attempt(pid1_memory),
    "ptrace_pid1": attempt(ptrace_pid1),
    "inotify": attempt(lambda: syscall_result(libc.inotify_init1(0))),
    "unix": attempt(lambda: socket.socket(socket.AF_UNIX).close()),
    "inet": attempt(lambda: socket.socket(socket.AF_INET).close()),
    "inet6": attempt(lambda: socket.socket(socket.AF_INET6).close()),
    "netlink": attempt(lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW).close()),
}
if platform.machine() == "x86_64":
    result["vsock_i386"] = attempt(lambda: socketcall_i386(socket.AF_VSOCK))
print(json.dumps(result), flush=True)
sys.stdin.readline()
