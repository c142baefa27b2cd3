"""PID 1 of a bot's container: confines itself, then starts the bot and waits.

The Docker backend runs this file's text as `python3 -I -S -c <text> BOT...`
in place of Docker's own init (tini): it must stay standard-library only and
import nothing from this package. Why not tini: it runs outside anything we
add, as the bot's uid and dumpable, so a bot could open /proc/1/mem for
writing and run code in it (measured: opened read-write) with only Docker's
seccomp profile, which on the engines we run still lets a bot:

* open AF_VSOCK sockets: vsock has no network namespace, so `--network none`
  does not stop a bot reaching the hypervisor of a VM worker (measured: a
  bot's bind() hit the host's own vsock port, EADDRINUSE);
* make any socket through the 32-bit system-call ABI (`int 0x80`
  socketcall), where no filter can read the address family (measured: an
  AF_VSOCK socket), or through io_uring (IORING_OP_SOCKET).

So this init makes itself non-dumpable (its /proc files become root's: no
ptrace, no /proc/1/mem for the bot), installs a second seccomp filter, which
the kernel stacks on Docker's and which every process of the bot inherits,
and only then forks and execs the bot. Like tini it reaps orphans, passes
signals sent to it on to the bot, and exits with the bot's status (128 + N
for a death by signal N).

The filter, beside Docker's: only the native ABI (x86_64 or aarch64);
socket() only for AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK (all within the
container's own network namespace), EAFNOSUPPORT otherwise; ptrace,
process_vm_readv/writev and io_uring give EPERM, and so do inotify and POSIX
message queues: their limits count per user across the host (no user
namespace), and every bot is uid 65534, so one bot used up what every other
bot, and the host's own `nobody`, may have (measured: a bot's 128 inotify
instances left another match's bot, and the host as uid 65534, with EMFILE).
"""

from __future__ import annotations

import ctypes
import errno
import os
import signal
import struct
import sys

# seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]
_NR, _ARCH, _ARG0 = 0, 4, 16  # args[0]'s low half (little-endian)
_LD_ABS_W = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ, _JGE = 0x15, 0x35  # BPF_JMP | BPF_JEQ/BPF_JGE | BPF_K
_RET = 0x06  # BPF_RET | BPF_K
RET_ALLOW = 0x7FFF0000
RET_ERRNO = 0x00050000
X32_BIT = 0x40000000  # x86_64's x32 ABI: the same arch, numbers above this

#: AUDIT_ARCH, socket, then the numbers refused with EPERM
SYSCALLS = {
    "x86_64": {
        "arch": 0xC000003E,
        "socket": 41,
        "denied": {
            "ptrace": 101,
            "process_vm_readv": 310,
            "process_vm_writev": 311,
            "io_uring_setup": 425,
            "io_uring_enter": 426,
            "io_uring_register": 427,
            "inotify_init": 253,
            "inotify_init1": 294,
            "mq_open": 240,
        },
    },
    "aarch64": {
        "arch": 0xC00000B7,
        "socket": 198,
        "denied": {
            "ptrace": 117,
            "process_vm_readv": 270,
            "process_vm_writev": 271,
            "io_uring_setup": 425,
            "io_uring_enter": 426,
            "io_uring_register": 427,
            "inotify_init1": 26,  # (no inotify_init here)
            "mq_open": 180,
        },
    },
}
ALLOWED_FAMILIES = {"AF_UNIX": 1, "AF_INET": 2, "AF_INET6": 10, "AF_NETLINK": 16}

PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP = 4, 38, 22
SECCOMP_MODE_FILTER = 2
#: exit status when the bot could not be confined or started (a platform fault)
CONFINE_FAILED_EXIT = 125
FORWARDED = {
    signal.SIGHUP,
    signal.SIGINT,
    signal.SIGQUIT,
    signal.SIGTERM,
    signal.SIGUSR1,
    signal.SIGUSR2,
    signal.SIGWINCH,
}


