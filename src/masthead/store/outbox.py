"""The mail outbox (`mail_outbox`, migration 4) and the one-click tokens already used.

Every notification is a row holding the whole RFC 5322 message as it is sent. A row is `queued`
until it is `sent`, or `failed` after its last attempt; `next_attempt` (seconds since the epoch)
says when a queued row is due. A sender first *claims* a due row (`claim`: its `next_attempt`
moved past a lease in one conditional UPDATE), so two senders (the server's and
`masthead mail send`) never send one row twice; a sender that dies mid-send leaves the row to be
retried when the lease ends.

An event is in the outbox once a row of its `kind` names its comment (`comment_id`): `held`
(a comment waiting for moderation, one row per editor) and `reply` (an approved reply, to the
parent comment's author). `held_events` and `reply_events` find the ones not yet there.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass

HELD = "held"
REPLY = "reply"


@dataclass(frozen=True)
class Mail:
    """One outbox row; `message` is the whole message in bytes (CRLF line ends)."""

    id: int
    created: float
    kind: str
    recipient: str
    message: bytes
    status: str
    attempts: int
    next_attempt: float
    last_error: str
    sent_at: float | None
    comment_id: int | None

    @classmethod
    def of(cls, row: sqlite3.Row) -> Mail:
        return cls(**dict(row))


def enqueue(
    conn: sqlite3.Connection,
    kind: str,
    recipient: str,
    message: bytes,
    *,
    comment_id: int | None,
    now: float,
) -> int:
    """Queue `message` for `recipient`, due at once; returns the row id. Inside a write."""
    cur = conn.execute(
        "INSERT INTO mail_outbox (created, kind, recipient, message, status, next_attempt, "
        "comment_id) VALUES (?, ?, ?, ?, 'queued', ?, ?)",
        (now, kind, recipient, message, now, comment_id),
    )
    return int(cur.lastrowid or 0)


def skipped(conn: sqlite3.Connection, kind: str, comment_id: int, reason: str, now: float) -> None:
    """Record an event that no mail can be sent for (no valid address): a `failed` row with no
    message, so `mail status` shows it and the event is not looked at again. Inside a write."""
    conn.execute(
        "INSERT INTO mail_outbox (created, kind, recipient, message, status, next_attempt, "
        "last_error, comment_id) VALUES (?, ?, '', x'', 'failed', ?, ?, ?)",
        (now, kind, now, reason, comment_id),
    )


def held_events(conn: sqlite3.Connection, since: float) -> list[int]:
    """Ids of comments written here (not imported) since `since` that wait for moderation
    (`pending`) and have no `held` mail yet, oldest first."""
    rows = conn.execute(
        "SELECT c.id FROM comments c WHERE c.status = 'pending' AND c.created >= ? "
        "AND c.source = '' AND NOT EXISTS (SELECT 1 FROM mail_outbox m "
        "WHERE m.kind = 'held' AND m.comment_id = c.id) ORDER BY c.id",
        (since,),
    ).fetchall()
    return [int(r[0]) for r in rows]


def reply_events(conn: sqlite3.Connection, since: float) -> list[tuple[int, int]]:
    """`(reply id, parent id)` of approved replies written here since `since` whose parent is
    approved, asked to be told (`notify`), has an address other than the reply's own (nobody
    is told of their own reply), and no `reply` mail yet; oldest first."""
    rows = conn.execute(
        "SELECT r.id, p.id FROM comments r JOIN comments p ON p.id = r.parent_id "
        "WHERE r.status = 'approved' AND r.created >= ? AND r.source = '' "
        "AND p.status = 'approved' AND p.notify = 1 AND trim(p.author_email) != '' "
        "AND lower(trim(p.author_email)) != lower(trim(r.author_email)) "
        "AND NOT EXISTS (SELECT 1 FROM mail_outbox m WHERE m.kind = 'reply' "
        "AND m.comment_id = r.id) ORDER BY r.id",
        (since,),
    ).fetchall()
    return [(int(r[0]), int(r[1])) for r in rows]


def claim(conn: sqlite3.Connection, now: float, lease: float, limit: int) -> list[Mail]:
    """Take up to `limit` queued rows due at `now`, oldest first: each one's attempt is counted
    and its `next_attempt` moved to `now + lease`, so no other sender takes it meanwhile.
    Inside a write (one transaction: the SELECT and the UPDATEs see the same rows)."""
    rows = conn.execute(
        "SELECT * FROM mail_outbox WHERE status = 'queued' AND next_attempt <= ? "
        "ORDER BY next_attempt, id LIMIT ?",
        (now, limit),
    ).fetchall()
    taken = []
    for row in rows:
        cur = conn.execute(
            "UPDATE mail_outbox SET attempts = attempts + 1, next_attempt = ? "
            "WHERE id = ? AND status = 'queued' AND next_attempt <= ?",
            (now + lease, row["id"], now),
        )
        if cur.rowcount == 1:
            taken.append(Mail.of(row))
    return taken


def mark_sent(conn: sqlite3.Connection, mail_id: int, now: float) -> None:
    conn.execute(
        "UPDATE mail_outbox SET status = 'sent', sent_at = ?, last_error = '' WHERE id = ?",
        (now, mail_id),
    )


def mark_retry(conn: sqlite3.Connection, mail_id: int, error: str, next_attempt: float) -> None:
    conn.execute(
        "UPDATE mail_outbox SET last_error = ?, next_attempt = ? WHERE id = ?",
        (error, next_attempt, mail_id),
    )


def mark_failed(conn: sqlite3.Connection, mail_id: int, error: str) -> None:
    conn.execute(
        "UPDATE mail_outbox SET status = 'failed', last_error = ? WHERE id = ?",
        (error, mail_id),
    )


def requeue_failed(conn: sqlite3.Connection, now: float) -> int:
    """Queue every failed mail again, due at `now` with its attempts reset, and forget the
    events no mail could be built for (`skipped`: a bad address or `mail_from`), so the next
    `collect` builds theirs afresh from today's settings; returns how many. Inside a write."""
    cur = conn.execute(
        "UPDATE mail_outbox SET status = 'queued', attempts = 0, next_attempt = ? "
        "WHERE status = 'failed' AND recipient != ''",
        (now,),
    )
    gone = conn.execute(
        "DELETE FROM mail_outbox WHERE status = 'failed' AND recipient = '' AND message = x''"
    )
    return cur.rowcount + gone.rowcount


