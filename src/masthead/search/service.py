"""One search, end to end: parse, query the store, build snippets, facets and suggestions, log.

Used by both the search page and `GET /api/search`; shapes are plain dataclasses so the API can
return them as JSON.
"""

from __future__ import annotations

import json
import logging
import math
import re
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import replace
from datetime import date, datetime, timedelta
from functools import partial
from itertools import chain, groupby
from operator import itemgetter
from typing import Any, TypeVar, cast

from masthead.config import Site
from masthead.content.meta import term_key
from masthead.content.sanitize import marks_only_each
from masthead.search import frequent as frequent_words
from masthead.search import snippets
from masthead.search.catalog import (
    BLOCK,
    Catalog,
    Frequent,
    Postings,
    Ranked,
    best_first,
    combine,
    ids_of,
    kept,
    levenshtein,
    raw_mask,
)
from masthead.search.log import Entry as LogEntry
from masthead.search.log import SearchLog
from masthead.search.query import Query, Term, parse
from masthead.search.results import Facet, Hit, Options, Result, SearchError
from masthead.store import posts as posts_store
from masthead.store import search as store
from masthead.store.db import Database
from masthead.store.rows import HitPost

log = logging.getLogger(__name__)
T = TypeVar("T")

SUGGEST_DISTANCE = 2
# bm25 runs over at most this many rows per search (about 3 µs a row): a query matching more is
# ranked in tiers (`SearchService.order`)
BM25_ROWS = 1000
# FTS5's snippet() scores a fragment at each instance against every other one: 400 instances
# in a text cost it about 3 ms, 8,000 (a 0.9 MB post, a word in every 18) 1.5 s
SNIPPET_INSTANCES = 400
RESULT_CACHE = 512  # searches kept per index generation (`SearchService`); 0: none


