"""SQL the comment import needs besides `store.comments`: which post a thread of another
system's export belongs to, and whether a comment of a masthead JSON export is already here.

A post is looked up among every post and page that holds its URL (`shadowed = 0`), drafts and
scheduled posts too: an import may come before a post is published. Each function returns the
post's row (`id, url, lang, kind, slug, translation_key, date_ts`) or None.
"""

from __future__ import annotations

import sqlite3

from masthead.store import audit_log
from masthead.store.rows import ImportTarget, maybe_row

_COLUMNS = "p.id, p.url, p.lang, p.kind, p.slug, p.translation_key, p.date_ts"
# posts before pages, the default language first, published before drafts, then the oldest
_ORDER = "p.kind = 'post' DESC, p.lang = :lang DESC, p.draft, p.date_ts, p.id"


def post_at(conn: sqlite3.Connection, url: str) -> ImportTarget | None:
    """The post whose permalink is `url` (a percent-encoded path, as `posts.url`)."""
    row = conn.execute(
        f"SELECT {_COLUMNS} FROM posts p WHERE p.url = :url AND p.shadowed = 0",
        {"url": url},
    ).fetchone()
    return maybe_row(ImportTarget, row)


def post_that_had(conn: sqlite3.Connection, url: str) -> ImportTarget | None:
    """The post that lists `url` in its `aliases`, else the one that had it (`url_history`:
    by its file, else by its translation key, language and kind, as a renamed file)."""
    row = conn.execute(
        f"SELECT {_COLUMNS} FROM aliases a JOIN posts p ON p.id = a.post_id "
        "WHERE a.path = :url AND p.shadowed = 0 ORDER BY p.date_ts, p.id LIMIT 1",
        {"url": url},
    ).fetchone()
    if row is None:
        row = conn.execute(
            f"SELECT {_COLUMNS} FROM url_history h JOIN posts p ON p.source = h.source "
            "OR (p.translation_key = h.translation_key AND p.lang = h.lang AND p.kind = h.kind) "
            "WHERE h.url = :url AND p.shadowed = 0 "
            "ORDER BY p.source = h.source DESC, p.date_ts, p.id LIMIT 1",
            {"url": url},
        ).fetchone()
    return maybe_row(ImportTarget, row)


def post_with_slug(conn: sqlite3.Connection, slug: str, lang: str) -> ImportTarget | None:
    """The post with `slug` (as `posts.slug`: lowercased), preferring a post over a page and the
    language `lang` (the site default: the translations share one thread anyway)."""
    row = conn.execute(
        f"SELECT {_COLUMNS} FROM posts p WHERE p.slug = :slug AND p.shadowed = 0 "
        f"ORDER BY {_ORDER} LIMIT 1",
        {"slug": slug.lower(), "lang": lang},
    ).fetchone()
    return maybe_row(ImportTarget, row)


def native_comment(
    conn: sqlite3.Connection, thread: str, created: float, fingerprint: str
) -> int | None:
    """The id of a comment written here (`source = ''`) on `thread` at `created` (UTC seconds)
    with `fingerprint`: how a re-import of masthead's own JSON export recognises it."""
    row = conn.execute(
        "SELECT id FROM comments WHERE source = '' AND thread = :t AND created = :c "
        "AND fingerprint = :f ORDER BY id LIMIT 1",
        {"t": thread, "c": created, "f": fingerprint},
    ).fetchone()
    return None if row is None else int(row[0])


def purged_import(conn: sqlite3.Connection, source: str, source_id: str) -> bool:
    """Whether the comment imported from `source` with id `source_id` was here once and was
    deleted for good (`comments_purged_imports`, filled by migration 11's trigger)."""
    row = conn.execute(
        "SELECT 1 FROM comments_purged_imports WHERE source = :s AND source_id = :i",
        {"s": source, "i": source_id},
    ).fetchone()
    return row is not None


def post_in_thread(conn: sqlite3.Connection, thread: str, lang: str) -> ImportTarget | None:
    """A post of the translation group `thread` (`posts.translation_key`), `lang` first."""
    row = conn.execute(
        f"SELECT {_COLUMNS} FROM posts p WHERE p.translation_key = :t AND p.shadowed = 0 "
        f"ORDER BY {_ORDER} LIMIT 1",
        {"t": thread, "lang": lang},
    ).fetchone()
    return maybe_row(ImportTarget, row)


def set_updated(conn: sqlite3.Connection, comment_id: int, updated: float) -> None:
    """Keep an imported comment's last edit time (JSON import; inside `store.comments.commit`)."""
    conn.execute(
        "UPDATE comments SET updated = :u WHERE id = :id", {"u": updated, "id": comment_id}
    )


def make_placeholder(conn: sqlite3.Connection, comment_id: int, actor: str) -> None:
    """Turn an imported comment into the `deleted` placeholder it was in the export (its text
    and author already empty), once its replies are in; audited like a permanent delete."""
    row = conn.execute("SELECT status FROM comments WHERE id = :id", {"id": comment_id}).fetchone()
    conn.execute(
        "UPDATE comments SET status = 'deleted', author_name = '', author_email = '', "
        "author_url = '', author_user = NULL, body = '', body_html = '', ip_hash = '', "
        "client_hash = '', notify = 0 WHERE id = :id",
        {"id": comment_id},
    )
    audit_log.log_event(
        conn, actor, "delete", comment_id=comment_id, from_status=row["status"], to_status=None
    )
