"""The postings of the index's frequent words in memory: bitmaps and champion lists, made once
per index generation.

A word in most posts is what makes a search slow: FTS5 reads its whole doclist to list the ids
(for the count and the facets), reads it again for the title, tags and categories, and computes
bm25 there for every row, all of which depends on the index alone, not on the query. So for
each word of the vocabulary (`search_vocab`) that matches more than `cap` rows, as the search
parses it (`query.parse(word)`: a Chinese word with its bigram alternative), this holds:

- `hits`: the mask of the FTS5 rowids matching it (bit `rowid` set; every row, not only the
  catalog's: the search compares counts with its caps as FTS5 would count);
- `strong`: the mask of those matching it in the title, tags or categories (`store.strong`);
- `champions`: when `strong` has at most `cap` rows, the catalog's ids among them in the order
  the search ranks them (bm25 over those columns, then newest first): the "champion list" of
  the word (Manning, Raghavan, Schütze, *Introduction to Information Retrieval*, §7.1.3);
- `scored`, `scores`: then too, those rows (ascending) and their bm25 values. FTS5's bm25 is a
  sum over the query's phrases, one term each (https://www.sqlite.org/fts5.html#the_bm25_
  function; fts5_aux.c), so a query of such words ranks its strong rows by adding these up in
  the order of its phrases, with the same floating-point result.

It is built from the index (every word above the line), never from the queries asked, so it is
an index structure, not a result cache: a search of a word asked for the first time is as fast
as one asked a thousand times. `SearchService` builds one beside each catalog, in a background
thread; until it is ready, searches take the SQL path and give the same results.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable

from masthead.search.catalog import Frequent, Postings, raw_mask
from masthead.search.query import parse
from masthead.store import search as store
from masthead.store.db import Database


def build(
    db: Database,
    generation: int,
    cap: int,
    best_first: Callable[[list[tuple[int, float]]], list[int]],
    stopped: Callable[[], bool] = lambda: False,
) -> Frequent | None:
    """The `Frequent` of `generation`, read in one snapshot of `db` (`db.snapshot()`: the
    calling thread's read connection), or None when the index has moved on to another
    generation (the caller's catalog is then stale too) or `stopped()` became true (checked
    between words: the server is shutting down). `cap` is the search's `BM25_ROWS`;
    `best_first` orders `(id, bm25)` rows as the search does (catalog ids only). Cost: one ids
    pass per frequent word and its strong columns, and bm25 over those (about 1.5 s of CPU at
    10,000 generated posts, 386 words)."""
    from masthead.store import posts as posts_store

    with db.snapshot() as conn:
        if posts_store.generation(conn) != generation:
            return None
        frequent = Frequent(generation)
        # the vocabulary counts unstemmed words: a stem may match more rows than its word
        for word in store.vocabulary(conn, cap // 2):
            if stopped():
                return None
            query = parse(word)
            if len(query.groups) != 1 or len(query.groups[0]) != 1 or query.excluded:
                continue
            term = query.groups[0][0]
            key = term.fts()
            hits = store.ids(conn, key)
            if len(hits) <= cap:  # its vocabulary count was the unstemmed word's alone
                continue
            strong_match = store.strong(key)
            strong_ids = store.ids(conn, strong_match)
            postings = Postings(raw_mask(hits), raw_mask(strong_ids), None)
            if len(strong_ids) <= cap:
                rows = store.ranked(conn, strong_match)
                postings = Postings(
                    postings.hits,
                    postings.strong,
                    array("q", best_first(rows)),
                    array("q", (i for i, _ in rows)),
                    array("d", (rank for _, rank in rows)),
                )
            frequent.words[key] = postings
        return frequent
