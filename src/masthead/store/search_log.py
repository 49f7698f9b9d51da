"""SQL for the search log (`search_log`, migration 1) and the writer connection it is written on.

The log is written by `search.log.SearchLog`'s background thread on a connection of its own
(`Writer`), with a short busy timeout, so a write lock held by another process delays or drops
log entries, never a search; its transactions are `store.db.transaction`s. Readers (the
dashboard, `masthead search-log`) use any connection.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from masthead.store.db import leave_checkpoints, transaction


class Writer:
    """The search log's own connection to the SQLite file at `path`, opened on first use, with
    a busy timeout of `busy_ms` milliseconds (its pragmas, such as `max_page_count`, are its
    own). Not thread-safe: its owner serialises the calls."""

    def __init__(self, path: Path, busy_ms: int, *, checkpoints: bool = True) -> None:
        self.path = Path(path)
        self.busy_ms = busy_ms
        self.checkpoints = checkpoints  # False: Litestream checkpoints (store/db.py)
        self._conn: sqlite3.Connection | None = None

    def connection(self) -> sqlite3.Connection:
        if self._conn is None:
            conn = sqlite3.connect(
                self.path,
                timeout=self.busy_ms / 1000,
                isolation_level=None,
                check_same_thread=False,
            )
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_ms)}")
            if not self.checkpoints:
                leave_checkpoints(conn)
            self._conn = conn
        return self._conn

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction (`BEGIN IMMEDIATE`: fails within the busy timeout when another
        writer holds the lock); a failed rollback is not logged (SQLite may have rolled back
        already, SQLITE_FULL), the error that caused it is raised."""
        with transaction(self.connection(), quiet=True) as conn:
            yield conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def log_search(conn: sqlite3.Connection, entry: dict[str, Any]) -> None:
    """Append one search: at, query, terms, filters (dict), lang, results, latency_ms, client."""
    conn.execute(
        "INSERT INTO search_log (at, query, terms, filters, lang, results, latency_ms, client) "
        "VALUES (:at, :query, :terms, :filters, :lang, :results, :latency_ms, :client)",
        entry | {"filters": json.dumps(entry["filters"], ensure_ascii=False, sort_keys=True)},
    )


def prune_log(conn: sqlite3.Connection, before: float) -> int:
    """Delete log entries older than `before`; return how many."""
    return conn.execute("DELETE FROM search_log WHERE at < :before", {"before": before}).rowcount


def _query_key(query: str) -> str:
    # case does not change a search, except for the OR operator
    return " ".join(w if w == "OR" else w.lower() for w in query.split())


def top_queries(
    conn: sqlite3.Connection, since: float, limit: int, no_results: bool = False
) -> list[dict[str, Any]]:
    """Most frequent searches since `since` (only those that found nothing, if `no_results`):
    `query` (as last typed), `filters` (JSON), `searches`, `last` (time), `results` (of the last
    one). Searches group when they differ only in case and spacing (`OR` stays an operator);
    a query with other filters is another search (`kubelet`, and `kubelet` with `lang=fr`)."""
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    rows = conn.execute(
        "SELECT query, filters, at, results FROM search_log "
        "WHERE at >= :since AND trim(query) != '' ORDER BY at",
        {"since": since},
    )
    for query, filters, at, results in rows:
        key = (_query_key(query), filters)
        entry = groups.setdefault(key, {"searches": 0})
        entry.update(query=query.strip(), filters=filters, last=at, results=results)
        entry["searches"] += 1
    chosen = [g for g in groups.values() if not no_results or g["results"] == 0]
    chosen.sort(key=lambda g: (-g["searches"], -g["last"]))
    return chosen[:limit]


def cap_log(conn: sqlite3.Connection, max_rows: int) -> int:
    """Delete the oldest log entries beyond the newest `max_rows`; return how many. Ids only
    grow and rows go oldest first, so the id range bounds the count (one index lookup)."""
    return conn.execute(
        "DELETE FROM search_log WHERE id <= (SELECT MAX(id) FROM search_log) - :max",
        {"max": max_rows},
    ).rowcount


def searched_since(conn: sqlite3.Connection, since: float) -> list[float]:
    """Times of the logged searches since `since` (queries over time)."""
    rows = conn.execute(
        "SELECT at FROM search_log WHERE at >= :since AND trim(query) != ''", {"since": since}
    )
    return [r[0] for r in rows]
