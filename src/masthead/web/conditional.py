"""Conditional requests (RFC 9110 §13): the validators a cached response is checked against.

`etag_matches` reads `If-None-Match`, `modified_since` reads `If-Modified-Since`, and `http_date`
writes the `Last-Modified` date. Pure functions, shared by every route that answers 304.
"""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import format_datetime, parsedate_to_datetime


def etag_matches(header: str | None, etag: str) -> bool:
    """RFC 9110 §13.1.2 If-None-Match: `*`, or a list of (weak or strong) tags, weakly compared."""
    if not header:
        return False
    if header.strip() == "*":
        return True
    tags = (t.strip().removeprefix("W/") for t in header.split(","))
    return etag.removeprefix("W/") in tags


def http_date(value: datetime) -> str:
    """An IMF-fixdate (RFC 9110 §5.6.7), e.g. `Fri, 01 Mar 2024 01:00:00 GMT`."""
    return format_datetime(value.astimezone(UTC), usegmt=True)


def modified_since(header: str | None, modified: datetime | None) -> bool:
    """True when `If-Modified-Since` (RFC 9110 §13.1.3) shows the client's copy is as new as
    `modified`; False for a missing, unparsable or zone-less date."""
    if not header or modified is None:
        return False
    try:
        since = parsedate_to_datetime(header)
    except (TypeError, ValueError):
        return False
    if since.tzinfo is None:
        return False
    return int(modified.timestamp()) <= since.timestamp()
