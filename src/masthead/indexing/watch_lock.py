"""One watcher per site, however many processes serve it.

Every worker of `masthead serve --workers N` (and any other `serve` of the same site) starts
`watch_alone`; only the process holding an exclusive `flock(2)` on `SITE.db.watch.lock`, a file
beside the database, runs the watcher. The others try again every `LOCK_POLL` seconds: when the
holder dies the kernel drops its lock, the next worker to try takes it. Whoever takes the lock
first catches up with an incremental index (files changed while no one watched) and then
watches. Readers need
nothing from the watcher: every worker sees its commits through the index generation.

The holder writes its pid and its parent's into the lock file, so a waiting worker says who
watches: this server's own other worker (the same parent: `serve --workers N` under uvicorn or
granian), or another process (another `serve` of the same site).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
from collections.abc import Callable
from pathlib import Path

from masthead.config import Site
from masthead.indexing.indexer import index_site
from masthead.indexing.watcher import Watcher
from masthead.store.db import Database

log = logging.getLogger(__name__)

LOCK_POLL = 1.0  # seconds between tries of a worker that does not watch
NAMELESS_TRIES = 3  # tries before a waiter logs a holder that has not written its pid yet


def lock_path(site: Site) -> Path:
    """The lock file of `site`'s watcher: the database's path plus `.watch.lock`."""
    db = site.database_path
    return db.with_name(db.name + ".watch.lock")


def _try_lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _sign(fd: int) -> None:
    """Write this process's pid and its parent's into the lock file it holds."""
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()} {os.getppid()}\n".encode(), 0)


def _holder(fd: int) -> str:
    """Who holds the lock, as a waiter's log says it; '' while the holder has not signed."""
    try:
        pid, parent = (int(n) for n in os.pread(fd, 64, 0).split())
    except (OSError, ValueError):
        return ""
    if parent == os.getppid() and parent != 1:
        return f"worker {pid} of this same server"
    return f"another process (pid {pid}; another `masthead serve` of this site?)"


async def watch_alone(
    watcher: Watcher,
    site: Site,
    db: Database,
    stop: asyncio.Event,
    on_start: Callable[[], None],
) -> None:
    """Run `watcher` until `stop` is set, once this process holds the site's watch lock;
    `on_start()` is called when it starts watching. Returns at once when `stop` is set while
    waiting, or, logging why, when the lock file cannot be opened (a read-only folder)."""
    try:
        fd = os.open(lock_path(site), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        log.error("not watching %s: cannot open %s (%s)", site.root, lock_path(site), exc)
        return
    try:
        waited, tries = False, 0
        while not _try_lock(fd):
            who = _holder(fd)
            tries += 1
            if not waited and (who or tries >= NAMELESS_TRIES):
                log.info(
                    "%s watches %s for changes; worker %d takes over if it stops",
                    who or "another process",
                    site.root,
                    os.getpid(),
                )
                waited = True
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), LOCK_POLL)
            if stop.is_set():
                return
        _sign(fd)
        # what changed while no one watched (a dead watcher's last moments, a replaced worker's
        # start); a pass over unchanged files only compares sizes and mtimes
        report = await asyncio.to_thread(index_site, site, db)
        if waited:
            log.info("took over watching %s (%d files re-read)", site.root, report.parsed)
        if report.parsed or report.deleted:
            watcher.on_change("content")
        on_start()
        await watcher.run(stop)
    finally:
        os.close(fd)  # drops the lock
