"""Comments: the `comments` table (migration 4): its rows, the one write transaction, status
changes, edits, and what readers see.

Comments are readers' words, never derived from files: no index run, rebuild or migration writes
these tables. Every change goes through `commit()`, one write transaction; a change readers of a
thread can see (a comment approved, or one that was approved changing) also bumps that thread's
version (store/comment_threads.py), then, after the COMMIT, the database's change signal
(store/signal.py), so every worker re-renders only the pages that show that thread.

Statuses: `pending`, `approved`, `spam`, `trash`, and `deleted`, a placeholder row a permanent
delete leaves while replies hang under it (its author and text emptied). Every status change goes
through `set_status()` and writes one `audit_log` row per comment (store/audit_log.py). Times are
seconds since the epoch (UTC). The moderation screen's listings and bulk actions are
store/comment_moderation.py; permanent deletes and erasure store/comment_removal.py; what the
comment rules read about a submission store/comment_facts.py.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime
from typing import Any, TypeVar

from masthead.store import audit_log
from masthead.store.comment_threads import touch, tracking
from masthead.store.db import Database

T = TypeVar("T")
STATUSES = ("pending", "approved", "spam", "trash")
TRASHED = ("spam", "trash")  # the statuses that are emptied, counted from `trashed`
PLACEHOLDER = "deleted"


@dataclass(frozen=True)
class Comment:
    """One row of `comments`; each field is the column of that name (migration 4)."""

    id: int
    thread: str
    post_url: str
    parent_id: int | None
    lang: str
    status: str
    kind: str
    author_name: str
    author_email: str
    author_url: str
    author_user: str | None
    body: str
    body_html: str
    created: float
    updated: float | None
    ip_hash: str
    client_hash: str
    fingerprint: str
    reason: str
    notify: bool
    email_confirmed: bool
    source: str
    source_id: str
    token_key: str  # never shown: what its edit token and mail links are bound to (migration 9)
    trashed: float | None = None  # when it went to spam or trash, else None (migration 10)

    @property
    def removed(self) -> bool:
        """Drawn as a "comment removed" placeholder: not approved (see `public_thread`)."""
        return self.status != "approved"

    @property
    def date(self) -> str:
        """`created` as ISO 8601 with its offset, in UTC (`2024-05-01T23:30:00+00:00`)."""
        return iso(self.created)

    @property
    def staff(self) -> bool:
        """Written by a signed-in /guanli user (the dashboard's reply, or the public form with
        a session): shown with a staff badge on the page, in the API and in feeds."""
        return bool(self.author_user)

    def public(self) -> dict[str, Any]:
        """What anyone may read (the JSON API): never the email, the IP hash or the reason.
        A placeholder has only `id`, `parent`, `removed` and `date`; `staff` is True for a
        comment by a signed-in /guanli user."""
        shape: dict[str, Any] = {
            "id": self.id,
            "parent": self.parent_id,
            "removed": self.removed,
            "date": self.date,
        }
        if not self.removed:
            shape.update(
                name=self.author_name,
                url=self.author_url or None,
                lang=self.lang,
                kind=self.kind,
                staff=self.staff,
                html=self.body_html,
            )
        return shape


def new_token_key() -> str:
    """A fresh `token_key` for a comment: 128 random bits as 32 hex digits (as migration 9
    gives the rows it found). Unique to the row, unlike its id, which SQLite reuses."""
    return secrets.token_hex(16)


@dataclass
class NewComment:
    """A comment to insert: the columns of `Comment` but `id` and `updated`."""

    thread: str
    post_url: str
    parent_id: int | None
    lang: str
    status: str
    author_name: str
    author_email: str
    author_url: str
    body: str
    body_html: str
    created: float
    ip_hash: str = ""
    client_hash: str = ""
    fingerprint: str = ""
    reason: str = ""
    kind: str = "comment"
    author_user: str | None = None
    notify: bool = False
    email_confirmed: bool = False
    source: str = ""
    source_id: str = ""
    token_key: str = field(default_factory=new_token_key)
    trashed: float | None = None  # spam or trash since (None: now, the time it is stored)


@dataclass(frozen=True)
class Changed:
    """What an action did: ids `changed`, and ids `skipped` (gone, or not in an expected
    status: changed by someone else since the caller looked); `moves` maps each changed id to
    its `(from, to)` statuses (what an undo reverses; empty for a permanent delete)."""

    changed: list[int]
    skipped: list[int]
    moves: dict[int, tuple[str, str]] = field(default_factory=dict, compare=False)


def iso(ts: float) -> str:
    """Seconds since the epoch as ISO 8601 in UTC with its offset (RFC 3339)."""
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")


def as_comment(row: sqlite3.Row) -> Comment:
    """The `Comment` of a `SELECT * FROM comments` row."""
    values = dict(row)
    values["notify"] = bool(values["notify"])
    values["email_confirmed"] = bool(values["email_confirmed"])
    return Comment(**values)


# --- transactions -------------------------------------------------------------------------


def commit(db: Database, apply: Callable[[sqlite3.Connection], T]) -> T:
    """Run `apply(conn)` in one write transaction (`BEGIN IMMEDIATE`) and return its result;
    after the COMMIT, bump the change signal when `apply` changed what readers of a thread see
    (`comment_threads.touch`). Every function that changes comments is either such an `apply`
    (taking `conn`: call it inside `commit`) or a wrapper that calls `commit` itself (taking
    `db`)."""
    with tracking() as touched, db.write() as conn:
        result = apply(conn)
    if touched:
        db.signal.bump()
    return result


# --- writes -------------------------------------------------------------------------------

_COLUMNS = [f.name for f in fields(NewComment)]


def insert(conn: sqlite3.Connection, new: NewComment, actor: str) -> int:
    """Store `new` (inside `commit`) and return its id; logs 'create' with its status and
    reason, dated now (an import's comment keeps its own date in `created`), and touches the
    thread when it is approved. Raises `ValueError` for an unknown
    status or a parent in another thread."""
    if new.status not in STATUSES:
        raise ValueError(f"unknown comment status {new.status!r}")
    if new.parent_id is not None:
        parent = conn.execute(
            "SELECT thread FROM comments WHERE id = :id", {"id": new.parent_id}
        ).fetchone()
        if parent is None or parent["thread"] != new.thread:
            raise ValueError(f"parent {new.parent_id} is not a comment of this thread")
    values = {c: getattr(new, c) for c in _COLUMNS}  # asdict() deep-copies: slow in bulk
    values["notify"] = int(new.notify)
    values["email_confirmed"] = int(new.email_confirmed)
    # an imported spam or trash comment starts its countdown when it is stored, not at its date
    values["trashed"] = (
        (time.time() if new.trashed is None else new.trashed) if new.status in TRASHED else None
    )
    cur = conn.execute(
        f"INSERT INTO comments ({', '.join(_COLUMNS)}) "  # nosec B608: fixed column names
        f"VALUES ({', '.join(':' + c for c in _COLUMNS)})",
        values,
    )
    comment_id = int(cur.lastrowid or 0)
    audit_log.log_event(
        conn,
        actor,
        "create",
        comment_id=comment_id,
        to_status=new.status,
        detail={"reason": new.reason} if new.reason else None,
    )  # when it was stored here: an imported comment's own date is `created`, not the log's
    if new.status == "approved":
        touch(conn, new.thread)
    return comment_id


def add(db: Database, new: NewComment, actor: str) -> int:
    """`insert` in a transaction of its own; returns the new id."""
    return commit(db, lambda conn: insert(conn, new, actor))


def set_status(
    db: Database,
    ids: Iterable[int],
    to: str,
    actor: str,
    *,
    expect: Collection[str] | None = None,
    reason: str = "",
    at: float | None = None,
) -> Changed:
    """Move each comment of `ids` to status `to`: the one status change (a reader deleting
    their own, the dashboard, mailed links, rules, an undo, housekeeping). A comment changes
    only while its status is in `expect` (None: any status but `to`); others, placeholders and
    missing ids are `skipped`. One audit row per change; `reason` replaces the stored reason
    when given. Moving into spam or trash sets `trashed` to `at` (seconds, default now), the
    start of its emptying countdown; any other status clears it. Raises `ValueError` for an
    unknown status."""
    if to not in STATUSES:
        raise ValueError(f"unknown comment status {to!r}")
    wanted = list(dict.fromkeys(int(i) for i in ids))

    when = time.time() if at is None else at
    trashed = when if to in TRASHED else None

    def apply(conn: sqlite3.Connection) -> Changed:
        changed, skipped = [], []
        moves: dict[int, tuple[str, str]] = {}
        for comment_id in wanted:
            row = conn.execute(
                "SELECT thread, status FROM comments WHERE id = :id", {"id": comment_id}
            ).fetchone()
            status = row["status"] if row else None
            if (
                row is None
                or status in (PLACEHOLDER, to)
                or (expect is not None and status not in expect)
            ):
                skipped.append(comment_id)
                continue
            conn.execute(
                "UPDATE comments SET status = :to, trashed = :trashed, reason = CASE "
                "WHEN :reason = '' THEN reason ELSE :reason END WHERE id = :id",
                {"to": to, "trashed": trashed, "reason": reason, "id": comment_id},
            )
            audit_log.log_event(
                conn,
                actor,
                to,
                comment_id=comment_id,
                from_status=status,
                to_status=to,
                detail={"reason": reason} if reason else None,
                at=when,
            )
            if "approved" in (status, to):
                touch(conn, row["thread"])
            changed.append(comment_id)
            moves[comment_id] = (str(status), to)
        return Changed(changed, skipped, moves)

    return commit(db, apply)


def edit(
    db: Database,
    comment_id: int,
    actor: str,
    *,
    body: str | None = None,
    body_html: str | None = None,
    author_name: str | None = None,
    author_email: str | None = None,
    author_url: str | None = None,
    fingerprint: str | None = None,
    at: float | None = None,
) -> Comment:
    """Change a comment's text (`body` with its rendered `body_html`) or author fields, and
    its duplicate key (`fingerprint`, which follows the text: the edited text sent again is
    a duplicate of it); the audit row keeps the previous values. Raises `LookupError` for a
    missing comment or a placeholder."""
    new = {
        "body": body,
        "body_html": body_html,
        "author_name": author_name,
        "author_email": author_email,
        "author_url": author_url,
        "fingerprint": fingerprint,
    }
    changes: dict[str, Any] = {k: v for k, v in new.items() if v is not None}

    def apply(conn: sqlite3.Connection) -> Comment:
        old = get(conn, comment_id)
        if old is None or old.status == PLACEHOLDER:
            raise LookupError(f"no comment {comment_id}")
        if not changes:
            return old
        when = time.time() if at is None else at
        sets = ", ".join(f"{k} = :{k}" for k in changes)
        conn.execute(
            f"UPDATE comments SET {sets}, updated = :at WHERE id = :id",  # nosec B608: fixed keys
            {**changes, "at": when, "id": comment_id},
        )
        previous = {k: getattr(old, k) for k in changes if k not in ("body_html", "fingerprint")}
        audit_log.log_event(
            conn, actor, "edit", comment_id=comment_id, detail={"previous": previous}
        )
        if old.status == "approved":
            touch(conn, old.thread)
        return replace(old, **changes, updated=when)

    return commit(db, apply)


# --- reads --------------------------------------------------------------------------------


def get(conn: sqlite3.Connection, comment_id: int) -> Comment | None:
    row = conn.execute("SELECT * FROM comments WHERE id = :id", {"id": comment_id}).fetchone()
    return as_comment(row) if row else None


def public_thread(conn: sqlite3.Connection, thread: str) -> list[Comment]:
    """What readers of `thread` see, oldest first: its approved comments and every ancestor of
    one (a non-approved ancestor comes with its author, text and email emptied: a "comment
    removed" placeholder keeps the replies in place, C39)."""
    rows = conn.execute(
        "WITH RECURSIVE shown (id) AS ("
        " SELECT id FROM comments WHERE thread = :t AND status = 'approved'"
        " UNION SELECT c.parent_id FROM comments c JOIN shown s ON c.id = s.id"
        " WHERE c.parent_id IS NOT NULL)"
        " SELECT * FROM comments WHERE id IN (SELECT id FROM shown) ORDER BY created, id",
        {"t": thread},
    ).fetchall()
    return [_masked(as_comment(r)) for r in rows]


def _masked(c: Comment) -> Comment:
    if c.status == "approved":
        return c
    return replace(
        c,
        author_name="",
        author_email="",
        author_url="",
        author_user=None,
        body="",
        body_html="",
        ip_hash="",
        client_hash="",
    )


def pending_for_client(conn: sqlite3.Connection, thread: str, client_hash: str) -> list[Comment]:
    """The comments of `thread` written from the browser whose commenter cookie hashes to
    `client_hash` that no editor has acted on yet, whatever the rules made of them: the pending
    ones, and the spam the rules caught (no status change in the audit log since it was
    stored). Shown to that browser only, as pending: nothing a reader writes vanishes from their
    own view until an editor decides (issue 29)."""
    if not client_hash:
        return []
    rows = conn.execute(
        "SELECT * FROM comments AS c WHERE thread = :t AND client_hash = :c AND ("
        "status = 'pending' OR (status = 'spam' AND NOT EXISTS (SELECT 1 FROM audit_log AS a "
        "WHERE a.comment_id = c.id AND a.from_status IS NOT NULL))) ORDER BY created, id",
        {"t": thread, "c": client_hash},
    )
    return [as_comment(r) for r in rows]


def approved_counts(
    conn: sqlite3.Connection, threads: Iterable[str] | None = None
) -> dict[str, int]:
    """Approved comments per thread (threads without any are absent)."""
    if threads is None:
        rows = conn.execute(
            "SELECT thread, count(*) FROM comments WHERE status = 'approved' GROUP BY thread"
        )
    else:
        keys = json.dumps(list(threads))
        rows = conn.execute(
            "SELECT thread, count(*) FROM comments WHERE status = 'approved' "
            "AND thread IN (SELECT value FROM json_each(:keys)) GROUP BY thread",
            {"keys": keys},
        )
    return {r[0]: r[1] for r in rows}


def latest_approved(
    conn: sqlite3.Connection, thread: str | None = None, limit: int = 20
) -> list[Comment]:
    """The newest approved comments, site-wide or of one `thread` (comment feeds)."""
    rows = conn.execute(
        "SELECT * FROM comments WHERE status = 'approved' AND (:t IS NULL OR thread = :t) "
        "ORDER BY created DESC, id DESC LIMIT :limit",
        {"t": thread, "limit": limit},
    )
    return [as_comment(r) for r in rows]


def by_source(conn: sqlite3.Connection, source: str, source_id: str) -> Comment | None:
    """The comment imported from `source` ('wxr', 'disqus', 'json') with id `source_id`."""
    row = conn.execute(  # `source != ''` lets SQLite use the partial index comments_source
        "SELECT * FROM comments WHERE source = :s AND source_id = :i AND source != ''",
        {"s": source, "i": source_id},
    ).fetchone()
    return as_comment(row) if row else None


def all_comments(conn: sqlite3.Connection) -> Iterator[Comment]:
    """Every comment, placeholders included, by id (parents before their replies)."""
    for row in conn.execute("SELECT * FROM comments ORDER BY id"):
        yield as_comment(row)


def by_email(conn: sqlite3.Connection, email: str) -> list[Comment]:
    """Every comment written with `email` (trimmed, case-folded), by id."""
    rows = conn.execute(
        "SELECT * FROM comments WHERE lower(trim(author_email)) = :e AND :e != '' ORDER BY id",
        {"e": email.strip().casefold()},
    )
    return [as_comment(r) for r in rows]
