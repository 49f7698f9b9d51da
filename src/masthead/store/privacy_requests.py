"""Readers' privacy requests (`privacy_requests`, migration 13): a copy (`export`, GDPR
article 15) or the erasure (`erase`, article 17) of the comments written with an address.

A request is `mailed` when the signed link went to the address, `done` once it was answered
(by the reader's link or an editor); a mailed one whose link is past its age is shown as
expired (`state_of`). An erasure done keeps only a masked address (`m***@example.com`): the
row says that a request was answered, not whose comments they were. Times are seconds since
the epoch.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from masthead.store import audit_log

KINDS = ("export", "erase")


@dataclass(frozen=True)
class Request:
    id: int
    kind: str
    email: str
    email_hash: str
    client_hash: str
    key: str
    requested: float
    state: str
    done: float | None
    actor: str
    comments: int

    @classmethod
    def of(cls, row: sqlite3.Row) -> Request:
        return cls(**dict(row))


def masked(email: str) -> str:
    """`mei@example.com` → `m***@example.com`: enough for an editor to tell two apart."""
    local, at, domain = email.strip().partition("@")
    return (local[:1] + "***" + at + domain) if at else "***"


def add(
    conn: sqlite3.Connection,
    kind: str,
    email: str,
    *,
    email_hash: str,
    client_hash: str,
    key: str,
    now: float,
) -> int:
    """Record a request whose link is being mailed; returns its id. Inside a write."""
    if kind not in KINDS:
        raise ValueError(f"unknown privacy request {kind!r}")
    cur = conn.execute(
        "INSERT INTO privacy_requests (kind, email, email_hash, client_hash, key, requested, "
        "state) VALUES (?, ?, ?, ?, ?, ?, 'mailed')",
        (kind, email.strip(), email_hash, client_hash, key, now),
    )
    return int(cur.lastrowid or 0)


def get(conn: sqlite3.Connection, request_id: int) -> Request | None:
    row = conn.execute("SELECT * FROM privacy_requests WHERE id = ?", (request_id,)).fetchone()
    return Request.of(row) if row is not None else None


def recent(
    conn: sqlite3.Connection, *, since: float, email_hash: str = "", client_hash: str = ""
) -> int:
    """How many requests since `since` were made for `email_hash`, or from `client_hash`."""
    if email_hash:
        sql, value = "email_hash = ?", email_hash
    else:
        sql, value = "client_hash = ? AND client_hash != ''", client_hash
    row = conn.execute(
        f"SELECT count(*) FROM privacy_requests WHERE {sql} AND requested >= ?",  # nosec B608
        (value, since),
    ).fetchone()
    return int(row[0])


def listing(conn: sqlite3.Connection, limit: int = 200) -> list[Request]:
    """The newest requests first."""
    rows = conn.execute(
        "SELECT * FROM privacy_requests ORDER BY requested DESC, id DESC LIMIT ?", (limit,)
    )
    return [Request.of(r) for r in rows]


def state_of(request: Request, now: float, max_age: float) -> str:
    """`done`, `expired` (mailed, its link past `max_age` seconds) or `mailed`."""
    if request.state == "mailed" and now - request.requested > max_age:
        return "expired"
    return request.state


def answered(
    conn: sqlite3.Connection,
    request_id: int | None,
    actor: str,
    *,
    kind: str,
    comments: int,
    now: float,
) -> None:
    """Close request `request_id` (when there is one) as answered by `actor`, and, for an
    erasure, keep only the masked address, in its row and in every other request for it.
    Inside a write."""
    if request_id is None:
        return
    conn.execute(
        "UPDATE privacy_requests SET state = 'done', done = ?, actor = ?, comments = ? "
        "WHERE id = ?",
        (now, actor, comments, request_id),
    )
    if kind == "erase":
        _mask(conn, request_id)


def _mask(conn: sqlite3.Connection, request_id: int) -> None:
    row = conn.execute(
        "SELECT email, email_hash FROM privacy_requests WHERE id = ?", (request_id,)
    ).fetchone()
    if row is not None:
        conn.execute(
            "UPDATE privacy_requests SET email = ? WHERE email_hash = ?",
            (masked(row["email"]), row["email_hash"]),
        )


def record_export(
    conn: sqlite3.Connection,
    actor: str,
    *,
    request_id: int | None,
    comments: int,
    now: float,
) -> None:
    """The audit row of a data export (`export-person`) and the request it answers. Inside a
    write. The address is not in the row: the request's id is."""
    audit_log.log_event(
        conn, actor, "export-person", detail={"request": request_id, "comments": comments}, at=now
    )
    answered(conn, request_id, actor, kind="export", comments=comments, now=now)
