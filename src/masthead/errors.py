"""Exceptions shared by every layer of masthead.

`ContentError` carries the file, 1-based line and a reason, so that `masthead check` can print
`path:line: reason`. `HTTPError` subclasses carry the HTTP `.status` the web layer renders.
"""

from __future__ import annotations

from dataclasses import dataclass


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
        """Return ``path:line: reason`` (the format compilers and editors understand)."""
        kind = "" if self.severity == "error" else f"{self.severity}: "
        return f"{self.path}:{self.line}: {kind}{self.reason}"


class ContentError(MastheadError):
    """A content file cannot be published; `issue` says where and why."""

    def __init__(self, path: str, line: int, reason: str) -> None:
        super().__init__(f"{path}:{line}: {reason}")
        self.issue = ContentIssue(path, line, reason, "error")


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
