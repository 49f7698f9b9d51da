"""Comment thread versions (`comment_threads`, migration 4, and `comments_version` in
`site_state`): what tells every worker which pages show changed comments.

A change readers of a thread can see (a comment approved, or one that was approved changing)
calls `touch` inside its write transaction: the thread's version and the site-wide comments
version go up by one. `tracking()` collects the threads touched meanwhile, so that
`store.comments.commit` bumps the database's change signal (store/signal.py) after the COMMIT;
every worker then re-reads the versions on its next request and re-renders only the pages that
show those threads.
"""

from __future__ import annotations

import contextvars
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

VERSION_KEY = "comments_version"

_touched: contextvars.ContextVar[set[str] | None] = contextvars.ContextVar(
    "comment_threads_touched", default=None
)


@contextmanager
def tracking() -> Iterator[set[str]]:
    """The set of threads `touch` is called for within the block (in this context)."""
    touched: set[str] = set()
    token = _touched.set(touched)
    try:
        yield touched
    finally:
        _touched.reset(token)


def touch(conn: sqlite3.Connection, thread: str) -> None:
    """Bump `thread`'s version and the site-wide comments version (inside `commit`)."""
    conn.execute(
        "INSERT INTO comment_threads (thread, version) VALUES (:t, 1) "
        "ON CONFLICT (thread) DO UPDATE SET version = version + 1",
        {"t": thread},
    )
    conn.execute(
        "INSERT INTO site_state (key, value) VALUES (:k, '1') ON CONFLICT (key) "
        "DO UPDATE SET value = CAST(value AS INTEGER) + 1",
        {"k": VERSION_KEY},
    )
    touched = _touched.get()
    if touched is not None:
        touched.add(thread)


def thread_versions(conn: sqlite3.Connection) -> dict[str, int]:
    """Every thread's version (a thread never changed is absent: version 0)."""
    return {r[0]: r[1] for r in conn.execute("SELECT thread, version FROM comment_threads")}


def comments_version(conn: sqlite3.Connection) -> int:
    """The site-wide comments version: bumped with every thread version."""
    row = conn.execute("SELECT value FROM site_state WHERE key = :k", {"k": VERSION_KEY})
    found = row.fetchone()
    return int(found[0]) if found else 0
