"""Content codings (RFC 9110 §8.4): bodies compressed once, and `Accept-Encoding` negotiated.

`compress(body)` gives the identity body and its gzip (RFC 1952) and brotli (RFC 7932) forms,
made once when a page is cached; a coding that would not be smaller is left out. Brotli quality 5
and gzip level 6: on the demo post (15.7 KB) and a Kubernetes corpus post (37.6 KB) brotli 5
takes about 0.7 to 1 ms for 30% and 19.5% of the size, quality 11 some 30 to 65 ms for 26% and
17%; gzip 9 is no smaller than 6. Every miss pays it, so the cheap level wins.

`negotiate(header, available)` picks the coding for a request's `Accept-Encoding`
(RFC 9110 §12.5.3): the highest q-value wins, ties go to the order of `available` (brotli,
gzip, identity); q=0 refuses a coding; `*` stands for every coding not named; identity is
acceptable unless refused (`identity;q=0`, or `*;q=0` without it) and, when not named, comes
after every coding the client named; no header at all means no
preference, answered with identity; when nothing offered is acceptable, identity is sent anyway
(§12.5.3 allows it). `x-gzip` is gzip (§8.4.1.3). A malformed q-value drops its element.
"""

from __future__ import annotations

import gzip
import re
from functools import lru_cache

import brotli

CODINGS = ("br", "gzip", "identity")  # the server's preference on equal q-values
BROTLI_QUALITY = 5
GZIP_LEVEL = 6
MEMO_LENGTH = 200  # characters of an Accept-Encoding value worth remembering
IMPLIED = 0.0001  # identity's weight when not named: under the lowest q-value, 0.001
_QVALUE = re.compile(r"^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$")  # RFC 9110 §12.4.2


def compress(body: bytes) -> dict[str, bytes]:
    """`{"identity": body, "gzip": …, "br": …}`, a compressed coding only when it is smaller.
    gzip bodies carry no timestamp (mtime 0), so the same body always gives the same bytes."""
    out = {"identity": body}
    compressed = {
        "br": brotli.compress(body, quality=BROTLI_QUALITY, mode=brotli.MODE_TEXT),
        "gzip": gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0),
    }
    out.update({name: data for name, data in compressed.items() if len(data) < len(body)})
    return out


def negotiate(header: str | None, available: tuple[str, ...] = CODINGS) -> str:
    """The coding of `available` (names as in `CODINGS`) to answer `Accept-Encoding: header`
    with (None: no such header). Never raises. Usual headers are remembered (a bounded memo of
    short values: a hostile long header is parsed, not kept)."""
    if header is not None and len(header) > MEMO_LENGTH:
        return _negotiate(header, available)
    return _remembered(header, available)


@lru_cache(maxsize=256)
def _remembered(header: str | None, available: tuple[str, ...]) -> str:
    return _negotiate(header, available)


def _negotiate(header: str | None, available: tuple[str, ...]) -> str:
    if header is None:
        return "identity"
    named: dict[str, float] = {}
    for element in header.split(","):
        coding, *params = (part.strip() for part in element.split(";"))
        coding = coding.lower()
        if not coding:
            continue
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                value = value.strip()
                q = float(value) if _QVALUE.match(value) else -1.0
        if q < 0:
            continue  # malformed: as if not sent
        named.setdefault("gzip" if coding == "x-gzip" else coding, q)
    star = named.get("*")

    def weight(coding: str) -> float:
        if coding in named:
            return named[coding]
        if coding == "identity":  # acceptable unless refused, below any coding asked for
            return 0.0 if star == 0 else IMPLIED
        return star or 0.0

    best = max(available, key=lambda c: (weight(c), -available.index(c)))
    return best if weight(best) > 0 else "identity"
