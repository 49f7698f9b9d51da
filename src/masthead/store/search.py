"""SQL for full-text search: the FTS5 rows of each post, ranked queries, facets and suggestions
(the search log is store/search_log.py).

`search_fts` is an external-content FTS5 table over `search_docs` (https://www.sqlite.org/fts5.html
#external_content_tables); rows are written here, in the same transaction as the post, never by
triggers, because Chinese text is segmented in Python first. Ranking is bm25 with column weights
(title far above tags and categories, above excerpt, above body, code lowest), newer first on ties.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import suppress
from dataclasses import replace
from typing import Any

from masthead.content.model import Post
from masthead.search.document import SearchValues, search_values
from masthead.search.snippets import MARK_CLOSE, MARK_OPEN
from masthead.store.rows import CatalogRow, CatalogTerm, HitPost, row_of

COLUMNS = ("title", "tags", "categories", "excerpt", "body", "code", "extra", "bigrams")
# bigrams lowest: a post with the word found as a word ranks above one that only contains its
# characters in a row (across a word boundary, or inside a longer word)
WEIGHTS = (10.0, 5.0, 4.0, 2.0, 1.0, 0.3, 0.8, 0.2)
_BM25 = "bm25(search_fts, " + ", ".join(str(w) for w in WEIGHTS) + ")"
BODY_SCAN = 1_000_000  # characters of a hit's text read for a snippet cut in Python


def _old_row(conn: sqlite3.Connection, post_id: int) -> sqlite3.Row | None:
    return conn.execute("SELECT * FROM search_docs WHERE post_id = :id", {"id": post_id}).fetchone()


def delete_post(conn: sqlite3.Connection, post_id: int) -> None:
    """Remove a post's rows from both FTS5 indexes (with their old values, as external content
    tables require) and from `search_docs`."""
    old = _old_row(conn, post_id)
    if old is None:
        return
    values = {c: old[c] for c in COLUMNS} | {"id": post_id}
    conn.execute(
        "INSERT INTO search_fts (search_fts, rowid, title, tags, categories, excerpt, body, code, "
        "extra, bigrams) VALUES ('delete', :id, :title, :tags, :categories, :excerpt, :body, "
        ":code, :extra, :bigrams)",
        values,
    )
    conn.execute(
        "INSERT INTO search_words (search_words, rowid, title, tags, categories, excerpt, body) "
        "VALUES ('delete', :id, :title, :tags, :categories, :excerpt, :body)",
        values,
    )
    conn.execute("DELETE FROM search_docs WHERE post_id = :id", {"id": post_id})


def index_post(
    conn: sqlite3.Connection, post_id: int, post: Post, values: SearchValues | None = None
) -> None:
    """Write (or rewrite) the search rows of `post`, whose row in `posts` is `post_id`.

    `values` are `search_values(post)` when the caller computed them already (in a worker)."""
    delete_post(conn, post_id)
    row: dict[str, Any] = dict(values if values is not None else search_values(post))
    row["id"] = post_id
    conn.execute(
        "INSERT INTO search_docs (post_id, title, tags, categories, excerpt, body, code, extra, "
        "bigrams) VALUES (:id, :title, :tags, :categories, :excerpt, :body, :code, :extra, "
        ":bigrams)",
        row,
    )
    conn.execute(
        "INSERT INTO search_fts (rowid, title, tags, categories, excerpt, body, code, extra, "
        "bigrams) VALUES (:id, :title, :tags, :categories, :excerpt, :body, :code, :extra, "
        ":bigrams)",
        row,
    )
    conn.execute(
        "INSERT INTO search_words (rowid, title, tags, categories, excerpt, body) "
        "VALUES (:id, :title, :tags, :categories, :excerpt, :body)",
        row,
    )


FTS_TABLES = ("search_fts", "search_words")
DEFAULT_HASHSIZE = 1024 * 1024  # bytes of pending terms FTS5 keeps in memory before a flush
BULK_HASHSIZE = 16 * 1024 * 1024
AUTOMERGE = (
    4  # FTS5's default (https://www.sqlite.org/fts5.html#the_automerge_configuration_option)
)


def bulk_load(conn: sqlite3.Connection, loading: bool) -> None:
    """Turn FTS5's automerge off while many rows are written at once (`loading`), back to its
    default after: merging as segments pile up would rewrite the same doclists several times
    over; `optimize` merges once at the end. The setting is stored in each table's config, so
    an index that stopped half-way (a crash) leaves it off: `index_site` sets it back on at the
    start of every run (`automerge_off` tells)."""
    for table in FTS_TABLES:
        conn.execute(
            f"INSERT INTO {table} ({table}, rank) VALUES ('automerge', :n)",
            {"n": 0 if loading else AUTOMERGE},
        )
        # fewer, larger segments flushed from memory while loading (fts5_config.c `hashsize`,
        # FTS5's default 1 MB; a quiet-machine run: 20% less CPU in the inserts); an SQLite
        # without the option loads with its default
        with suppress(sqlite3.OperationalError):
            conn.execute(
                f"INSERT INTO {table} ({table}, rank) VALUES ('hashsize', :n)",
                {"n": BULK_HASHSIZE if loading else DEFAULT_HASHSIZE},
            )


def automerge_off(conn: sqlite3.Connection) -> bool:
    """Whether a `bulk_load` was left unfinished (automerge 0 in a table's config)."""
    for table in FTS_TABLES:
        row = conn.execute(f"SELECT v FROM {table}_config WHERE k = 'automerge'").fetchone()
        if row is not None and row[0] == 0:
            return True
    return False


def optimize(conn: sqlite3.Connection) -> None:
    """Merge each FTS5 index into one segment (FTS5's `optimize`). A full index otherwise
    leaves a dozen segments, each searched for every term and row: at 10,000 posts a search's
    snippet lookups (`page_rows`, one `rowid =` seek per hit) cost 7× as much before it."""
    for table in FTS_TABLES:
        conn.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")


def ranked(
    conn: sqlite3.Connection, match: str, limit: int = -1, within: list[int] | None = None
) -> list[tuple[int, float]]:
    """`(post id, bm25 rank)` of the rows matching the FTS5 expression `match` (lower rank is
    better), in rowid order, at most `limit` of them (-1: all); only those of the ids `within`
    when given (`+rowid IN`: tested per row after the match, so bm25 runs for those alone, and
    gives the same values, its statistics being the whole table's). One pass over the index,
    bm25 computed for each row returned (about 3 µs each), so a caller bounds it with `limit`.
    Filtering and ordering are the caller's."""
    cursor = conn.cursor()
    cursor.row_factory = None  # plain tuples: thousands of rows, no need for sqlite3.Row
    among = "" if within is None else f" AND +rowid IN ({','.join(str(int(i)) for i in within)})"
    cursor.execute(
        f"SELECT rowid, {_BM25} FROM search_fts WHERE search_fts MATCH :match{among} LIMIT :limit",
        {"match": match, "limit": limit},
    )
    return cursor.fetchall()


def count(conn: sqlite3.Connection, match: str) -> int:
    """How many rows match `match` (no rank, no rows: the cheapest pass)."""
    row = conn.execute(
        "SELECT count(*) FROM search_fts WHERE search_fts MATCH :match", {"match": match}
    ).fetchone()
    return int(row[0])


def count_upto(conn: sqlite3.Connection, match: str, limit: int) -> int:
    """How many rows match `match`, counting no further than `limit + 1`: FTS5 stops there,
    so a word in most posts costs a few hundred rows, not all of them."""
    row = conn.execute(
        "SELECT count(*) FROM (SELECT rowid FROM search_fts WHERE search_fts MATCH :match "
        "LIMIT :limit)",
        {"match": match, "limit": limit + 1},
    ).fetchone()
    return int(row[0])


def ids(conn: sqlite3.Connection, match: str, after: int = -1) -> list[int]:
    """Ids of the rows matching `match`, ascending, without rank: one JSON array from SQLite,
    about half the cost of fetching as many rows. Only ids above `after` when given (FTS5
    seeks its doclists there: the rows before are not read)."""
    above = " AND rowid > :after" if after >= 0 else ""
    row = conn.execute(
        f"SELECT json_group_array(rowid) FROM search_fts WHERE search_fts MATCH :match{above}",
        {"match": match, "after": after},
    ).fetchone()
    found: list[int] = json.loads(row[0])
    return found


STRONG = ("title", "tags", "categories")  # the heavy columns of WEIGHTS


def strong(match: str) -> str:
    """`match` restricted to the title, tags and categories (FTS5 column filter; a nested
    filter, such as the bigram column's, intersects with it)."""
    return "{" + " ".join(STRONG) + "} : (" + match + ")"


def matching(conn: sqlite3.Connection, match: str) -> set[int]:
    """Ids of the rows matching `match` (for exclusions)."""
    return set(ids(conn, match))


def catalog(conn: sqlite3.Connection, drafts: bool = False) -> Iterator[CatalogRow]:
    """Every searchable post (published kind, not a draft unless `drafts`, URL not shadowed)
    with what filters, facets and hits need: `(id, lang, date_ts, authors (JSON), draft
    (0/1))`; future posts included (the caller compares `date_ts` with its clock). Plain
    tuples, one at a time: at 50,000 posts a list of row objects was most of what building the
    catalog left in a worker's memory. Read from the covering index `posts_facts` (migration
    18), never the rows with their bodies (named: without sqlite_stat1 SQLite would take
    `posts_list` and read each row)."""
    cursor = conn.cursor()
    cursor.row_factory = None
    yield from cursor.execute(
        "SELECT id, lang, date_ts, authors, draft FROM posts INDEXED BY posts_facts "
        "WHERE kind = 'post' AND (draft = 0 OR :drafts) AND shadowed = 0",
        {"drafts": drafts},
    )


def catalog_terms(conn: sqlite3.Connection, drafts: bool = False) -> Iterator[CatalogTerm]:
    """Every `(post id, taxonomy, key, name)` of the posts in `catalog`, for the tags and
    categories (the facets; authors are a taxonomy too, filtered by `author:` instead); plain
    tuples, one at a time, each post's tested in `posts_facts`."""
    cursor = conn.cursor()
    cursor.row_factory = None
    yield from cursor.execute(
        "SELECT t.post_id, t.taxonomy, t.key, t.name FROM post_terms t "
        "CROSS JOIN posts p INDEXED BY posts_facts ON p.id = t.post_id "
        "WHERE t.taxonomy IN ('tags', 'categories') "
        "AND p.kind = 'post' AND (p.draft = 0 OR :drafts) AND p.shadowed = 0 "
        "ORDER BY t.post_id, t.taxonomy, t.position",
        {"drafts": drafts},
    )


def page_rows(
    conn: sqlite3.Connection,
    ids: list[int],
    match: str | None,
    lookups: bool = False,
    snippets: Callable[[HitPost], bool] | None = None,
) -> dict[int, HitPost]:
    """Display columns of the posts `ids`, with `title_hl` and `snippet` marked by sentinels
    (`MARK_OPEN`/`MARK_CLOSE`; not yet escaped, U+200B not yet removed) when `match` is given.
    `body_text` is the first `BODY_SCAN` characters of the text (`length()` would read all).
    snippet() is the costly part of a search, so it runs only for the page shown, and only for
    the rows `snippets(row)` accepts (all without it): FTS5 scores a fragment at each instance
    of the query's phrases against every other one, so its time grows with the square of their
    number (a 0.9 MB post with a word in every 18: 1.5 s); the others keep `snippet` None and
    their title marks only (highlight() is linear). With `lookups`, one statement that seeks
    each post (`rowid IN`, cheap in a merged index), else one pass over the matches between the
    smallest and the largest id, the ids tested by `+rowid IN` (the `+` keeps the list from
    FTS5, which would run the whole match once per value), so only the page's rows reach
    highlight() and snippet() (cheaper for prefixes, phrases and column filters, which cost
    much to set up)."""
    if not ids:
        return {}
    id_list = ",".join(str(int(i)) for i in ids)
    rows = {
        r["id"]: row_of(HitPost, r)
        for r in conn.execute(
            "SELECT id, title, url, lang, date, excerpt, substr(body_text, 1, :scan) AS body_text, "
            f"word_count, draft FROM posts WHERE id IN ({id_list})",
            {"scan": BODY_SCAN},
        )
    }
    if not match or not rows:
        return rows
    cut = [i for i in rows if snippets is None or snippets(rows[i])]
    title = f"highlight(search_fts, 0, '{MARK_OPEN}', '{MARK_CLOSE}')"
    body = f"snippet(search_fts, 4, '{MARK_OPEN}', '{MARK_CLOSE}', '…', 24)"
    for chosen, marks in ((cut, f"{title}, {body}"), ([i for i in rows if i not in cut], title)):
        for row in _marks(conn, match, chosen, marks, lookups):
            if row[0] in rows:
                marked = {"title_hl": row[1], "snippet": row[2] if len(row) > 2 else None}
                rows[row[0]] = replace(rows[row[0]], **marked)
    return rows


def _marks(
    conn: sqlite3.Connection, match: str, ids: list[int], marks: str, lookups: bool
) -> list[Any]:
    """`rowid, marks…` of the rows `ids` matching `match` (see `page_rows`)."""
    if not ids:
        return []
    id_list = ",".join(str(int(i)) for i in ids)
    if lookups:  # FTS5 runs the match once per value: a seek each
        return conn.execute(
            f"SELECT rowid, {marks} FROM search_fts WHERE search_fts MATCH :match "
            f"AND rowid IN ({id_list})",
            {"match": match},
        ).fetchall()
    return conn.execute(
        f"SELECT rowid, {marks} FROM search_fts WHERE search_fts MATCH :match "
        f"AND rowid BETWEEN :lo AND :hi AND +rowid IN ({id_list})",
        {"match": match, "lo": min(ids), "hi": max(ids)},
    ).fetchall()


def terms_like(conn: sqlite3.Connection, first: str, min_len: int, max_len: int) -> list[str]:
    """Indexed unstemmed terms starting with `first` within a length range (suggestion
    candidates), most frequent first."""
    rows = conn.execute(
        "SELECT term FROM search_vocab WHERE term >= :lo AND term < :hi "
        "AND length(term) BETWEEN :min AND :max ORDER BY doc DESC LIMIT 5000",
        {"lo": first, "hi": first + "\U0010ffff", "min": min_len, "max": max_len},
    )
    return [r[0] for r in rows]


def vocabulary(conn: sqlite3.Connection, min_docs: int) -> list[str]:
    """The indexed unstemmed words found in at least `min_docs` rows, most frequent first."""
    rows = conn.execute(
        "SELECT term FROM search_vocab WHERE doc >= :min ORDER BY doc DESC", {"min": min_docs}
    )
    return [r[0] for r in rows]


def has_term(conn: sqlite3.Connection, term: str) -> bool:
    row = conn.execute("SELECT 1 FROM search_vocab WHERE term = :t", {"t": term}).fetchone()
    return row is not None
