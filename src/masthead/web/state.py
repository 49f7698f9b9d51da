"""What every request shares: the site, the database, the clock and a small page cache.

Cache entries and ETags are keyed by the index generation (bumped by every index change) and by a
schedule epoch that advances when a post dated in the future becomes due, so future posts appear
on time with no restart and no reader ever sees a stale page after an index change.
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
from masthead.web.address import DEFAULT_SERVED

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


@dataclass
class SiteState:
    site: Site
    db: Database
    dev: bool = False
    base_url: str = DEFAULT_SERVED  # of every absolute URL (web/address.py)
    theme_epoch: int = 0  # bumped when a template or static file changes (--dev)
    clock: Callable[[], float] = time.time
    _cache: OrderedDict[tuple, Page] = field(default_factory=OrderedDict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _seen: tuple[int, float | None] = (-1, None)
    _epoch: int = 0
    _refs: tuple[int, dict[str, tuple[str, str]]] = (-1, {})

    reloader: Any = None

    def reload_version(self) -> int:
        """The live-reload version a page is rendered at (`--dev`), 0 otherwise."""
        return self.reloader.version if self.reloader is not None else 0

    def now(self) -> float:
        return self.clock()

    def version(self) -> tuple[int, int]:
        """`(generation, schedule_epoch)`: changes whenever any page may have changed."""
        conn = self.db.read()
        gen = store.generation(conn)
        now = self.now()
        with self._lock:
            seen_gen, due = self._seen
            if gen != seen_gen or (due is not None and now >= due):
                if gen == seen_gen:
                    self._epoch += 1
                self._seen = (gen, store.next_scheduled(conn, now))
            return gen, self._epoch

    def source_urls(self) -> dict[str, tuple[str, str]]:
        gen = store.generation(self.db.read())
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
