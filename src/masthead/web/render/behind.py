"""Translations that fall behind: the notice on a translation whose original's body changed
since the translation was last marked current (content/translations.py), and the list the
dashboard's Content screen shows, each with what changed in the original since.

The notice is in the translation's language, with the date the original changed (its
`updated`, else when the index first saw its present body, else its date) and a link to it.
The page's JSON-LD and the sitemap do not change.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Any

from masthead.config import Site
from masthead.content import translations
from masthead.store import translations as store
from masthead.store.rows import GroupMember, PostRow


def changed_at(conn: sqlite3.Connection, original: GroupMember, site: Site) -> datetime:
    """When `original` last changed: its `updated`, else when its body was first seen, else
    its date."""
    if original.updated:
        return datetime.fromisoformat(original.updated)
    seen = store.seen(conn, original.body_hash)
    return datetime.fromtimestamp(seen if seen is not None else original.date_ts, site.tz)


def original_if_behind(
    conn: sqlite3.Connection, row: PostRow, site: Site, now: float
) -> GroupMember | None:
    """The published original of the translation `row` when `row` is behind it, else None."""
    if not row.translation_of:
        return None
    members = store.group(conn, row.translation_key, row.kind, now)
    if not any(m.id == row.id for m in members):  # a preview: compare with the published ones
        return None
    for translation, original in translations.behind(
        members, site.settings.default_language, [m.date_ts for m in members]
    ):
        if translation.id == row.id:
            return original
    return None


def behind_list(conn: sqlite3.Connection, site: Site, now: float) -> list[dict[str, Any]]:
    """Every published translation that is behind its original, with the paragraph diff of
    the original from the body the translation names to its body now (`changes`, None when
    that body is not kept)."""
    by_group: dict[tuple[str, str], list[GroupMember]] = {}
    for member in store.groups(conn, now):
        by_group.setdefault((member.translation_key, member.kind), []).append(member)
    out = []
    for members in by_group.values():
        dates = [m.date_ts for m in members]
        for translation, original in translations.behind(
            members, site.settings.default_language, dates
        ):
            then = store.body(conn, translation.translation_of)
            now_body = store.body(conn, original.body_hash)
            changes = None
            if then is not None and now_body is not None:
                changes = translations.paragraph_diff(then[0], now_body[0])
            out.append(
                {
                    "translation": translation,
                    "original": original,
                    "changed": changed_at(conn, original, site),
                    "changes": changes,
                }
            )
    return sorted(out, key=lambda i: i["translation"].source)
