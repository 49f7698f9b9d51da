"""Exceptions shared by every layer of masthead.

`ContentError` carries the file, 1-based line and a reason, so that `masthead check` can print
`path:line: reason`. `StorageError` names the database path and a plain cause (a full disk, a
read-only folder). `HTTPError` subclasses carry the HTTP `.status` the web layer renders.
`visible()` is the one escaping function for text printed to a terminal or a log.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# C0 and C1 controls (ESC starts terminal escape sequences), DEL, line and paragraph separators
# and the bidirectional overrides that reorder what a terminal shows ("Trojan Source").
_INVISIBLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def visible(text: str) -> str:
    """`text` with control characters shown as Python escapes (ESC → ``\\x1b``, BEL →
    ``\\x07``, newline → ``\\n``): safe to print to a terminal, always one line."""
    return _INVISIBLE.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), text)


class MastheadError(Exception):
    """Base class for errors masthead reports to users (never a traceback)."""


class ConfigError(MastheadError):
    """`masthead.toml` or a `MASTHEAD_*` variable is invalid; raised at start-up."""


@dataclass(frozen=True)
class ContentIssue:
    """One problem in a content file.

    `path` is relative to the site folder (POSIX separators), `line` is 1-based (0 when the whole
    file is concerned), `severity` is ``"error"`` (the file is left out), ``"warning"`` or
    ``"info"`` (worth knowing, expected on a normal site: never fails `check --strict`).
    """

    path: str
    line: int
    reason: str
    severity: str = "error"

    def format(self) -> str:
        """Return ``path:line: reason`` (the format compilers and editors understand), one
        line with control characters escaped (file names and link targets are the author's)."""
        kind = "" if self.severity == "error" else f"{self.severity}: "
        return visible(f"{self.path}:{self.line}: {kind}{self.reason}")


class ContentError(MastheadError):
    """A content file cannot be published; `issue` says where and why."""

    def __init__(self, path: str, line: int, reason: str) -> None:
        super().__init__(f"{path}:{line}: {reason}")
        self.issue = ContentIssue(path, line, reason, "error")


class StorageError(MastheadError):
    """The database cannot be opened or written: `path` (the file or folder concerned) and a
    plain `cause` ("the disk is full", "the folder is read-only for this user"), printed as one
    line ``path: cause``. Raised at start-up and by the CLI; see `masthead.store.db.storage_error`
    for the mapping from sqlite3 and OS errors."""

    def __init__(self, path: object, cause: str) -> None:
        super().__init__(f"{path}: {cause}")
        self.path = str(path)
        self.cause = cause


class HTTPError(MastheadError):
    """An error page or JSON error with an HTTP status code."""

    status = 500

    def __init__(self, message: str = "") -> None:
        super().__init__(message)
        self.message = message


class BadRequest(HTTPError):
    status = 400


class NotFound(HTTPError):
    status = 404


class CommentError(HTTPError):
    """A comment refused with a 4xx (issue 11): `status` (400 a bad field, 403 a closed thread,
    404 no such post, 429 too many comments), a `message` for the reader, the form `field` at
    fault (None: the whole submission) and, for 429, `retry_after` seconds (the `Retry-After`
    header, RFC 9110 §10.2.3). Nothing was stored."""

    def __init__(
        self,
        status: int,
        message: str,
        field: str | None = None,
        retry_after: int | None = None,
        code: str = "",
    ) -> None:
        super().__init__(message)
        self.status = status
        self.field = field
        self.retry_after = retry_after
        self.code = code
