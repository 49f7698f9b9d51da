"""Comments removed for good: permanent deletes (leaving placeholders where replies hang),
emptying spam and trash, erasure requests, and forgetting old IP hashes.

Each is one write transaction through `store.comments.commit`, audited (store/audit_log.py) and
touching the threads it changes (store/comment_threads.py).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable

from masthead.store import audit_log, outbox, privacy_requests
from masthead.store.comment_threads import touch
from masthead.store.comments import PLACEHOLDER, TRASHED, Changed, Comment, by_email, commit, get
from masthead.store.db import Database


def delete_permanently(db: Database, ids: Iterable[int], actor: str) -> Changed:
    """Delete comments for good. One with replies becomes a `deleted` placeholder (author,
    text and IP emptied) so its replies keep their place (C39); a placeholder left with no
    replies goes too. One audit row per comment (without its text)."""
    wanted = list(dict.fromkeys(int(i) for i in ids))
    return commit(db, lambda conn: _delete_all(conn, wanted, actor))


def _delete_all(conn: sqlite3.Connection, ids: list[int], actor: str) -> Changed:
    changed, skipped = [], []
    for comment_id in ids:
        row = get(conn, comment_id)
        if row is None:
            skipped.append(comment_id)
            continue
        audit_log.log_event(
            conn, actor, "delete", comment_id=comment_id, from_status=row.status, to_status=None
        )
        _delete(conn, row)
        touch(conn, row.thread)
        changed.append(comment_id)
    return Changed(changed, skipped)


def _delete(conn: sqlite3.Connection, row: Comment) -> None:
    replies = conn.execute(
        "SELECT count(*) FROM comments WHERE parent_id = :id", {"id": row.id}
    ).fetchone()[0]
    if replies:
        conn.execute(
            "UPDATE comments SET status = 'deleted', author_name = '', author_email = '', "
            "author_url = '', author_user = NULL, body = '', body_html = '', ip_hash = '', "
            "client_hash = '', notify = 0 WHERE id = :id",
            {"id": row.id},
        )
        return
    conn.execute("DELETE FROM comments WHERE id = :id", {"id": row.id})
    if row.parent_id is not None:
        parent = get(conn, row.parent_id)
        if parent is not None and parent.status == PLACEHOLDER:
            _delete(conn, parent)


def erase_person(db: Database, email: str, actor: str, request_id: int | None = None) -> int:
    """Answer an erasure request: every comment written with `email` (trimmed, case-folded)
    is deleted for good, leaving anonymous placeholders where replies hang (the thread keeps
    its shape), and the mails to that address or quoting those comments go with them, in one
    transaction. Their audit rows stay (who did what when) without the personal data: an
    edit's previous values become only the names of the fields it changed (in the rows of any
    comment that had this address before an edit too). Returns how many comments were
    erased. Every erasure, from the command line, the dashboard or a reader's link, writes one
    `erase-person` audit row (how many comments, and the privacy request it answers, if any:
    `request_id`, which is closed in the same transaction), never the address."""

    def apply(conn: sqlite3.Connection) -> int:
        ids = [c.id for c in by_email(conn, email)]
        outbox.erase_person(conn, email, ids)
        # and comments that had the address before an edit: the audit row still holds it
        was = audit_log.edited_with(conn, email)
        audit_log.scrub_previous(conn, sorted({*ids, *was}))
        erased = len(_delete_all(conn, ids, actor).changed) if ids else 0
        now = time.time()
        audit_log.log_event(
            conn, actor, "erase-person", detail={"request": request_id, "comments": erased}, at=now
        )
        privacy_requests.answered(conn, request_id, actor, kind="erase", comments=erased, now=now)
        return erased

    return commit(db, apply)


def expire_ips(db: Database, before: float) -> int:
    """Forget the IP hash of every comment created before `before`; returns how many. Reads
    first: with nothing to forget it takes no write lock."""
    due = (
        db.read()
        .execute(
            "SELECT 1 FROM comments WHERE created < :before AND ip_hash != '' LIMIT 1",
            {"before": before},
        )
        .fetchone()
    )
    if due is None:
        return 0

    def apply(conn: sqlite3.Connection) -> int:
        cur = conn.execute(
            "UPDATE comments SET ip_hash = '' WHERE created < :before AND ip_hash != ''",
            {"before": before},
        )
        return cur.rowcount

    return commit(db, apply)


def empty(
    db: Database,
    status: str,
    actor: str,
    *,
    before: float | None = None,
    max_id: int | None = None,
) -> Changed:
    """Delete for good the comments in `status` ('spam' or 'trash') that went there before
    `before` (their `trashed` time, never their own date: an old comment marked spam today
    is kept its full term) and with ids up to `max_id` (what a page listed: newcomers stay,
    C53). Raises `ValueError` for another status."""
    if status not in TRASHED:
        raise ValueError("only spam and trash are emptied")
    rows = db.read().execute(
        "SELECT id FROM comments WHERE status = :s AND trashed < :before AND id <= :max_id",
        {
            "s": status,
            "before": time.time() + 1 if before is None else before,
            "max_id": 2**62 if max_id is None else max_id,
        },
    )
    ids = [r["id"] for r in rows]
    if not ids:
        return Changed([], [])
    return delete_permanently(db, ids, actor)
