"""The app's route table, built once a process for each shape of site it can take.

FastAPI analyses an endpoint's signature when its route is made (parameters, dependencies,
the response model): most of what a new app costs, which a process that builds many apps (the
tests, a build's worker processes) would pay again for every app. The routes depend only on
`dev` and on the site's languages (each one's code and prefix, in order), so the routers are
made once for each (dev, languages), and every app with that shape takes their very route
objects (web/app.py `_route`; `include_router` would analyse them again for each app).
"""

from __future__ import annotations

from typing import NamedTuple

from fastapi import APIRouter

from masthead.config import Language
from masthead.web.routes import (
    admin_api,
    comment_feeds,
    comments,
    guanli,
    guanli_comments,
    guanli_privacy,
    guanli_reports,
    ops,
    pages,
    search,
    seo,
    series,
)
from masthead.web.routes import mail as mail_routes
from masthead.web.routes import privacy as privacy_routes


class Table(NamedTuple):
    """The routers, in the order the app includes them: `first` before the mounts (`/static`,
    `/media`, `/thumbs`, `/cards`), `last` (the permalink catch-all) after them."""

    first: tuple[APIRouter, ...]
    last: APIRouter


def routes_for(dev: bool, languages: tuple[Language, ...]) -> Table:
    """The route table of an app serving `languages` (the site's, in order), with `/_dev/`
    routes when `dev`: made on the first call for this shape, the same objects after."""
    return _table(dev, tuple((lang.code, lang.prefix) for lang in languages), languages)


# (dev, each language's code and prefix) → its table; a process meets a few shapes (one when
# it serves a site). Two threads may build one shape at once: the first stored is kept.
_TABLES: dict[tuple[bool, tuple[tuple[str, str], ...]], Table] = {}


def _table(dev: bool, shape: tuple[tuple[str, str], ...], languages: tuple[Language, ...]) -> Table:
    key = (dev, shape)
    table = _TABLES.get(key)
    if table is None:
        table = _TABLES.setdefault(key, _build(dev, languages))
    return table


def _build(dev: bool, languages: tuple[Language, ...]) -> Table:
    first = (
        ops.router(dev),
        guanli.router(),
        guanli_comments.router(),
        guanli_reports.router(),
        guanli_privacy.router(),
        admin_api.router(),
        pages.refs(),
        search.router(languages),
        seo.router(languages),
        comment_feeds.router(),
        comments.router(),  # before the pages: /comments/… is not a page
        privacy_routes.router(),  # readers' privacy requests (notify/privacy.py)
        series.router(languages),
        pages.router(languages),
        mail_routes.router(),  # links in notification mails (notify/)
    )
    return Table(first, pages.permalinks(languages))  # last: the fixed routes and mounts win
