"""The moderation side of comments: what the dashboard, its API and the command line list
(`Filter`, `listing`, counts) and the bulk actions they take (`moderate`, `undo`): every status
change goes through `store.comments.set_status`, a delete through
`store.comment_removal.delete_permanently`.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from masthead.comments import text as comment_text
from masthead.store.audit_log import previous_status
from masthead.store.comment_removal import delete_permanently
from masthead.store.comments import STATUSES, Changed, Comment, as_comment, get, set_status
from masthead.store.db import Database
from masthead.store.fold import search_functions


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
    return [as_comment(r) for r in rows], int(total)


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


def skip_reasons(
    conn: sqlite3.Connection,
    action: str,
    skipped: Iterable[int],
    only: Collection[str] | None = None,
) -> dict[int, str]:
    """Why each of `skipped` was skipped by `action` (read after it): `gone` (no such comment
    now), `already-STATUS` (it is in the status the action sets), `in-STATUS` (the action is
    not one for a comment in that status: approve on spam, say; the editor wants Not spam), or
    `changed` (the action fits, but the comment is no longer in a status the editor saw,
    `only`: someone changed it since the page was loaded, C53)."""
    to, expect = ACTIONS[action]
    reasons: dict[int, str] = {}
    for comment_id in skipped:
        row = get(conn, comment_id)
        if row is None or row.status == "deleted":
            reasons[comment_id] = "gone"
        elif to and row.status == to:
            reasons[comment_id] = f"already-{row.status}"
        elif row.status not in expect:
            reasons[comment_id] = f"in-{row.status}"
        else:
            reasons[comment_id] = "changed"
    return reasons


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
