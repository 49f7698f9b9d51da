"""SQL functions for caseless text search in any script, registered on a connection that
needs them (the comment listings' and the audit log's filters). SQLite's own LIKE and NOCASE
fold ASCII only."""

from __future__ import annotations

import functools
import sqlite3

from masthead.comments import text as comment_text


@functools.lru_cache(maxsize=4096)
def _search_text(html: str) -> str:
    return comment_text.fold(comment_text.html_text(html))


def search_functions(conn: sqlite3.Connection) -> None:
    """Register on `conn` what a text filter calls: `masthead_fold(text)`
    (`comments.text.fold`) and `masthead_search(body_html)`, the folded text and link
    addresses a reader sees in it (`comments.text.html_text`)."""
    conn.create_function("masthead_fold", 1, comment_text.fold, deterministic=True)
    conn.create_function("masthead_search", 1, _search_text, deterministic=True)
