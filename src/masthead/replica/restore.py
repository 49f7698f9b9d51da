"""`masthead restore SITE --from-replica`: the replica's latest state, or its state at a point in
time, into place.

Litestream writes the replica's database into a new file beside the site's database
(`NAME.from-replica`, removed after); from there it is restored exactly as a backup is
(store/restore.py): checked (integrity, schema), migrated when older, the live database kept
as `NAME.pre-restore`, and copied in with SQLite's backup API in one transaction, so a serving
site (and its Litestream, which replicates the restore as one more change) sees either the old
database or the restored one.
"""

from __future__ import annotations

import contextlib
from datetime import datetime
from pathlib import Path

from masthead.config import Site
from masthead.replica import litestream
from masthead.store.restore import Restored, check_backup
from masthead.store.restore import restore as restore_db


def staged_path(site: Site) -> Path:
    db = site.database_path
    return db.with_name(db.name + ".from-replica")


def fetch(site: Site, when: datetime | None = None) -> Path:
    """Restore the replica of `site` (at `when`, else its latest state) into the staging file
    and check it as a backup (`check_backup`); its path. Raises `ReplicaError` (Litestream's
    reason) or `StorageError` (the copy fails a check)."""
    staged = staged_path(site)
    _remove(staged)
    site.database_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        litestream.restore_to(site, staged, when)
        check_backup(staged)
    except BaseException:
        _remove(staged)
        raise
    return staged


def put_in_place(site: Site, staged: Path) -> Restored:
    """Restore the staged copy into `site`'s database (store/restore.py), then remove it."""
    try:
        return restore_db(staged, site.database_path)
    finally:
        _remove(staged)


def discard(site: Site) -> None:
    _remove(staged_path(site))


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            path.with_name(path.name + suffix).unlink()
