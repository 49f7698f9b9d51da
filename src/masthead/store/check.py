"""What `masthead check` reads of a site's index: opened read-only (check never writes, and
never creates or migrates the file), tolerating a file that is not a masthead database."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def url_holders(path: Path) -> list[tuple[str, int, str, int]]:
    """`(url, draft, source, shown)` for every URL of the database at `path`: first each one
    `url_history` gives a content file (`draft` 0, `shown` 0), then each post not shadowed
    (`shown` 1). Empty when the file cannot be opened or read (not a masthead database, or an
    older schema)."""
    try:
        conn = sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro", uri=True)
    except sqlite3.Error:
        return []
    try:
        rows = conn.execute(
            "SELECT url, 0, source, 0 AS shown FROM url_history UNION ALL "
            "SELECT url, draft, source, 1 FROM posts WHERE shadowed = 0 ORDER BY shown"
        ).fetchall()
    except sqlite3.Error:
        return []
    finally:
        conn.close()
    return [(url, draft, source, shown) for url, draft, source, shown in rows]
