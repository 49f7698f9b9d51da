"""The change signal: a small file beside the database (`site.db.gen` beside `site.db`) that
every process which commits a change readers see bumps right after its COMMIT.

Readers learn of a change committed by any process (a second worker, `masthead index` beside
`masthead serve`) with one `os.stat` per request, a few microseconds, instead of an SQL query,
and read SQLite again only when the file's stamp moved. A bump appends one byte (O_APPEND: atomic
between processes), so the size grows with every bump even within one tick of the file-system
clock; past `ROTATE_AT` bytes the file is replaced by a fresh one (a new inode: os.replace of a
file created while the old one still exists). The stamp is `(inode, size, mtime_ns)`.

Any later writer (comment threads, say) bumps the same file after its own COMMIT: readers then
re-read what they key caches by.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

log = logging.getLogger(__name__)

ROTATE_AT = 4096  # bytes; the file stays one disk block
Stamp = tuple[int, int, int] | None


class ChangeSignal:
    """The signal file of the database at `database` (a path)."""

    def __init__(self, database: Path) -> None:
        self.path = Path(database).with_name(Path(database).name + ".gen")
        self._name = str(self.path)  # os.stat of a str skips pathlib's conversion

    def stamp(self) -> Stamp:
        """`(st_ino, st_size, st_mtime_ns)` of the file now, None while there is none."""
        try:
            st = os.stat(self._name)
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def bump(self) -> None:
        """Tell every reader that something changed: call it after the COMMIT. Raises OSError
        when the file cannot be written (the database folder is not writable either, then)."""
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            size = os.fstat(fd).st_size
            os.write(fd, b".")
        finally:
            os.close(fd)
        if size + 1 >= ROTATE_AT:
            fresh = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
            try:
                fresh.write_bytes(b".")
                os.replace(fresh, self.path)
            except OSError as exc:  # the bump above is done: readers see it; rotate next time
                log.warning("could not start a new change signal file %s: %s", self.path, exc)
