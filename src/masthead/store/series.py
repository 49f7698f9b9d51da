"""SQL for series: the parts of a series in one language, the series of a post, their names.

A post is a part of the series its front matter names (`post_series`). A translation whose
front matter names no series is a part of its original's: the series of the posts of its
translation group (same `translation_key` and kind) that name one. So the translations of the
parts form the translated series, in the original's order, without repeating `series` in each.

Order: `series_weight` (the post's own, else its group's), parts without one after those with
one; then the date of the group's post that names the series; then the path.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from masthead.store.rows import SeriesName, SeriesPart, rows_of


def _visible(drafts: bool) -> str:
    return "p.shadowed = 0 AND p.date_ts <= :now" + ("" if drafts else " AND p.draft = 0")


# the posts that name series :key (their translation groups are its parts), any language
_OWNERS = (
    "SELECT o.translation_key AS tk, o.kind, o.series_weight AS w, o.date_ts AS ts "
    "FROM post_series s JOIN posts o ON o.id = s.post_id "
    "WHERE s.key = :key AND o.kind = 'post' AND o.shadowed = 0"
)


def parts(
    conn: sqlite3.Connection, key: str, lang: str, now: float, drafts: bool = False
) -> list[SeriesPart]:
    """The published parts of series `key` in language `lang`, in order."""
    rows = conn.execute(
        f"WITH owners AS ({_OWNERS}) "
        "SELECT p.id, p.title, p.url, p.date, p.reading_minutes, p.draft, "
        "COALESCE(p.series_weight, (SELECT MIN(w) FROM owners WHERE tk = p.translation_key)) "
        "AS weight, (SELECT MIN(ts) FROM owners WHERE tk = p.translation_key) AS group_ts "
        "FROM posts p WHERE p.kind = 'post' AND p.lang = :lang "
        f"AND {_visible(drafts)} AND p.translation_key IN (SELECT tk FROM owners) "
        "AND (EXISTS (SELECT 1 FROM post_series s WHERE s.post_id = p.id AND s.key = :key) "
        "OR NOT EXISTS (SELECT 1 FROM post_series s WHERE s.post_id = p.id)) "
        "ORDER BY weight IS NULL, weight, group_ts, p.date_ts, p.source",
        {"key": key, "lang": lang, "now": now, "drafts": drafts},
    ).fetchall()
    return rows_of(SeriesPart, rows)


def of_post(conn: sqlite3.Connection, post_id: int, translation_key: str) -> list[SeriesName]:
    """The series post `post_id` is a part of: those its front matter names, in its order;
    with none, those of its translation group's posts (each key once, in their order)."""
    own = conn.execute(
        "SELECT key, name FROM post_series WHERE post_id = :id ORDER BY position",
        {"id": post_id},
    ).fetchall()
    if own:
        return rows_of(SeriesName, own)
    rows = conn.execute(
        "SELECT s.key, MIN(s.name) AS name FROM post_series s JOIN posts o ON o.id = s.post_id "
        "WHERE o.translation_key = :tk AND o.kind = 'post' AND o.id != :id "
        "GROUP BY s.key ORDER BY MIN(s.position), s.key",
        {"tk": translation_key, "id": post_id},
    ).fetchall()
    return rows_of(SeriesName, rows)


def name(conn: sqlite3.Connection, key: str, lang: str) -> str | None:
    """The name of series `key` as the posts of `lang` write it, else as any post does; None
    when no post names it."""
    row = conn.execute(
        "SELECT s.name FROM post_series s JOIN posts p ON p.id = s.post_id WHERE s.key = :key "
        "ORDER BY p.lang = :lang DESC, p.date_ts, p.source LIMIT 1",
        {"key": key, "lang": lang},
    ).fetchone()
    return row[0] if row else None


def keys(conn: sqlite3.Connection) -> list[str]:
    """Every series key a post names."""
    return [r[0] for r in conn.execute("SELECT DISTINCT key FROM post_series ORDER BY key")]


def feed_ids(conn: sqlite3.Connection, key: str, lang: str, now: float, limit: int) -> list[int]:
    """The ids of the newest `limit` published parts of series `key` in `lang` (a feed)."""
    ids = [p.id for p in parts(conn, key, lang, now)]
    if not ids:
        return []
    params: dict[str, Any] = {f"i{n}": i for n, i in enumerate(ids)}
    rows = conn.execute(
        f"SELECT id FROM posts WHERE id IN ({', '.join(':' + n for n in params)}) "
        "ORDER BY date_ts DESC, source LIMIT :limit",
        {**params, "limit": limit},
    )
    return [r[0] for r in rows]
