"""Comments: the only SQL that reads or changes them (tables of migration 4).

Comments are readers' words, never derived from files: no index run, rebuild or migration writes
these tables. Every change goes through `commit()`, one write transaction; a change readers of a
thread can see (a comment approved, or one that was approved changing) also bumps that thread's
version (`comment_threads`) and the site-wide `comments_version` in `site_state`, then, after
the COMMIT, the database's change signal (store/signal.py), so every worker re-reads the versions
on its next request and re-renders only the pages that show that thread.

Statuses: `pending`, `approved`, `spam`, `trash`, and `deleted`, a placeholder row a permanent
delete leaves while replies hang under it (its author and text emptied). Every status change goes
through `set_status()` and writes one `audit_log` row per comment. Times are seconds since the
epoch (UTC).
"""

from __future__ import annotations

import contextvars
import functools
import json
import secrets
import sqlite3
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime
from typing import Any, TypeVar

from masthead.comments import text as comment_text
from masthead.store import outbox
from masthead.store.db import Database

T = TypeVar("T")
STATUSES = ("pending", "approved", "spam", "trash")
TRASHED = ("spam", "trash")  # the statuses that are emptied, counted from `trashed`
PLACEHOLDER = "deleted"
SECRET_KEY = "secret"  # nosec B105  # pragma: allowlist secret (a site_state key)
VERSION_KEY = "comments_version"

_touched: contextvars.ContextVar[set[str] | None] = contextvars.ContextVar(
    "comment_threads_touched", default=None
)


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

    def public(self) -> dict[str, Any]:
        """What anyone may read (the JSON API): never the email, the IP hash or the reason.
        A placeholder has only `id`, `parent`, `removed` and `date`."""
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


def _comment(row: sqlite3.Row) -> Comment:
    values = dict(row)
    values["notify"] = bool(values["notify"])
    values["email_confirmed"] = bool(values["email_confirmed"])
    return Comment(**values)


# --- transactions -------------------------------------------------------------------------


def commit(db: Database, apply: Callable[[sqlite3.Connection], T]) -> T:
    """Run `apply(conn)` in one write transaction (`BEGIN IMMEDIATE`) and return its result;
    after the COMMIT, bump the change signal when `apply` changed what readers of a thread see
    (`touch`). Every function here that changes comments is either such an `apply` (taking
    `conn`: call it inside `commit`) or a wrapper that calls `commit` itself (taking `db`)."""
    token = _touched.set(set())
    try:
        with db.write() as conn:
            result = apply(conn)
        touched = _touched.get()
    finally:
        _touched.reset(token)
    if touched:
        db.signal.bump()
    return result


