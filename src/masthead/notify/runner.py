"""The server's mail runner: one thread, in one process of all that serve a site.

Every worker of `masthead serve` starts a `MailRunner` when mail is on; only the one holding an
exclusive `flock(2)` on `SITE.db.mail.lock` (beside the database) works, the others try again
every `LOCK_POLL` seconds and take over when the holder dies (the kernel drops its lock), as the
watcher does (indexing/watch_lock.py). The working runner collects events and drains the outbox
(notify/collect.py, notify/sender.py), then sleeps until the database changes (a comment
committed by any process moves `PRAGMA data_version` on its connection: checked every
`WAKE_POLL` seconds, a few microseconds each), a retry falls due, `wake()` is called or it is
stopped. It runs in its own thread: SMTP never holds up a request, and a failing server never
fails a comment (the comment is committed before any mail is thought of).
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

from masthead.config import Site
from masthead.notify.collect import collect
from masthead.notify.sender import drain, off_reason
from masthead.store import outbox
from masthead.store.db import Database, data_version

log = logging.getLogger(__name__)

LOCK_POLL = 2.0  # seconds between tries of a runner that does not hold the lock
WAKE_POLL = 0.5  # seconds between looks at the database's data_version
IDLE = 60.0  # seconds: a cycle runs at least this often, whatever happens


def lock_path(db: Database) -> Path:
    """The runner's lock file: the database's path plus `.mail.lock`."""
    return db.path.with_name(db.path.name + ".mail.lock")


class MailRunner:
    """Collect and send `site`'s mail in a background thread while the server runs. `base_url`
    starts every link in the mails. `clock` gives seconds since the epoch."""

    def __init__(
        self,
        site: Site,
        db: Database,
        base_url: str,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.site, self.db, self.base_url, self.clock = site, db, base_url, clock
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._run, name="masthead-mail", daemon=True)
        self.working = False  # True while this process holds the lock
        self.cycles = 0  # finished collect + drain passes (tests and /healthz may read it)

    def start(self) -> None:
        self._thread.start()

    def wake(self) -> None:
        """Run a pass now (after a comment commit in this process, say)."""
        self._wake.set()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the thread and wait up to `timeout` seconds for it (an SMTP exchange under way
        may take longer: the thread is a daemon, and its claimed rows are retried later)."""
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout)

    def _run(self) -> None:
        try:
            fd = os.open(lock_path(self.db), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            log.error("not sending mail: cannot open %s (%s)", lock_path(self.db), exc)
            return
        try:
            while not _try_lock(fd):
                if self._stop.wait(LOCK_POLL):
                    return
            self.working = True
            self._work()
        finally:
            os.close(fd)  # drops the lock

    def _work(self) -> None:
        seen: int | None = None
        while not self._stop.is_set():
            try:
                # read before the pass: a commit during it wakes the next one
                conn = self.db.read()
                seen = data_version(conn)
                self._cycle()
                due = outbox.next_due(conn)
            except (sqlite3.Error, OSError) as exc:  # a full disk, a locked database: later
                log.warning("mail: %s", exc)
                due = None
            except Exception:  # a bug must not end mail for the life of the server
                log.exception("mail: the runner's pass failed")
                due = None
            self.cycles += 1
            self._sleep(seen, due)

    def _cycle(self) -> None:
        now = self.clock()
        queued = collect(self.db, self.site, self.base_url, now)
        report = drain(self.db, self.site.settings, now=now)
        if queued or report.sent or report.retried or report.failed:
            log.info(
                "mail: %d queued, %d sent, %d to retry, %d failed",
                queued, report.sent, report.retried, report.failed,
            )  # fmt: skip

    def _sleep(self, seen: int | None, due: float | None) -> None:
        """Until the database changes, `due` (seconds since the epoch) passes, `IDLE` seconds
        pass, or `wake()`/`stop()` is called."""
        until = time.monotonic() + IDLE
        while not self._stop.is_set():
            if self._wake.wait(WAKE_POLL):
                self._wake.clear()
                return
            if due is not None and self.clock() >= due:
                return
            with contextlib.suppress(sqlite3.Error):
                if seen is not None and data_version(self.db.read()) != seen:
                    return
            if time.monotonic() >= until:
                return


def _try_lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def start(site: Site, db: Database, base_url: str) -> MailRunner | None:
    """A started runner when mail is on (`smtp_host` and `mail_from` set), else None."""
    reason = off_reason(site.settings)
    if reason is not None:
        if site.settings.smtp_host or site.settings.editor_emails:
            log.warning("mail is off: %s", reason)
        return None
    runner = MailRunner(site, db, base_url)
    runner.start()
    return runner
