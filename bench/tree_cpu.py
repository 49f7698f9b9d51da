"""Run a command and print the CPU time of its whole process tree, orphans included (Linux).

`/usr/bin/time` counts a process's children only when they are waited for by a process it
waits for. Chromium's renderer processes are not: the zygote that starts them is killed when
the browser closes, they are re-parented to init and reaped there, and their CPU (about half of
a browser test's) is counted nowhere. Here this process becomes a child subreaper
(`prctl(PR_SET_CHILD_SUBREAPER)`), so every orphan of the tree is re-parented to it, and it
waits for every process until none is left; RUSAGE_CHILDREN then holds the whole tree.

    python3 bench/tree_cpu.py COMMAND [ARGS...]

prints `tree CPU: USER s user, SYS s sys, WALL s wall, exit N` on stderr and exits as the
command did.
"""

from __future__ import annotations

import ctypes
import os
import resource
import subprocess  # nosec B404: runs the command it is given
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")
    start = time.monotonic()
    command = subprocess.Popen(argv)  # nosec B603: the user's own command
    status = 0
    while True:  # the command, then every orphan re-parented here, until none is left
        try:
            pid, wait_status = os.wait()
        except ChildProcessError:
            break
        if pid == command.pid:
            status = os.waitstatus_to_exitcode(wait_status)
            command.returncode = status
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.monotonic() - start
    print(
        f"tree CPU: {usage.ru_utime:.1f} s user, {usage.ru_stime:.1f} s sys, "
        f"{wall:.1f} s wall, exit {status}",
        file=sys.stderr,
    )
    return status if status >= 0 else 128 - status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
