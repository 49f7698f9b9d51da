"""The site's secrets in `site_state` (migration 1), each made once and kept: they travel with
backups. (The index generation and the comments version, kept in the same table, are
store/posts.py's and store/comment_threads.py's.)"""

from __future__ import annotations

import secrets
import sqlite3

from masthead.store.db import Database

SECRET_KEY = "secret"  # nosec B105  # pragma: allowlist secret (a site_state key)
SEARCH_LOG_SECRET_KEY = "search_log_secret"  # nosec B105  # pragma: allowlist secret (a key)


def site_secret(db: Database) -> bytes:
    """The site's secret key (32 random bytes, made once and kept in `site_state`): it keys
    IP hashes, signed cookies, edit tokens and mailed links. It travels with backups."""
    row = (
        db.read()
        .execute("SELECT value FROM site_state WHERE key = :k", {"k": SECRET_KEY})
        .fetchone()
    )
    if row is None:
        with db.write() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO site_state (key, value) VALUES (:k, :v)",
                {"k": SECRET_KEY, "v": secrets.token_hex(32)},
            )
            row = conn.execute(
                "SELECT value FROM site_state WHERE key = :k", {"k": SECRET_KEY}
            ).fetchone()
    return bytes.fromhex(row["value"])


def search_log_secret(conn: sqlite3.Connection) -> str:
    """The secret the search log salts its client hashes with (64 hex digits), made now if
    there is none yet: call it inside a write transaction on `conn`."""
    row = conn.execute(
        "SELECT value FROM site_state WHERE key = :k", {"k": SEARCH_LOG_SECRET_KEY}
    ).fetchone()
    if row is not None:
        return str(row[0])
    value = secrets.token_hex(32)
    conn.execute(
        "INSERT INTO site_state (key, value) VALUES (:k, :v)",
        {"k": SEARCH_LOG_SECRET_KEY, "v": value},
    )
    return value
