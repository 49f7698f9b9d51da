"""The search log, best-effort: a search never waits for it and never fails because of it.

`SearchLog.record()` only touches memory. A background thread writes what was recorded in
batches, on its own SQLite connection with a short busy timeout, so a write lock held by another
process (`masthead index --full` beside `masthead serve`) or a full disk delays or drops log
entries, never a search. A failure is logged once per outage (Python logging), not per search.

What is stored, and its bounds:

- one row per search; keystroke prefixes of one query from one client within
  `SESSION_SECONDS` of each other (`s`, `so`, … `sourdough`, or a backspace) are one row: the
  last; the same query again is another search;
- query and terms are cut to `MAX_TEXT` characters, e-mail addresses replaced by `[e-mail]`;
- the client is a salted hash of its address, the salt changing every day (site time zone); the
  address itself is kept in memory only, for at most a session;
- at most `MAX_ROWS` rows (the oldest are pruned), and none older than `search_log_days`;
- at most `MAX_QUEUE` entries wait in memory for the database; more are dropped and counted.
"""

from __future__ import annotations

import hashlib
import logging
import re
import sqlite3
import threading
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any

from masthead.store import search_log as store
from masthead.store import site_secrets

log = logging.getLogger(__name__)

SESSION_SECONDS = 3.0  # keystrokes of one query come well within this of each other
MAX_TEXT = 200  # characters of query and terms stored
MAX_ROWS = 100_000  # rows kept in search_log
MAX_QUEUE = 10_000  # entries waiting for the database
MAX_SESSIONS = 10_000  # clients whose last query may still grow
BUSY_MS = 50  # the writer's SQLite busy timeout: a held lock is retried later, not waited on
FLUSH_EVERY = 1.0  # seconds between the writer's attempts
PRUNE_EVERY = 3600.0  # seconds (of the log's clock) between prunes by age
BATCH = 500
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


@dataclass
class Entry:
    """One search as recorded: `at` in seconds since the epoch, `filters` the parsed filters
    shown to the reader, `client` the raw address (hashed before it is written)."""

    at: float
    query: str
    terms: str
    filters: dict[str, Any] = field(default_factory=dict)
    lang: str = ""
    results: int = 0
    latency_ms: float = 0.0
    client: str = ""


def _key(query: str) -> str:
    return " ".join(query.casefold().split())


def continues(previous: Entry, entry: Entry) -> bool:
    """Whether `entry` is the same reader still typing `previous`'s query: same client and
    filters, within `SESSION_SECONDS`, and one query a strict prefix of the other."""
    a, b = _key(previous.query), _key(entry.query)
    return (
        entry.client == previous.client
        and 0 <= entry.at - previous.at <= SESSION_SECONDS
        and entry.filters == previous.filters
        and a != b
        and (b.startswith(a) or a.startswith(b))
    )


def _text(value: str) -> str:
    return _EMAIL.sub("[e-mail]", value[: MAX_TEXT * 2])[:MAX_TEXT]


def _capped(value: Any) -> Any:
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, list):
        return [_capped(v) for v in value[:20]]
    return value


