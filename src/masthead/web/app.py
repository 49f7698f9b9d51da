"""`create_app(site)`: the ASGI application serving a site.

URL scheme (DESIGN.md): `/`, `/page/N/`, `/posts/SLUG/`, `/SLUG/` (pages), `/tags/KEY/`,
`/categories/KEY/`, `/archive/` for the default language, the same under `/PREFIX/` for the
others; `/static/…` (site files over the package's), `/media/…` (files beside posts, media types
only: web/media.py), `/healthz`. Every response carries the security headers (web/security.py);
non-canonical paths and every redirect stay on this origin (web/redirects.py).
HTML routes are left out of the OpenAPI schema. Errors render `{status}.html`-style pages, or one
JSON shape `{"error": {"status", "message"}}` under `/api/`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from jinja2 import ChoiceLoader, Environment, FileSystemLoader, PackageLoader, select_autoescape
from pygments.formatters import HtmlFormatter
from starlette.convertors import Convertor, register_url_convertor
from starlette.exceptions import HTTPException as StarletteHTTPException

import masthead
from masthead.config import Language, Site
from masthead.content import urls
from masthead.errors import HTTPError, NotFound
from masthead.indexer import index_site
from masthead.search.service import SearchService
from masthead.store import posts as store
from masthead.store.db import Database
from masthead.watch import Watcher
from masthead.web import cors, security, seo_routes
from masthead.web import search as search_routes
from masthead.web.conditional import conditional_response
from masthead.web.media import MEDIA_TYPES, STATIC_CACHE, Files
from masthead.web.redirects import CanonicalPaths, encode_path, redirect
from masthead.web.reload import Reloader
from masthead.web.state import SiteState
from masthead.web.views import TAXONOMIES, Renderer

log = logging.getLogger(__name__)
PACKAGE_STATIC = Path(__file__).parent / "static"
HTML_CACHE = "public, max-age=0, must-revalidate"


class PageNumber(Convertor[int]):
    """`{n:pageno}`: a list page number, 1 to 999,999,999 with no leading zero. Larger numbers
    do not match the route (a 404), so none reaches SQLite's 64-bit integers."""

    regex = "[1-9][0-9]{0,8}"

    def convert(self, value: str) -> int:
        return int(value)

    def to_string(self, value: int) -> str:
        return str(value)


register_url_convertor("pageno", PageNumber())


@lru_cache(maxsize=1)
def highlight_css() -> str:
    """Pygments token colours for light and (by the system setting) dark mode."""
    light = HtmlFormatter(style="friendly").get_style_defs(".highlight")
    dark = HtmlFormatter(style="github-dark").get_style_defs(".highlight")
    return f"{light}\n@media (prefers-color-scheme: dark) {{\n{dark}\n}}\n"


