"""The fast path: cache hits answered in pure ASGI, in front of everything else.

A GET or HEAD with no query string, for a path whose page the router has cached and remembered
(`SiteState.remember`), is answered here when that page is still current (`SiteState.hit`: one
`os.stat` of the change signal and a clock comparison): a 200 with the body in the negotiated
coding, or a 304, with the headers `conditional.choose` prepared for the page and the security
headers (web/http/security.py). So a hit runs no routing, no FastAPI dependency machinery, no
thread-pool hop and no SQL. Everything else goes on to the app unchanged; a miss renders through
the router, which fills the cache. Not installed under `--dev` (pages there are never stale).
Requests with a query string may be answered by a handler registered for their path (`queries`:
the plain `/api/search` searches and search pages, web/routes/search.py), which says whether it
answered.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from fastapi import FastAPI
from starlette.types import Receive, Scope, Send

from masthead.web.cache.conditional import choose
from masthead.web.cache.state import Page, SiteState
from masthead.web.http.media import Files

_WANTED = (b"accept-encoding", b"if-none-match", b"if-modified-since")
# a handler for requests with a query string: (scope, send, shared headers) -> answered
Handler = Callable[[Scope, Send, list[tuple[bytes, bytes]]], Awaitable[bool]]


class FastPath:
    """Answers current cache hits of `state`; `headers` (name, value) are added to every
    response it sends (the security headers)."""

    def __init__(
        self,
        state: SiteState,
        headers: Sequence[tuple[str, str]],
        statics: Files | None = None,
        queries: dict[str, Handler] | None = None,
    ) -> None:
        self.state = state
        self.statics = statics  # the /static/ mount: its in-memory text files answer here too
        self.headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]
        self.queries = queries or {}  # path -> handler of requests with a query string

    def lookup(self, path: str) -> Page | None:
        """The current page for `path`: a cached page, or a /static/ text file held in memory."""
        page = self.state.hit(path)
        if page is None and self.statics is not None and path.startswith("/static/"):
            page = self.statics.hit(path)
        return page

    def shared_headers(self, page: Page) -> list[tuple[bytes, bytes]]:
        """The shared headers `page` does not set itself (an SVG's own sandbox CSP wins)."""
        if not page.headers:
            return self.headers
        own = {name.lower().encode("latin-1") for name, _ in page.headers}
        return [(k, v) for k, v in self.headers if k not in own]

    async def answer(self, scope: Scope, send: Send) -> bool:
        """Send the response to `scope` if it is a current cache hit; whether it was."""
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD"):
            return False
        if scope.get("query_string"):
            handler = self.queries.get(scope["path"])
            return handler is not None and await handler(scope, send, self.headers)
        page = self.lookup(scope["path"])
        if page is None:
            return False
        found: dict[bytes, str] = {}
        for name, value in scope["headers"]:  # names are lower-case in ASGI
            if name in _WANTED and name not in found:
                found[name] = value.decode("latin-1")
        status, ready = choose(
            page,
            found.get(b"accept-encoding"),
            found.get(b"if-none-match"),
            found.get(b"if-modified-since"),
        )
        headers = (ready.not_modified if status == 304 else ready.ok) + self.shared_headers(page)
        start = {"type": "http.response.start", "status": status, "headers": headers}
        await send(start)
        empty = status == 304 or scope["method"] == "HEAD"
        await send({"type": "http.response.body", "body": b"" if empty else ready.body})
        return True


class App(FastAPI):
    """The site's FastAPI app, with the fast path (`install`) in front of all it does per
    request: FastAPI's own checks, then Starlette's middleware stack and router."""

    fast_path: FastPath | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        fast = self.fast_path
        if fast is not None and await fast.answer(scope, send):
            return
        await super().__call__(scope, receive, send)


def install(
    app: App,
    state: SiteState,
    headers: Sequence[tuple[str, str]],
    statics: Files | None = None,
    queries: dict[str, Handler] | None = None,
) -> None:
    """Answer `app`'s current cache hits (and `statics`' in-memory files, and what the
    `queries` handlers answer) before anything else, with `headers` added."""
    app.fast_path = FastPath(state, headers, statics, queries)
