"""Operations: `/healthz` (liveness, in the OpenAPI schema), `/static/css/highlight.css`
(Pygments token colours) and, under `--dev`, `/_dev/reload` (the live-reload stream)."""

from __future__ import annotations

import os
import time
from dataclasses import asdict
from functools import lru_cache
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response, StreamingResponse
from pygments.formatters import HtmlFormatter

from masthead.config import Site
from masthead.replica import state as replica_state
from masthead.replica.litestream import redacted_url
from masthead.store import posts as store
from masthead.web.cache.conditional import conditional_response
from masthead.web.cache.state import Page
from masthead.web.http.media import STATIC_CACHE
from masthead.web.render.contrast import readable_css
from masthead.web.routes import add, site_state


def router(dev: bool) -> APIRouter:
    routes = APIRouter()
    routes.add_api_route("/healthz", healthz, methods=["GET"], tags=["ops"])
    routes.add_api_route("/healthz", healthz, methods=["HEAD"], include_in_schema=False)
    add(routes, "/static/css/highlight.css", static_highlight)
    if dev:
        add(routes, "/_dev/reload", dev_reload)
    return routes


def healthz(request: Request) -> dict[str, Any]:
    """Liveness: the database answers; reports the index generation, the worker's pid, the
    server interface it is served over (`asgi`, or `rsgi` under granian: web/cache/rsgi.py) and,
    for a replicated site, the replica's state (replica/state.py: status ok, behind, ...; the
    replicated position and its age; never a credential)."""
    site = site_state(request).site
    conn = site_state(request).db.read()
    watcher = getattr(request.app.state, "watcher", None)
    return {
        "status": "ok",
        "pid": os.getpid(),  # which worker answered (`serve --workers N`)
        "interface": getattr(request.app.state, "interface", "asgi"),
        "generation": store.generation(conn),
        "posts": store.count_posts(conn),
        "watch": asdict(watcher.stats) if watcher else None,
        "replica": replica_summary(site) if site.replicated else None,
    }


def replica_summary(site: Site) -> dict[str, Any]:
    """The replica's state for `/healthz` and the dashboard (replica/state.py)."""
    replica = site.settings.replica
    url = redacted_url(replica.url or "")
    return replica_state.summary(
        replica_state.load(site.database_path), url, replica.sync_interval, time.time()
    )


CODE_BG_LIGHT = "#f4f1ea"  # site.css --code-bg, light and dark: what code is read on
CODE_BG_DARK = "#201f1c"


# Where the dark token colours apply: the system's dark mode unless the reader chose light, and
# the reader's dark choice (static/js/theme.js sets data-theme); on screen only, so a page
# printed from a dark screen gets the light colours on white paper.
DARK_BY_SYSTEM = "@media screen and (prefers-color-scheme: dark)", 'html:not([data-theme="light"])'
DARK_BY_CHOICE = "@media screen", 'html[data-theme="dark"]'


def _scoped(css: str, scope: str) -> str:
    """`css` with every `.highlight` rule's selector put under `scope`."""
    return "\n".join(
        f"{scope} {line}" if line.startswith(".highlight") else line for line in css.splitlines()
    )


@lru_cache(maxsize=1)
def highlight_css() -> str:
    """Pygments token colours for light and dark mode (the system setting, or the reader's
    choice), each made to reach WCAG's 4.5:1 on the code background of its mode
    (web/render/contrast.py)."""
    light = readable_css(
        HtmlFormatter(style="friendly").get_style_defs(".highlight"), CODE_BG_LIGHT
    )
    dark = readable_css(
        HtmlFormatter(style="github-dark").get_style_defs(".highlight"), CODE_BG_DARK
    )
    blocks = [light]
    for media, scope in (DARK_BY_SYSTEM, DARK_BY_CHOICE):
        blocks.append(f"{media} {{\n{_scoped(dark, scope)}\n}}")
    return "\n".join(blocks) + "\n"


@lru_cache(maxsize=1)
def _highlight_page() -> Page:
    css = highlight_css().encode("utf-8")
    return Page.make(css, media_type="text/css; charset=utf-8", cache_control=STATIC_CACHE)


def static_highlight(request: Request) -> Response:
    """The token colours, compressed once, with an ETag (a 304 when unchanged)."""
    return conditional_response(request.headers, _highlight_page())


async def dev_reload(request: Request) -> StreamingResponse:
    """The `--dev` live-reload stream (web/reload.py)."""
    return await request.app.state.reloader.endpoint(request)
