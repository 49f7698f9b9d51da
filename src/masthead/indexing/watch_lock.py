"""One watcher per site, however many processes serve it.

Every worker of `masthead serve --workers N` (and any other `serve` of the same site) starts
`watch_alone`; only the process holding an exclusive `flock(2)` on `SITE.db.watch.lock`, a file
beside the database, runs the watcher. The others try again every `LOCK_POLL` seconds: when the
holder dies the kernel drops its lock, the next worker to try takes it. Whoever takes the lock
first catches up with an incremental index (files changed while no one watched) and then
watches. Readers need
nothing from the watcher: every worker sees its commits through the index generation.
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
        waited = False
        while not _try_lock(fd):
            if not waited:
                log.info("another process watches %s; this one takes over if it stops", site.root)
                waited = True
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), LOCK_POLL)
            if stop.is_set():
                return
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