def touch(conn: sqlite3.Connection, thread: str) -> None:
    """Bump `thread`'s version and the site-wide comments version (inside `commit`)."""
    conn.execute(
        "INSERT INTO comment_threads (thread, version) VALUES (:t, 1) "
        "ON CONFLICT (thread) DO UPDATE SET version = version + 1",
        {"t": thread},
    )
    conn.execute(
        "INSERT INTO site_state (key, value) VALUES (:k, '1') ON CONFLICT (key) "
        "DO UPDATE SET value = CAST(value AS INTEGER) + 1",
        {"k": VERSION_KEY},
    )
    touched = _touched.get()
    if touched is not None:
        touched.add(thread)


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
) -> None:
    """Append one `audit_log` row: who (`actor`: 'reader', 'author', 'editor:NAME', 'mail',
    'import', 'system'), what (`action`), on which comment, from and to which status, and a JSON
    `detail` (an edit's previous values, a bulk action's ids)."""
    conn.execute(
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
    log_event(
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
            log_event(
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
        log_event(conn, actor, "edit", comment_id=comment_id, detail={"previous": previous})
        if old.status == "approved":
            touch(conn, old.thread)
        return replace(old, **changes, updated=when)

    return commit(db, apply)


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
        log_event(
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


def erase_person(db: Database, email: str, actor: str) -> int:
    """Answer an erasure request: every comment written with `email` (trimmed, case-folded)
    is deleted for good, leaving anonymous placeholders where replies hang (the thread keeps
    its shape), and the mails to that address or quoting those comments go with them, in one
    transaction. Their audit rows stay (who did what when) without the personal data: an
    edit's previous values become only the names of the fields it changed (in the rows of any
    comment that had this address before an edit too). Returns how many comments were
    erased."""

    def apply(conn: sqlite3.Connection) -> int:
        ids = [c.id for c in by_email(conn, email)]
        outbox.erase_person(conn, email, ids)
        # and comments that had the address before an edit: the audit row still holds it
        was = conn.execute(
            "SELECT DISTINCT comment_id FROM audit_log WHERE action = 'edit' AND "
            "lower(trim(json_extract(detail, '$.previous.author_email'))) = :e",
            {"e": email.strip().lower()},
        )
        _scrub_audit(conn, sorted({*ids, *(r[0] for r in was)}))
        return len(_delete_all(conn, ids, actor).changed) if ids else 0

    return commit(db, apply)


def _scrub_audit(conn: sqlite3.Connection, ids: list[int]) -> None:
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


# --- reads --------------------------------------------------------------------------------


def get(conn: sqlite3.Connection, comment_id: int) -> Comment | None:
    row = conn.execute("SELECT * FROM comments WHERE id = :id", {"id": comment_id}).fetchone()
    return _comment(row) if row else None


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
    return [_masked(_comment(r)) for r in rows]


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
    """The pending comments of `thread` written from the browser whose commenter cookie hashes
    to `client_hash` (shown to that browser only, marked as pending)."""
    if not client_hash:
        return []
    rows = conn.execute(
        "SELECT * FROM comments WHERE thread = :t AND status = 'pending' AND client_hash = :c "
        "ORDER BY created, id",
        {"t": thread, "c": client_hash},
    )
    return [_comment(r) for r in rows]


def find_duplicate(conn: sqlite3.Connection, fingerprint: str) -> Comment | None:
    """The first stored comment with this duplicate key (any status but a placeholder)."""
    row = conn.execute(
        "SELECT * FROM comments WHERE fingerprint = :f AND status != 'deleted' ORDER BY id LIMIT 1",
        {"f": fingerprint},
    ).fetchone()
    return _comment(row) if row else None


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
    return [_comment(r) for r in rows]


def thread_versions(conn: sqlite3.Connection) -> dict[str, int]:
    """Every thread's version (a thread never changed is absent: version 0)."""
    return {r[0]: r[1] for r in conn.execute("SELECT thread, version FROM comment_threads")}


def comments_version(conn: sqlite3.Connection) -> int:
    """The site-wide comments version: bumped with every thread version."""
    row = conn.execute("SELECT value FROM site_state WHERE key = :k", {"k": VERSION_KEY})
    found = row.fetchone()
    return int(found[0]) if found else 0


def by_source(conn: sqlite3.Connection, source: str, source_id: str) -> Comment | None:
    """The comment imported from `source` ('wxr', 'disqus', 'json') with id `source_id`."""
    row = conn.execute(  # `source != ''` lets SQLite use the partial index comments_source
        "SELECT * FROM comments WHERE source = :s AND source_id = :i AND source != ''",
        {"s": source, "i": source_id},
    ).fetchone()
    return _comment(row) if row else None


def all_comments(conn: sqlite3.Connection) -> Iterator[Comment]:
    """Every comment, placeholders included, by id (parents before their replies)."""
    for row in conn.execute("SELECT * FROM comments ORDER BY id"):
        yield _comment(row)


def by_email(conn: sqlite3.Connection, email: str) -> list[Comment]:
    """Every comment written with `email` (trimmed, case-folded), by id."""
    rows = conn.execute(
        "SELECT * FROM comments WHERE lower(trim(author_email)) = :e AND :e != '' ORDER BY id",
        {"e": email.strip().casefold()},
    )
    return [_comment(r) for r in rows]


def history(conn: sqlite3.Connection, comment_id: int) -> list[sqlite3.Row]:
    """The audit rows of one comment, oldest first."""
    return conn.execute(
        "SELECT * FROM audit_log WHERE comment_id = :id ORDER BY at, id", {"id": comment_id}
    ).fetchall()


# --- moderation: filters, restore --------------------------------------------------------


@dataclass(frozen=True)
class Filter:
    """What the moderation screen and API list: `status` one of STATUSES or None (all but
    placeholders); `q` text in the comment (what readers see, and its links' addresses, never
    its markup), name, email or website, caseless in any script (`comments.text.fold`), or an
    IP hash in `ip_hash`; `thread` one thread; `lang`; `since`/`until` creation times
    (seconds, the site-zone day computed by the caller); `max_id` the snapshot of a listing
    (comments that arrived after it are never included, C53)."""

    status: str | None = None
    q: str = ""
    ip_hash: str = ""
    thread: str | None = None
    lang: str | None = None
    since: float | None = None
    until: float | None = None
    max_id: int | None = None

    def where(self) -> tuple[str, dict[str, Any]]:
        """The SQL condition and its named parameters; it calls the functions
        `search_functions` registers on the connection."""
        parts = ["status != 'deleted'"]
        params: dict[str, Any] = {}
        if self.status:
            parts.append("status = :status")
            params["status"] = self.status
        if self.q:
            # caseless in any script, on the text readers see (`search_functions`)
            text = "(instr(masthead_search(body_html), :q) OR instr(masthead_fold(author_name), :q)"
            text += " OR instr(masthead_fold(author_email), :q)"
            text += " OR instr(masthead_fold(author_url), :q)"
            if self.ip_hash:
                text += " OR ip_hash = :ip"
                params["ip"] = self.ip_hash
            parts.append(text + ")")
            params["q"] = comment_text.fold(self.q)
        for column, value in (("thread", self.thread), ("lang", self.lang)):
            if value is not None:
                parts.append(f"{column} = :{column}")
                params[column] = value
        if self.since is not None:
            parts.append("created >= :since")
            params["since"] = self.since
        if self.until is not None:
            parts.append("created < :until")
            params["until"] = self.until
        if self.max_id is not None:
            parts.append("id <= :max_id")
            params["max_id"] = self.max_id
        return " AND ".join(parts), params


@functools.lru_cache(maxsize=4096)
def _search_text(html: str) -> str:
    return comment_text.fold(comment_text.html_text(html))


def search_functions(conn: sqlite3.Connection) -> None:
    """Register on `conn` what a `Filter`'s text search calls: `masthead_fold(text)`
    (`comments.text.fold`) and `masthead_search(body_html)`, the folded text and link
    addresses a reader sees in it (`comments.text.html_text`). SQLite's own LIKE and
    NOCASE fold ASCII only."""
    conn.create_function("masthead_fold", 1, comment_text.fold, deterministic=True)
    conn.create_function("masthead_search", 1, _search_text, deterministic=True)


def listing(
    conn: sqlite3.Connection,
    where: Filter,
    *,
    page: int = 1,
    per_page: int = 20,
    newest: bool = True,
) -> tuple[list[Comment], int]:
    """One page of the comments matching `where`, by date, and how many match in all."""
    search_functions(conn)
    sql, params = where.where()
    total = conn.execute(
        f"SELECT count(*) FROM comments WHERE {sql}",
        params,  # nosec B608: built from fixed parts
    ).fetchone()[0]
    order = "DESC" if newest else "ASC"
    rows = conn.execute(
        f"SELECT * FROM comments WHERE {sql} ORDER BY created {order}, id {order} "  # nosec B608
        "LIMIT :limit OFFSET :offset",
        {**params, "limit": per_page, "offset": (page - 1) * per_page},
    ).fetchall()
    return [_comment(r) for r in rows], int(total)


def matching_ids(conn: sqlite3.Connection, where: Filter) -> list[int]:
    """Every id matching `where`, ascending."""
    search_functions(conn)
    sql, params = where.where()
    rows = conn.execute(f"SELECT id FROM comments WHERE {sql} ORDER BY id", params)  # nosec B608
    return [r[0] for r in rows]


def status_counts(conn: sqlite3.Connection) -> dict[str, int]:
    """Comments per status (the screen's views), every status present."""
    counts = dict.fromkeys(STATUSES, 0)
    for status, n in conn.execute("SELECT status, count(*) FROM comments GROUP BY status"):
        if status in counts:
            counts[status] = n
    return counts


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


def restore(db: Database, ids: Iterable[int], actor: str, *, expect: Collection[str]) -> Changed:
    """Bring comments back from `expect` ('trash' for restore, 'spam' for not spam) to the
    status they had before, through `set_status` (one audit row each)."""
    conn = db.read()
    groups: dict[str, list[int]] = {}
    for comment_id in dict.fromkeys(int(i) for i in ids):
        groups.setdefault(previous_status(conn, comment_id), []).append(comment_id)
    changed: list[int] = []
    skipped: list[int] = []
    moves: dict[int, tuple[str, str]] = {}
    for to, group in groups.items():
        done = set_status(db, group, to, actor, expect=expect)
        changed += done.changed
        skipped += done.skipped
        moves.update(done.moves)
    return Changed(sorted(changed), sorted(skipped), moves)


# action: (to status, the statuses it acts on); restore and notspam go back to the status
# before; delete is permanent. The dashboard, its API and mailed links all act through these.
ACTIONS: dict[str, tuple[str, frozenset[str]]] = {
    "approve": ("approved", frozenset({"pending"})),
    "unapprove": ("pending", frozenset({"approved"})),
    "spam": ("spam", frozenset({"pending", "approved"})),
    "notspam": ("", frozenset({"spam"})),
    "trash": ("trash", frozenset({"pending", "approved"})),
    "restore": ("", frozenset({"trash"})),
    "delete": ("", frozenset(STATUSES)),
}


def moderate(
    db: Database,
    action: str,
    ids: Iterable[int],
    actor: str,
    *,
    only: Collection[str] | None = None,
) -> Changed:
    """Apply a moderation `action` (a key of `ACTIONS`) to `ids`, each conditional on its
    current status being one the action applies to and, with `only`, one of those (the status
    the editor saw: a comment changed by someone else since is skipped, C53). Raises
    `ValueError` for an unknown action."""
    if action not in ACTIONS:
        raise ValueError(f"unknown action {action!r}; one of {', '.join(ACTIONS)}")
    to, expect = ACTIONS[action]
    if only is not None:
        expect = expect & frozenset(only)
    ids = list(ids)
    if action == "delete":
        conn = db.read()
        present = [i for i in ids if (c := get(conn, i)) is not None and c.status in expect]
        done = delete_permanently(db, present, actor)
        return Changed(done.changed, [i for i in ids if i not in done.changed])
    if not to:
        return restore(db, ids, actor, expect=expect)
    return set_status(db, ids, to, actor, expect=expect)


def undo(db: Database, moves: dict[int, tuple[str, str]], actor: str) -> Changed:
    """Reverse `moves` (`Changed.moves` of an earlier action): each comment goes back to its
    `from` status while it is still in its `to` status (one changed since is skipped)."""
    back: dict[tuple[str, str], list[int]] = {}
    for comment_id, (before, after) in moves.items():
        back.setdefault((after, before), []).append(int(comment_id))
    changed: list[int] = []
    skipped: list[int] = []
    done_moves: dict[int, tuple[str, str]] = {}
    for (now, to), ids in back.items():
        done = set_status(db, ids, to, actor, expect={now})
        changed += done.changed
        skipped += done.skipped
        done_moves.update(done.moves)
    return Changed(sorted(changed), sorted(skipped), done_moves)


def approved_by_email(conn: sqlite3.Connection, emails: Iterable[str]) -> dict[str, int]:
    """Approved comments per address (trimmed, case-folded), for the authors of a listing."""
    keys = json.dumps(sorted({e.strip().casefold() for e in emails if e.strip()}))
    rows = conn.execute(
        "SELECT lower(trim(author_email)), count(*) FROM comments WHERE status = 'approved' "
        "AND lower(trim(author_email)) IN (SELECT value FROM json_each(:keys)) GROUP BY 1",
        {"keys": keys},
    )
    return {r[0]: r[1] for r in rows}


def names_of(conn: sqlite3.Connection, ids: Iterable[int]) -> dict[int, str]:
    """Author names of comments by id ('' for a placeholder), for "in reply to"."""
    keys = json.dumps(sorted({int(i) for i in ids}))
    rows = conn.execute(
        "SELECT id, author_name FROM comments WHERE id IN (SELECT value FROM json_each(:keys))",
        {"keys": keys},
    )
    return {r[0]: r[1] for r in rows}


def newest_id(conn: sqlite3.Connection) -> int:
    """The highest comment id now: a listing's snapshot (C53)."""
    return int(conn.execute("SELECT coalesce(max(id), 0) FROM comments").fetchone()[0])


def created_since(conn: sqlite3.Connection, since: float) -> list[float]:
    """Creation times of the comments (any status but placeholders) since `since`."""
    rows = conn.execute(
        "SELECT created FROM comments WHERE created >= :since AND status != 'deleted'",
        {"since": since},
    )
    return [r[0] for r in rows]


def top_threads(conn: sqlite3.Connection, since: float, limit: int = 10) -> list[sqlite3.Row]:
    """Threads with the most comments since `since`: `thread`, `post_url` (of the newest),
    `comments`, `pending`."""
    return conn.execute(
        "SELECT thread, max(post_url) AS post_url, count(*) AS comments, "
        "sum(status = 'pending') AS pending FROM comments WHERE created >= :since "
        "AND status IN ('pending', 'approved') GROUP BY thread ORDER BY comments DESC, thread "
        "LIMIT :limit",
        {"since": since, "limit": limit},
    ).fetchall()


def audit(
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


def audit_choices(conn: sqlite3.Connection) -> tuple[list[str], list[str]]:
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
