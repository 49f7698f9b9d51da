"""Restore a site's database from a backup (`masthead backup`'s copy), checked first.

Nothing is replaced until the backup has passed every check: SQLite opens it, `PRAGMA
integrity_check` says "ok", it is a masthead database (`site_state` and `posts` tables, a
`user_version` of at least 1) and its schema is not newer than this masthead's migrations. The
backup is then copied beside the database (`NAME.restoring`), migrated there when it is older,
checked again, and copied into the live database with SQLite's backup API in one step: one
transaction, so a serving site sees either the old database or the restored one, never a mix
(https://www.sqlite.org/backup.html). The database as it was is kept first as `NAME.pre-restore`.

Caches: the restored generation, comments version and every thread version are raised past the
live ones before the copy, and the change signal is bumped after it, so no worker serves a page
cached before the restore under a version number the restored data reuses.
"""

from __future__ import annotations

import shutil
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from masthead.errors import StorageError
from masthead.store import comment_threads
from masthead.store.db import backup, migrate, storage_error
from masthead.store.migrations import MIGRATIONS
from masthead.store.signal import ChangeSignal

_REQUIRED = ("site_state", "posts")


@dataclass(frozen=True)
class Restored:
    """What a restore did: the backup's schema version and the one it now has, the comments
    it brought, and where the database as it was before was kept (None: there was none)."""

    from_version: int
    to_version: int
    comments: int
    kept: Path | None


def check_backup(path: Path) -> int:
    """Return the schema version (`user_version`) of the backup at `path` after checking it
    (see the module). Raises `StorageError` naming the file and what is wrong with it."""
    path = Path(path)
    if not path.is_file():
        raise StorageError(path, "no such backup file")
    try:
        conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise storage_error(path, exc) from None
    try:
        problems = [r[0] for r in conn.execute("PRAGMA integrity_check(5)")]
        if problems != ["ok"]:
            raise StorageError(path, "damaged: " + "; ".join(problems))
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.Error as exc:
        raise storage_error(path, exc) from None
    finally:
        conn.close()
    missing = [t for t in _REQUIRED if t not in tables]
    if version < 1 or missing:
        raise StorageError(path, "not a masthead database (no masthead tables)")
    if version > len(MIGRATIONS):
        raise StorageError(
            path,
            f"made by a newer masthead (schema {version}; this one knows up to "
            f"{len(MIGRATIONS)}): upgrade masthead first",
        )
    return version


def restore(source: Path, database: Path) -> Restored:
    """Replace the database at `database` by the backup at `source` (see the module). Raises
    `StorageError` before anything is replaced when the backup fails a check or the copy
    cannot be made (a full disk)."""
    source, database = Path(source), Path(database)
    if database.exists() and source.resolve() == database.resolve():
        raise StorageError(source, "is the site's database itself, not a backup of it")
    version = check_backup(source)
    staged = database.with_name(database.name + ".restoring")
    try:
        backup(source, staged, replace=True)  # a leftover of an interrupted restore
        conn = sqlite3.connect(staged, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode = DELETE")  # one file: no -wal beside it to copy
            to_version = migrate(conn)
            problems = [r[0] for r in conn.execute("PRAGMA integrity_check(5)")]
            if problems != ["ok"]:
                raise StorageError(source, "damaged once migrated: " + "; ".join(problems))
            if database.exists():
                _raise_versions(conn, database)
            count = int(conn.execute("SELECT count(*) FROM comments").fetchone()[0])
        finally:
            conn.close()
        kept = None
        if database.exists():
            kept = database.with_name(database.name + ".pre-restore")
            _keep(database, kept)
            _copy_into(staged, database)
        else:
            staged.replace(database)
    except (sqlite3.Error, OSError) as exc:  # a full disk, a folder that cannot be written
        raise storage_error(database, exc) from None
    finally:
        for leftover in ("", "-wal", "-shm", "-journal"):
            staged.with_name(staged.name + leftover).unlink(missing_ok=True)
    ChangeSignal(database).bump()
    return Restored(version, to_version, count, kept)


def _live_versions(live_path: Path) -> tuple[dict[str, str], dict[str, int], int]:
    """The live database's `site_state`, thread versions and a floor for new versions: 0, or
    the time in seconds when the live database cannot be read (a damaged one: no counter it
    held can be that high)."""
    try:
        live = sqlite3.connect(live_path.resolve().as_uri() + "?mode=ro", uri=True)
        try:
            state = dict(live.execute("SELECT key, value FROM site_state").fetchall())
            try:
                threads = dict(live.execute("SELECT thread, version FROM comment_threads"))
            except sqlite3.OperationalError:  # a live database older than migration 4
                threads = {}
        finally:
            live.close()
    except sqlite3.DatabaseError:
        return {}, {}, int(time.time())
    return state, threads, 0


def _raise_versions(staged: sqlite3.Connection, live_path: Path) -> None:
    """Give the staged copy versions past the live database's (generation, comments version,
    each thread's), so caches keyed by them cannot mistake restored data for cached pages."""
    state, threads, floor = _live_versions(live_path)
    staged.execute("BEGIN IMMEDIATE")
    try:
        for key in ("generation", comment_threads.VERSION_KEY):
            row = staged.execute("SELECT value FROM site_state WHERE key = :k", {"k": key})
            found = row.fetchone()
            mine = int(found[0]) if found else 0
            value = max(mine, int(state.get(key, 0)), floor) + 1
            staged.execute(
                "INSERT INTO site_state (key, value) VALUES (:k, :v) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                {"k": key, "v": str(value)},
            )
        mine_threads = dict(staged.execute("SELECT thread, version FROM comment_threads"))
        for thread in set(threads) | set(mine_threads):
            value = max(int(threads.get(thread, 0)), int(mine_threads.get(thread, 0)), floor) + 1
            staged.execute(
                "INSERT INTO comment_threads (thread, version) VALUES (:t, :v) "
                "ON CONFLICT (thread) DO UPDATE SET version = excluded.version",
                {"t": thread, "v": value},
            )
        staged.execute("COMMIT")
    except BaseException:
        staged.execute("ROLLBACK")
        raise


def _keep(database: Path, kept: Path) -> None:
    """Keep the database as it was at `kept`: a consistent copy (SQLite's backup), or, when it
    is too damaged to be read, its bytes as they are (with its -wal file, if any)."""
    try:
        backup(database, kept, replace=True)  # the previous restore's copy
    except StorageError:
        shutil.copyfile(database, kept)
        wal = database.with_name(database.name + "-wal")
        if wal.exists():
            shutil.copyfile(wal, kept.with_name(kept.name + "-wal"))


def _copy_into(staged: Path, database: Path) -> None:
    """Copy `staged` over the live `database` in one step of the backup API (atomic, and safe
    while workers have it open); a live file SQLite cannot open as a database is replaced."""
    src = sqlite3.connect(staged.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        dst = sqlite3.connect(database, timeout=10)
        try:
            src.backup(dst)  # pages=-1: everything in one step, one transaction
        except sqlite3.DatabaseError as exc:
            if not getattr(exc, "sqlite_errorname", "").startswith(
                ("SQLITE_CORRUPT", "SQLITE_NOTADB")
            ):
                raise
            dst.close()
            for stale in ("-wal", "-shm"):
                database.with_name(database.name + stale).unlink(missing_ok=True)
            shutil.copyfile(staged, database.with_name(database.name + ".new"))
            database.with_name(database.name + ".new").replace(database)
        finally:
            dst.close()
    finally:
        src.close()