class SearchService:
    """Searches one site's database; keeps the catalog and the search log (`log`, best-effort:
    see `masthead.search.log`). `clock` gives seconds since the epoch. The last
    `result_cache` distinct searches of the current index generation are kept and answered
    again without SQL (and still logged); none while a post is scheduled (it may become due).
    With `frequent` (the default), a background thread makes each catalog's frequent-word
    postings (search/frequent.py): the same results, fewer passes over the index. With
    `drafts` (`--dev`), drafts are searched too, each hit marked `draft`."""

    def __init__(
        self,
        site: Site,
        db: Database,
        clock: Any = time.time,
        result_cache: int = RESULT_CACHE,
        frequent: bool = True,
        drafts: bool = False,
    ) -> None:
        self.site = site
        self.drafts = drafts
        self.db = db
        self.clock = clock
        self._catalog: Catalog | None = None
        self._lock = threading.Lock()
        self.catalog_builds = 0
        self.result_cache = result_cache
        self._results: OrderedDict[tuple, tuple[Result, Query, dict[str, Any]]] = OrderedDict()
        self._results_gen = -1
        self._results_lock = threading.Lock()
        self.frequent = frequent
        self._wake = threading.Condition()
        self._pending: Catalog | None = None  # the catalog whose frequent words are to be made
        self._builder: threading.Thread | None = None
        self._building = False  # the builder thread is making some catalog's frequent words
        self._closed = False
        self.log = SearchLog(
            db.path,
            site.tz,
            site.settings.search_log_days,
            lambda: self.clock(),
            checkpoints=db.checkpoints,
        )

    def close(self) -> None:
        """Write what is left of the search log and stop its writer and the frequent words'
        builder."""
        with self._wake:
            self._closed = True
            self._wake.notify_all()
        if self._builder is not None:
            self._builder.join(timeout=10)  # it stops at the next word; the database closes next
        self.log.close()

    def warm(self) -> None:
        """Build the current catalog (and start its frequent words) ahead of the first search;
        a failure is logged and left to that search to meet again."""
        try:
            self.catalog()
        except Exception:
            if not self._closed:
                log.exception("the search catalog could not be built ahead of time")

    def ready(self, timeout: float | None = None) -> bool:
        """Wait (at most `timeout` seconds; None: as long as it takes) until the current
        catalog's frequent words are made; whether they are (False without `frequent`, or when
        their build failed: searches then take the SQL path)."""
        catalog = self.catalog()
        if not self.frequent:
            return False
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._wake:
            while catalog.frequent is None and (self._pending is catalog or self._building):
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    break
                self._wake.wait(left)
        return catalog.frequent is not None

    # --- the catalog -----------------------------------------------------------------------

    def is_current(self) -> bool:
        """Whether the catalog of the index's current generation is built, so that a search
        builds nothing (one cheap read of the generation)."""
        cached = self._catalog
        return cached is not None and cached.generation == posts_store.generation(self.db.read())

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
            self._catalog = self._build_catalog()
            self.catalog_builds += 1
            self._make_frequent(self._catalog)
            return self._catalog
        finally:
            self._lock.release()

    def _make_frequent(self, catalog: Catalog) -> None:
        """Have the builder thread make `catalog.frequent` (the latest catalog only)."""
        if not self.frequent:
            return
        with self._wake:
            self._pending = catalog
            if self._builder is None:
                self._builder = threading.Thread(
                    target=self._frequent_loop, name="masthead-frequent-words", daemon=True
                )
                self._builder.start()
            self._wake.notify_all()

    def _frequent_loop(self) -> None:
        while True:
            with self._wake:
                while self._pending is None and not self._closed:
                    self._wake.wait()
                if self._closed:
                    return
                catalog, self._pending = self._pending, None
                if catalog is None:
                    continue
                self._building = True
            try:
                best = partial(best_first, neg_date=catalog.neg_date)
                catalog.frequent = frequent_words.build(
                    self.db, catalog.generation, BM25_ROWS, best, lambda: self._closed
                )
            except Exception:  # searches keep the SQL path, with the same results
                if not self._closed:
                    log.exception("the frequent words' postings could not be made")
            finally:
                with self._wake:
                    self._building = False
                    self._wake.notify_all()

    def _build_catalog(self) -> Catalog:
        """The catalog of the current generation, kept small (each worker holds one): rows
        streamed as tuples, one object for each distinct language, author text and facet tuple
        (a site has few), and nothing kept per post but its date, author text and facet
        numbers. At 50,000 posts the per-post objects it kept before (and the rows it read
        whole) were about 150 MiB of a worker's memory."""
        shared: dict[Any, Any] = {}  # one object for each distinct string or facet tuple
        numbers: dict[tuple[str, str], int] = {}

        def one(value: T) -> T:
            return cast(T, shared.setdefault(value, value))

        def number(value: tuple[str, str]) -> int:
            return numbers.setdefault(value, len(numbers))

        langs: dict[int, str] = {}
        neg_date: dict[int, float] = {}
        authors: dict[int, str] = {}
        texts: dict[str | None, str] = {}  # authors' JSON → `_author_text`
        names: dict[tuple[str, str], str] = {}
        term_langs: dict[tuple[str, str], set[str]] = {}
        facet_keys: dict[int, tuple[int, ...]] = {}
        with self.db.snapshot() as conn:  # one snapshot: the generation and the rows it labels
            gen = posts_store.generation(conn)
            for post_id, lang, date_ts, written, _draft in store.catalog(conn, self.drafts):
                langs[post_id] = one(lang)
                neg_date[post_id] = -date_ts
                found = texts.get(written)
                if found is None:
                    found = texts[written] = _author_text(json.loads(written or "[]"))
                authors[post_id] = found
            terms = store.catalog_terms(conn, self.drafts)  # ordered by post
            for post_id, rows in groupby(terms, key=itemgetter(0)):
                if post_id not in langs:
                    continue
                lang = langs[post_id]
                tags: set[str] = set()
                categories: set[str] = set()
                for _, taxonomy, key, name in rows:
                    (tags if taxonomy == "tags" else categories).add(key)
                    names.setdefault((taxonomy, key), name)
                    term_langs.setdefault((taxonomy, key), set()).add(lang)
                facet_keys[post_id] = one(
                    (
                        number(("lang", lang)),
                        *(number(("tags", k)) for k in sorted(tags)),
                        *(number(("categories", k)) for k in sorted(categories)),
                    )
                )
        for post_id, lang in langs.items():
            if post_id not in facet_keys:
                facet_keys[post_id] = one((number(("lang", lang)),))
        by_date = sorted(neg_date, key=lambda i: (neg_date[i], i))
        catalog = Catalog(
            gen,
            authors,
            names,
            term_lang={v: next(iter(ls)) for v, ls in term_langs.items() if len(ls) == 1},
            newest=-min(neg_date.values(), default=-0.0),
            neg_date=neg_date,
            by_date=by_date,
            facet_keys=facet_keys,
            facet_values=list(numbers),
            dates=[neg_date[i] for i in by_date],
            size=max(langs, default=-1) + 1,
        )
        catalog.members = -1  # every bit, while the mask of every entry is made
        catalog.members = catalog.mask(by_date)
        having: list[list[int]] = [[] for _ in numbers]
        for post_id, numbered in facet_keys.items():
            for value in numbered:
                having[value].append(post_id)
        catalog.facet_masks = [catalog.mask(found) for found in having]
        catalog.having = dict(zip(catalog.facet_values, catalog.facet_masks, strict=True))
        prefixes = [0]
        for k in range(0, len(by_date) - BLOCK + 1, BLOCK):
            prefixes.append(prefixes[-1] | catalog.mask(by_date[k : k + BLOCK]))
        catalog.prefixes = prefixes
        return catalog

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
            # unknown (a caller's unchecked Options; a query's is a word: `parse`): no match
            lang = found.code if found else f"?{lang_text}"
        return {
            "lang": lang,
            "tags": tags,
            "categories": categories,
            "author": opts.author or f.author,
            "after": after,
            "before": before,
        }

    def _allowed(self, filters: dict[str, Any], catalog: Catalog) -> int:
        """The mask of the published posts the filters allow: intersections of masks (dates by
        bisection), the author's substring match over what is left."""
        end = self._day_end(filters["before"]) if filters["before"] else None
        now = self.clock()
        if catalog.newest > now:  # scheduled posts: not yet (dated at most `now`)
            published = math.nextafter(now, math.inf)
            end = published if end is None else min(end, published)
        start = self._day_start(filters["after"]) if filters["after"] else None
        wanted = [("lang", filters["lang"])] if filters["lang"] else []
        wanted += [("tags", term_key(t)) for t in filters["tags"]]
        wanted += [("categories", term_key(c)) for c in filters["categories"]]
        allowed = catalog.dated(start, end)
        for value in wanted:
            allowed &= catalog.having.get(value, 0)
        author = (filters["author"] or "").casefold()
        if author and allowed:
            flags = catalog.flags(allowed)
            allowed = catalog.mask(
                [i for i, text in catalog.authors.items() if flags[i] and author in text]
            )
        return allowed

    # --- the search, in steps (the benchmark times them apart) ------------------------------

    def rank(self, raw: str, opts: Options) -> Ranked:
        """Parse `raw`, order its matches (`order`), apply exclusions and filters over the
        in-memory catalog. A query with no terms and no filters runs nothing (`ran` False)."""
        query = parse(raw, self._is_language)
        filters = self._merge(query, opts)
        shown = {k: (v.isoformat() if isinstance(v, date) else v) for k, v in filters.items() if v}
        if not query.groups and not query.excluded and not shown:
            return Ranked(query, filters, shown, ran=False)
        catalog = self.catalog()
        conn = self.db.read()
        keep = catalog.members
        if shown or catalog.newest > self.clock():  # else every entry is allowed
            keep = self._allowed(filters, catalog)
        if query.excluded and keep:
            keep &= ~catalog.mask(store.ids(conn, query.exclusion() or ""))
        match = query.match()
        if match is None or not keep:
            return Ranked(query, filters, shown, tiers=(keep,), catalog=catalog)
        head, tiers = self.order(conn, match, catalog, keep, _phrased(query), query)
        return Ranked(query, filters, shown, head, tiers, catalog=catalog)

    def order(
        self,
        conn: Any,
        match: str,
        catalog: Catalog,
        keep: int,
        phrased: bool = False,
        query: Query | None = None,
    ) -> tuple[list[int], tuple[int, ...]]:
        """The posts of the mask `keep` matching `match`, best first, as `Ranked.head` and
        `Ranked.tiers`.

        Up to `BM25_ROWS` matches: bm25 with the column weights, newest first on ties. More
        (a word in most posts, whose bm25 says little: FTS5's idf is near zero for a term in
        over half the rows): the posts matching in the title, tags or categories come first,
        ranked by bm25 over those columns when they are at most `BM25_ROWS` (else newest
        first), then every other match, newest first. So no search computes bm25 for more
        than `BM25_ROWS` rows, and counts and facets still cover every match (as masks).
        With `query` (whose `match()` is `match`) and a term of it among the catalog's frequent
        words (or a prefix: each statement expands it again), the same order comes from
        masks (`_order_masks`)."""
        neg_date = catalog.neg_date
        if query is not None and catalog.frequent is not None and not phrased:
            words = catalog.frequent
            if any(t.prefix or words.get(t) for g in query.groups for t in g):
                return self._order_masks(conn, query, match, catalog, keep, words)
        first_ids: list[int] = []
        if phrased:  # a phrase costs a pass: rank at once (`_phrased`)
            bounded = store.ranked(conn, match, BM25_ROWS + 1)
            if len(bounded) <= BM25_ROWS:
                return kept(best_first(bounded, neg_date), catalog, keep), ()
            first_ids = [i for i, _ in bounded]  # rowid order: the ids pass goes on after them
        else:
            matches = store.count_upto(conn, match, BM25_ROWS)  # a few hundred rows at most
            if not matches:
                return [], ()
            if matches <= BM25_ROWS:
                rows = store.ranked(conn, match, within=_among(catalog, keep))
                return kept(best_first(rows, neg_date), catalog, keep), ()
        after = first_ids[-1] if first_ids else -1
        found = catalog.mask(first_ids + store.ids(conn, match, after)) & keep
        strong = store.strong(match)
        if store.count_upto(conn, strong, BM25_ROWS) <= BM25_ROWS:
            rows = store.ranked(conn, strong, within=_among(catalog, found))
            first = kept(best_first(rows, neg_date), catalog, found)
            return first, (found & ~catalog.mask(first),)
        heavy = catalog.mask(store.ids(conn, strong)) & found
        return [], (heavy, found & ~heavy)

    def _order_masks(
        self, conn: Any, query: Query, match: str, catalog: Catalog, keep: int, words: Frequent
    ) -> tuple[list[int], tuple[int, ...]]:
        """`order` from masks: each term's rows (a frequent word's from its postings, any other
        by one ids pass), combined as the query combines them (AND of OR groups: set
        operations, as FTS5's), so the counts that choose the way to rank are exact and bm25
        runs for the rows ranked alone. A head ranked by frequent words only comes from their
        postings (`_from_postings`): one word's champion list, or the sum of their bm25."""
        groups = query.groups
        postings = [[words.get(t) for t in g] for g in groups]
        hits = combine(groups, postings, lambda t, p: p.hits if p else _rows(conn, t.fts()))
        if not hits:
            return [], ()
        neg_date = catalog.neg_date
        if hits.bit_count() <= BM25_ROWS:
            if not hits & keep:
                return [], ()
            rows = store.ranked(conn, match, within=ids_of(hits & keep))
            return kept(best_first(rows, neg_date), catalog, keep), ()
        found = hits & keep
        strong_of: dict[int, int] = {}

        def strong(term: Term, p: Postings | None) -> int:
            mask = p.strong if p else _rows(conn, store.strong(term.fts()))
            strong_of[id(term)] = mask
            return mask

        heavy = combine(groups, postings, strong)
        if heavy.bit_count() > BM25_ROWS:
            heavy &= found
            return [], (heavy, found & ~heavy)
        ranked_rows = heavy & found
        first: list[int] | None = []
        if ranked_rows:
            first = _from_postings(groups, postings, strong_of, ranked_rows, catalog)
        if first is None:
            rows = store.ranked(conn, store.strong(match), within=ids_of(ranked_rows))
            first = best_first(rows, neg_date)
        return first, (found & ~catalog.mask(first),)

    def facets(self, ranked: Ranked, limit: int = 15) -> dict[str, list[Facet]]:
        """Language, tag and category counts over every hit, most frequent first: by each
        hit's facet numbers when the hits are few beside the facet values, else over the
        mask of every hit by one `&` and `bit_count()` per facet value."""
        catalog = ranked.catalog or self.catalog()
        keys = catalog.facet_keys
        if ranked.total * 4 < len(catalog.facet_masks):  # fewer posts than values
            counted = Counter(chain.from_iterable(map(keys.__getitem__, ranked.ids)))
        else:
            every = catalog.mask(ranked.head) if ranked.head else 0
            for tier in ranked.tiers:
                every |= tier
            counted = Counter(catalog.facet_counts(every))
        counts: dict[str, Counter[str]] = {"lang": Counter(), "tags": Counter(),
                                           "categories": Counter()}  # fmt: skip
        values = catalog.facet_values
        for number, n in counted.items():
            name, key = values[number]
            counts[name][key] = n

        def top(name: str) -> list[tuple[str, int]]:
            return sorted(counts[name].items(), key=lambda kv: (-kv[1], kv[0]))[:limit]

        return {
            "lang": [Facet(code, self._lang_name(code), n, code) for code, n in top("lang")],
            **{
                name: [
                    Facet(k, catalog.names.get((name, k), k), n, catalog.term_lang.get((name, k)))
                    for k, n in top(name)
                ]
                for name in ("tags", "categories")
            },
        }

    def page(self, ranked: Ranked, page: int, per_page: int) -> list[Hit]:
        """The hits of one page, with highlighted titles and snippets."""
        ids = ranked.slice((page - 1) * per_page, page * per_page)
        match = ranked.query.match()
        # a seek per post (in a merged index, `store.optimize`), but prefixes in one pass over
        # the page's range: each statement expands a prefix to its terms again
        lookups = match is not None and not _prefixed(ranked.query)
        cut = _few_instances(ranked.query.words)
        rows = store.page_rows(self.db.read(), ids, match, lookups, cut)
        return _hits([rows[i] for i in ids if i in rows], ranked.query)

    def search(self, raw: str, opts: Options, client: str = "", record: bool = True) -> Result:
        """Run one search and record it in the log (never waiting for the database: see
        `masthead.search.log`) unless `record` is False (suggestions while typing). `client`
        is the reader's address (only its hash is stored).
        Raises SearchError when the date filters contradict each other; never raises for any
        other `raw` text."""
        started = time.perf_counter()
        key = _cache_key(raw, opts)
        cached = self._cached(key)
        if cached is not None:
            result, query, filters = cached
            result = replace(result, latency_ms=(time.perf_counter() - started) * 1000)
            if record:
                self._log(query, filters, result, client)
            return result
        ranked = self.rank(raw, opts)
        if not ranked.ran:
            return Result(raw, 0, 1, 1, opts.per_page, [], {}, {}, ran=False)
        total = ranked.total
        pages = max(1, -(-total // opts.per_page))
        page = min(max(1, opts.page), pages)
        hits = self.page(ranked, page, opts.per_page)
        facets = self.facets(ranked) if total else {"lang": [], "tags": [], "categories": []}
        result = Result(raw, total, page, pages, opts.per_page, hits, facets, ranked.shown_filters)
        result.as_words = list(dict.fromkeys(ranked.query.as_words))
        result.unsearched = ranked.query.unsearched
        result.not_filters = list(dict.fromkeys(ranked.query.not_filters))
        if total == 0:
            result.suggestions = self._suggest(ranked.query)
            if ranked.shown_filters and ranked.query.groups:
                result.without_filters = ranked.query.without_filters
        result.latency_ms = (time.perf_counter() - started) * 1000
        self._keep(key, ranked, result)
        if record:
            self._log(ranked.query, ranked.filters, result, client)
        return result

    def _cached(self, key: tuple) -> tuple[Result, Query, dict[str, Any]] | None:
        """The kept result of the search `key` when it is still the answer (same generation,
        nothing scheduled), else None. Callers must not change what it returns."""
        if not self.result_cache:
            return None
        catalog = self.catalog()  # one generation read; a new one drops every kept result
        with self._results_lock:
            if self._results_gen != catalog.generation or catalog.newest > self.clock():
                return None
            found = self._results.get(key)
            if found is not None:
                self._results.move_to_end(key)
            return found

    def _keep(self, key: tuple, ranked: Ranked, result: Result) -> None:
        catalog = ranked.catalog
        if not self.result_cache or catalog is None or catalog.newest > self.clock():
            return
        with self._results_lock:
            if self._results_gen != catalog.generation:
                self._results.clear()
                self._results_gen = catalog.generation
            self._results[key] = (result, ranked.query, ranked.filters)
            while len(self._results) > self.result_cache:
                self._results.popitem(last=False)

    def _is_language(self, value: str) -> bool:
        """Whether `value` (`lang:value` in a query) is one of the site's languages."""
        return self.site.resolve_language(value) is not None

    def _lang_name(self, code: str) -> str:
        lang = self.site.languages.get(code)
        return lang.name if lang else code

    def _suggest(self, query: Query) -> list[str]:
        """The query as typed, with each unknown word replaced by the closest indexed term (edit
        distance ≤ 2, the most frequent on ties); operators, phrases, prefixes and filters
        (also those searched as words: `year:0`) are kept."""
        conn = self.db.read()
        suggestion = query.raw
        changed = False
        for word in dict.fromkeys(query.correctable):
            w = word.lower()
            if len(w) < 3 or not w.isalpha() or not w.isascii() or store.has_term(conn, w):
                continue
            best: tuple[int, str] | None = None
            for candidate in store.terms_like(conn, w[0], len(w) - 2, len(w) + 2):
                d = levenshtein(w, candidate, SUGGEST_DISTANCE)
                if d <= SUGGEST_DISTANCE and (best is None or d < best[0]):
                    best = (d, candidate)
            if best:
                # the word as typed, not a prefix (`typo*`) nor a filter's value (`tag:typo`)
                pattern = re.compile(rf"(?<![\w:]){re.escape(word)}(?![\w*:])", re.IGNORECASE)
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


def _hits(rows: list[HitPost], query: Query) -> list[Hit]:
    """The hits of `rows` (`store.page_rows` values, in order): titles and snippets as escaped
    HTML with FTS5's matches marked, or the query's words where FTS5 marked none (Chinese
    sub-words, titles); every fragment through the allowlist in one pass."""
    words = query.words
    fragments = []
    for row in rows:
        title_hl, snippet = row.title_hl, row.snippet
        fragments.append(
            snippets.marked(title_hl)
            if title_hl and snippets.has_mark(title_hl)
            else snippets.words_marked(row.title, words, limit=10_000)
        )
        if snippet and snippets.has_mark(snippet):
            fragments.append(snippets.marked(snippet))
        else:
            text = row.body_text if words else row.excerpt
            fragments.append(snippets.words_marked(text, words or [""]))
    clean = marks_only_each(fragments)
    return [
        Hit(
            title=row.title,
            title_html=clean[2 * k],
            url=row.url,
            lang=row.lang,
            date=row.date,
            snippet_html=clean[2 * k + 1],
            draft=bool(row.draft),
        )
        for k, row in enumerate(rows)
    ]


def _few_instances(words: list[str]) -> Callable[[HitPost], bool]:
    """Whether FTS5 may cut a hit's snippet (`store.page_rows`): its text has at most
    `SNIPPET_INSTANCES` places where a query word may match, counted from above (the first four
    characters of each word, case-folded, as substrings: a stemmed form shares them; the count
    reads text once, in C). Else the snippet is cut around the first word (`_hits`), in
    linear time, so a huge post cannot hold a search for minutes."""
    needles = sorted({w.lower()[:4] for w in words if w})

    def few(row: HitPost) -> bool:
        if row.word_count <= SNIPPET_INSTANCES:  # fewer words than the bound
            return True
        if len(row.body_text) >= store.BODY_SCAN or not needles:  # cut short: huge
            return False
        text = row.body_text.lower()
        found = 0
        for needle in needles:
            found += text.count(needle)
            if found > SNIPPET_INSTANCES:
                return False
        return True

    return few


def _author_text(names: list[str]) -> str:
    """What `author:` matches a substring of: the names and their keys (`/authors/KEY/`:
    `author:elena-marsh` as well as `author:"Elena Marsh"`), case-folded."""
    return " ".join([*names, *map(term_key, names)]).casefold()


def _cache_key(raw: str, opts: Options) -> tuple:
    return (raw, opts.lang, tuple(opts.tags), tuple(opts.categories), opts.author, opts.after,
            opts.before, opts.year, opts.page, opts.per_page)  # fmt: skip


def _rows(conn: Any, match: str) -> int:
    """The raw mask (FTS5 rowids) of the rows matching `match`."""
    return raw_mask(store.ids(conn, match))


def _from_postings(
    groups: list[list[Term]],
    postings: list[list[Any]],
    strong_of: dict[int, int],
    rows: int,
    catalog: Catalog,
) -> list[int] | None:
    """The catalog ids of `rows` best first, as bm25 over the strong columns orders them,
    from the postings of the terms with instances there (every other term adds 0 to each
    row's bm25), or None when one of those has none: a frequent word's champion list when it
    is the only one, else the sum of their bm25 values per row, added in the order of the
    query's phrases as FTS5 adds them (each such term is one phrase)."""
    ranking = [
        (term, p)
        for group, found in zip(groups, postings, strict=True)
        for term, p in zip(group, found, strict=True)
        if strong_of.get(id(term), 0) & rows
    ]
    if any(p is None or p.scores is None for _, p in ranking):
        return None
    flags = catalog.flags(rows)
    if len(ranking) == 1:
        return [i for i in ranking[0][1].champions if flags[i]]
    if not all(map(_one_strong_phrase, (t for t, _ in ranking))):
        return None  # several phrases a term: FTS5 would add them in another grouping
    size = catalog.size
    totals: dict[int, float] = {}
    for _, p in ranking:
        for i, score in zip(p.scored, p.scores, strict=True):
            if i < size and flags[i]:
                totals[i] = totals.get(i, 0.0) + score
    return best_first(list(totals.items()), catalog.neg_date)


def _one_strong_phrase(term: Term) -> bool:
    """Whether one phrase of `term` can match in the title, tags or categories, any other being
    an alternative in another column (a Chinese word's bigrams: `("搜索" OR bigrams : "搜索")`).
    Such a phrase adds exactly 0.0 to bm25 over those columns, so FTS5's left-to-right sum over
    the query's phrases equals the sum of the terms' own bm25 values, added in query order."""
    found = 0
    for part in term.phrases:
        for phrase in part if isinstance(part, tuple) else (part,):
            found += isinstance(phrase, str) or phrase.column in store.STRONG
    return found == 1


def _among(catalog: Catalog, keep: int) -> list[int] | None:
    """The ids of `keep` for bm25 to rank among (`store.ranked` `within`) when filters left
    few of the catalog (bm25 then skips the others, about 3 µs a row), else None (all)."""
    if keep == catalog.members or keep.bit_count() > BM25_ROWS:
        return None
    return catalog.newest_first(keep)


def _phrased(query: Query) -> bool:
    """Whether `query` has a phrase of several tokens typed in quotes (`"quiet harbor"`):
    matching one costs a pass over position lists, and such phrases rarely match many."""
    return any(
        isinstance(p, str) and _SPACED.search(p)
        for group in query.groups
        for term in group
        for p in term.phrases
    )


_SPACED = re.compile(r"[\s\u200b]")


def _prefixed(query: Query) -> bool:
    """Whether a term of `query` is a prefix (`transl*`)."""
    return any(term.prefix for group in query.groups for term in group)


def _year(year: int | None, month: int) -> date | None:
    if year is None:
        return None
    return date(year, 1, 1) if month == 1 else date(year, 12, 31)
