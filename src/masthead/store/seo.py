"""SQL for feeds, sitemaps and hreflang sets. Read-only; `now` is seconds since the epoch.

Two levels of visibility:
- *published*: a post anyone can read (`draft = 0`, `shadowed = 0`, `date_ts <= :now`); feeds and
  list pages show these.
- *indexable*: published, and neither `noindex` nor canonical on another site; only these go into
  the sitemap and into hreflang sets (DESIGN.md, front matter `canonical`).
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from masthead.store.rows import FeedPost, IndexablePost, PostDates, TermPostDates, rows_of

_PUBLISHED = "shadowed = 0 AND draft = 0 AND date_ts <= :now"
_INDEXABLE = f"{_PUBLISHED} AND noindex = 0 AND canonical = ''"
_P_PUBLISHED = "p.shadowed = 0 AND p.draft = 0 AND p.date_ts <= :now"  # joined with post_terms


def feed_posts(
    conn: sqlite3.Connection,
    *,
    now: float,
    limit: int,
    lang: str | None = None,
    taxonomy: str | None = None,
    key: str | None = None,
    ids: list[int] | None = None,
) -> list[FeedPost]:
    """The newest `limit` published posts (kind `post`) for a feed, newest first: of one language
    (`lang`, or every language when None), optionally of one term (`taxonomy` and `key`) or
    among the posts `ids` (a series)."""
    where = f"kind = 'post' AND {_PUBLISHED}"
    params: dict[str, Any] = {"now": now, "limit": limit}
    if lang is not None:
        where += " AND lang = :lang"
        params["lang"] = lang
    if taxonomy:
        where += " AND id IN (SELECT post_id FROM post_terms WHERE taxonomy = :tax AND key = :key)"
        params.update(tax=taxonomy, key=key)
    if ids is not None:
        where += " AND id IN (SELECT value FROM json_each(:ids))"
        params["ids"] = json.dumps(ids)
    rows = conn.execute(
        "SELECT id, lang, url, title, date, updated, authors, excerpt, cover, html FROM posts "
        f"WHERE {where} ORDER BY date_ts DESC, source LIMIT :limit",
        params,
    ).fetchall()
    return rows_of(FeedPost, rows)


def indexable_posts(conn: sqlite3.Connection, now: float) -> list[IndexablePost]:
    """Every indexable post and page, oldest first (so that a growing site appends to the last
    sitemap file): id, kind, lang, url, date, updated, translation_key."""
    rows = conn.execute(
        "SELECT id, kind, lang, url, date, updated, translation_key FROM posts "
        f"WHERE kind != 'author' AND {_INDEXABLE} ORDER BY date_ts, source",
        {"now": now},
    ).fetchall()
    return rows_of(IndexablePost, rows)


def hreflang_versions(
    conn: sqlite3.Connection, translation_key: str, kind: str, now: float
) -> dict[str, str]:
    """language code → URL of every indexable version of one post or page (its translation set).

    When a language has two versions (a slug changed without a new key), the older one wins, as it
    does for duplicate slugs."""
    rows = conn.execute(
        # the key narrows to a handful of rows; without sqlite_stat1 SQLite would walk
        # `posts_due` (every published post) instead
        "SELECT lang, url FROM posts INDEXED BY posts_translation "
        f"WHERE translation_key = :k AND kind = :kind AND {_INDEXABLE} "
        "ORDER BY date_ts DESC, source DESC",
        {"k": translation_key, "kind": kind, "now": now},
    ).fetchall()
    return {r["lang"]: r["url"] for r in rows}


def term_languages(conn: sqlite3.Connection, taxonomy: str, key: str, now: float) -> list[str]:
    """The languages in which a term has a published post, i.e. has a term page."""
    rows = conn.execute(
        "SELECT DISTINCT p.lang FROM post_terms t JOIN posts p ON p.id = t.post_id "
        f"WHERE t.taxonomy = :tax AND t.key = :key AND p.kind = 'post' AND {_P_PUBLISHED} "
        "ORDER BY p.lang",
        {"tax": taxonomy, "key": key, "now": now},
    ).fetchall()
    return [r[0] for r in rows]


def term_post_dates(conn: sqlite3.Connection, now: float) -> list[TermPostDates]:
    """For every term page: one row per published post on it (taxonomy, key, lang, date,
    updated), ordered by taxonomy, key and language, for the sitemap's term pages and lastmods."""
    rows = conn.execute(
        "SELECT t.taxonomy, t.key, p.lang, p.date, p.updated FROM post_terms t "
        f"JOIN posts p ON p.id = t.post_id WHERE p.kind = 'post' AND {_P_PUBLISHED} "
        "ORDER BY t.taxonomy, t.key, p.lang",
        {"now": now},
    ).fetchall()
    return rows_of(TermPostDates, rows)


def post_dates_by_language(conn: sqlite3.Connection, now: float) -> list[PostDates]:
    """lang, date and updated of every published post (kind `post`): the lastmod of list pages."""
    rows = conn.execute(
        f"SELECT lang, date, updated FROM posts WHERE kind = 'post' AND {_PUBLISHED}",
        {"now": now},
    ).fetchall()
    return rows_of(PostDates, rows)
