"""What every request shares: the site, the database, the clock and a small page cache.

Cache entries and ETags are keyed by the index generation (bumped by every index change) and by a
schedule epoch that advances when a post dated in the future becomes due, so future posts appear
on time with no restart and no reader ever sees a stale page after an index change.

Comments do not move the generation. A page that shows comments says so while it renders
(`reads_thread` for a post page showing one thread, and for a list page once per thread whose
comments it counts; `reads_comments` for the site-wide comment feeds): the page then also
records the versions of those threads (`comment_threads`) or the site-wide comments version it
was rendered at, and is served only while they are still current. So approving a comment
re-renders that thread's pages (in every language), the list pages counting its comments and
the comment feeds, and nothing else.

The versions are held in memory: they are read from SQLite (with the date of the next scheduled
post) only when the database's change signal (store/signal.py) has moved since the last read,
which any process that commits a change bumps (posts and comments alike). So a change made by
another worker or by `masthead index` is seen on the very next request, for the cost of one
`os.stat`.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any, TypeVar, cast

from masthead.config import Site
from masthead.content.urls import Source, Sources, SourceTable
from masthead.store import comment_threads
from masthead.store import posts as store
from masthead.store.db import Database
from masthead.store.signal import Stamp
from masthead.web.cache.encoding import CODINGS, compress
from masthead.web.http.address import DEFAULT_SERVED

T = TypeVar("T")
HTML = "text/html; charset=utf-8"
CACHE = "public, max-age=0, must-revalidate"  # cached pages: revalidated on every use
CACHE_BYTES = 64 * 1024 * 1024  # every coding of every cached page together
ENTRY_OVERHEAD = 1024  # bytes counted per entry beyond its bodies: headers, keys

# What comments a page being rendered shows: () none, ("thread", KEY) one thread, ("site",) any
Scope = tuple[str, ...]
SITE: Scope = ("site",)
THREADS = "threads"  # a scope of several threads: ("threads", KEY, KEY…)
_reading: ContextVar[list[Scope] | None] = ContextVar("comment_scopes_read", default=None)


@dataclass(eq=False)
class Page:
    """A cached response: `bodies` per content coding (`"identity"` always, `"gzip"` and
    `"br"` when smaller: web/cache/encoding.py), `etag` strong (a hash of the identity body; each
    coding's tag is derived from it, web/cache/conditional.py), `modified` the Last-Modified date of
    the document (feeds, sitemaps and static files; None for HTML pages), `headers` extra
    `(name, value)` pairs it is sent with, `version` the `SiteState` version it was rendered
    at. `prepared` holds the headers `conditional_response` built for it, per coding (and,
    keyed `(coding, status)`, the text headers the RSGI fast path sends: web/cache/rsgi.py).
    `mark` is the comments version it shows (`Seen.mark`): () when it shows no comments."""

    bodies: dict[str, bytes]
    etag: str
    status: int = 200
    media_type: str = HTML
    cache_control: str = CACHE
    modified: datetime | None = None
    headers: tuple[tuple[str, str], ...] = ()
    version: tuple = ()
    mark: tuple = ()
    prepared: dict[Any, Any] = field(default_factory=dict)
    key: tuple = ()  # its key in the page cache
    paths: set[str] = field(default_factory=set)  # request paths the fast path finds it by
    codings: tuple[str, ...] = ()  # those of `bodies`, in the server's order of preference
    current_for: Any = None  # the `Seen` it was last found current under (`SiteState.hit`)

    def __post_init__(self) -> None:
        self.codings = tuple(c for c in CODINGS if c in self.bodies)

    @classmethod
    def make(cls, body: bytes, compressed: bool = True, **fields: Any) -> Page:
        """A page for the identity `body`, compressed now, once (`compressed=False`: identity
        only, for a client that never asks for another coding, such as `masthead build`)."""
        etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        return cls(compress(body) if compressed else {"identity": body}, etag, **fields)

    @property
    def body(self) -> bytes:
        return self.bodies["identity"]

    @property
    def size(self) -> int:
        """Bytes it holds, as the cache counts them."""
        return sum(len(b) for b in self.bodies.values()) + ENTRY_OVERHEAD


@dataclass(frozen=True)
class Seen:
    """What the last read of SQLite found: the signal's stamp read just before it, the
    generation, the date of the next scheduled post (None: none), the schedule epoch, the
    site-wide comments version and every thread's version (absent: 0)."""

    stamp: Stamp
    generation: int
    due: float | None
    epoch: int
    comments: int = 0
    threads: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))

    def mark(self, scope: Scope) -> tuple:
        """The comments version a page of `scope` shows now: `()` for none, `("thread", KEY,
        VERSION)` for one thread, `("threads", KEY…, (VERSION…))` for several (a list page's
        comment counts), `("site", VERSION)` for all of them."""
        if not scope:
            return ()
        if scope[0] == "thread":
            return (*scope, self.threads.get(scope[1], 0))
        if scope[0] == THREADS:
            return (*scope, tuple(self.threads.get(key, 0) for key in scope[1:]))
        return (*SITE, self.comments)


