"""One search, end to end: parse, query the store, build snippets, facets and suggestions, log.

Used by both the search page and `GET /api/search`; shapes are plain dataclasses so the API can
return them as JSON.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from masthead.config import Site
from masthead.content.meta import term_key
from masthead.search import snippets
from masthead.search.query import Query, parse
from masthead.store import search as store
from masthead.store.db import Database

PER_PAGE = 10
SUGGEST_DISTANCE = 2
PRUNE_EVERY = 3600.0  # seconds between automatic prunes of the search log


@dataclass
class Options:
    """Filters given as URL parameters (they add to those typed in the query)."""

    lang: str | None = None
    tag: str | None = None
    category: str | None = None
    author: str | None = None
    after: date | None = None
    before: date | None = None
    year: int | None = None
    page: int = 1
    per_page: int = PER_PAGE


@dataclass
class Hit:
    title: str
    title_html: str
    url: str
    lang: str
    date: str
    snippet_html: str
    rank: float | None


@dataclass
class Facet:
    key: str
    name: str
    count: int


@dataclass
class Result:
    query: str
    total: int
    page: int
    pages: int
    per_page: int
    hits: list[Hit]
    facets: dict[str, list[Facet]]
    filters: dict[str, Any]
    suggestions: list[str] = field(default_factory=list)
    without_filters: str | None = None
    latency_ms: float = 0.0
    ran: bool = True  # False for an empty query: a prompt, no search

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def levenshtein(a: str, b: str, limit: int) -> int:
    """Edit distance of `a` and `b`, or `limit + 1` as soon as it must exceed `limit`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        if min(current) > limit:
            return limit + 1
        previous = current
    return previous[-1]


