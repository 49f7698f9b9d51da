"""Pages fetched from the app without a server: the endpoint a URL routes to, called directly.

`Client` sends a GET through the whole ASGI app, as a server would: middleware, FastAPI's router
and dependency machinery, and a hop to a worker thread for every (synchronous) endpoint. A build
asks for thousands of pages, so `Direct` finds the route the app would choose (its own routes,
in their order, each asked whether it matches, as Starlette's router does) and calls the page,
feed and sitemap endpoints in this thread, with the request the router would have made. They
answer through the same `respond` and renderer as when serving, so the bytes are the same.
A file of a `Files` mount (static and media files, share cards, thumbnails) is found by that
mount's own lookup and read as it sends it. Anything else (another mount, an asynchronous
endpoint, a path not in canonical form, a query string, an endpoint that raises, such as a 404)
goes through `Client`, which answers as the app does.

Besides the body, `Direct` says which comments the page shows (`Page.mark`: () for none, one
thread, or every thread), which the build's manifest keeps (export/state.py).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.responses import FileResponse
from starlette.routing import Match, Mount

from masthead.content.urls import canonical_path
from masthead.export.client import Client
from masthead.web.cache.state import SITE, SiteState
from masthead.web.http.media import Files

# the modules whose endpoints answer with `respond` (a cached page) and may be called directly
DIRECT_MODULES = frozenset(
    {
        "masthead.web.routes.pages",
        "masthead.web.routes.seo",
        "masthead.web.routes.comment_feeds",
        "masthead.web.routes.series",
    }
)


@dataclass(frozen=True)
class Answer:
    """A response: its status, body and the comments it shows (`mark`, `Page.mark` without
    the version: `()`, `("thread", KEY)` or `("site",)`)."""

    status: int
    body: bytes
    mark: tuple[str, ...] = ()


def _flat(routes: list[Any]) -> Iterator[Any]:
    """The app's routes in the order its router tries them, the routes of each included router
    in its place (FastAPI keeps an included router whole: `original_router`). An included
    router with a prefix or dependencies stays whole (its routes are then not called directly)."""
    for route in routes:
        inner = getattr(route, "original_router", None)
        context = getattr(route, "include_context", None)
        plain = context is not None and not context.prefix and not context.dependencies
        if inner is not None and plain:
            yield from _flat(inner.routes)
        else:
            yield route


class Direct:
    """GET requests answered by calling the app's page endpoints (see the module)."""

    def __init__(self, app: Any, client: Client) -> None:
        self.app = app
        self.client = client
        self.state: SiteState = app.state.masthead
        self.routes = list(_flat(app.router.routes))
        # each route with its path pattern (None: asked by `matches` alone), read once
        self._patterns = [(getattr(r, "path_regex", None), r) for r in self.routes]

    async def get(self, url: str) -> Answer:
        """The answer to GET `url` (root-relative, percent-encoded)."""
        parts = urlsplit(url)
        path = unquote(parts.path)
        if not parts.query and canonical_path(path) == path:
            answer = self._direct(url, path)
            if answer is not None:
                return answer
        status, body = await self.client.get(url)
        # not known to show no comments: fetched again whenever any comment changes
        return Answer(status, body, SITE)

    def _direct(self, url: str, path: str) -> Answer | None:
        scope = self.client.scope(url)
        scope["app"] = self.app
        for pattern, route in self._patterns:
            # a route of a path pattern matches nothing its pattern does not (Starlette's
            # `matches` starts with the same test): the dearer `matches` only where it may
            if pattern is not None and not pattern.match(path):
                continue
            match, child = route.matches(scope)
            if match == Match.FULL:
                break
            if match != Match.NONE:
                return None
        else:
            return None
        if isinstance(route, Mount) and isinstance(route.app, Files):
            scope.update(child)
            return self._file(route.app, scope)
        endpoint = getattr(route, "endpoint", None)
        if (
            not isinstance(route, APIRoute)
            or endpoint is None
            or endpoint.__module__ not in DIRECT_MODULES
            or inspect.iscoroutinefunction(endpoint)
        ):
            return None
        scope.update(child)
        try:
            response = endpoint(Request(scope), **child.get("path_params", {}))
        except Exception:  # a 404, say: the app's own exception handlers answer it
            return None
        page = self.state.remembered(path)
        mark = tuple(page.mark[:-1]) if page is not None else SITE
        return Answer(response.status_code, bytes(response.body), mark)

    def _file(self, files: Files, scope: dict[str, Any]) -> Answer | None:
        """A file a `Files` mount serves (static and media files, share cards, thumbnails),
        found by the mount's own lookup (`Files.respond`: what it refuses, it refuses here):
        the file's bytes, as the mount sends them; None for anything else (a folder, a
        redirect), which the app answers."""
        try:
            response = files.respond(files.get_path(scope), scope)
        except (OSError, ValueError):
            return None
        if response is None or response.status_code != 200:
            return None
        if isinstance(response, FileResponse):
            try:
                return Answer(200, Path(response.path).read_bytes())
            except OSError:
                return None  # gone since: the app says what it says now
        return Answer(200, bytes(response.body))
