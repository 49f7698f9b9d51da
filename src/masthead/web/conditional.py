"""Conditional requests (RFC 9110 §13): the validators a cached response is checked against.

`conditional_response` is the one way a cached page (`web.state.Page`) becomes a response: 200
with its validators, or 304 when the client's copy is current. `etag_matches` reads
`If-None-Match`, `modified_since` reads `If-Modified-Since` (only when there is no
`If-None-Match`, RFC 9110 §13.2.2), and `http_date` writes the `Last-Modified` date.
"""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import format_datetime, parsedate_to_datetime

from starlette.datastructures import Headers
from starlette.responses import Response

from masthead.web.state import Page


def conditional_response(headers: Headers, page: Page, cache_control: str) -> Response:
    """`page` as a response to a request with `headers`: ETag, Cache-Control and (when the page
    has one) Last-Modified; 304 without a body when a 200 page is unchanged for the client."""
    out = {"ETag": page.etag, "Cache-Control": cache_control}
    if page.modified is not None:
        out["Last-Modified"] = http_date(page.modified)
    if page.status == 200:
        inm = headers.get("if-none-match")
        if etag_matches(inm, page.etag) or (
            inm is None and modified_since(headers.get("if-modified-since"), page.modified)
        ):
            return Response(status_code=304, headers=out)
    return Response(page.body, page.status, headers=out, media_type=page.media_type)


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
