"""SQL for the static export (`masthead.export.build`): what a reader can reach, read-only.

`now` is seconds since the epoch; *published* is as in `store.seo` (not a draft, not shadowed,
dated at or before `now`).
"""

from __future__ import annotations

import sqlite3

from masthead.store.rows import PublishedPage, rows_of

_PUBLISHED = "shadowed = 0 AND draft = 0 AND date_ts <= :now"


def published_urls(conn: sqlite3.Connection, now: float) -> list[PublishedPage]:
    """Every published post and page (noindex ones and those canonical elsewhere too): `url`
    (percent-encoded, as `posts.url`), `lang`, `kind`, `comments`; oldest first."""
    rows = conn.execute(
        "SELECT url, lang, kind, comments FROM posts WHERE kind != 'author' "
        f"AND {_PUBLISHED} ORDER BY date_ts, source",
        {"now": now},
    ).fetchall()
    return rows_of(PublishedPage, rows)


def moved_paths(conn: sqlite3.Connection) -> list[str]:
    """Every URL path that may redirect (`store.posts.alias_target` decides where): the
    `aliases` of posts and the URLs posts had before (`url_history`), sorted."""
    rows = conn.execute("SELECT path FROM aliases UNION SELECT url FROM url_history ORDER BY 1")
    return [r[0] for r in rows]


def post_states(
    conn: sqlite3.Connection,
) -> tuple[list[sqlite3.Row], list[sqlite3.Row], list[sqlite3.Row]]:
    """Everything the database holds of each post, page and author page, for a build to tell
    which of them changed since the last one: every column of `posts`, and the `post_terms`
    and `post_series` rows (each with `post_id`), in a stable order."""
    posts = conn.execute("SELECT * FROM posts ORDER BY source").fetchall()
    terms = conn.execute(
        "SELECT post_id, taxonomy, key, name, position FROM post_terms "
        "ORDER BY post_id, taxonomy, position, key"
    ).fetchall()
    series = conn.execute(
        "SELECT post_id, key, name, position FROM post_series ORDER BY post_id, position, key"
    ).fetchall()
    return posts, terms, series
