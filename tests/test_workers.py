"""Pool workers end with the process that started them (`masthead.workers.follow_parent`):
a `masthead build`, `index` or `import` stopped with SIGKILL or SIGTERM left its spawned pool
workers running for good, each waiting on a pipe it holds both ends of."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from support.wait import until

PARENT = """
import multiprocessing, os, time
from concurrent.futures import ProcessPoolExecutor
from masthead.workers import follow_parent

def pid_after(seconds):
    time.sleep(seconds)
    return os.getpid()

if __name__ == "__main__":
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(2, mp_context=context, initializer=follow_parent, initargs=(0.05,))
    pids = set()
    while len(pids) < 2:  # four tasks at once that take a while: both workers take some
        pids |= set(pool.map(pid_after, [0.3] * 4))
    print(" ".join(map(str, sorted(pids))), flush=True)
    time.sleep(3600)
"""


def _running(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "State:\tZ" not in status  # a zombie has ended; its parent has not reaped it


def _workers_of_a_parent_killed_with(sig: signal.Signals, tmp_path: Path) -> list[int]:
    script = tmp_path / "parent.py"
    script.write_text(PARENT)
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        pids = [int(p) for p in parent.stdout.readline().split()]
        assert len(pids) == 2 and all(_running(p) for p in pids)
        os.kill(parent.pid, sig)
        parent.wait(timeout=60)
    finally:
        parent.kill()
    return pids


def test_pool_workers_end_when_their_parent_is_killed(tmp_path):
    pids = _workers_of_a_parent_killed_with(signal.SIGKILL, tmp_path)
    until(lambda: not any(_running(p) for p in pids), timeout=60, what="the workers to end")


def test_pool_workers_end_when_their_parent_is_stopped(tmp_path):
    pids = _workers_of_a_parent_killed_with(signal.SIGTERM, tmp_path)
    until(lambda: not any(_running(p) for p in pids), timeout=60, what="the workers to end")
