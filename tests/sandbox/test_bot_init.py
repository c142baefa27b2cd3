"""The container's PID 1 (sandbox/bot_init.py), run on the host: it confines
the bot it starts, passes signals on to it and exits with its status. The
Docker case of the same confinement is in test_hostile.py."""

from __future__ import annotations

import errno
import platform
import signal
import subprocess
import sys

import pytest

from sandbox.bot_init import SYSCALLS, program
from sandbox.docker_backend import INIT_COMMAND

pytestmark = pytest.mark.skipif(
    platform.machine() not in SYSCALLS, reason=f"no filter for {platform.machine()}"
)


def start(bot_code: str, **kwargs) -> subprocess.Popen:
    """The init as Docker runs it, with a bot given as Python code."""
    command = [sys.executable, *INIT_COMMAND[1:], sys.executable, "-I", "-c", bot_code]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs)


def test_the_bot_gets_no_vsock_no_ptrace_and_its_exit_status_is_passed_on():
    bot = start(
        "import ctypes, os, socket, sys\n"
        "def refused(make):\n"
        "    try:\n"
        "        make().close()\n"
        "    except OSError as exc:\n"
        "        return exc.errno\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "traced = libc.ptrace(16, os.getppid(), 0, 0)\n"
        "print(refused(lambda: socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)),\n"
        "      refused(lambda: socket.socket(socket.AF_UNIX)), traced, ctypes.get_errno())\n"
        "sys.exit(3)\n"
    )
    out, err = bot.communicate(timeout=30)
    assert bot.returncode == 3, err
    assert out.decode().split() == [str(errno.EAFNOSUPPORT), "None", "-1", str(errno.EPERM)], out


def test_a_bot_killed_by_a_signal_ends_the_init_with_128_plus_its_number():
    bot = start("import os, signal; os.kill(os.getpid(), signal.SIGKILL)")
    bot.communicate(timeout=30)
    assert bot.returncode == 128 + signal.SIGKILL


def test_a_signal_to_the_init_is_passed_on_to_the_bot():
    bot = start(
        "import signal, sys, time\n"
        "signal.signal(signal.SIGTERM, lambda *_: sys.exit(7))\n"
        "print('ready', flush=True)\n"
        "time.sleep(60)\n"
    )
    assert bot.stdout.readline() == b"ready\n"
    bot.send_signal(signal.SIGTERM)
    bot.communicate(timeout=30)
    assert bot.returncode == 7


def test_the_filter_refuses_foreign_abis_first():
    """The architecture is checked before any number is read: the 32-bit
    ABI's socketcall hides the socket family from any filter."""
    for machine in SYSCALLS:
        instructions = program(machine)
        assert instructions[0] == (0x20, 0, 0, 4), machine  # load seccomp_data.arch
        assert instructions[1][3] == SYSCALLS[machine]["arch"], machine
        assert all(jt < 256 and jf < 256 for _, jt, jf, _ in instructions)
