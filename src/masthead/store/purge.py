"""SQL for purging caches in front of the site: which pages show a comment thread.

Read functions only; `now` is seconds since the epoch. A thread is a translation group
(`posts.translation_key`); its pages are its published versions, and the list pages that show
them are found at the position `store.posts.list_posts` gives them (newest first, then source).
"""

from __future__ import annotations

import sqlite3

from masthead.store.rows import ThreadPost, rows_of


def thread_posts(conn: sqlite3.Connection, thread: str, now: float) -> list[ThreadPost]:
    """The published posts (not pages, drafts or shadowed files) of `thread`: `id, url, lang,
    date_ts, source`, by language."""
    rows = conn.execute(
        "SELECT id, url, lang, date_ts, source FROM posts WHERE translation_key = :t "
        "AND kind = 'post' AND shadowed = 0 AND draft = 0 AND date_ts <= :now ORDER BY lang",
        {"t": thread, "now": now},
    ).fetchall()
    return rows_of(ThreadPost, rows)


def list_position(
    conn: sqlite3.Connection,
    post: ThreadPost,
    now: float,
    taxonomy: str | None = None,
    key: str | None = None,
) -> int:
    """How many published posts of `post`'s language come before it on its language's list
    pages (or on the pages of one term), in `list_posts` order: 0 for the first."""
    where = (
        "kind = 'post' AND lang = :lang AND shadowed = 0 AND draft = 0 AND date_ts <= :now "
        "AND (date_ts > :d OR (date_ts = :d AND source < :s))"
    )
    params = {"lang": post.lang, "now": now, "d": post.date_ts, "s": post.source}
    if taxonomy:
        where += " AND id IN (SELECT post_id FROM post_terms WHERE taxonomy = :tax AND key = :key)"
        params.update(tax=taxonomy, key=key)
    sql = f"SELECT COUNT(*) FROM posts WHERE {where}"  # nosec B608 (fixed text, no input)
    row = conn.execute(sql, params).fetchone()
    return int(row[0])


def post_terms(conn: sqlite3.Connection, post_id: int) -> list[tuple[str, str]]:
    """`(taxonomy, key)` of each tag and category of a post."""
    rows = conn.execute(
        "SELECT taxonomy, key FROM post_terms WHERE post_id = :id ORDER BY taxonomy, position",
        {"id": post_id},
    )
    return [(r[0], r[1]) for r in rows]