class SearchService:
    """Searches one site's database; keeps the search-log salt and prune schedule."""

    def __init__(self, site: Site, db: Database, clock: Any = time.time) -> None:
        self.site = site
        self.db = db
        self.clock = clock
        self._last_prune = 0.0
        self._secret: str | None = None

    # --- filters ---------------------------------------------------------------------------

    def _day_start(self, day: date) -> float:
        return datetime(day.year, day.month, day.day, tzinfo=self.site.tz).timestamp()

    def _merge(self, query: Query, opts: Options) -> dict[str, Any]:
        f = query.filters
        tags = [*f.tags, *([opts.tag] if opts.tag else [])]
        categories = [*f.categories, *([opts.category] if opts.category else [])]
        after = (
            max(d for d in (f.after, opts.after, _year(opts.year, 1)) if d)
            if any((f.after, opts.after, opts.year))
            else None
        )
        before = (
            min(d for d in (f.before, opts.before, _year(opts.year, 12)) if d)
            if any((f.before, opts.before, opts.year))
            else None
        )
        lang_text = opts.lang or f.lang
        lang = None
        if lang_text:
            found = self.site.resolve_language(lang_text)
            lang = found.code if found else f"?{lang_text}"  # unknown: matches nothing
        return {
            "lang": lang,
            "tags": tags,
            "categories": categories,
            "author": opts.author or f.author,
            "after": after,
            "before": before,
        }

    # --- the search ------------------------------------------------------------------------

    def search(self, raw: str, opts: Options, client: str = "") -> Result:
        """Run one search and log it. Never raises for any `raw` text."""
        started = time.perf_counter()
        query = parse(raw)
        filters = self._merge(query, opts)
        shown_filters = {
            k: (v.isoformat() if isinstance(v, date) else v) for k, v in filters.items() if v
        }
        if not query.groups and not query.excluded and not shown_filters:
            return Result(raw, 0, 1, 1, opts.per_page, [], {}, {}, ran=False)
        w = store.where(
            match=query.match(),
            exclusion=query.exclusion(),
            now=self.clock(),
            lang=filters["lang"],
            tags=[term_key(t) for t in filters["tags"]],
            categories=[term_key(c) for c in filters["categories"]],
            author=filters["author"],
            start=self._day_start(filters["after"]) if filters["after"] else None,
            end=self._day_start(filters["before"] + timedelta(days=1))
            if filters["before"]
            else None,
        )
        conn = self.db.read()
        total = store.count(conn, w)
        pages = max(1, -(-total // opts.per_page))
        page = min(max(1, opts.page), pages)
        rows = store.results(conn, w, opts.per_page, (page - 1) * opts.per_page)
        hits = [self._hit(row, query) for row in rows]
        facets = {
            name: [
                Facet(
                    *(entry if len(entry) == 3 else (entry[0], self._lang_name(entry[0]), entry[1]))
                )
                for entry in values
            ]
            for name, values in store.facets(conn, w).items()
        }
        result = Result(raw, total, page, pages, opts.per_page, hits, facets, shown_filters)
        if total == 0:
            result.suggestions = self._suggest(query)
            if shown_filters and query.groups:
                result.without_filters = query.without_filters
        result.latency_ms = (time.perf_counter() - started) * 1000
        self._log(raw, query, filters, shown_filters, result, client)
        return result

    def _lang_name(self, code: str) -> str:
        lang = self.site.languages.get(code)
        return lang.name if lang else code

    def _hit(self, row: Any, query: Query) -> Hit:
        words = query.words
        title = (
            snippets.marked_to_html(row["title_hl"])
            if snippets.has_mark(row["title_hl"])
            else snippets.mark_words(row["title"], words, limit=10_000)
        )
        if snippets.has_mark(row["snippet"]):
            snippet = snippets.marked_to_html(row["snippet"])
        else:
            body = (
                self.db.read()
                .execute("SELECT body_text FROM posts WHERE id = :id", {"id": row["id"]})
                .fetchone()
            )
            snippet = snippets.mark_words(
                body[0] if body and words else row["excerpt"], words or [""]
            )
        return Hit(
            title=row["title"],
            title_html=title,
            url=row["url"],
            lang=row["lang"],
            date=row["date"],
            snippet_html=snippet,
            rank=row["rank"],
        )

    def _suggest(self, query: Query) -> list[str]:
        """The query with unknown words replaced by the closest indexed terms (distance ≤ 2)."""
        conn = self.db.read()
        words = query.words
        replaced = list(words)
        changed = False
        for i, word in enumerate(words):
            w = word.lower()
            if len(w) < 3 or not w.isalpha() or store.has_term(conn, w):
                continue
            best: tuple[int, str] | None = None
            for candidate in store.terms_like(conn, w[0], len(w) - 2, len(w) + 2):
                d = levenshtein(w, candidate, SUGGEST_DISTANCE)
                if d <= SUGGEST_DISTANCE and (best is None or d < best[0]):
                    best = (d, candidate)
            if best:
                replaced[i] = best[1]
                changed = True
        return [" ".join(replaced)] if changed else []

    # --- the log ---------------------------------------------------------------------------

    def _salt(self, day: str) -> str:
        if self._secret is None:
            with self.db.write() as conn:
                row = conn.execute(
                    "SELECT value FROM site_state WHERE key = 'search_log_secret'"
                ).fetchone()
                if row is None:
                    value = secrets.token_hex(32)
                    conn.execute(
                        "INSERT INTO site_state (key, value) VALUES ('search_log_secret', :v)",
                        {"v": value},
                    )
                else:
                    value = row[0]
            self._secret = value
        return hashlib.sha256(f"{self._secret}:{day}".encode()).hexdigest()

    def client_hash(self, address: str) -> str:
        """A hash of the client address with a salt that changes every day (site time zone):
        the same reader is one visitor within a day and cannot be followed across days."""
        day = datetime.fromtimestamp(self.clock(), self.site.tz).date().isoformat()
        return hashlib.sha256(f"{self._salt(day)}:{address}".encode()).hexdigest()[:32]

    def _log(
        self,
        raw: str,
        query: Query,
        filters: dict[str, Any],
        shown: dict[str, Any],
        result: Result,
        client: str,
    ) -> None:
        now = self.clock()
        entry = {
            "at": now,
            "query": raw[:1000],
            "terms": query.without_filters[:1000],
            "filters": shown,
            "lang": filters["lang"] or "",
            "results": result.total,
            "latency_ms": round(result.latency_ms, 3),
            "client": self.client_hash(client) if client else "",
        }
        with self.db.write() as conn:
            store.log_search(conn, entry)
            days = self.site.settings.search_log_days
            if days and now - self._last_prune > PRUNE_EVERY:
                store.prune_log(conn, now - days * 86400)
                self._last_prune = now


def _year(year: int | None, month: int) -> date | None:
    if year is None:
        return None
    return date(year, 1, 1) if month == 1 else date(year, 12, 31)
