"""The SQLite connection: WAL, foreign keys, busy timeout, one writer at a time, migrations.

Readers get one connection per thread and are never blocked by the writer (WAL). Every write runs
in `Database.write()`, a `BEGIN IMMEDIATE` transaction serialised by a lock. The schema version
is `PRAGMA user_version`; migrations are numbered, each applied in one transaction, never edited
once released (see `migrations.py`).

A failed statement or COMMIT (a full disk, SQLITE_FULL) may already have rolled the transaction
back (https://www.sqlite.org/lang_transaction.html, "Response To Errors Within A Transaction"):
the ROLLBACK is issued only while a transaction is open, so the real error is the one raised.
`storage_error()` turns sqlite3 and OS errors into a one-line `StorageError` for the CLI.
"""

from __future__ import annotations

import errno
import logging
import os
import sqlite3
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from masthead.errors import StorageError
from masthead.store.migrations import MIGRATIONS
from masthead.store.signal import ChangeSignal

log = logging.getLogger(__name__)


def _open(path: Path, *, checkpoints: bool = True) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=10)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA busy_timeout = 10000")
    conn.execute("PRAGMA synchronous = NORMAL")
    if not checkpoints:
        leave_checkpoints(conn)
    return conn


def leave_checkpoints(conn: sqlite3.Connection) -> None:
    """Let `conn` never checkpoint the WAL by itself (`PRAGMA wal_autocheckpoint = 0`,
    https://www.sqlite.org/pragma.html#pragma_wal_autocheckpoint): under replication Litestream
    checkpoints, and an application's checkpoints race its (https://litestream.io/tips/)."""
    conn.execute("PRAGMA wal_autocheckpoint = 0")


