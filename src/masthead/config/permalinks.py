"""The grammar of permalink patterns (`[permalinks]`): the tokens, the defaults, the check
made on a pattern when the settings load. `content.permalinks` expands them for each post."""

from __future__ import annotations

import re

# Permalink patterns (`[permalinks]`): their grammar; content.permalinks expands them.
DEFAULT_POSTS = "/posts/:slugorcontentbasename/"
DEFAULT_PAGES = "/:slugorcontentbasename/"

PERMALINK_TOKEN = re.compile(r":([A-Za-z]+)")
PERMALINK_DATE_TOKENS = {"year", "month", "day", "monthname", "weekday", "weekdayname", "yearday"}
PERMALINK_NAME_TOKENS = {"slug", "title", "slugorcontentbasename", "slugorfilename"}
PERMALINK_BASE_TOKENS = {"contentbasename", "filename"}
TOKENS = frozenset(
    PERMALINK_DATE_TOKENS | PERMALINK_NAME_TOKENS | PERMALINK_BASE_TOKENS | {"section"}
)
PERMALINK_UNSAFE = re.compile(r"[?#\\\s%]|/{2}|(?:^|/)\.{1,2}(?:/|$)")


def validate_permalink(pattern: str) -> str:
    """Return `pattern` if it is a usable permalink pattern, else raise ValueError saying why.

    A pattern starts and ends with `/`, uses only known tokens, has a token that tells posts apart
    (`:slug`, `:title`, `:slugorcontentbasename`, or `:contentbasename` and friends), and has no
    `?`, `#`, `%`, `\\`, spaces, `//`, `.` or `..` segments (which would not round-trip as a path).
    """
    if not pattern.startswith("/") or not pattern.endswith("/"):
        raise ValueError(f"{pattern!r}: a permalink starts and ends with '/'")
    unknown = sorted({t for t in PERMALINK_TOKEN.findall(pattern) if t not in TOKENS})
    if unknown:
        known = " ".join(f":{t}" for t in sorted(TOKENS))
        raise ValueError(f"{pattern!r}: unknown token :{unknown[0]} (known: {known})")
    used = set(PERMALINK_TOKEN.findall(pattern))
    if not used & (PERMALINK_NAME_TOKENS | PERMALINK_BASE_TOKENS):
        raise ValueError(
            f"{pattern!r}: needs :slug or :title (or :slugorcontentbasename), "
            "or every post would get one URL"
        )
    if PERMALINK_UNSAFE.search(PERMALINK_TOKEN.sub("x", pattern)):
        raise ValueError(
            f"{pattern!r}: no '?', '#', '%', '\\', spaces, '//' or '.'/'..' segments in a permalink"
        )
    return pattern
