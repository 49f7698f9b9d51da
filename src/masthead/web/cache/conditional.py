"""Conditional requests (RFC 9110 §13) and content codings: the one way a cached page
(`web.state.Page`) becomes a response.

`choose` decides, from a request's `Accept-Encoding`, `If-None-Match` and `If-Modified-Since`,
which coding of the page is sent (web/cache/encoding.py) and whether as a 200 or a 304, and gives
the headers prepared for it (`Variant`, built once per page and coding by `variant`): Content-Type,
Content-Length, a strong ETag per coding (`"<hash>"` for identity, `"<hash>-gzip"`,
`"<hash>-br"`), Cache-Control, `Vary: Accept-Encoding`, Content-Encoding, Last-Modified when the
page has one, and the page's own headers. `conditional_response` wraps the choice in a Starlette
response for the router; the fast path (web/cache/fastpath.py) sends the same prepared headers
itself.

`etag_matches` reads `If-None-Match`, `modified_since` reads `If-Modified-Since` (only when there
is no `If-None-Match`, RFC 9110 §13.2.2), and `http_date` writes the `Last-Modified` date. A 304
carries the validators and caching headers a 200 would (§15.4.5), never a body.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import format_datetime, parsedate_to_datetime

from starlette.datastructures import Headers
from starlette.responses import Response

from masthead.web.cache.encoding import negotiate
from masthead.web.cache.state import Page

Raw = list[tuple[bytes, bytes]]


@dataclass(frozen=True)
class Variant:
    """One coding of a page: its body, ETag and the raw (lower-case, latin-1) headers of its
    200 (`ok`) and of its 304 (`not_modified`)."""

    coding: str
    body: bytes
    etag: str
    ok: Raw
    not_modified: Raw


def variant(page: Page, coding: str) -> Variant:
    """The prepared `coding` of `page` (one of `page.bodies`), built on first use and kept."""
    ready: Variant | None = page.prepared.get(coding)
    if ready is not None:
        return ready
    body = page.bodies[coding]
    etag = page.etag if coding == "identity" else f'{page.etag[:-1]}-{coding}"'
    shared = [("etag", etag), ("cache-control", page.cache_control), ("vary", "Accept-Encoding")]
    if page.modified is not None:
        shared.append(("last-modified", http_date(page.modified)))
    shared += [(name.lower(), value) for name, value in page.headers]
    ok = [("content-type", page.media_type), ("content-length", str(len(body))), *shared]
    if coding != "identity":
        ok.append(("content-encoding", coding))
    ready = Variant(coding, body, etag, _raw(ok), _raw(shared))
    page.prepared[coding] = ready
    return ready


def choose(
    page: Page,
    accept_encoding: str | None,
    if_none_match: str | None,
    if_modified_since: str | None,
) -> tuple[int, Variant]:
    """The status (the page's own, or 304 when a 200 page is current for the client) and the
    prepared coding to send, for a request with these header values (None: not sent)."""
    ready = variant(page, negotiate(accept_encoding, page.codings))
    if page.status == 200 and (
        etag_matches(if_none_match, ready.etag)
        or (if_none_match is None and modified_since(if_modified_since, page.modified))
    ):
        return 304, ready
    return page.status, ready


def conditional_response(headers: Headers, page: Page) -> Response:
    """`page` as a response to a request with `headers` (see `choose`)."""
    status, ready = choose(
        page,
        headers.get("accept-encoding"),
        headers.get("if-none-match"),
        headers.get("if-modified-since"),
    )
    response = Response(status_code=status)
    response.body = b"" if status == 304 else ready.body
    response.raw_headers = list(ready.not_modified if status == 304 else ready.ok)
    return response


def _raw(headers: list[tuple[str, str]]) -> Raw:
    return [(name.encode("latin-1"), value.encode("latin-1")) for name, value in headers]


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
    `modified`; False for a missing, unparsable (a year of 12 digits) or zone-less date."""
    if not header or modified is None:
        return False
    try:
        since = parsedate_to_datetime(header)
    except (TypeError, ValueError, OverflowError):  # a year past C's int: not a date either
        return False
    if since.tzinfo is None:
        return False
    return int(modified.timestamp()) <= since.timestamp()
