"""The SQLite connection: WAL, foreign keys, busy timeout, one writer at a time, migrations.

Readers get one connection per thread and are never blocked by the writer (WAL). Every write runs
in `Database.write()`, a `BEGIN IMMEDIATE` transaction serialised by a lock. The schema version
is `PRAGMA user_version`; migrations are numbered, each applied in one transaction, never edited
once released (see `migrations.py`).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from masthead.store.migrations import MIGRATIONS


def _open(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=10)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA busy_timeout = 10000")
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


def migrate(conn: sqlite3.Connection) -> int:
    """Apply every migration newer than `PRAGMA user_version`; return the new version."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    for number, statements in enumerate(MIGRATIONS, start=1):
        if number <= version:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            for sql in statements:
                conn.execute(sql)
            conn.execute(f"PRAGMA user_version = {number}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        version = number
    return version


def backup(source: Path, destination: Path) -> int:
    """Copy the database at `source` to `destination` with SQLite's online backup API
    (https://www.sqlite.org/backup.html): consistent even while the site is serving and
    writing. Returns the number of pages copied. Raises sqlite3.Error (or OSError) on failure;
    an existing `destination` is replaced only once the copy is complete."""
    destination = Path(destination)
    destination.parent.mkdir(parents=True, exist_ok=True)
    partial = destination.with_name(destination.name + ".partial")
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    dst = sqlite3.connect(partial)
    try:
        src.backup(dst, pages=1024)  # in steps, so writers are never held up for long
        pages = dst.execute("PRAGMA page_count").fetchone()[0]
        ok = dst.execute("PRAGMA integrity_check").fetchone()[0]
        if ok != "ok":
            raise sqlite3.DatabaseError(f"backup failed its integrity check: {ok}")
    finally:
        dst.close()
        src.close()
    partial.replace(destination)
    return int(pages)


class Database:
    """One SQLite file. `read()` gives this thread's connection; `write()` a transaction."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._lock = threading.Lock()
        self._writer = _open(self.path)
        self._writer.execute("PRAGMA journal_mode = WAL")
        migrate(self._writer)
        self._readers: list[sqlite3.Connection] = []

    def read(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = _open(self.path)
            conn.execute("PRAGMA query_only = ON")
            self._local.conn = conn
            with self._lock:
                self._readers.append(conn)
        return conn

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A `BEGIN IMMEDIATE` transaction on the single writer connection."""
        with self._lock:
            conn = self._writer
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            for conn in self._readers:
                conn.close()
            self._readers.clear()
            self._writer.close()
