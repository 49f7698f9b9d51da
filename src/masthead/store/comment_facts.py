"""What the comment rules (`comments.rules`) are told about a submission, from the `comments`
table: a stored duplicate, the client's recent comments, whether its author is known."""

from __future__ import annotations

import sqlite3

from masthead.store.comments import Comment, as_comment


def find_duplicate(conn: sqlite3.Connection, fingerprint: str) -> Comment | None:
    """The first stored comment with this duplicate key (any status but a placeholder)."""
    row = conn.execute(
        "SELECT * FROM comments WHERE fingerprint = :f AND status != 'deleted' ORDER BY id LIMIT 1",
        {"f": fingerprint},
    ).fetchone()
    return as_comment(row) if row else None


def recent_from_client(
    conn: sqlite3.Connection, ip_hash: str, since: float, thread: str | None = None
) -> list[float]:
    """Creation times (newest first) of the comments the client `ip_hash` stored since `since`
    (in one `thread`, or anywhere)."""
    rows = conn.execute(
        "SELECT created FROM comments WHERE ip_hash = :ip AND created >= :since "
        "AND (:t IS NULL OR thread = :t) ORDER BY created DESC",
        {"ip": ip_hash, "since": since, "t": thread},
    )
    return [r[0] for r in rows]


def known_commenter(conn: sqlite3.Connection, email: str, client_hash: str) -> bool:
    """True when an approved comment was written with `email` (trimmed, case-folded) from the
    browser whose commenter cookie hashes to `client_hash`: the address alone proves nothing
    (C48)."""
    if not client_hash or not email.strip():
        return False
    row = conn.execute(
        "SELECT 1 FROM comments WHERE status = 'approved' AND client_hash = :c "
        "AND lower(trim(author_email)) = :e LIMIT 1",
        {"c": client_hash, "e": email.strip().casefold()},
    ).fetchone()
    return row is not None
