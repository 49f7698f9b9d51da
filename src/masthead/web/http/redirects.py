"""Every redirect the site makes, and the canonical form of a request path.

`location(path, query)` builds each `Location` header: always a root-relative path on this
origin, whatever it is given. Browsers read a `Location` by the WHATWG URL Standard
(https://url.spec.whatwg.org/#concept-basic-url-parser): tabs and newlines are dropped, a
backslash counts as a slash in http(s) URLs, and `//host/...` names another host. So the path is
cleaned of control characters and backslashes, its slashes are collapsed, and whatever is left is
percent-encoded (RFC 3986 §2.1); an existing `%XX` escape is kept, which a browser never reads
as a slash.

`CanonicalPaths` is the pure ASGI middleware that answers a GET or HEAD for a non-canonical path
(`//posts/x/`, `/posts//x/`, `/posts/./x/`, `/posts/x/index.html`, Hugo's old `/posts/x/index`)
with a 301 to its canonical form, the query kept.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from starlette.responses import RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from masthead.content.urls import canonical_path

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_SLASHES = re.compile(r"/{2,}")
_STRAY_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
# RFC 3986 pchar minus "%" handling below; "/" separates segments
_PATH_SAFE = "/:@!$&'()*+,;=-._~%"
_QUERY_SAFE = _PATH_SAFE + "?"


def location(path: str, query: str = "") -> str:
    """The `Location` for a redirect to `path` (a URL path, percent-encoded or not) with `query`
    (the raw query string, without `?`). The result is a root-relative path on this origin: it
    starts with exactly one `/`, and holds only printable ASCII with no backslash. Never raises."""
    clean = _CONTROL.sub("", path).replace("\\", "/")
    clean = _SLASHES.sub("/", "/" + clean)
    out = _STRAY_PERCENT.sub("%25", quote(clean, safe=_PATH_SAFE, errors="replace"))
    query = _STRAY_PERCENT.sub(
        "%25", quote(_CONTROL.sub("", query), safe=_QUERY_SAFE, errors="replace")
    )
    return out + ("?" + query if query else "")


def redirect(path: str, query: str = "", status: int = 301) -> Response:
    """A redirect (301 by default) to `path` on this origin; see `location`."""
    return RedirectResponse(location(path, query), status_code=status)


def encode_path(decoded: str) -> str:
    """Percent-encode a decoded path (a literal `%` too), keeping its slashes."""
    return quote(decoded, safe="/:@!$&'()*+,;=-._~", errors="replace")


class CanonicalPaths:
    """Pure ASGI middleware: a GET or HEAD for a path that is not in canonical form is answered
    with a 301 to the canonical path on this origin (the query string kept). Other methods pass
    through untouched (a redirect would turn a POST into a GET)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in ("GET", "HEAD"):
            path = scope["path"]
            canonical = canonical_path(path)
            if canonical != path:
                query = scope.get("query_string", b"").decode("latin-1")
                await redirect(encode_path(canonical), query)(scope, receive, send)
                return
        await self.app(scope, receive, send)
