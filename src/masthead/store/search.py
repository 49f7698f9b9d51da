"""SQL for full-text search: the FTS5 rows of each post, ranked queries, facets, suggestions and
the search log.

`search_fts` is an external-content FTS5 table over `search_docs` (https://www.sqlite.org/fts5.html
#external_content_tables); rows are written here, in the same transaction as the post, never by
triggers, because Chinese text is segmented in Python first. Ranking is bm25 with column weights
(title far above tags and categories, above excerpt, above body, code lowest), newer first on ties.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from masthead.content.post import Post
from masthead.search.segment import segment

COLUMNS = ("title", "tags", "categories", "excerpt", "body", "code", "extra")
WEIGHTS = (10.0, 5.0, 4.0, 2.0, 1.0, 0.3, 0.8)
_BM25 = "bm25(search_fts, " + ", ".join(str(w) for w in WEIGHTS) + ")"
_MATCHING = "SELECT rowid FROM search_fts WHERE search_fts MATCH :match"
MARK_OPEN, MARK_CLOSE = "\x02", "\x03"  # sentinels: escaped text cannot contain them


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
        "extra) VALUES ('delete', :id, :title, :tags, :categories, :excerpt, :body, :code, :extra)",
        values,
    )
    conn.execute(
        "INSERT INTO search_words (search_words, rowid, title, tags, categories, excerpt, body) "
        "VALUES ('delete', :id, :title, :tags, :categories, :excerpt, :body)",
        values,
    )
    conn.execute("DELETE FROM search_docs WHERE post_id = :id", {"id": post_id})


def index_post(conn: sqlite3.Connection, post_id: int, post: Post) -> None:
    """Write (or rewrite) the search rows of `post`, whose row in `posts` is `post_id`."""
    delete_post(conn, post_id)
    extras: list[str] = []
    values: dict[str, Any] = {"id": post_id}
    for column, text in (
        ("title", post.title),
        ("tags", " ; ".join(t.name for t in post.tags)),
        ("categories", " ; ".join(c.name for c in post.categories)),
        ("excerpt", post.excerpt),
        ("body", post.text),
        ("code", post.code),
    ):
        values[column], extra = segment(text)
        if extra:
            extras.append(extra)
    values["extra"] = " ".join(extras)
    conn.execute(
        "INSERT INTO search_docs (post_id, title, tags, categories, excerpt, body, code, extra) "
        "VALUES (:id, :title, :tags, :categories, :excerpt, :body, :code, :extra)",
        values,
    )
    conn.execute(
        "INSERT INTO search_fts (rowid, title, tags, categories, excerpt, body, code, extra) "
        "VALUES (:id, :title, :tags, :categories, :excerpt, :body, :code, :extra)",
        values,
    )
    conn.execute(
        "INSERT INTO search_words (rowid, title, tags, categories, excerpt, body) "
        "VALUES (:id, :title, :tags, :categories, :excerpt, :body)",
        values,
    )


@dataclass(frozen=True)
class Where:
    """The SQL conditions of one search on `posts AS p` (FTS match, exclusion and filters)."""

    filters: str  # everything but the FTS match
    params: dict[str, Any]
    match: str | None

    @property
    def sql(self) -> str:
        """All conditions, the FTS match included."""
        if self.match is None:
            return self.filters
        return f"{self.filters} AND p.id IN ({_MATCHING})"


def where(
    *,
    match: str | None,
    exclusion: str | None,
    now: float,
    lang: str | None = None,
    tags: list[str] | None = None,
    categories: list[str] | None = None,
    author: str | None = None,
    start: float | None = None,
    end: float | None = None,
) -> Where:
    """Conditions for published posts (not pages, drafts or future posts) matching everything."""
    parts = ["p.kind = 'post'", "p.draft = 0", "p.shadowed = 0", "p.date_ts <= :now"]
    params: dict[str, Any] = {"now": now}
    if match:
        params["match"] = match
    if exclusion:
        parts.append("p.id NOT IN (SELECT rowid FROM search_fts WHERE search_fts MATCH :excl)")
        params["excl"] = exclusion
    if lang:
        parts.append("p.lang = :lang")
        params["lang"] = lang
    for i, key in enumerate(tags or []):
        parts.append(
            f"p.id IN (SELECT post_id FROM post_terms WHERE taxonomy = 'tags' AND key = :tag{i})"
        )
        params[f"tag{i}"] = key
    for i, key in enumerate(categories or []):
        parts.append(
            "p.id IN (SELECT post_id FROM post_terms WHERE taxonomy = 'categories' "
            f"AND key = :cat{i})"
        )
        params[f"cat{i}"] = key
    if author:
        parts.append("p.authors LIKE :author ESCAPE '\\'")
        escaped = author.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        params["author"] = f"%{escaped}%"
    if start is not None:
        parts.append("p.date_ts >= :start")
        params["start"] = start
    if end is not None:
        parts.append("p.date_ts < :end")
        params["end"] = end
    return Where(" AND ".join(parts), params, match)


def count(conn: sqlite3.Connection, w: Where) -> int:
    return int(conn.execute(f"SELECT COUNT(*) FROM posts p WHERE {w.sql}", w.params).fetchone()[0])


def results(conn: sqlite3.Connection, w: Where, limit: int, offset: int) -> list[Any]:
    """One page of hits: post columns plus `title_hl` and `snippet` with sentinel marks
    (`MARK_OPEN`/`MARK_CLOSE` around matches; text not yet escaped, U+200B not yet removed)."""
    params = w.params | {"limit": limit, "offset": offset}
    columns = (
        "p.id, p.title, p.url, p.lang, p.date, p.date_ts, p.excerpt, p.reading_minutes, "
        "p.translation_key"
    )
    if w.match is None:
        return conn.execute(
            f"SELECT {columns}, NULL AS title_hl, NULL AS snippet, NULL AS rank FROM posts p "
            f"WHERE {w.sql} ORDER BY p.date_ts DESC LIMIT :limit OFFSET :offset",
            params,
        ).fetchall()
    # rank every hit, but cut snippets only for the page shown (snippet() is the costly part)
    rows = conn.execute(
        f"SELECT {columns}, h.rank FROM (SELECT rowid AS id, {_BM25} AS rank FROM search_fts "
        "WHERE search_fts MATCH :match) h "
        f"JOIN posts p ON p.id = h.id WHERE {w.filters} "
        "ORDER BY h.rank, p.date_ts DESC LIMIT :limit OFFSET :offset",
        params,
    ).fetchall()
    if not rows:
        return []
    ids = ",".join(str(int(r["id"])) for r in rows)
    marks = {
        r[0]: (r[1], r[2])
        for r in conn.execute(
            f"SELECT rowid, highlight(search_fts, 0, '{MARK_OPEN}', '{MARK_CLOSE}'), "
            f"snippet(search_fts, 4, '{MARK_OPEN}', '{MARK_CLOSE}', '…', 24) "
            f"FROM search_fts WHERE search_fts MATCH :match AND rowid IN ({ids})",
            {"match": w.match},
        )
    }
    return [
        {**dict(r), "title_hl": marks.get(r["id"], (None, None))[0],
         "snippet": marks.get(r["id"], (None, None))[1]}
        for r in rows
    ]  # fmt: skip


def facets(conn: sqlite3.Connection, w: Where, limit: int = 15) -> dict[str, list[tuple]]:
    """Counts over all hits: `lang` → [(lang, n)], `tags`/`categories` → [(key, name, n)]."""
    ids = f"SELECT p.id FROM posts p WHERE {w.sql}"
    out: dict[str, list[tuple]] = {
        "lang": [
            tuple(r)
            for r in conn.execute(
                f"SELECT p.lang, COUNT(*) FROM posts p WHERE {w.sql} GROUP BY p.lang "
                "ORDER BY COUNT(*) DESC",
                w.params,
            )
        ]
    }
    for taxonomy in ("tags", "categories"):
        out[taxonomy] = [
            tuple(r)
            for r in conn.execute(
                f"SELECT key, MIN(name), COUNT(*) AS n FROM post_terms WHERE taxonomy = :tax "
                f"AND post_id IN ({ids}) GROUP BY key ORDER BY n DESC, key LIMIT :facet_limit",
                w.params | {"tax": taxonomy, "facet_limit": limit},
            )
        ]
    return out


def terms_like(conn: sqlite3.Connection, first: str, min_len: int, max_len: int) -> list[str]:
    """Indexed unstemmed terms starting with `first` within a length range (suggestion
    candidates), most frequent first."""
    rows = conn.execute(
        "SELECT term FROM search_vocab WHERE term >= :lo AND term < :hi "
        "AND length(term) BETWEEN :min AND :max ORDER BY doc DESC LIMIT 5000",
        {"lo": first, "hi": first + "\U0010ffff", "min": min_len, "max": max_len},
    )
    return [r[0] for r in rows]


def has_term(conn: sqlite3.Connection, term: str) -> bool:
    row = conn.execute("SELECT 1 FROM search_vocab WHERE term = :t", {"t": term}).fetchone()
    return row is not None


# --- the search log -----------------------------------------------------------------------


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


def top_queries(
    conn: sqlite3.Connection, since: float, limit: int, no_results: bool = False
) -> list[sqlite3.Row]:
    """Most frequent queries since `since` (only those that found nothing, if `no_results`):
    query, searches, last (time), results (of the last search)."""
    cond = "AND results = 0" if no_results else ""
    return conn.execute(
        "SELECT lower(trim(query)) AS query, COUNT(*) AS searches, MAX(at) AS last, "
        "MIN(results) AS results FROM search_log "
        f"WHERE at >= :since AND trim(query) != '' {cond} "
        "GROUP BY lower(trim(query)) ORDER BY searches DESC, last DESC LIMIT :limit",
        {"since": since, "limit": limit},
    ).fetchall()