def prune_sent(conn: sqlite3.Connection, before: float) -> int:
    """Forget sent rows sent before `before`; returns how many."""
    cur = conn.execute("DELETE FROM mail_outbox WHERE status = 'sent' AND sent_at < ?", (before,))
    return cur.rowcount


def counts(conn: sqlite3.Connection) -> dict[str, int]:
    """Rows per status: `{"queued": n, "sent": n, "failed": n}` (every key present)."""
    found = dict.fromkeys(("queued", "sent", "failed"), 0)
    for status, n in conn.execute("SELECT status, count(*) FROM mail_outbox GROUP BY status"):
        found[status] = int(n)
    return found


def troubles(conn: sqlite3.Connection, limit: int = 50) -> list[Mail]:
    """Failed rows and queued rows that already failed once (waiting for a retry), newest
    first: what `masthead mail status` shows."""
    rows = conn.execute(
        "SELECT * FROM mail_outbox WHERE status = 'failed' OR (status = 'queued' "
        "AND last_error != '') ORDER BY id DESC LIMIT ?",
        (limit,),
    ).fetchall()
    return [Mail.of(r) for r in rows]


def next_due(conn: sqlite3.Connection) -> float | None:
    """When the earliest queued row is due (seconds since the epoch), None when none is."""
    row = conn.execute("SELECT min(next_attempt) FROM mail_outbox WHERE status = 'queued'")
    value = row.fetchone()[0]
    return None if value is None else float(value)


def all_mail(conn: sqlite3.Connection) -> list[Mail]:
    """Every row, oldest first."""
    return [Mail.of(r) for r in conn.execute("SELECT * FROM mail_outbox ORDER BY id")]


def erase_person(conn: sqlite3.Connection, email: str, comment_ids: list[int]) -> int:
    """Forget the mails of an erasure request: those sent or queued to `email` (trimmed,
    case-insensitive) and those about the comments `comment_ids` (they quote the person's
    name and text). Returns how many rows went. Inside a write, with the comments' erasure."""
    cur = conn.execute(
        "DELETE FROM mail_outbox WHERE (lower(trim(recipient)) = lower(trim(:e)) AND :e != '') "
        "OR comment_id IN (SELECT value FROM json_each(:ids))",
        {"e": email.strip(), "ids": json.dumps(comment_ids)},
    )
    return cur.rowcount


def token_digest(token: str) -> str:
    """The key `used_tokens` keeps for `token` (sha256, hex): the token itself is never stored."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def use_token(conn: sqlite3.Connection, token: str, now: float) -> bool:
    """Record `token` as used; False when it had been used already. Inside a write."""
    cur = conn.execute(
        "INSERT OR IGNORE INTO used_tokens (digest, used) VALUES (?, ?)",
        (token_digest(token), now),
    )
    return cur.rowcount == 1


def token_used(conn: sqlite3.Connection, token: str) -> bool:
    row = conn.execute("SELECT 1 FROM used_tokens WHERE digest = ?", (token_digest(token),))
    return row.fetchone() is not None


def comment_version(conn: sqlite3.Connection, comment_id: int) -> int:
    """The id of the comment's latest audit-log row (0 when none): it moves with every status
    change or edit, so a one-click token that carries it dies with the next change."""
    row = conn.execute(
        "SELECT coalesce(max(id), 0) FROM audit_log WHERE comment_id = ?", (comment_id,)
    )
    return int(row.fetchone()[0])


def unsubscribe(conn: sqlite3.Connection, comment_id: int) -> list[int]:
    """Stop reply mails to the author of comment `comment_id`: `notify` cleared on every comment
    with the same address (trimmed, case-insensitive). Returns the ids changed (none when
    there were none, or the comment is gone). Inside a write."""
    row = conn.execute("SELECT author_email FROM comments WHERE id = ?", (comment_id,))
    found = row.fetchone()
    if found is None or not found[0].strip():
        return []
    ids = [
        int(r[0])
        for r in conn.execute(
            "SELECT id FROM comments WHERE notify = 1 "
            "AND lower(trim(author_email)) = lower(trim(?))",
            (found[0],),
        )
    ]
    conn.executemany("UPDATE comments SET notify = 0 WHERE id = ?", [(i,) for i in ids])
    return ids
