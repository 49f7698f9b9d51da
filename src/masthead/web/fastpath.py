"""The fast path: cache hits answered in pure ASGI, in front of everything else.

A GET or HEAD with no query string, for a path whose page the router has cached and remembered
(`SiteState.remember`), is answered here when that page is still current (`SiteState.hit`: one
`os.stat` of the change signal and a clock comparison): a 200 with the body in the negotiated
coding, or a 304, with the headers `conditional.choose` prepared for the page and the security
headers (web/security.py). So a hit runs no routing, no FastAPI dependency machinery, no
thread-pool hop and no SQL. Everything else goes on to the app unchanged; a miss renders through
the router, which fills the cache. Not installed under `--dev` (pages there are never stale).
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette.applications import Starlette
from starlette.types import ASGIApp, Receive, Scope, Send

from masthead.web.conditional import choose
from masthead.web.state import SiteState

_WANTED = (b"accept-encoding", b"if-none-match", b"if-modified-since")


class FastPath:
    """Pure ASGI middleware answering current cache hits of `state`; `headers` (name, value)
    are added to every response it sends (the security headers)."""

    def __init__(self, app: ASGIApp, state: SiteState, headers: Sequence[tuple[str, str]]):
        self.app = app
        self.state = state
        self.headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and scope["method"] in ("GET", "HEAD")
            and not scope.get("query_string")
        ):
            page = self.state.hit(scope["path"])
            if page is not None:
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
                headers = ready.not_modified if status == 304 else ready.ok
                await send(
                    {
                        "type": "http.response.start",
                        "status": status,
                        "headers": headers + self.headers,
                    }
                )
                empty = status == 304 or scope["method"] == "HEAD"
                await send({"type": "http.response.body", "body": b"" if empty else ready.body})
                return
        await self.app(scope, receive, send)


def install(app: Starlette, state: SiteState, headers: Sequence[tuple[str, str]]) -> None:
    """Put `FastPath` outermost around `app`'s whole stack (call after `security.install`)."""
    build = app.build_middleware_stack

    def build_with_fast_path() -> ASGIApp:
        return FastPath(build(), state, headers)

    app.build_middleware_stack = build_with_fast_path  # type: ignore[method-assign]