def migrate(conn: sqlite3.Connection) -> int:
    """Apply every migration newer than `PRAGMA user_version`; return the new version."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    for number, statements in enumerate(MIGRATIONS, start=1):
        if number <= version:
            continue
        with transaction(conn):
            for sql in statements:
                conn.execute(sql)
            conn.execute(f"PRAGMA user_version = {number}")
        version = number
    return version


def _rollback(conn: sqlite3.Connection, *, quiet: bool = False) -> None:
    """Roll back the open transaction, if SQLite has not already done so; a failing ROLLBACK
    is logged (unless `quiet`), never raised over the error that caused it."""
    if not conn.in_transaction:
        return
    try:
        conn.execute("ROLLBACK")
    except sqlite3.Error as exc:
        if not quiet:
            log.warning("rollback failed after an error: %s", exc)


@contextmanager
def transaction(conn: sqlite3.Connection, *, quiet: bool = False) -> Iterator[sqlite3.Connection]:
    """A `BEGIN IMMEDIATE` transaction on `conn` (opened with `isolation_level=None`),
    committed when the block ends, rolled back when it raises: the one place masthead writes
    BEGIN and COMMIT (`Database.write()`, migrations, the search log's writer). Raises the
    sqlite3.Error that failed a statement or the COMMIT, never one from the rollback after it
    (logged, unless `quiet`)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
        conn.execute("COMMIT")  # inside the try: a failed COMMIT is rolled back too
    except BaseException:
        _rollback(conn, quiet=quiet)
        raise


@contextmanager
def snapshot(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """A read transaction on `conn` (a deferred `BEGIN`): every statement in the block reads
    the same snapshot of the database, whatever other connections commit meanwhile."""
    conn.execute("BEGIN")
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException:
        _rollback(conn)
        raise


def data_version(conn: sqlite3.Connection) -> int:
    """SQLite's `PRAGMA data_version` of `conn`: it moves when another connection (of any
    process) has committed since `conn` last looked (https://www.sqlite.org/pragma.html)."""
    return int(conn.execute("PRAGMA data_version").fetchone()[0])


class BackupExists(StorageError):
    """`backup()` was asked for a new file and `destination` exists already (left as it was)."""


_SQLITE_HEADER = b"SQLite format 3\x00"  # https://www.sqlite.org/fileformat.html, 1.3
_LIVE_SIBLINGS = ("", "-wal", "-shm", "-journal")  # SQLite's own files beside a database


def _check_destination(source: Path, destination: Path, replace: bool) -> None:
    """Raise `StorageError` unless `destination` may receive a copy of `source`: it is never
    the database itself or one of its journal files (paths resolved, hard links compared); its
    folder must exist (never created: a typo in it is a mistake to report); an existing file
    raises `BackupExists` unless `replace`, and even then only an SQLite database or an empty
    file is replaced (never another file a user had, a settings file say)."""
    live = source.resolve()
    target = destination.resolve()
    for suffix in _LIVE_SIBLINGS:
        own = live.with_name(live.name + suffix)
        if target == own or (own.exists() and target.exists() and os.path.samefile(own, target)):
            raise StorageError(
                destination, f"is the live database's own file ({own}); not replaced"
            )
    folder = destination.parent
    if not folder.is_dir():
        raise StorageError(destination, f"the folder {folder} does not exist (create it first)")
    if not (destination.exists() or destination.is_symlink()):
        return
    if destination.is_dir():
        raise StorageError(destination, "is a folder; give the backup's file name")
    if not replace:
        raise BackupExists(destination, "exists already; not replaced")
    try:
        with open(destination, "rb") as file:
            head = file.read(len(_SQLITE_HEADER))
    except OSError as exc:
        raise storage_error(destination, exc) from None
    if head and head != _SQLITE_HEADER:
        raise StorageError(
            destination, "exists and is not an SQLite database; not replaced (choose another name)"
        )


def _place(partial: Path, destination: Path, replace: bool) -> None:
    """Move the finished copy `partial` to `destination` (same folder: one rename). Without
    `replace` a hard link makes the new name, so a file created there meanwhile is never
    replaced (a file system without hard links falls back to a check, then a rename)."""
    if replace:
        partial.replace(destination)
        return
    try:
        os.link(partial, destination)
    except FileExistsError:
        raise BackupExists(destination, "exists already; not replaced") from None
    except OSError:
        if destination.exists():
            raise BackupExists(destination, "exists already; not replaced") from None
        partial.replace(destination)
        return
    partial.unlink()


def backup(source: Path, destination: Path, *, replace: bool = False) -> int:
    """Copy the database at `source` to `destination` with SQLite's online backup API
    (https://www.sqlite.org/backup.html): consistent even while the site is serving and
    writing. Returns the number of pages copied.

    The copy is made in a temporary file in `destination`'s folder (readable by its owner only:
    it holds commenters' addresses and password hashes) and renamed into place once complete
    and checked; a partial copy is removed. Raises `StorageError` naming the file at fault: a
    damaged source; a destination that is the live database or one of its -wal/-shm/-journal
    files, in a folder that does not exist (never created), or not writable; a full disk.
    An existing `destination` raises `BackupExists` unless `replace`, and even then is
    replaced only when it is an SQLite database or empty (see `_check_destination`)."""
    source, destination = Path(source), Path(destination)
    _check_destination(source, destination, replace)
    try:
        src = sqlite3.connect(source.resolve().as_uri() + "?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise storage_error(source, exc) from None
    partial: Path | None = None
    try:
        try:
            fd, name = tempfile.mkstemp(
                prefix=f".{destination.name}.", suffix=".partial", dir=destination.parent
            )
        except OSError as exc:  # blamed on the name the user gave, not the temporary one
            raise OSError(exc.errno, exc.strerror) from None
        os.close(fd)
        partial = Path(name)
        dst = sqlite3.connect(partial)
        try:
            src.backup(dst, pages=1024)  # in steps, so writers are never held up for long
            pages = dst.execute("PRAGMA page_count").fetchone()[0]
            ok = dst.execute("PRAGMA integrity_check").fetchone()[0]
        finally:
            dst.close()
        if ok != "ok":
            raise StorageError(source, f"the copy failed its integrity check ({ok})")
        _place(partial, destination, replace)
    except (sqlite3.Error, OSError) as exc:
        name = getattr(exc, "sqlite_errorname", "") or ""
        at_fault = source if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) else destination
        raise storage_error(at_fault, exc) from None
    finally:
        if partial is not None:
            partial.unlink(missing_ok=True)  # a partial copy on a full disk only takes more space
        src.close()
    return int(pages)


def file_size(path: Path) -> int:
    """Bytes the database at `path` takes on disk: the file and its -wal file."""
    path = Path(path)
    return sum(p.stat().st_size for p in (path, path.with_name(path.name + "-wal")) if p.exists())


def vacuum(path: Path, *, checkpoint: bool = True) -> tuple[int, int]:
    """Rebuild the database at `path` into as few pages as its data needs (SQLite's VACUUM,
    https://www.sqlite.org/lang_vacuum.html), then fold the WAL back into the file and truncate
    it (`PRAGMA wal_checkpoint(TRUNCATE)`, https://www.sqlite.org/pragma.html#pragma_wal_checkpoint):
    the space of deleted posts, comments and search rows goes back to the file system. Returns
    the bytes on disk (file and -wal) before and after.

    Safe while the site serves: in WAL mode VACUUM is one write transaction, so readers go on
    reading their snapshot and other writers (the watcher, a comment) wait for it, up to the
    busy timeout; no rowid that masthead keeps changes (every table it refers to by rowid has
    an INTEGER PRIMARY KEY). It needs free disk space of about twice the database (a temporary
    copy and the WAL). Raises `StorageError` (a full disk, a lock held too long, a damaged or
    read-only file). With `checkpoint=False` (a replicated database: Litestream checkpoints)
    the WAL is left for Litestream to fold back, so the space comes back after its next
    checkpoint."""
    path = Path(path)
    before = file_size(path)
    try:
        conn = _open(path, checkpoints=checkpoint)
    except sqlite3.Error as exc:
        raise storage_error(path, exc) from None
    try:
        conn.execute("PRAGMA busy_timeout = 30000")  # a batch of the watcher's may be writing
        if conn.execute("PRAGMA user_version").fetchone()[0] == 0:
            raise StorageError(path, "not a masthead database (no schema version); not changed")
        conn.execute("VACUUM")
        if checkpoint:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except sqlite3.Error as exc:
        raise storage_error(path, exc) from None
    finally:
        conn.close()
    return before, file_size(path)


_FULL = {errno.ENOSPC, errno.EDQUOT}
_DENIED = {errno.EACCES, errno.EPERM, errno.EROFS}


def disk_full(exc: BaseException) -> bool:
    """Whether `exc` (a sqlite3.Error or OSError) says the disk is full."""
    if isinstance(exc, OSError) and not isinstance(exc, sqlite3.Error):
        return exc.errno in _FULL
    return (getattr(exc, "sqlite_errorname", "") or "").startswith("SQLITE_FULL")


def storage_error(path: Path, exc: BaseException) -> StorageError:
    """A one-line `StorageError` for a sqlite3.Error or OSError met on the database at `path`.

    The cause is said plainly, with SQLite's own words or the OS's in parentheses: a full disk
    (SQLITE_FULL, ENOSPC), a folder that does not exist, a folder or file this user may not
    write (SQLITE_CANTOPEN, SQLITE_READONLY, EACCES, EROFS), a lock held by another process
    (SQLITE_BUSY), a damaged file (SQLITE_CORRUPT, SQLITE_NOTADB). An OSError names its own file.
    """
    path = Path(path)
    if isinstance(exc, StorageError):
        return exc
    if isinstance(exc, OSError) and not isinstance(exc, sqlite3.Error):
        where = Path(exc.filename) if exc.filename else path
        said = exc.strerror or str(exc)
        if exc.errno in _FULL:
            return StorageError(where, f"the disk is full ({said})")
        if exc.errno in _DENIED:
            return StorageError(where, f"{_access_problem(where) or 'not writable'} ({said})")
        return StorageError(where, said)
    name = getattr(exc, "sqlite_errorname", "") or ""
    said = f"SQLite: {exc}"
    if name.startswith("SQLITE_FULL"):
        return StorageError(path, f"the disk is full ({said})")
    if name.startswith(("SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_PERM", "SQLITE_AUTH")):
        return StorageError(path, f"{_access_problem(path) or 'cannot be written'} ({said})")
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return StorageError(path, f"locked by another process for over 10 s ({said})")
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")):
        return StorageError(path, f"not a masthead database, or damaged ({said})")
    return StorageError(path, said)


def _access_problem(path: Path) -> str | None:
    """Why this process may not create or write the database file `path`, if it can tell."""
    folder = path.parent
    if not folder.is_dir():
        return f"the folder {folder} does not exist"
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        return "the database file is read-only for this user"
    if not os.access(folder, os.W_OK | os.X_OK):
        # SQLite creates the database and its -wal and -shm files beside it
        return "its folder is read-only for this user"
    return None


def _prepare_folder(path: Path) -> None:
    """Create the database's own folder (`.masthead/`) if it is missing, not its parents: a
    `database` setting pointing into a folder that does not exist is a mistake to report."""
    folder = path.parent
    if folder.is_dir():
        return
    if not folder.parent.is_dir():
        raise StorageError(path, f"the folder {folder.parent} does not exist (create it first)")
    try:
        folder.mkdir()
    except FileExistsError:
        return  # created meanwhile by another masthead process
    except OSError as exc:
        cause = exc.strerror or str(exc)
        raise StorageError(folder, f"cannot create the database folder ({cause})") from None


class Database:
    """One SQLite file. `read()` gives this thread's connection; `write()` a transaction;
    `signal` the change signal beside the file (store/signal.py), bumped after every commit
    that changes what readers see (`store.posts.commit_generation`). With
    `checkpoints=False` (a replicated site, `[replica]`) no connection of it ever checkpoints
    the WAL: Litestream does (`leave_checkpoints`).

    Opening creates the file (and its own folder, see `_prepare_folder`) and applies migrations;
    it raises `StorageError` when the file cannot be opened for writing (a read-only file or
    folder, a full disk, a folder that does not exist). `write()` raises the sqlite3.Error
    that failed it (SQLITE_FULL, SQLITE_BUSY...), after rolling back.
    """

    def __init__(self, path: Path, *, checkpoints: bool = True) -> None:
        self.path = Path(path)
        self.checkpoints = checkpoints
        self.signal = ChangeSignal(self.path)
        _prepare_folder(self.path)
        if self.path.exists() and not os.access(self.path, os.R_OK | os.W_OK):
            # SQLite would open it read-only without a word (in WAL mode changes then pile up
            # in the -wal file, never written back), so say it now
            raise StorageError(self.path, "the database file is read-only for this user")
        self._local = threading.local()
        self._lock = threading.Lock()
        self._readers: list[sqlite3.Connection] = []
        writer = None
        try:
            writer = _open(self.path, checkpoints=checkpoints)
            version = writer.execute("PRAGMA user_version").fetchone()[0]
            if version > len(MIGRATIONS):  # its tables are not the ones this code reads
                writer.close()
                raise StorageError(
                    self.path,
                    f"made by a newer masthead (schema {version}; this one knows up to "
                    f"{len(MIGRATIONS)}): upgrade masthead, or set `database` to another file",
                )
            writer.execute("PRAGMA journal_mode = WAL")
            migrate(writer)
        except (sqlite3.Error, OSError) as exc:
            if writer is not None:
                writer.close()
            raise storage_error(self.path, exc) from None
        self._writer = writer

    def read(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = _open(self.path, checkpoints=self.checkpoints)
            conn.execute("PRAGMA query_only = ON")
            self._local.conn = conn
            with self._lock:
                self._readers.append(conn)
        return conn

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A `BEGIN IMMEDIATE` transaction on the single writer connection, committed when the
        block ends. Raises the sqlite3.Error that failed a statement or the COMMIT (SQLITE_FULL,
        SQLITE_BUSY after the 10 s busy timeout), never one from the rollback after it."""
        with self._lock, transaction(self._writer) as conn:
            yield conn

    @contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """This thread's read connection (`read()`) in one read transaction (`snapshot`): the
        block's statements all see the database as it was when the first of them ran."""
        with snapshot(self.read()) as conn:
            yield conn

    def close(self) -> None:
        with self._lock:
            for conn in self._readers:
                conn.close()
            self._readers.clear()
            self._writer.close()
