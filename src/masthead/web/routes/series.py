"""Series over HTTP: `/series/KEY/` (the parts in order) and its feeds `/series/KEY/feed.xml`
and `/series/KEY/atom.xml` (the newest parts first), per language (`/zh/series/KEY/`).
Cached per index generation like the other pages and feeds."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from fastapi import APIRouter, Request
from fastapi.responses import Response

from masthead.config import Language
from masthead.content import urls
from masthead.errors import NotFound
from masthead.i18n import gettext
from masthead.seo import feeds
from masthead.store import seo as seo_store
from masthead.store import series as series_store
from masthead.web.render.series import SERIES, series_url
from masthead.web.routes import add, bound, language, renderer, respond, site_state
from masthead.web.routes.seo import MEDIA, Built, SeoOutputs


def router(languages: Sequence[Language]) -> APIRouter:
    """The series page and feeds of every language of `languages`."""
    routes = APIRouter()
    for lang in languages:
        base = urls.lang_path(lang.prefix, f"/{SERIES}/{{key}}/")
        add(routes, base, page, lang.code)
        for fmt, file in urls.FEED_FILES.items():
            add(routes, base + file, feed, lang.code, fmt)
    return routes


def page(request: Request, key: str) -> Response:
    lang = language(request)
    return respond(request, (SERIES, lang.code, key), lambda: renderer(request).series(lang, key))


def feed(request: Request, key: str) -> Response:
    lang, fmt = language(request), bound(request)[1]
    built: list[datetime | None] = []

    def render() -> tuple[str, int]:
        text, modified = _feed(SeoOutputs(site_state(request), renderer(request)), fmt, key, lang)
        built.append(modified)
        return text, 200

    return respond(request, ("seo", SERIES, fmt, lang.code, key), render, MEDIA[fmt],
                   lambda: built[0])  # fmt: skip


def _feed(out: SeoOutputs, fmt: str, key: str, lang: Language) -> Built:
    """The RSS or Atom feed of series `key` in `lang`: its newest parts first."""
    conn = out.state.db.read()
    settings = out.site.settings
    now = out.state.now()
    ids = series_store.feed_ids(conn, key, lang.code, now, settings.feed_items)
    name = series_store.name(conn, key, lang.code)
    if not ids or name is None:
        raise NotFound("no such series")
    rows = seo_store.feed_posts(conn, now=now, limit=settings.feed_items, lang=lang.code, ids=ids)
    page_path = series_url(lang.prefix, key)
    info = feeds.FeedInfo(
        title=out.renderer.feed_title(lang, gettext(lang.locale, "series_heading", name=name)),
        description=lang.description,
        page_url=out.absolute(page_path),
        rss_url=out.absolute(page_path + urls.FEED_FILES["rss"]),
        atom_url=out.absolute(page_path + urls.FEED_FILES["atom"]),
        language=lang.hreflang,
        author=settings.title,
    )
    items = out.items(rows)
    write = feeds.rss if fmt == "rss" else feeds.atom
    return write(info, items, full_text=settings.feed_full_text), feeds.last_modified(items)