def _templates(site: Site) -> Environment:
    loaders: list[Any] = []
    site_templates = site.root / site.settings.templates_dir
    if site_templates.is_dir():
        loaders.append(FileSystemLoader(site_templates))
    loaders.append(PackageLoader("masthead.web", "templates"))
    env = Environment(
        loader=ChoiceLoader(loaders),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["version"] = masthead.__version__
    return env


def create_app(
    site: Site,
    *,
    dev: bool = False,
    index: bool = True,
    clock: Callable[[], float] = time.time,
    watch: bool = False,
) -> FastAPI:
    """Build the app for `site`. With `index=True` the index is brought up to date first
    (incremental: unchanged files are not parsed again). `clock` gives seconds since the epoch
    (posts dated after it are not yet published). With `watch=True` a watcher re-indexes changed
    files while the app runs; with `dev=True` too, open pages reload themselves after a change
    (Server-Sent Events at /_dev/reload; production pages carry no script for it)."""
    db = Database(site.database_path)
    if index:
        report = index_site(site, db)
        open_errors = [i for i in store.issues(db.read()) if i.severity == "error"]
        log.info(
            "indexed %d files (%d parsed) in %.2fs; %d files with errors",
            report.files,
            report.parsed,
            report.seconds,
            len(open_errors),
        )
        for issue in open_errors:
            log.warning("%s", issue.format())
    state = SiteState(site=site, db=db, dev=dev, clock=clock)
    renderer = Renderer(state, _templates(site))

    reloader = Reloader()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        stop = asyncio.Event()
        task = None
        if watch:
            watcher = Watcher(site, db, on_change=reloader.notify, dev=dev)
            app.state.watcher = watcher
            task = asyncio.create_task(watcher.run(stop))
        yield
        stop.set()
        reloader.close()
        if task is not None:
            try:
                await asyncio.wait_for(task, 5)
            except (TimeoutError, asyncio.CancelledError):
                task.cancel()
        app.state.search.close()  # the search log's last entries, before the database closes
        db.close()

    app = FastAPI(
        title=site.settings.title,
        version=masthead.__version__,
        docs_url=None,  # Swagger UI loads from a CDN; pages make no requests to other hosts
        redoc_url=None,
        openapi_url="/api/openapi.json",
        lifespan=lifespan,
    )
    app.state.masthead = state
    app.state.reloader = reloader  # the CLI ends live-reload streams on Ctrl-C
    app.router.redirect_slashes = False

    def respond(request: Request, key: tuple, render: Callable[[], tuple[str, int]]) -> Response:
        page = state.cached(key, render)
        return conditional_response(request.headers, page, "no-cache" if dev else HTML_CACHE)

    def add(path: str, endpoint: Callable[..., Any]) -> None:
        app.add_api_route(path, endpoint, methods=["GET", "HEAD"], include_in_schema=False)

    @app.get("/healthz", tags=["ops"])
    def healthz() -> dict[str, Any]:
        """Liveness: the database answers; reports the index generation."""
        conn = db.read()
        watcher = getattr(app.state, "watcher", None)
        return {
            "status": "ok",
            "generation": store.generation(conn),
            "posts": conn.execute("SELECT COUNT(*) FROM posts").fetchone()[0],
            "watch": asdict(watcher.stats) if watcher else None,
        }

    app.add_api_route("/healthz", healthz, methods=["HEAD"], include_in_schema=False)

    def static_highlight() -> Response:
        return Response(
            highlight_css(), media_type="text/css", headers={"Cache-Control": STATIC_CACHE}
        )

    add("/static/css/highlight.css", static_highlight)
    if dev:
        reloader.state = state
        state.reloader = reloader
        add("/_dev/reload", reloader.endpoint)

    def ref(request: Request, target: str) -> Response:
        url = urls.resolve_ref(quote(target), state.source_urls(), site.settings.content_dir, None)
        if url is None:
            raise NotFound(f"no post is written in {target}")
        return redirect(url)

    add("/_ref/{target:path}", ref)

    app.state.search = SearchService(site, db, clock)
    search_routes.install(app, app.state.search, renderer)
    seo_routes.install(app, state, renderer)

    # Non-default languages first: their prefix must win over the default language's /{slug}/.
    langs = sorted(site.languages.values(), key=lambda lang: lang.prefix == "")
    for lang in langs:
        _language_routes(add, respond, renderer, lang)

    statics = Files(directory=PACKAGE_STATIC, cache_control="no-cache" if dev else None)
    site_static = site.root / site.settings.static_dir
    if site_static.is_dir():
        statics.all_directories = [site_static, PACKAGE_STATIC]
    app.mount("/static", statics, name="static")
    if site.content_dir.is_dir():
        media = Files(
            directory=site.content_dir,
            cache_control="no-cache" if dev else None,
            types=MEDIA_TYPES,
        )
        app.mount("/media", media, name="media")
    for lang in langs:  # last: the fixed routes and mounts above win
        _permalink_route(add, respond, renderer, lang)

    def language_of(path: str) -> Language:
        first = path.strip("/").split("/")[0]
        for lang in site.languages.values():
            if lang.prefix and lang.prefix == first:
                return lang
        return site.default_language

    def error_response(request: Request, status: int, message: str) -> Response:
        path = request.url.path
        if path.startswith("/api/"):
            return JSONResponse({"error": {"status": status, "message": message}}, status)
        lang = language_of(path)
        html, _ = renderer.error(lang, status, message, path)
        return Response(html, status, media_type="text/html; charset=utf-8")

    def http_error(request: Request, status: int, message: str) -> Response:
        if status == 404:
            moved = _moved(request.url.path, state)
            if moved:
                return redirect(moved, request.url.query)
        return error_response(request, status, message)

    @app.exception_handler(StarletteHTTPException)
    async def starlette_error(request: Request, exc: StarletteHTTPException) -> Response:
        return http_error(request, exc.status_code, str(exc.detail))

    @app.exception_handler(HTTPError)
    async def masthead_error(request: Request, exc: HTTPError) -> Response:
        return http_error(request, exc.status, exc.message)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()))
        status = 422 if request.url.path.startswith("/api/") else 400
        return error_response(request, status, f"{where}: {first.get('msg', 'invalid')}")

    @app.exception_handler(Exception)
    async def crashed(request: Request, exc: Exception) -> Response:
        log.exception("error serving %s", request.url.path)
        return error_response(request, 500, "internal error")

    app.add_middleware(CanonicalPaths)
    cors.install(app, site.settings.allowed_origins)
    security.install(app, security.security_headers(site.settings))
    return app


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


