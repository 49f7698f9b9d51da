"""The audit log (`audit_log`, migration 4): who did what to which comment, and when.

Rows are only appended (`log_event`), never changed, except that an erasure request takes the
personal data out of an edit's previous values (`scrub_previous`). Times are seconds since the
epoch (UTC).
"""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any

from masthead.comments import text as comment_text
from masthead.store.fold import search_functions


def log_event(
    conn: sqlite3.Connection,
    actor: str,
    action: str,
    *,
    comment_id: int | None = None,
    from_status: str | None = None,
    to_status: str | None = None,
    detail: dict[str, Any] | None = None,
    at: float | None = None,
) -> int:
    """Append one `audit_log` row: who (`actor`: 'reader', 'author', 'editor:NAME', 'mail',
    'import', 'system'), what (`action`), on which comment, from and to which status, and a JSON
    `detail` (an edit's previous values, a bulk action's ids). Returns the row's id."""
    cur = conn.execute(
        "INSERT INTO audit_log (at, actor, action, comment_id, from_status, to_status, detail) "
        "VALUES (:at, :actor, :action, :id, :from_, :to, :detail)",
        {
            "at": time.time() if at is None else at,
            "actor": actor,
            "action": action,
            "id": comment_id,
            "from_": from_status,
            "to": to_status,
            "detail": json.dumps(detail or {}, ensure_ascii=False),
        },
    )
    return int(cur.lastrowid or 0)


def entry(conn: sqlite3.Connection, audit_id: int) -> sqlite3.Row | None:
    """The audit row `audit_id`, or None."""
    return conn.execute("SELECT * FROM audit_log WHERE id = :id", {"id": audit_id}).fetchone()


def history(conn: sqlite3.Connection, comment_id: int) -> list[sqlite3.Row]:
    """The audit rows of one comment, oldest first."""
    return conn.execute(
        "SELECT * FROM audit_log WHERE comment_id = :id ORDER BY at, id", {"id": comment_id}
    ).fetchall()


def previous_status(conn: sqlite3.Connection, comment_id: int) -> str:
    """The status a comment had before it last went to spam or trash (WordPress restores it),
    'pending' when the log does not say."""
    row = conn.execute(
        "SELECT from_status FROM audit_log WHERE comment_id = :id AND to_status IN "
        "('spam', 'trash') AND from_status NOT IN ('spam', 'trash') ORDER BY at DESC, id DESC "
        "LIMIT 1",
        {"id": comment_id},
    ).fetchone()
    return row[0] if row and row[0] in ("pending", "approved") else "pending"


def edited_with(conn: sqlite3.Connection, email: str) -> list[int]:
    """The comments an edit took the address `email` (trimmed, case-folded) away from: their
    audit rows still hold it among the previous values."""
    rows = conn.execute(
        "SELECT DISTINCT comment_id FROM audit_log WHERE action = 'edit' AND "
        "lower(trim(json_extract(detail, '$.previous.author_email'))) = :e",
        {"e": email.strip().lower()},
    )
    return [r[0] for r in rows]


def scrub_previous(conn: sqlite3.Connection, ids: list[int]) -> None:
    """Drop the personal data from the audit rows of the comments `ids` (inside a write): an
    edit's previous values become only the names of the fields it changed."""
    rows = conn.execute(
        "SELECT id, detail FROM audit_log WHERE comment_id IN (SELECT value FROM json_each(:ids)) "
        "AND detail LIKE '%\"previous\"%'",
        {"ids": json.dumps(ids)},
    ).fetchall()
    for row in rows:
        detail = json.loads(row["detail"])
        previous = detail.pop("previous", None)
        if isinstance(previous, dict):
            detail["edited"] = sorted(previous)
        conn.execute(
            "UPDATE audit_log SET detail = :d WHERE id = :id",
            {"d": json.dumps(detail, ensure_ascii=False), "id": row["id"]},
        )


def entries(
    conn: sqlite3.Connection,
    *,
    actor: str = "",
    action: str = "",
    comment_id: int | None = None,
    page: int = 1,
    per_page: int = 50,
) -> tuple[list[sqlite3.Row], int]:
    """The audit log, newest first, and how many rows match in all: filtered by `actor` and
    `action` as parts of them, caseless (`mei` finds `editor:mei`, `approve` finds `approved`
    and `bulk-approve`), and by `comment_id`."""
    search_functions(conn)
    where = "(:actor = '' OR instr(masthead_fold(actor), :actor))"
    where += " AND (:action = '' OR instr(masthead_fold(action), :action))"
    where += " AND (:cid IS NULL OR comment_id = :cid)"
    params = {
        "actor": comment_text.fold(actor.strip()),
        "action": comment_text.fold(action.strip()),
        "cid": comment_id,
    }
    total = conn.execute(
        f"SELECT count(*) FROM audit_log WHERE {where}",
        params,  # nosec B608: fixed text
    ).fetchone()[0]
    rows = conn.execute(
        f"SELECT * FROM audit_log WHERE {where} ORDER BY at DESC, id DESC "  # nosec B608
        "LIMIT :limit OFFSET :offset",
        {**params, "limit": per_page, "offset": (page - 1) * per_page},
    ).fetchall()
    return rows, int(total)


def choices(conn: sqlite3.Connection) -> tuple[list[str], list[str]]:
    """The actors and the actions the audit log holds, each sorted (the first 200): what its
    filters offer."""
    actors = [
        r[0] for r in conn.execute("SELECT DISTINCT actor FROM audit_log ORDER BY actor LIMIT 200")
    ]
    actions = [
        r[0]
        for r in conn.execute("SELECT DISTINCT action FROM audit_log ORDER BY action LIMIT 200")
    ]
    return actors, actions
