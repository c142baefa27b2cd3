"""The worker memory benchmark's arithmetic and its view of processes
(`python -m ladder.membench` prints the figures; it is not run here)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from ladder.membench import children, rss_kib, slope_per_1000


def test_growth_is_the_least_squares_slope_per_1000_matches() -> None:
    assert slope_per_1000([(100, 1000), (200, 1500), (300, 2000)]) == 5000
    # every sample counts, not only the first and the last
    assert slope_per_1000([(100, 1000), (200, 4000), (300, 1000), (400, 1000)]) == -3000
    assert slope_per_1000([(100, 1000)]) == 0


def test_it_reads_a_process_and_its_children() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert child.pid in children(os.getpid())
        assert rss_kib(child.pid) > 0
    finally:
        child.kill()
        child.wait()
    assert rss_kib(child.pid) == 0  # gone
    # resident memory (tens of MiB with Django loaded), not the address
    # space: at most the peak resident memory, read afterwards
    now = rss_kib(os.getpid())
    peak = int(re.search(r"VmHWM:\s+(\d+) kB", Path("/proc/self/status").read_text())[1])
    assert 10_000 < now <= peak


def test_a_pool_process_that_grew_too_much_is_replaced() -> None:
    """The safety net of docs/operations.md reaches Celery (in KiB): a pool
    process past it is replaced after its match; no max tasks per child. A
    real worker doing so: tests/ladder/test_workers.py."""
    from config.celery import app

    assert app.conf.worker_max_memory_per_child == 512 * 1024
    assert app.conf.worker_max_tasks_per_child is None