def _widest(scopes: list[Scope]) -> Scope:
    """One scope covering every scope a render read: none, a single thread, several threads
    (`("threads", KEY…)`, sorted), or the whole site."""
    found = set(scopes)
    if not found:
        return ()
    if len(found) == 1:
        return found.pop()
    if SITE in found:
        return SITE  # the site-wide version moves with every thread
    keys = sorted({key for scope in found for key in scope[1:]})
    return (THREADS, *keys)


@dataclass
class SiteState:
    site: Site
    db: Database
    dev: bool = False
    base_url: str = DEFAULT_SERVED  # of every absolute URL (web/http/address.py)
    theme_epoch: int = 0  # bumped when a template or static file changes (--dev)
    compressed: bool = True  # pages keep gzip and brotli bodies (off for `masthead build`)
    bulk: bool = False  # every page is rendered (`masthead build`): read site-wide tables once
    cache_bytes: int = CACHE_BYTES  # the page cache's budget (a build renders each page once)
    export: bool = False  # pages for `masthead build`'s files (see `self_contained`)
    clock: Callable[[], float] = time.time
    _cache: OrderedDict[tuple, Page] = field(default_factory=OrderedDict)
    _bytes: int = 0
    _paths: dict[str, Page] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _seen: Seen | None = None
    _refs: tuple[tuple[int, int], Sources] = ((-1, -1), SourceTable({}))
    _memo: tuple[tuple[int, int], dict[tuple, Any]] = ((-1, -1), {})

    reloader: Any = None

    @property
    def self_contained(self) -> bool:
        """Whether pages are for an export with no masthead behind it (`masthead build` without
        `api_url`): the search box reads the index in the files (export/search_index.py) and a
        post shows its approved comments as of the build, with no form that could not post."""
        return self.export and not self.site.settings.api_url

    def reload_version(self) -> int:
        """The live-reload version a page is rendered at (`--dev`), 0 otherwise."""
        return self.reloader.version if self.reloader is not None else 0

    def now(self) -> float:
        return self.clock()

    def version(self) -> tuple[int, int]:
        """`(generation, schedule_epoch)`: changes whenever any page may have changed (but
        for its comments: `seen().mark`)."""
        seen = self.seen()
        return seen.generation, seen.epoch

    def seen(self) -> Seen:
        """What SQLite holds now: `current()`, else read again (`_refresh`)."""
        current = self.current()
        return current if current is not None else self._refresh()

    def current(self) -> Seen | None:
        """The last read when it is still true, told without SQLite (the change signal has not
        moved and no scheduled post has become due since), else None. One `os.stat`."""
        seen = self._seen
        if seen is None or self.db.signal.stamp() != seen.stamp:
            return None
        if seen.due is not None and self.now() >= seen.due:
            return None
        return seen

    def _refresh(self) -> Seen:
        with self._lock:
            # the stamp first: a change committed after it moves the signal again
            stamp = self.db.signal.stamp()
            conn = self.db.read()
            gen = store.generation(conn)
            comments = comment_threads.comments_version(conn)
            now = self.now()
            seen = self._seen
            epoch = seen.epoch if seen else 0
            if seen and gen == seen.generation and seen.due is not None and now >= seen.due:
                epoch += 1  # a post became due: every page may show it
            if seen and comments == seen.comments:
                threads = seen.threads  # an index change: no thread moved
            else:
                threads = MappingProxyType(comment_threads.thread_versions(conn))
            due = store.next_scheduled(conn, now)
            self._seen = Seen(stamp, gen, due, epoch, comments, threads)
            return self._seen

    def reads_thread(self, thread: str) -> None:
        """Say that the page being rendered (inside `cached`) shows the comments of `thread`
        (a post's `translation_key`): it is rendered again when that thread changes."""
        scopes = _reading.get()
        if scopes is not None:
            scopes.append(("thread", thread))

    def reads_comments(self) -> None:
        """Say that the page being rendered shows comments of any thread (counts on list
        pages, the site-wide comment feeds): rendered again when any comment changes."""
        scopes = _reading.get()
        if scopes is not None:
            scopes.append(SITE)

    def source_urls(self) -> Sources:
        """The content files' posts as of this version (a scheduled post that became due is a
        translation a link may now go to): a build (`bulk`) reads them all once; a server asks
        SQLite for those a page names (`SourceLookup`), so a change costs no read of every post."""
        version = self.version()
        with self._lock:
            if self._refs[0] == version:
                return self._refs[1]
        sources: Sources
        if self.bulk:
            sources = SourceTable(store.source_urls(self.db.read(), self.now()))
        else:
            sources = SourceLookup(self.db, self.now())
        with self._lock:
            self._refs = (version, sources)
        return sources

    def memo(self, key: tuple, make: Callable[[], T]) -> T:
        """The value `make()` gives, made once per version (an index change or a post becoming
        due makes it again): what many pages of one version read alike."""
        version = self.version()
        with self._lock:
            if self._memo[0] != version:
                self._memo = (version, {})
            table = self._memo[1]
            if key in table:
                return cast(T, table[key])
        value = make()
        with self._lock:
            if self._memo[0] == version:
                table[key] = value
        return value

    @property
    def cache_control(self) -> str:
        """Cache-Control of cached pages: revalidated on every use (no-cache under --dev)."""
        return "no-cache" if self.dev else CACHE

    def _version_key(self, version: tuple[int, int]) -> tuple:
        return (*version, self.dev, self.theme_epoch, self.reload_version())

    def cached(
        self,
        key: tuple,
        render: Callable[[], tuple[str, int]],
        media_type: str = HTML,
        modified: Callable[[], datetime | None] | None = None,
    ) -> Page:
        """The page for `key` at the current version, rendering it once per version: `render`
        gives `(text, status)`; `modified`, called right after it, the document's Last-Modified.
        A page whose render said it shows comments (`reads_thread`, `reads_comments`) is
        rendered again once those comments changed. The cache holds at most `cache_bytes`
        (`Page.size`), least recently used out first."""
        seen = self.seen()  # before rendering: a change committed meanwhile renders it again
        version = self._version_key((seen.generation, seen.epoch))
        full_key = (*key, *version)
        with self._lock:
            page = self._cache.get(full_key)
            if page is not None and page.mark == seen.mark(page.mark[:-1]):
                self._cache.move_to_end(full_key)
                return page
        scopes: list[Scope] = []
        token = _reading.set(scopes)
        try:
            text, status = render()
        finally:
            _reading.reset(token)
        page = Page.make(
            text.encode("utf-8"),
            self.compressed,
            status=status,
            media_type=media_type,
            cache_control=self.cache_control,
            modified=modified() if modified else None,
            version=version,
            mark=seen.mark(_widest(scopes)),
            key=full_key,
        )
        with self._lock:
            old = self._cache.pop(full_key, None)
            if old is not None:
                self._forget(old)
            self._cache[full_key] = page
            self._bytes += page.size
            while self._bytes > self.cache_bytes and len(self._cache) > 1:
                self._forget(self._cache.popitem(last=False)[1])
        return page

    def _forget(self, page: Page) -> None:
        """Account for `page` leaving the cache (the lock held)."""
        self._bytes -= page.size
        for path in page.paths:
            if self._paths.get(path) is page:
                del self._paths[path]

    def remember(self, path: str, page: Page) -> None:
        """Let the fast path answer requests for `path` (decoded, no query) with `page`."""
        with self._lock:
            if self._cache.get(page.key) is page and self._paths.get(path) is not page:
                old = self._paths.get(path)
                if old is not None:
                    old.paths.discard(path)
                self._paths[path] = page
                page.paths.add(path)

    def remembered(self, path: str) -> Page | None:
        """The page last remembered for `path` (`remember`), current or not: what a build
        that has just rendered `path` reads its `mark` from."""
        with self._lock:
            return self._paths.get(path)

    def hit(self, path: str) -> Page | None:
        """The cached page for a request of `path` when it is current, without SQLite (one
        `os.stat`: `current`); None sends the request on to the router."""
        page = self._paths.get(path)
        if page is None:
            return None
        seen = self.current()
        if seen is None:
            return None
        if page.current_for is not seen:  # compared once per read of SQLite, not per request
            if page.version != self._version_key((seen.generation, seen.epoch)):
                return None
            if page.mark and page.mark != seen.mark(page.mark[:-1]):
                return None  # the comments it shows changed
            if not self.dev:  # --dev's template changes move the version, not `seen`
                page.current_for = seen
        with self._lock:
            if self._cache.get(page.key) is page:
                self._cache.move_to_end(page.key)
        return page