def _language_routes(
    add: Callable[[str, Callable[..., Any]], None],
    respond: Callable[..., Response],
    renderer: Renderer,
    lang: Language,
) -> None:
    p = urls.lang_path(lang.prefix, "")

    def home(request: Request) -> Response:
        return respond(request, ("home", lang.code, 1), lambda: renderer.listing(lang, 1))

    def home_page(request: Request, n: int) -> Response:
        if n == 1:  # one URL per page: /page/1/ is the home page
            return redirect(lang.root, request.url.query)
        return respond(request, ("home", lang.code, n), lambda: renderer.listing(lang, n))

    def post(request: Request, slug: str) -> Response:
        url = urls.post_url(lang.prefix, slug)
        return respond(request, ("post", url), lambda: renderer.post(lang, url))

    def page(request: Request, slug: str) -> Response:
        url = urls.page_url(lang.prefix, slug)
        return respond(request, ("page", url), lambda: renderer.post(lang, url))

    def archive(request: Request) -> Response:
        return respond(request, ("archive", lang.code), lambda: renderer.archive(lang))

    add(f"{p}/", home)
    add(f"{p}/page/{{n:pageno}}/", home_page)
    add(f"{p}/posts/{{slug}}/", post)
    add(f"{p}/archive/", archive)
    for taxonomy in TAXONOMIES:
        _taxonomy_routes(add, respond, renderer, lang, taxonomy)
    add(f"{p}/{{slug}}/", page)


def _permalink_route(
    add: Callable[[str, Callable[..., Any]], None],
    respond: Callable[..., Response],
    renderer: Renderer,
    lang: Language,
) -> None:
    """Any other path of `lang` may be a post or page at a `[permalinks]` pattern's URL
    (`/blog/2024/05/02/name/`): looked up by its exact URL, cached like the post route."""
    p = urls.lang_path(lang.prefix, "")

    def by_url(request: Request, path: str) -> Response:
        if not path.endswith("/"):  # every permalink ends with a slash; 404 offers the redirect
            raise NotFound("no such page")
        url = quote(f"{p}/{path}")
        return respond(request, ("post", url), lambda: renderer.post(lang, url))

    add(f"{p}/{{path:path}}", by_url)


def _taxonomy_routes(
    add: Callable[[str, Callable[..., Any]], None],
    respond: Callable[..., Response],
    renderer: Renderer,
    lang: Language,
    taxonomy: str,
) -> None:
    p = urls.lang_path(lang.prefix, "")

    def index(request: Request) -> Response:
        return respond(request, (taxonomy, lang.code), lambda: renderer.terms(lang, taxonomy))

    def term(request: Request, key: str) -> Response:
        return respond(
            request,
            (taxonomy, lang.code, key, 1),
            lambda: renderer.listing(lang, 1, taxonomy, key),
        )

    def term_page(request: Request, key: str, n: int) -> Response:
        if n == 1:
            return redirect(urls.term_url(lang.prefix, taxonomy, key), request.url.query)
        return respond(
            request,
            (taxonomy, lang.code, key, n),
            lambda: renderer.listing(lang, n, taxonomy, key),
        )

    add(f"{p}/{taxonomy}/", index)
    add(f"{p}/{taxonomy}/{{key}}/", term)
    add(f"{p}/{taxonomy}/{{key}}/page/{{n:pageno}}/", term_page)
