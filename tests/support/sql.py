"""The SQL a test's app runs, seen through SQLite's trace callback (no mock: the real
connections the store opens, each traced from the moment it opens)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from masthead.store import db as db_module


def trace_statements(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every SQL statement run on any connection the store opens from now on, in order (a
    connection opened before this call is not traced)."""
    seen: list[str] = []
    real_open = db_module._open

    def traced_open(path: Path, **options: bool) -> sqlite3.Connection:
        conn = real_open(path, **options)
        conn.set_trace_callback(seen.append)
        return conn

    monkeypatch.setattr(db_module, "_open", traced_open)
    return seen
