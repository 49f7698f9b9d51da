"""SQL for translations that fall behind: the posts of translation groups that have a
translation, and the originals' past bodies (`original_bodies`, migration 12).

Why the database keeps past bodies: the dashboard shows what changed in an original since a
translation was last brought up to date, so the original's body as it was then must be kept, and
the content folder holds only its body now. The files are not the place (a hidden copy beside
each post would be published, copied and committed with the site), and git history is not
everywhere. The database already keeps what no file holds (comments); `original_bodies` is
like them: the index writes it, a full rebuild never drops it, the replica copies it. It keeps
only what a translation needs: the current body of each original that has a translation
(`keep`), and each body a translation's `translation_of` still names (`prune` drops the rest).
Without it (a database made after the fact) the notice and `check` still work (they compare
hashes); the dashboard then says the old text is not kept.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection

from masthead.store.rows import GroupMember, rows_of

_MEMBER_COLUMNS = (
    "id, source, lang, url, title, date_ts, updated, translation_key, kind, translation_of, "
    "body_hash"
)
# a group (translation key and kind) with at least one post that names its original's hash
_HAS_TRANSLATION = (
    "EXISTS (SELECT 1 FROM posts t WHERE t.translation_key = p.translation_key "
    "AND t.kind = p.kind AND t.translation_of != '' AND t.shadowed = 0)"
)


def _visible(drafts: bool) -> str:
    return "p.shadowed = 0 AND p.date_ts <= :now" + ("" if drafts else " AND p.draft = 0")


def groups(conn: sqlite3.Connection, now: float, drafts: bool = False) -> list[GroupMember]:
    """The published posts of every translation group that has a translation naming its
    original (`translation_of`), by group."""
    rows = conn.execute(
        f"SELECT {_MEMBER_COLUMNS} FROM posts p WHERE kind IN ('post', 'page') "
        f"AND {_visible(drafts)} AND {_HAS_TRANSLATION} ORDER BY translation_key, kind, lang",
        {"now": now},
    ).fetchall()
    return rows_of(GroupMember, rows)


def group(
    conn: sqlite3.Connection, translation_key: str, kind: str, now: float, drafts: bool = False
) -> list[GroupMember]:
    """The published posts of one translation group."""
    rows = conn.execute(
        f"SELECT {_MEMBER_COLUMNS} FROM posts p WHERE translation_key = :k AND kind = :kind "
        f"AND {_visible(drafts)} ORDER BY lang",
        {"k": translation_key, "kind": kind, "now": now},
    ).fetchall()
    return rows_of(GroupMember, rows)


def originals_to_keep(
    conn: sqlite3.Connection, keys: Collection[str] | None = None
) -> list[tuple[str, str]]:
    """(source, body hash) of each post without `translation_of` in a group with a translation
    whose current body is not kept yet: `keep` it. `keys`: only in the groups of those
    translation keys (read through their index, not every post)."""
    among = "" if keys is None else "AND p.translation_key IN (SELECT value FROM json_each(:keys)) "
    rows = conn.execute(
        "SELECT p.source, p.body_hash FROM posts p WHERE p.translation_of = '' "
        f"AND p.body_hash != '' AND p.shadowed = 0 AND {_HAS_TRANSLATION} {among}"
        "AND p.body_hash NOT IN (SELECT hash FROM original_bodies)",
        {"keys": json.dumps(sorted(keys or ()))},
    ).fetchall()
    return [(r[0], r[1]) for r in rows]


def keep(conn: sqlite3.Connection, digest: str, source: str, body: str, now: float) -> None:
    """Keep an original's `body` (whose hash is `digest`) as first seen at `now`."""
    conn.execute(
        "INSERT OR IGNORE INTO original_bodies (hash, source, body, seen) "
        "VALUES (:h, :s, :b, :now)",
        {"h": digest, "s": source, "b": body, "now": now},
    )


def prune(
    conn: sqlite3.Connection,
    keys: Collection[str] | None = None,
    sources: Collection[str] = (),
) -> None:
    """Forget the bodies no translation names and no original with a translation has now.
    `keys` and `sources`: only among the bodies kept for the posts of those translation keys'
    groups and for those content files (a change to a few posts: every post is read only when
    one of those bodies is no longer needed in its own group)."""
    unneeded = (
        "hash NOT IN (SELECT translation_of FROM posts WHERE translation_of != '') AND hash NOT IN "
        f"(SELECT p.body_hash FROM posts p WHERE p.translation_of = '' AND {_HAS_TRANSLATION})"
    )
    if keys is None:
        conn.execute(f"DELETE FROM original_bodies WHERE {unneeded}")
        return
    params = {"keys": json.dumps(sorted(keys)), "sources": json.dumps(sorted(sources))}
    in_groups = "SELECT value FROM json_each(:keys)"
    candidates = {
        r[0]
        for r in conn.execute(
            "SELECT hash FROM original_bodies WHERE source IN (SELECT value FROM json_each("
            f":sources)) OR source IN (SELECT source FROM posts WHERE translation_key IN "
            f"({in_groups}))",
            params,
        )
    }
    if not candidates:
        return
    for named, own, has_translation in conn.execute(
        f"SELECT translation_of, body_hash, {_HAS_TRANSLATION} FROM posts p "
        f"WHERE translation_key IN ({in_groups})",
        params,
    ):
        candidates.discard(named)
        if has_translation and not named:
            candidates.discard(own)
    if candidates:  # needed in no group touched: perhaps in another (the same body twice)
        conn.execute(
            f"DELETE FROM original_bodies WHERE hash IN (SELECT value FROM json_each(:h)) "
            f"AND {unneeded}",
            {"h": json.dumps(sorted(candidates))},
        )


def body(conn: sqlite3.Connection, digest: str) -> tuple[str, float] | None:
    """The kept body whose hash is `digest` and when it was first seen; None if not kept."""
    row = conn.execute(
        "SELECT body, seen FROM original_bodies WHERE hash = :h", {"h": digest}
    ).fetchone()
    return (row[0], row[1]) if row else None


def seen(conn: sqlite3.Connection, digest: str) -> float | None:
    """When the index first saw the body whose hash is `digest`; None if it is not kept."""
    row = conn.execute("SELECT seen FROM original_bodies WHERE hash = :h", {"h": digest}).fetchone()
    return row[0] if row else None


def by_source(conn: sqlite3.Connection, source: str) -> GroupMember | None:
    """The post of the content file `source` (site-relative), whatever its state."""
    rows = conn.execute(
        f"SELECT {_MEMBER_COLUMNS} FROM posts p WHERE source = :s", {"s": source}
    ).fetchall()
    found = rows_of(GroupMember, rows)
    return found[0] if found else None
