"""Worker processes that end with the process that started them.

A pool worker (`concurrent.futures.ProcessPoolExecutor`, spawned) waits for its next task on a
pipe whose writing end it holds itself, so it never sees the end of the pipe when its parent
dies: a `masthead build`, `index` or `import` stopped with SIGTERM or SIGKILL left its workers
running for good. `follow_parent`, called in a pool's initializer, ends the worker once its
parent is gone (the worker is then handed to another parent, and `os.getppid` changes).
"""

from __future__ import annotations

import os
import threading
import time

INTERVAL = 1.0  # seconds between two looks at the parent


def follow_parent(interval: float = INTERVAL) -> None:
    """End this process (exit status 1) within `interval` seconds of its parent's end."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(interval)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="masthead-follow-parent", daemon=True).start()
