"""One search, end to end: parse, query the store, build snippets, facets and suggestions, log.

Used by both the search page and `GET /api/search`; shapes are plain dataclasses so the API can
return them as JSON.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from masthead.config import Site
from masthead.content.meta import term_key
from masthead.search import snippets
from masthead.search.log import Entry as LogEntry
from masthead.search.log import SearchLog
from masthead.search.query import Query, parse
from masthead.store import posts as posts_store
from masthead.store import search as store
from masthead.store.db import Database

PER_PAGE = 10
SUGGEST_DISTANCE = 2


@dataclass
class Options:
    """Filters given as URL parameters (they add to those typed in the query)."""

    lang: str | None = None
    tags: list[str] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
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


@dataclass
class Facet:
    key: str
    name: str
    count: int


@dataclass
class Result:
    """One search: the JSON of `GET /api/search`. HTML fields are escaped, with matches in
    `<mark>`; `ran` is False for a query with nothing to search (a prompt, not logged)."""

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


@dataclass(frozen=True)
class Entry:
    """What filters and facets need of one searchable post."""

    lang: str
    date_ts: float
    authors: str  # case-folded, for `author:` substring matches
    tags: frozenset[str]
    categories: frozenset[str]


@dataclass
class Catalog:
    """Every searchable post of one index generation, in memory (a few MB at 10,000 posts), so
    that a search needs one FTS5 pass and filters, counts and facets cost no further SQL."""

    generation: int
    entries: dict[int, Entry]
    names: dict[tuple[str, str], str]  # (taxonomy, key) → name as first written
    newest: float = 0.0  # the latest date_ts: when it is past, every entry is published
    neg_date: dict[int, float] = field(default_factory=dict)  # id → -date_ts, for ordering


@dataclass
class Ranked:
    """The ordered ids of every hit of one query, after filters."""

    query: Query
    filters: dict[str, Any]
    shown_filters: dict[str, Any]
    ids: list[int]
    ran: bool = True
    catalog: Catalog | None = None  # the one the ids came from: facets count over the same


class SearchError(ValueError):
    """A search that cannot run as asked (filters that contradict each other). `param` names
    the filter, `message` says why in English: the API answers 422; the search page shows the
    interface text `key` (masthead.i18n) filled from `values` in the page's language."""

    def __init__(
        self, param: str, message: str, key: str = "", values: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.param = param
        self.message = message
        self.key = key
        self.values = values or {}


class SearchService:
    """Searches one site's database; keeps the catalog and the search log (`log`, best-effort:
    see `masthead.search.log`). `clock` gives seconds since the epoch."""

    def __init__(self, site: Site, db: Database, clock: Any = time.time) -> None:
        self.site = site
        self.db = db
        self.clock = clock
        self._catalog: Catalog | None = None
        self._lock = threading.Lock()
        self.catalog_builds = 0
        self.log = SearchLog(db.path, site.tz, site.settings.search_log_days, lambda: self.clock())

    def close(self) -> None:
        """Write what is left of the search log and stop its writer."""
        self.log.close()

    # --- the catalog -----------------------------------------------------------------------

    def catalog(self) -> Catalog:
        """The catalog of the current index generation, built once per generation (single
        flight): while one thread rebuilds it, the others use the previous one, or wait for the
        first. `catalog_builds` counts the builds."""
        cached = self._catalog
        if cached is not None and cached.generation == posts_store.generation(self.db.read()):
            return cached
        if cached is not None and not self._lock.acquire(blocking=False):
            return cached  # another thread is building the new one
        if cached is None:
            self._lock.acquire()
        try:
            conn = self.db.read()
            gen = posts_store.generation(conn)
            if self._catalog is not None and self._catalog.generation == gen:
                return self._catalog  # built while this thread waited
            self._catalog = self._build_catalog(conn)
            self.catalog_builds += 1
            return self._catalog
        finally:
            self._lock.release()

    def _build_catalog(self, conn: Any) -> Catalog:
        conn.execute("BEGIN")  # one snapshot: the generation and the rows it labels
        try:
            gen = posts_store.generation(conn)
            term_rows = store.catalog_terms(conn)
            rows = store.catalog(conn)
        finally:
            conn.execute("COMMIT")
        terms: dict[int, tuple[list[str], list[str]]] = {}
        names: dict[tuple[str, str], str] = {}
        for post_id, taxonomy, key, name in term_rows:
            tags, cats = terms.setdefault(post_id, ([], []))
            (tags if taxonomy == "tags" else cats).append(key)
            names.setdefault((taxonomy, key), name)
        entries = {}
        for row in rows:
            tags, cats = terms.get(row["id"], ([], []))
            entries[row["id"]] = Entry(
                lang=row["lang"],
                date_ts=row["date_ts"],
                authors=" ".join(json.loads(row["authors"] or "[]")).casefold(),
                tags=frozenset(tags),
                categories=frozenset(cats),
            )
        return Catalog(
            gen,
            entries,
            names,
            newest=max((e.date_ts for e in entries.values()), default=0.0),
            neg_date={i: -e.date_ts for i, e in entries.items()},
        )

    # --- filters ---------------------------------------------------------------------------

    def _day_start(self, day: date) -> float:
        return datetime(day.year, day.month, day.day, tzinfo=self.site.tz).timestamp()

    def _day_end(self, day: date) -> float:
        """The start of the day after `day` (there is none in `date`'s range after 9999-12-31)."""
        if day == date.max:
            return self._day_start(day) + 86400
        return self._day_start(day + timedelta(days=1))

    def _merge(self, query: Query, opts: Options) -> dict[str, Any]:
        f = query.filters
        tags = [*f.tags, *opts.tags]
        categories = [*f.categories, *opts.categories]
        starts = [d for d in (f.after, opts.after, _year(opts.year, 1)) if d]
        ends = [d for d in (f.before, opts.before, _year(opts.year, 12)) if d]
        after = max(starts) if starts else None  # every date filter applies: the latest start
        before = min(ends) if ends else None
        if after and before and after > before:
            raise SearchError(
                "after",
                f"the dates contradict each other: after {after.isoformat()} is later than "
                f"before {before.isoformat()}, so no post can match",
                "dates_contradict",
                {"after": after.isoformat(), "before": before.isoformat()},
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

    def _accept(self, filters: dict[str, Any]) -> Any:
        """A predicate on catalog entries for the published posts the filters allow."""
        now = self.clock()
        lang = filters["lang"]
        tags = {term_key(t) for t in filters["tags"]}
        cats = {term_key(c) for c in filters["categories"]}
        author = (filters["author"] or "").casefold()
        start = self._day_start(filters["after"]) if filters["after"] else None
        end = self._day_end(filters["before"]) if filters["before"] else None

        def accept(e: Entry) -> bool:
            return (
                e.date_ts <= now
                and (lang is None or e.lang == lang)
                and tags <= e.tags
                and cats <= e.categories
                and author in e.authors
                and (start is None or e.date_ts >= start)
                and (end is None or e.date_ts < end)
            )

        return accept

    # --- the search, in steps (the benchmark times them apart) ------------------------------

    def rank(self, raw: str, opts: Options) -> Ranked:
        """Parse `raw`, run one FTS5 pass, apply exclusions and filters, order by bm25 and then
        newest first. A query with no terms and no filters runs nothing (`ran` is False)."""
        query = parse(raw)
        filters = self._merge(query, opts)
        shown = {k: (v.isoformat() if isinstance(v, date) else v) for k, v in filters.items() if v}
        if not query.groups and not query.excluded and not shown:
            return Ranked(query, filters, shown, [], ran=False)
        catalog = self.catalog()
        accept = self._accept(filters)
        conn = self.db.read()
        excluded = store.matching(conn, query.exclusion() or "") if query.excluded else set()
        entries, neg_date = catalog.entries, catalog.neg_date
        match = query.match()
        if match is None:
            hits = [(0.0, -e.date_ts, i) for i, e in entries.items() if accept(e)]
        elif shown or catalog.newest > self.clock():
            hits = [
                (rank, neg_date[i], i)
                for i, rank in store.ranked(conn, match)
                if i in entries and accept(entries[i])
            ]
        else:  # the common case: no filter, nothing scheduled; dictionary lookups only
            ranked = store.ranked(conn, match)
            hits = [(rank, neg_date[i], i) for i, rank in ranked if i in neg_date]
        hits.sort()
        ids = [i for _r, _d, i in hits if i not in excluded]
        return Ranked(query, filters, shown, ids, catalog=catalog)

    def facets(self, ranked: Ranked, limit: int = 15) -> dict[str, list[Facet]]:
        """Language, tag and category counts over every hit, most frequent first."""
        catalog = ranked.catalog or self.catalog()
        counts: dict[str, Counter[str]] = {"lang": Counter(), "tags": Counter(),
                                           "categories": Counter()}  # fmt: skip
        for i in ranked.ids:
            e = catalog.entries[i]
            counts["lang"][e.lang] += 1
            counts["tags"].update(e.tags)
            counts["categories"].update(e.categories)

        def top(name: str) -> list[tuple[str, int]]:
            return sorted(counts[name].items(), key=lambda kv: (-kv[1], kv[0]))[:limit]

        return {
            "lang": [Facet(code, self._lang_name(code), n) for code, n in top("lang")],
            **{
                name: [Facet(k, catalog.names.get((name, k), k), n) for k, n in top(name)]
                for name in ("tags", "categories")
            },
        }

    def page(self, ranked: Ranked, page: int, per_page: int) -> list[Hit]:
        """The hits of one page, with highlighted titles and snippets."""
        ids = ranked.ids[(page - 1) * per_page : page * per_page]
        rows = store.page_rows(self.db.read(), ids, ranked.query.match())
        return [self._hit(rows[i], ranked.query) for i in ids if i in rows]

    def search(self, raw: str, opts: Options, client: str = "", record: bool = True) -> Result:
        """Run one search and record it in the log (never waiting for the database: see
        `masthead.search.log`) unless `record` is False (suggestions while typing). `client`
        is the reader's address (only its hash is stored).
        Raises SearchError when the date filters contradict each other; never raises for any
        other `raw` text."""
        started = time.perf_counter()
        ranked = self.rank(raw, opts)
        if not ranked.ran:
            return Result(raw, 0, 1, 1, opts.per_page, [], {}, {}, ran=False)
        total = len(ranked.ids)
        pages = max(1, -(-total // opts.per_page))
        page = min(max(1, opts.page), pages)
        hits = self.page(ranked, page, opts.per_page)
        facets = self.facets(ranked) if total else {"lang": [], "tags": [], "categories": []}
        result = Result(raw, total, page, pages, opts.per_page, hits, facets, ranked.shown_filters)
        if total == 0:
            result.suggestions = self._suggest(ranked.query)
            if ranked.shown_filters and ranked.query.groups:
                result.without_filters = ranked.query.without_filters
        result.latency_ms = (time.perf_counter() - started) * 1000
        if record:
            self._log(ranked.query, ranked.filters, result, client)
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
        )

    def _suggest(self, query: Query) -> list[str]:
        """The query as typed, with each unknown word replaced by the closest indexed term (edit
        distance ≤ 2, the most frequent on ties); operators, phrases and filters are kept."""
        conn = self.db.read()
        suggestion = query.raw
        changed = False
        for word in dict.fromkeys(query.words):
            w = word.lower()
            if len(w) < 3 or not w.isalpha() or not w.isascii() or store.has_term(conn, w):
                continue
            best: tuple[int, str] | None = None
            for candidate in store.terms_like(conn, w[0], len(w) - 2, len(w) + 2):
                d = levenshtein(w, candidate, SUGGEST_DISTANCE)
                if d <= SUGGEST_DISTANCE and (best is None or d < best[0]):
                    best = (d, candidate)
            if best:
                pattern = re.compile(rf"(?<!\w){re.escape(word)}(?!\w)", re.IGNORECASE)
                suggestion = pattern.sub(best[1], suggestion)
                changed = True
        return [suggestion] if changed else []

    # --- the log ---------------------------------------------------------------------------

    def client_hash(self, address: str) -> str:
        """What the log stores for `address` today (see `SearchLog.client_hash`)."""
        return self.log.client_hash(address)

    def _log(self, query: Query, filters: dict[str, Any], result: Result, client: str) -> None:
        self.log.record(
            LogEntry(
                at=self.clock(),
                query=query.raw,
                terms=query.without_filters,
                filters=result.filters,
                lang=filters["lang"] or "",
                results=result.total,
                latency_ms=result.latency_ms,
                client=client,
            )
        )


def _year(year: int | None, month: int) -> date | None:
    if year is None:
        return None
    return date(year, 1, 1) if month == 1 else date(year, 12, 31)