def program(machine: str) -> list[tuple[int, int, int, int]]:
    """The filter as (code, jt, jf, k) instructions for `machine`
    (os.uname().machine); KeyError for a machine it does not know."""
    table = SYSCALLS[machine]
    denied = sorted(table["denied"].values())
    families = sorted(ALLOWED_FAMILIES.values())
    eperm = ("ret", RET_ERRNO | errno.EPERM)
    # labels are resolved to forward jumps below: ("jeq"/"jge", k, label_true, label_false)
    code: list[tuple] = [
        ("ld", _ARCH),
        ("jeq", table["arch"], None, "enosys"),
        ("ld", _NR),
        ("jge", X32_BIT, "enosys", None),
        ("jeq", table["socket"], "family", None),
        *(("jeq", nr, "eperm", None) for nr in denied),
        ("ret", RET_ALLOW),
        ("label", "family"),
        ("ld", _ARG0),
        *(("jeq", family, "allow", None) for family in families),
        ("ret", RET_ERRNO | errno.EAFNOSUPPORT),
        ("label", "allow"),
        ("ret", RET_ALLOW),
        ("label", "eperm"),
        eperm,
        ("label", "enosys"),
        ("ret", RET_ERRNO | errno.ENOSYS),
    ]
    where, index = {}, 0
    for item in code:
        if item[0] == "label":
            where[item[1]] = index
        else:
            index += 1
    out, index = [], 0
    for item in code:
        op = item[0]
        if op == "label":
            continue
        if op == "ld":
            out.append((_LD_ABS_W, 0, 0, item[1]))
        elif op == "ret":
            out.append((_RET, 0, 0, item[1]))
        else:
            jumps = [0 if label is None else where[label] - index - 1 for label in item[2:]]
            out.append((_JEQ if op == "jeq" else _JGE, jumps[0], jumps[1], item[1]))
        index += 1
    return out


def compiled(machine: str | None = None) -> bytes:
    """The filter as the kernel takes it (struct sock_filter[]), for this
    machine by default; KeyError for a machine it does not know."""
    instructions = program(machine or os.uname().machine)
    return b"".join(struct.pack("HBBI", *ins) for ins in instructions)


def install(machine: str | None = None) -> None:
    """Make this process non-dumpable and install the filter (inherited by
    every child); OSError when the kernel refuses either."""
    libc = ctypes.CDLL(None, use_errno=True)
    blob = compiled(machine)
    filters = ctypes.create_string_buffer(blob, len(blob))

    class Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    prog = Prog(len(blob) // 8, ctypes.addressof(filters))
    for option, args in (
        (PR_SET_DUMPABLE, (0, 0, 0, 0)),
        (PR_SET_NO_NEW_PRIVS, (1, 0, 0, 0)),  # Docker set it already; the host tests not
        (PR_SET_SECCOMP, (SECCOMP_MODE_FILTER, ctypes.addressof(prog), 0, 0)),
    ):
        args = [ctypes.c_ulong(a) for a in args]
        if libc.prctl(option, *args) != 0:
            number = ctypes.get_errno()
            raise OSError(number, f"prctl({option}): {os.strerror(number)}")


def _status(status: int) -> int:
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code


def main(argv: list[str]) -> int:
    if not argv:
        print("bot_init: no command", file=sys.stderr)
        return CONFINE_FAILED_EXIT
    try:
        install()
    except (OSError, KeyError) as exc:
        print(f"sandbox: cannot confine the bot ({exc!r}); not started", file=sys.stderr)
        return CONFINE_FAILED_EXIT
    waited = FORWARDED | {signal.SIGCHLD}
    signal.pthread_sigmask(signal.SIG_BLOCK, waited)
    child = os.fork()
    if child == 0:
        signal.pthread_sigmask(signal.SIG_SETMASK, set())
        try:
            os.execv(argv[0], argv)
        except OSError as exc:
            print(f"sandbox: cannot start {argv[0]}: {exc}", file=sys.stderr)
        os._exit(CONFINE_FAILED_EXIT)
    while True:
        signo = signal.sigwaitinfo(waited).si_signo
        if signo != signal.SIGCHLD:
            try:
                os.kill(child, signo)
            except ProcessLookupError:
                pass
            continue
        while True:  # reap every child that ended: the bot's orphans come here
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            if pid == child:
                return _status(status)


if __name__ == "__main__":
    os._exit(main(sys.argv[1:]))
