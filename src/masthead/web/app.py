"""`create_app(site)`: the ASGI application serving a site.

URL scheme (DESIGN.md): `/`, `/page/N/`, `/posts/SLUG/`, `/SLUG/` (pages), `/tags/KEY/`,
`/categories/KEY/`, `/archive/` for the default language, the same under `/PREFIX/` for the
others (web/routes/pages.py); feeds, sitemaps and robots.txt (routes/seo.py); search pages and
`/api/search` (routes/search.py); `/healthz` (routes/ops.py); `/static/…` (site files over the
package's), the site's `static/` files at the root where no page is (`/images/x.png`),
`/media/…` (files beside posts, media types only: web/http/media.py). Every response carries
the security headers (web/http/security.py); non-canonical paths and every redirect stay on
this origin (web/http/redirects.py). HTML routes are left out of the OpenAPI schema. Errors render
`error.html` pages, or one JSON shape `{"error": {"status", "message"}}` under `/api/`
(web/errors.py).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime
from functools import partial
from pathlib import Path

from fastapi import APIRouter, FastAPI
from jinja2 import (
    BaseLoader,
    BytecodeCache,
    Environment,
    FileSystemLoader,
    PackageLoader,
    TemplateNotFound,
    select_autoescape,
)
from jinja2.bccache import Bucket
from jinja2.loaders import split_template_path

import masthead
from masthead.comments import housekeeping
from masthead.config import Site
from masthead.content import cards, thumbs
from masthead.i18n import long_date
from masthead.indexing.indexer import index_and_log
from masthead.indexing.watch_lock import watch_alone
from masthead.indexing.watcher import Watcher
from masthead.notify import runner as mail_runner
from masthead.replica.supervisor import STOP_WAIT, replicate_alone
from masthead.search.service import SearchService
from masthead.store.db import Database
from masthead.web import errors
from masthead.web.cache import fastpath, purge
from masthead.web.cache.state import SiteState
from masthead.web.http import address, cors, security
from masthead.web.http.media import MEDIA_TYPES, Files
from masthead.web.http.redirects import CanonicalPaths
from masthead.web.reload import Reloader
from masthead.web.render.linebreak import word_breaks
from masthead.web.render.renderer import Renderer
from masthead.web.routes import search
from masthead.web.routes.table import routes_for

log = logging.getLogger(__name__)
PACKAGE_STATIC = Path(__file__).parent / "static"


def create_app(
    site: Site,
    *,
    dev: bool = False,
    index: bool = True,
    clock: Callable[[], float] = time.time,
    watch: bool = False,
    served: str | None = None,
    send_mail: bool = True,
    replicate: bool = False,
    export: bool = False,
) -> FastAPI:
    """Build the app for `site`. With `index=True` the index is brought up to date first
    (incremental: unchanged files are not parsed again). `clock` gives seconds since the epoch
    (posts dated after it are not yet published). With `watch=True` a watcher re-indexes changed
    files while the app runs; with `dev=True` too, open pages reload themselves after a change
    (Server-Sent Events at /_dev/reload; production pages carry no script for it). `served` is
    the address the server listens on (`http://127.0.0.1:8123`): absolute URLs use it when
    `base_url` is unset or under `dev` (web/http/address.py). Of several apps watching one site, one
    runs its watcher at a time (indexing/watch_lock.py). While it serves, notification mails are
    collected and sent in the background, by one app of several serving one site (notify/runner.py),
    unless `send_mail=False` (a static build: `masthead build`). With `replicate=True`
    (`masthead serve`) and `[replica] url` set, Litestream replicates the database while the app
    serves, run by one app of several serving one site (replica/supervisor.py). `export=True`
    renders pages for `masthead build`'s files (`SiteState.self_contained`)."""
    db = Database(site.database_path, checkpoints=not site.replicated)
    if index:
        index_and_log(site, db)
    base = address.base_url(site.settings, dev=dev, served=served)
    state = SiteState(site=site, db=db, dev=dev, clock=clock, base_url=base.url, export=export)
    app = fastpath.App(
        title=site.settings.title,
        version=masthead.__version__,
        docs_url=None,  # Swagger UI loads from a CDN; pages make no requests to other hosts
        redoc_url=None,
        openapi_url="/api/openapi.json",
        lifespan=_lifespan,
    )
    app.state.masthead = state
    app.state.renderer = Renderer(state, _templates(site))
    app.state.search = SearchService(site, db, clock, drafts=dev)  # --dev finds drafts too
    app.state.reloader = Reloader()  # the CLI ends live-reload streams on Ctrl-C
    app.state.watch = watch
    app.state.replicate = replicate and site.replicated
    app.state.send_mail = send_mail
    if dev:
        app.state.reloader.state = state
        state.reloader = app.state.reloader
    app.router.redirect_slashes = False

    table = routes_for(dev, tuple(site.languages.values()))
    for routes in table.first:
        _route(app, routes)
    statics = _static(site, dev)
    app.mount("/static", statics, name="static")
    app.state.root_files = _root_files(site, dev)  # static/ at the root too, where no page is
    if site.content_dir.is_dir():
        app.mount("/media", _media(site, dev), name="media")
    app.mount("/thumbs", _thumbs(site), name="thumbs")
    app.mount("/cards", _cards(site), name="cards")
    _route(app, table.last)  # last: the fixed routes and mounts above win

    errors.install(app)
    app.add_middleware(CanonicalPaths)
    cors.install(app, site.settings.allowed_origins)
    headers = security.response_headers(site.settings, state.base_url)
    security.install(app, headers)
    if not dev:  # cache hits answered before any routing (web/cache/fastpath.py)
        fastpath.install(app, state, headers, statics, search.fast_paths(app, site))
    return app