class SourceLookup:
    """`content.urls.Sources` read from the index when asked, at time `now` (published or not
    then), each answer kept: what one version's pages resolve their `/_ref/` links with."""

    def __init__(self, db: Database, now: float) -> None:
        self.db = db
        self.now = now
        self._got: dict[str, Source | None] = {}
        self._paths: list[str] | None = None

    def get(self, source: str) -> Source | None:
        if source not in self._got:
            self._got[source] = store.source_post(self.db.read(), source, self.now)
        return self._got[source]

    def starting_with(self, prefix: str) -> dict[str, Source]:
        if not prefix:
            return store.source_urls(self.db.read(), self.now)
        # the paths that start with `prefix` sort from it up to the prefix with its last
        # character's successor (the index orders by bytes, as by code points in UTF-8)
        high = prefix[:-1] + chr(ord(prefix[-1]) + 1)
        return store.sources_from(self.db.read(), prefix, high, self.now)

    def ending_with(self, tails: tuple[str, ...]) -> dict[str, Source]:
        """The few posts whose path ends with one of `tails` (a link to a file found nowhere
        else): every path is read once per version, from the index of paths alone."""
        if self._paths is None:
            self._paths = store.source_paths(self.db.read())
        found = {}
        for path in self._paths:
            if ("/" + path).endswith(tails):
                post = self.get(path)
                if post is not None:
                    found[path] = post
        return found

    def in_group(self, group: str) -> list[Source]:
        kind, _, key = group.partition("\0")
        return store.sources_in_group(self.db.read(), kind, key, self.now)
