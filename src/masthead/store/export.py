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