def _route(app: FastAPI, router: APIRouter) -> None:
    """Give `app` the routes of `router`, one of the shared routers (web/routes/table.py),
    as the very route objects, analysed once a process. `include_router` would wrap the
    router for this app and analyse every endpoint again on the app's first request (FastAPI
    0.165): half of what a new app costs until it has answered (bench/bench_app.py)."""
    app.router.routes.extend(router.routes)


def warm_up(app: FastAPI) -> None:
    """Pay a serving worker's one-time costs before its first reader does: about 0.25 s on the
    demo, the first request's whole server time before (bench/lighthouse.sh, old BENCHMARKS "LH
    (session 3)"). Jinja compiles a template on its first use, Babel reads a locale's data on its
    first date, FastAPI builds each included router's route state on the first request that
    reaches it. Here: the reader-facing templates compiled (not the dashboard's or mails'), one
    date formatted per site language, and every route asked whether it matches a request no
    route serves. No page is rendered, cached or logged: a page's first request still renders
    it. Not part of `create_app`: the tests build hundreds of apps that serve a few requests."""
    env: Environment = app.state.renderer.env
    for name in env.list_templates(filter_func=_reader_template):
        env.get_template(name)
    for lang in app.state.masthead.site.languages.values():
        long_date(datetime(2000, 1, 1), lang.locale)
    scope = {"type": "http", "method": "GET", "path": "/.masthead-warm-up", "root_path": ""}
    for route in app.router.routes:
        route.matches(scope)


def warm_up_soon(app: FastAPI) -> threading.Thread:
    """`warm_up(app)` in a daemon thread, started now: the worker answers at once (warming up
    first doubled a two-worker server's start under load) and has warmed up within a second or
    so, before most first readers. A request that comes sooner pays what is left, as before;
    Jinja's template cache, Babel's locale cache and FastAPI's route state take locks."""
    thread = threading.Thread(target=warm_up, args=(app,), name="masthead-warm-up", daemon=True)
    thread.start()
    return thread


