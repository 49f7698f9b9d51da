"""Error responses: an HTML page in the language of the path (`error.html`), under `/guanli/`
the dashboard's own (`guanli.error_page`: in its frame, or what it shows without a session), or
under `/api/` one JSON shape `{"error": {"status", "message"}}`. A 404 for a path that has moved
(a post's alias, or the same path without its trailing slash; never under `/guanli/`) is a 301
to where it lives now, as is an old WordPress archive or feed URL (`wordpress_urls`); one for a
file of the site's `static/` folder serves that file, as Hugo serves `static/` at the root."""

from __future__ import annotations

import logging
from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from masthead.config import Language
from masthead.errors import HTTPError
from masthead.store import posts as store
from masthead.web import wordpress_urls
from masthead.web.cache.state import SiteState
from masthead.web.http.forms import CUT_SHORT
from masthead.web.http.media import Files
from masthead.web.http.redirects import encode_path, redirect
from masthead.web.routes import guanli, moved_with_query, renderer, site_state

log = logging.getLogger(__name__)


def install(app: FastAPI) -> None:
    app.add_exception_handler(StarletteHTTPException, starlette_error)  # type: ignore[arg-type]
    app.add_exception_handler(HTTPError, masthead_error)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, invalid)  # type: ignore[arg-type]
    app.add_exception_handler(ClientDisconnect, cut_short)
    app.add_exception_handler(Exception, crashed)


async def starlette_error(request: Request, exc: StarletteHTTPException) -> Response:
    return http_error(request, exc.status_code, str(exc.detail))


async def masthead_error(request: Request, exc: HTTPError) -> Response:
    return http_error(request, exc.status, exc.message)


async def invalid(request: Request, exc: RequestValidationError) -> Response:
    first = exc.errors()[0] if exc.errors() else {}
    where = ".".join(str(p) for p in first.get("loc", ()))
    status = 422 if request.url.path.startswith("/api/") else 400
    return error_response(request, status, f"{where}: {first.get('msg', 'invalid')}")


async def cut_short(request: Request, exc: Exception) -> Response:
    """A body the server ended early (malformed chunked encoding), read by any route: a 400."""
    return error_response(request, 400, CUT_SHORT)


async def crashed(request: Request, exc: Exception) -> Response:
    log.exception("error serving %s", request.url.path)
    return error_response(request, 500, "internal error")


def http_error(request: Request, status: int, message: str) -> Response:
    if status == 404 and not guanli.is_dashboard(request.url.path):
        state = site_state(request)
        old = moved_with_query(state, request.url.path, request.url.query)
        if old:  # an old URL with its query (`/index.php?p=12`): the new URL as it is
            return redirect(old)
        moved = _moved(request.url.path, state)
        if moved:
            return redirect(moved, request.url.query)
        archive = wordpress_urls.target(request.url.path, state)
        if archive:  # an imported blog's `/category/x/`, `/2024/05/`, `/feed/`
            return redirect(archive)
        found = _static_file(request)
        if found is not None:
            return found
    return error_response(request, status, message)


def _static_file(request: Request) -> Response | None:
    """A file of the site's `static/` folder at the path no page or route has, as Hugo serves
    it (`/images/x.png`, `/docs/` from `static/docs/index.html`); None if there is none. After
    the routes: a page, a feed or masthead's own paths always win (`masthead check` names a
    file they hide)."""
    if request.method not in ("GET", "HEAD") or request.url.path.startswith("/api/"):
        return None
    files: Files | None = getattr(request.app.state, "root_files", None)
    return None if files is None else files.respond(request.scope["path"], request.scope)


def error_response(request: Request, status: int, message: str) -> Response:
    path = request.url.path
    if path.startswith("/api/"):
        return JSONResponse({"error": {"status": status, "message": message}}, status)
    if guanli.is_dashboard(path):
        try:
            return guanli.error_page(request, status, message)
        except Exception:  # the dashboard cannot answer (its database?): the plain page
            log.exception("the dashboard's error page failed for %s", path)
    html, _ = renderer(request).error(_language_of(request, path), status, message, path)
    return Response(html, status, media_type="text/html; charset=utf-8")


def _language_of(request: Request, path: str) -> Language:
    site = site_state(request).site
    first = path.strip("/").split("/")[0]
    for lang in site.languages.values():
        if lang.prefix and lang.prefix == first:
            return lang
    return site.default_language


def _moved(path: str, state: SiteState) -> str | None:
    """Where a 404 path (decoded) has moved, as a URL path: an alias of a post, or the same path
    with a trailing slash."""
    slashed = path if path.endswith("/") else path + "/"
    # stored aliases and URLs are percent-encoded as `quote` writes them (content.post)
    target = store.alias_target(state.db.read(), quote(slashed), state.now())
    if target:
        return target
    last = path.rsplit("/", 1)[-1]
    # file and API URLs have no trailing slash
    files = path.startswith(("/static/", "/media/", "/api/")) or path == "/healthz"
    if not path.endswith("/") and "." not in last and not files:
        return encode_path(slashed)  # `path` is decoded: a literal % must stay one
    return None
