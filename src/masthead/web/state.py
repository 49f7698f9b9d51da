"""What every request shares: the site, the database, the clock and a small page cache.

Cache entries and ETags are keyed by the index generation (bumped by every index change) and by a
schedule epoch that advances when a post dated in the future becomes due, so future posts appear
on time with no restart and no reader ever sees a stale page after an index change.

The generation is held in memory: it is read from SQLite (with the date of the next scheduled
post) only when the database's change signal (store/signal.py) has moved since the last read,
which any process that commits a change bumps. So a change made by another worker or by
`masthead index` is seen on the very next request, for the cost of one `os.stat`.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from masthead.config import Site
from masthead.store import posts as store
from masthead.store.db import Database
from masthead.store.signal import Stamp

CACHE_ENTRIES = 512


@dataclass
class Page:
    """A cached response body: `etag` is strong (a hash of `body`), `modified` the
    Last-Modified date of the document (feeds and sitemaps), None for HTML pages."""

    body: bytes
    etag: str
    status: int = 200
    media_type: str = "text/html; charset=utf-8"
    modified: datetime | None = None


@dataclass(frozen=True)
class Seen:
    """What the last read of SQLite found: the signal's stamp read just before it, the
    generation, the date of the next scheduled post (None: none) and the schedule epoch."""

    stamp: Stamp
    generation: int
    due: float | None
    epoch: int


@dataclass
class SiteState:
    site: Site
    db: Database
    dev: bool = False
    theme_epoch: int = 0  # bumped when a template or static file changes (--dev)
    clock: Callable[[], float] = time.time
    _cache: OrderedDict[tuple, Page] = field(default_factory=OrderedDict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _seen: Seen | None = None
    _refs: tuple[int, dict[str, tuple[str, str]]] = (-1, {})

    reloader: Any = None

    def reload_version(self) -> int:
        """The live-reload version a page is rendered at (`--dev`), 0 otherwise."""
        return self.reloader.version if self.reloader is not None else 0

    def now(self) -> float:
        return self.clock()

    def version(self) -> tuple[int, int]:
        """`(generation, schedule_epoch)`: changes whenever any page may have changed."""
        current = self.current()
        return current if current is not None else self._refresh()

    def current(self) -> tuple[int, int] | None:
        """`version()` when it can be told without SQLite (the change signal has not moved and
        no scheduled post has become due since the last read), else None. One `os.stat`."""
        seen = self._seen
        if seen is None or self.db.signal.stamp() != seen.stamp:
            return None
        if seen.due is not None and self.now() >= seen.due:
            return None
        return seen.generation, seen.epoch

    def _refresh(self) -> tuple[int, int]:
        with self._lock:
            # the stamp first: a change committed after it moves the signal again
            stamp = self.db.signal.stamp()
            conn = self.db.read()
            gen = store.generation(conn)
            now = self.now()
            seen = self._seen
            epoch = seen.epoch if seen else 0
            if seen and gen == seen.generation and seen.due is not None and now >= seen.due:
                epoch += 1  # a post became due: every page may show it
            self._seen = Seen(stamp, gen, store.next_scheduled(conn, now), epoch)
            return gen, epoch

    def source_urls(self) -> dict[str, tuple[str, str]]:
        gen = self.version()[0]
        with self._lock:
            if self._refs[0] == gen:
                return self._refs[1]
        urls = store.source_urls(self.db.read())
        with self._lock:
            self._refs = (gen, urls)
        return urls

    def cached(
        self,
        key: tuple,
        render: Callable[[], tuple[str, int]],
        media_type: str = "text/html; charset=utf-8",
        modified: Callable[[], datetime | None] | None = None,
    ) -> Page:
        """The page for `key` at the current version, rendering it once per version: `render`
        gives `(text, status)`; `modified`, called right after it, the document's Last-Modified."""
        full_key = (*key, *self.version(), self.dev, self.theme_epoch, self.reload_version())
        with self._lock:
            page = self._cache.get(full_key)
            if page is not None:
                self._cache.move_to_end(full_key)
                return page
        text, status = render()
        body = text.encode("utf-8")
        etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        page = Page(body, etag, status, media_type, modified() if modified else None)
        with self._lock:
            self._cache[full_key] = page
            while len(self._cache) > CACHE_ENTRIES:
                self._cache.popitem(last=False)
        return page