class SearchLog:
    """The search log of the SQLite file at `path`. `clock` gives seconds since the epoch (the
    service's: tests replay sessions without sleeping); `days` is `search_log_days` (0: keep
    every row, up to `MAX_ROWS`)."""

    def __init__(
        self,
        path: Path,
        tz: tzinfo,
        days: int,
        clock: Callable[[], float],
        *,
        checkpoints: bool = True,
    ) -> None:
        self.path = Path(path)
        self.checkpoints = checkpoints  # False under replication: Litestream checkpoints
        self.tz = tz
        self.days = days
        self.clock = clock
        self.max_rows = MAX_ROWS
        self.dropped = 0  # entries lost because the queue was full
        self.written = 0
        self.last_prune = 0.0
        self._sessions: OrderedDict[str, Entry] = OrderedDict()  # client → its latest query
        self._queue: deque[Entry] = deque()
        self._mutex = threading.Lock()  # guards sessions and queue; never held during I/O
        self._writing = threading.Lock()  # one writer at a time
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._writer = store.Writer(self.path, BUSY_MS, checkpoints=self.checkpoints)
        self._secret: str | None = None
        self._failing = False
        self._closed = False

    # --- recording (the search's side: memory only) -------------------------------------------

    def record(self, entry: Entry) -> None:
        """Add one search. Never blocks on the database, never raises for a log problem."""
        with self._mutex:
            previous = self._sessions.pop(entry.client, None)
            if previous is not None and not continues(previous, entry):
                self._enqueue(previous)
            self._sessions[entry.client] = entry
            while len(self._sessions) > MAX_SESSIONS:
                self._enqueue(self._sessions.popitem(last=False)[1])
        self._start()

    def _enqueue(self, entry: Entry) -> None:
        if len(self._queue) >= MAX_QUEUE:
            self.dropped += 1  # the oldest stay: a full queue only loses what comes after
            return
        self._queue.append(entry)

    def _close_sessions(self, everything: bool) -> None:
        now = self.clock()
        with self._mutex:
            for client, entry in list(self._sessions.items()):
                if everything or now - entry.at > SESSION_SECONDS:
                    del self._sessions[client]
                    self._enqueue(entry)

    # --- writing (the background thread's side) -----------------------------------------------

    def _start(self) -> None:
        if self._thread is None and not self._stop.is_set():
            with self._mutex:
                if self._thread is None:
                    self._thread = threading.Thread(
                        target=self._run, name="masthead-search-log", daemon=True
                    )
                    self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(FLUSH_EVERY):
            try:
                self.flush()
            except Exception:  # the log must never take the writer thread down
                log.exception("search log: unexpected error")

    def flush(self, everything: bool = False) -> int:
        """Write every finished entry (with `everything`, sessions still being typed too);
        return how many were written. On a database error (locked, disk full) entries stay
        queued for the next attempt, the error is logged once per outage, and 0 is returned."""
        written = 0
        with self._writing:
            if self._closed:
                return 0
            self._close_sessions(everything)
            while True:
                with self._mutex:
                    batch = [self._queue[i] for i in range(min(BATCH, len(self._queue)))]
                if not batch:
                    break
                try:
                    self._write(batch)
                except sqlite3.Error as exc:
                    self._failed(exc)
                    return written
                with self._mutex:
                    for _ in batch:
                        self._queue.popleft()
                written += len(batch)
                self.written += len(batch)
            if written and self._failing:
                self._failing = False
                log.info("search log: writing again (%d entries dropped meanwhile)", self.dropped)
        return written

    def _failed(self, exc: sqlite3.Error) -> None:
        if not self._failing:
            self._failing = True
            log.warning(
                "search log: cannot write to %s (%s); searches go on, up to %d entries wait "
                "in memory and are retried",
                self.path,
                exc,
                MAX_QUEUE,
            )

    def connection(self) -> sqlite3.Connection:
        """The writer's own connection (its pragmas, such as `max_page_count`, are its own)."""
        return self._writer.connection()

    def _write(self, batch: list[Entry]) -> None:
        # the write lock is waited for BUSY_MS at most: another writer holding it fails this
        with self._writer.transaction() as conn:
            secret = self._load_secret(conn)
            for entry in batch:
                store.log_search(conn, self._row(entry, secret))
            now = self.clock()
            if self.days and now - self.last_prune > PRUNE_EVERY:
                store.prune_log(conn, now - self.days * 86400)
                self.last_prune = now
            store.cap_log(conn, self.max_rows)

    def _row(self, entry: Entry, secret: str) -> dict[str, Any]:
        return {
            "at": entry.at,
            "query": _text(entry.query),
            "terms": _text(entry.terms),
            "filters": {k: _capped(v) for k, v in entry.filters.items()},
            "lang": entry.lang[:MAX_TEXT],
            "results": entry.results,
            "latency_ms": round(entry.latency_ms, 3),
            "client": self._hash(secret, entry.client, entry.at) if entry.client else "",
        }

    # --- the client hash ----------------------------------------------------------------------

    def _load_secret(self, conn: sqlite3.Connection) -> str:
        if self._secret is None:
            self._secret = site_secrets.search_log_secret(conn)
        return self._secret

    def _hash(self, secret: str, address: str, at: float) -> str:
        day = datetime.fromtimestamp(at, self.tz).date().isoformat()
        salt = hashlib.sha256(f"{secret}:{day}".encode()).hexdigest()
        return hashlib.sha256(f"{salt}:{address}".encode()).hexdigest()[:32]

    def client_hash(self, address: str, at: float | None = None) -> str:
        """What is stored for a client `address` searching at `at` (default: now): a hash with a
        salt that changes every day (site time zone), so the same reader is one visitor within
        a day and cannot be followed across days. Creates the secret if needed (a write)."""
        secret = self._secret
        if secret is None:
            with self._writing, self._writer.transaction() as conn:
                secret = self._load_secret(conn)
        return self._hash(secret, address, self.clock() if at is None else at)

    def close(self) -> None:
        """Stop the writer and write what is left (best effort: a failure is logged once)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.flush(everything=True)
        with self._writing:
            self._closed = True
            self._writer.close()
