"""CORS for `/api/` only (Fetch Standard, https://fetch.spec.whatwg.org/#http-cors-protocol).

An exported site on a CDN (`masthead build`, the `api_url` setting) calls a running masthead's
JSON API from its own origin. `allowed_origins` lists the origins that may: Starlette's
`CORSMiddleware` answers their preflights and adds `Access-Control-Allow-Origin` (with
`Vary: Origin`) for them alone; any other origin gets no CORS header at all (a preflight from it
is a 400), so its scripts cannot read the answer. No credentials are allowed: the API needs no
cookie. Pages, feeds and files outside `/api/` never carry CORS headers.
"""

from __future__ import annotations

from collections.abc import Sequence

from fastapi import FastAPI
from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

METHODS = ("GET", "POST", "PATCH", "DELETE")  # search reads; comments post, edit and delete
HEADERS = ("Content-Type", "Authorization", "X-CSRF-Token")  # JSON; edit tokens; script forms
MAX_AGE = 600  # seconds a browser may cache a preflight answer


class ApiCors:
    """Pure ASGI middleware: requests under `/api/` go through `CORSMiddleware` limited to
    `origins`; every other request goes straight to `app`."""

    def __init__(self, app: ASGIApp, origins: Sequence[str]) -> None:
        self.app = app
        self.cors = CORSMiddleware(
            app,
            allow_origins=list(origins),
            allow_methods=list(METHODS),
            allow_headers=list(HEADERS),
            allow_credentials=False,
            max_age=MAX_AGE,
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith("/api/"):
            await self.cors(scope, receive, send)
        else:
            await self.app(scope, receive, send)


def install(app: FastAPI, origins: Sequence[str]) -> None:
    """Add `ApiCors` for `origins` (the validated `allowed_origins` setting) to `app`; nothing
    when the list is empty (no origin but the site's own may read the API)."""
    if origins:
        app.add_middleware(ApiCors, origins=origins)
