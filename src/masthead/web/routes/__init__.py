"""The site's routes, one module per area, each endpoint a module-level function.

`pages` (home, pagination, posts, pages, archive, taxonomies, the permalink catch-all, `/_ref/`),
`seo` (feeds, sitemaps, robots.txt), `search` (search pages and `/api/search`), `ops`
(`/healthz`, highlight.css, the `--dev` reload stream). Endpoints read what every request shares
from `request.app.state` (`masthead`: the SiteState, `renderer`, `search`); a route registered
for one language carries it in its name (`add`, `bound`), so one function serves every language.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.convertors import Convertor, register_url_convertor

from masthead.config import Language
from masthead.content.post import query_alias
from masthead.store import posts as store
from masthead.web.cache.conditional import conditional_response
from masthead.web.cache.state import HTML, SiteState
from masthead.web.render.renderer import Renderer

EVERY_LANGUAGE = "*"  # the code in a route name for the feeds of all languages together


class PageNumber(Convertor[int]):
    """`{n:pageno}`: a list page number, 1 to 999,999,999 with no leading zero. Larger numbers
    do not match the route (a 404), so none reaches SQLite's 64-bit integers."""

    regex = "[1-9][0-9]{0,8}"

    def convert(self, value: str) -> int:
        return int(value)

    def to_string(self, value: int) -> str:
        return str(value)


register_url_convertor("pageno", PageNumber())


def add(router: APIRouter, path: str, endpoint: Callable[..., Any], *bound: str) -> None:
    """Route GET and HEAD of `path` to `endpoint`, outside the OpenAPI schema; `bound` (a
    language code first, then e.g. a taxonomy) is kept in the route's name for `bound`."""
    name = "/".join((endpoint.__name__, *bound))
    router.add_api_route(
        path, endpoint, methods=["GET", "HEAD"], include_in_schema=False, name=name
    )


def bound(request: Request) -> list[str]:
    """What the matched route was registered with by `add` (a language code, ...)."""
    return str(request.scope["route"].name).split("/")[1:]


def moved_with_query(state: SiteState, path: str, query: str) -> str | None:
    """Where an old URL with a query string (WordPress's `/?p=12`, `/?page_id=3`, in a post's
    `aliases`) has moved, or None: only an alias that names this very query matches."""
    if not query:
        return None
    slashed = path if path.endswith("/") else path + "/"
    key = quote(slashed) + "?" + query_alias(query)
    return store.alias_target(state.db.read(), key, state.now())


def language(request: Request) -> Language:
    """The language the matched route serves."""
    return site_state(request).site.languages[bound(request)[0]]


def site_state(request: Request) -> SiteState:
    state: SiteState = request.app.state.masthead
    return state


def renderer(request: Request) -> Renderer:
    rendering: Renderer = request.app.state.renderer
    return rendering


def respond(
    request: Request,
    key: tuple,
    render: Callable[[], tuple[str, int]],
    media_type: str = HTML,
    modified: Callable[[], datetime | None] | None = None,
) -> Response:
    """The cached page for `key` (rendered by `render` on a miss, see `SiteState.cached`) as
    a conditional response to `request`. Outside `--dev` the page is remembered under the
    request path, for the fast path (web/cache/fastpath.py), when the request has no query
    string."""
    state = site_state(request)
    page = state.cached(key, render, media_type, modified)
    if not state.dev and not request.scope.get("query_string"):
        state.remember(request.scope["path"], page)
    return conditional_response(request.headers, page)