def _reader_template(name: str) -> bool:
    return name.endswith(".html") and not name.startswith(("guanli/", "mail"))


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Run the watcher (when asked) while the app serves; close everything after."""
    state: SiteState = app.state.masthead
    stop = asyncio.Event()
    task = None
    if app.state.watch:
        watcher = Watcher(state.site, state.db, on_change=app.state.reloader.notify, dev=state.dev)
        started = partial(setattr, app.state, "watcher", watcher)  # /healthz reports it
        task = asyncio.create_task(watch_alone(watcher, state.site, state.db, stop, started))
    replicating = None
    if app.state.replicate:  # one Litestream per site, in whichever worker holds its lock
        replicating = asyncio.create_task(replicate_alone(state.site, stop))
    sweeper = asyncio.create_task(housekeeping.run(state.db, state.site.settings, stop))
    app.state.mailer = None
    if app.state.send_mail:  # None too when mail is off (no smtp_host or mail_from)
        app.state.mailer = mail_runner.start(state.site, state.db, state.base_url)

    purging = purge.start(state, stop)  # purge_command / purge_webhook (web/cache/purge.py)
    # the search catalog and its frequent words, made before the first reader waits for them
    warming = asyncio.create_task(asyncio.to_thread(app.state.search.warm))
    yield
    await warming
    if app.state.mailer is not None:
        await asyncio.to_thread(app.state.mailer.stop)
    stop.set()
    await purge.finish(purging)
    app.state.reloader.close()
    await sweeper
    if replicating is not None:  # Litestream's last upload, before the database closes
        try:
            await asyncio.wait_for(replicating, STOP_WAIT + 1)
        except (TimeoutError, asyncio.CancelledError):
            replicating.cancel()
    if task is not None:
        try:
            await asyncio.wait_for(task, 5)
        except (TimeoutError, asyncio.CancelledError):
            task.cancel()
    app.state.search.close()  # the search log's last entries, before the database closes
    state.db.close()


def _static(site: Site, dev: bool) -> Files:
    """`/static/`: the site's `static/` files over the package's. The site folder is searched
    whether or not it exists yet, so one made while the server runs is served at once."""
    statics = Files(
        directory=PACKAGE_STATIC, cache_control="no-cache" if dev else None, precompressed=True
    )
    statics.all_directories = [site.root / site.settings.static_dir, PACKAGE_STATIC]
    return statics


def _root_files(site: Site, dev: bool) -> Files:
    """The site's `static/` files at the root of the site, as Hugo serves them
    (`static/images/x.png` at `/images/x.png`); the permalink catch-all asks it for a path no
    page has (web/routes/pages.py). The folder may not exist yet."""
    folder = site.root / site.settings.static_dir
    files = Files(directory=folder, check_dir=False, cache_control="no-cache" if dev else None)
    files.all_directories = [folder]
    return files


def _media(site: Site, dev: bool) -> Files:
    """`/media/`: the files beside posts, of the media types only."""
    cache = "no-cache" if dev else None
    return Files(directory=site.content_dir, cache_control=cache, types=MEDIA_TYPES)


def _thumbs(site: Site) -> Files:
    """`/thumbs/`: cover thumbnails (content/thumbs.py), named by content hash: cached for a
    year."""
    folder = thumbs.folder_for(site.database_path)
    folder.mkdir(parents=True, exist_ok=True)
    return Files(directory=folder, cache_control=thumbs.THUMB_CACHE, types=thumbs.TYPES)


def _cards(site: Site) -> Files:
    """`/cards/`: share cards (content/cards.py), named by content hash: cached for a year."""
    folder = cards.folder_for(site.database_path)
    folder.mkdir(parents=True, exist_ok=True)
    return Files(directory=folder, cache_control=cards.CARD_CACHE, types=cards.TYPES)


class SiteTemplates(BaseLoader):
    """The site's templates folder over the package's templates. The folder may not exist yet:
    it is looked in on every load, and a package template Jinja has cached is out of date once
    the site has a file of that name (so an override made while the server runs is used on the
    next render with no restart; Jinja's `auto_reload` asks `uptodate`)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.site = FileSystemLoader(folder)
        self.package = PackageLoader("masthead.web", "templates")

    def get_source(
        self, environment: Environment, template: str
    ) -> tuple[str, str | None, Callable[[], bool] | None]:
        try:
            return self.site.get_source(environment, template)
        except TemplateNotFound:
            pass
        source, filename, uptodate = self.package.get_source(environment, template)
        override = self.folder.joinpath(*split_template_path(template))

        def fresh() -> bool:
            return not override.is_file() and (uptodate is None or uptodate())

        return source, filename, fresh

    def list_templates(self) -> list[str]:
        return sorted(set(self.site.list_templates()) | set(self.package.list_templates()))


class CompiledTemplates(BytecodeCache):
    """Compiled templates kept for the process: every app it makes (a server reloading its
    settings, `build`'s renderers, a test suite's hundreds of apps) compiles each template once,
    not once an app (about 0.1 s of CPU for a post page's templates). Jinja keys a template by
    its name and file and checks its source's hash, so an edited or overriding template is
    compiled anew; every environment here has the same options (`_templates`)."""

    def __init__(self) -> None:
        self.compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        code = self.compiled.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


COMPILED = CompiledTemplates()


def _templates(site: Site) -> Environment:
    env = Environment(
        loader=SiteTemplates(site.root / site.settings.templates_dir),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
        bytecode_cache=COMPILED,
    )
    env.globals["version"] = masthead.__version__
    env.filters["word_breaks"] = word_breaks  # <wbr> between Chinese words in titles
    return env
