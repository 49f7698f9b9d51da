"""Feeds, sitemaps and robots.txt over HTTP.

URLs (DESIGN.md): `/feed.xml` and `/atom.xml` (RSS 2.0 and Atom 1.0 of the default language's
home page), `/{prefix}/feed.xml` for the other languages, `/tags/{key}/feed.xml` and
`/categories/{key}/atom.xml` (per language likewise), `/all/feed.xml` and `/all/atom.xml` (every
language, on a site with several), `/sitemap.xml` (a sitemap, or past `sitemap_max_urls` a sitemap
index of `/sitemap-N.xml`), `/robots.txt`.

Responses are cached per index generation like pages (`routes.respond`) and carry an `ETag`
and, for feeds and sitemaps, a `Last-Modified` (the newest `updated`-else-`date` they contain).
`If-None-Match` is answered with 304; `If-Modified-Since` too when no `If-None-Match` is sent
(RFC 9110 §13.2.2: the entity tag wins).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from datetime import datetime

from fastapi import APIRouter, Request
from fastapi.responses import Response

from masthead.config import Language
from masthead.content import urls
from masthead.errors import NotFound
from masthead.seo import feeds, robots, sitemap
from masthead.store import posts as store
from masthead.store import seo as seo_store
from masthead.store import series as series_store
from masthead.store.rows import FeedPost
from masthead.web.cache.state import SiteState
from masthead.web.render.base import TAXONOMIES, author_people, term_heading
from masthead.web.render.renderer import Renderer
from masthead.web.render.series import series_url
from masthead.web.routes import EVERY_LANGUAGE, add, bound, renderer, respond, site_state

MEDIA = {
    "rss": "application/rss+xml; charset=utf-8",
    "atom": "application/atom+xml; charset=utf-8",
    "xml": "application/xml; charset=utf-8",
    "text": "text/plain; charset=utf-8",
}

Built = tuple[str, datetime | None]  # the document and its Last-Modified


class SeoOutputs:
    """Builds each output from the database: one method per document, each returning `Built`.

    Raises NotFound for a feed of a term that has no published post in that language, and for a
    sitemap file that does not exist."""

    def __init__(self, state: SiteState, renderer: Renderer) -> None:
        self.state = state
        self.renderer = renderer
        self.site = state.site

    def absolute(self, path: str) -> str:
        return urls.absolute(self.state.base_url, path)

    # --- feeds -------------------------------------------------------------------------------

    def items(self, rows: list[FeedPost]) -> list[feeds.FeedItem]:
        conn = self.state.db.read()
        terms = store.terms_of(conn, [r.id for r in rows])
        out = []
        for r in rows:
            lang = self.site.languages.get(r.lang, self.site.default_language)
            cats = tuple(
                feeds.Category(name, self.absolute(self.renderer.lang_path(lang, f"/{tax}/")))
                for tax in ("categories", "tags")
                for _key, name in terms[r.id][tax]
            )
            out.append(
                feeds.FeedItem(
                    title=r.title,
                    url=self.absolute(r.url),
                    published=datetime.fromisoformat(r.date),
                    updated=datetime.fromisoformat(r.updated) if r.updated else None,
                    authors=tuple(name for name, _url in author_people(r.authors)),
                    categories=cats,
                    summary=r.excerpt,
                    html=self.renderer.body_html(r.html, r.lang),
                    raw_html=self.site.settings.raw_html,
                    image=self.renderer.cover_url(r.cover),
                    lang=lang.hreflang,
                )
            )
        return out

    def feed(
        self, fmt: str, lang: Language | None, taxonomy: str | None = None, key: str | None = None
    ) -> Built:
        """The `fmt` ("rss" or "atom") feed of `lang` (None: every language), or of one term."""
        conn = self.state.db.read()
        settings = self.site.settings
        rows = seo_store.feed_posts(
            conn,
            now=self.state.now(),
            limit=settings.feed_items,
            lang=lang.code if lang else None,
            taxonomy=taxonomy,
            key=key,
        )
        prefix = lang.prefix if lang else urls.ALL_LANGUAGES
        if taxonomy and key and lang:
            name = store.term_name(conn, taxonomy, key, lang.code)
            if not rows or name is None:
                raise NotFound("no such term")
            title = self.renderer.feed_title(lang, term_heading(lang.locale, taxonomy, name))
            page = urls.term_url(lang.prefix, taxonomy, key)
        else:
            title = self.renderer.feed_title(lang)
            page = lang.root if lang else "/"
        info = feeds.FeedInfo(
            title=title,
            description=lang.description if lang else settings.description,  # per language
            page_url=self.absolute(page),
            rss_url=self.absolute(urls.feed_url(prefix, "rss", taxonomy, key)),
            atom_url=self.absolute(urls.feed_url(prefix, "atom", taxonomy, key)),
            language=lang.hreflang if lang else "",
            author=settings.title,
        )
        items = self.items(rows)
        write = feeds.rss if fmt == "rss" else feeds.atom
        return write(info, items, full_text=settings.feed_full_text), feeds.last_modified(items)

    # --- sitemap -----------------------------------------------------------------------------

    def entries(self) -> list[sitemap.Entry]:
        """Every indexable URL of the site: section pages of each language, posts and pages
        (oldest first), then term pages; each with its lastmod and hreflang set. The sets come
        from the same `Renderer` methods as the pages' heads, under the same rules."""
        conn = self.state.db.read()
        now = self.state.now()
        return [
            *self._section_entries(conn, now),
            *self._post_entries(conn, now),
            *self._term_entries(conn, now),
            *self._series_entries(conn, now),
        ]

    def _section_entries(self, conn: sqlite3.Connection, now: float) -> list[sitemap.Entry]:
        """Home, archive, tags and categories pages: lastmod is the newest post they show."""
        newest: dict[str, datetime] = {}
        for row in seo_store.post_dates_by_language(conn, now):
            _latest(newest, row.lang, row.date, row.updated)
        out: list[sitemap.Entry] = []
        for suffix in ("/", "/archive/", "/tags/", "/categories/"):
            versions = self.renderer.section_versions(suffix)
            links = tuple(self.renderer.hreflang_links(versions))
            out += [
                sitemap.Entry(self.absolute(path), newest.get(code), links)
                for code, path in versions.items()
            ]
        return out

    def _post_entries(self, conn: sqlite3.Connection, now: float) -> list[sitemap.Entry]:
        """Indexable posts and pages; alternates as `Renderer.post_hreflang` gives them."""
        languages = self.site.languages
        rows = [row for row in seo_store.indexable_posts(conn, now) if row.lang in languages]
        sets: dict[tuple[str, str], dict[str, str]] = {}
        for row in rows:  # oldest first: the oldest version of a language holds its place
            versions = sets.setdefault((row.translation_key, row.kind), {})
            versions.setdefault(row.lang, row.url)
        out: list[sitemap.Entry] = []
        for row in rows:
            versions = sets[(row.translation_key, row.kind)]
            member = versions[row.lang] == row.url
            links = tuple(self.renderer.hreflang_links(versions)) if member else ()
            modified = datetime.fromisoformat(row.updated or row.date)
            out.append(sitemap.Entry(self.absolute(row.url), modified, links))
        return out

    def _term_entries(self, conn: sqlite3.Connection, now: float) -> list[sitemap.Entry]:
        """Tag and category pages in each language where the term has a published post."""
        terms: dict[tuple[str, str], dict[str, datetime]] = {}
        for row in seo_store.term_post_dates(conn, now):
            if row.lang in self.site.languages:
                dates = terms.setdefault((row.taxonomy, row.key), {})
                _latest(dates, row.lang, row.date, row.updated)
        out: list[sitemap.Entry] = []
        for (taxonomy, key), dates in terms.items():
            versions = {
                code: urls.term_url(self.site.languages[code].prefix, taxonomy, key)
                for code in dates
            }
            links = tuple(self.renderer.hreflang_links(versions))
            out += [
                sitemap.Entry(self.absolute(path), dates[code], links)
                for code, path in versions.items()
            ]
        return out

    def _series_entries(self, conn: sqlite3.Connection, now: float) -> list[sitemap.Entry]:
        """Series pages in each language where the series has a published part; lastmod the
        newest part's change, the languages' pages each other's alternates."""
        out: list[sitemap.Entry] = []
        for key in series_store.keys(conn):
            dates: dict[str, datetime] = {}
            for code in self.site.languages:
                parts = series_store.parts(conn, key, code, now)
                ids = [p.id for p in parts]
                for row in seo_store.feed_posts(conn, now=now, limit=len(ids), lang=code, ids=ids):
                    _latest(dates, code, row.date, row.updated)
            versions = {code: series_url(self.site.languages[code].prefix, key) for code in dates}
            links = tuple(self.renderer.hreflang_links(versions))
            out += [
                sitemap.Entry(self.absolute(path), dates[code], links)
                for code, path in versions.items()
            ]
        return out

    def sitemap(self, number: int | None = None) -> Built:
        """`/sitemap.xml` (number None) or `/sitemap-N.xml`: a urlset, or the index of the files
        when the site has more URLs than `sitemap_max_urls`."""
        entries = self.entries()
        chunks = sitemap.split(entries, self.site.settings.sitemap_max_urls)
        if number is None:
            if len(chunks) <= 1:
                return sitemap.urlset(entries), sitemap.newest(entries)
            children = [
                (self.absolute(f"/sitemap-{n}.xml"), sitemap.newest(chunk))
                for n, chunk in enumerate(chunks, start=1)
            ]
            return sitemap.index(children), sitemap.newest(entries)
        if len(chunks) <= 1 or not 1 <= number <= len(chunks):
            raise NotFound("no such sitemap")
        chunk = chunks[number - 1]
        return sitemap.urlset(chunk), sitemap.newest(chunk)

    def robots(self) -> Built:
        settings = self.site.settings
        text = robots.robots_txt(
            sitemap_url=self.absolute("/sitemap.xml"),
            disallow=settings.robots_disallow,
            extra=settings.robots_extra,
        )
        return text, None


def _latest(into: dict[str, datetime], lang: str, date: str, updated: str | None) -> None:
    value = datetime.fromisoformat(updated or date)
    if lang not in into or value.timestamp() > into[lang].timestamp():
        into[lang] = value


def router(languages: Sequence[Language]) -> APIRouter:
    """The robots.txt, sitemap and feed routes of every language of `languages` (and of all
    languages together, when there are several and none is prefixed `all`)."""
    routes = APIRouter()
    add(routes, "/robots.txt", robots_txt)
    add(routes, "/sitemap.xml", sitemap_xml)
    add(routes, "/sitemap-{n}.xml", sitemap_part)
    for lang in languages:
        _feed_routes(routes, lang)
    if len(languages) > 1 and all(lang.prefix != urls.ALL_LANGUAGES for lang in languages):
        _feed_routes(routes, None)
    return routes


def _feed_routes(routes: APIRouter, lang: Language | None) -> None:
    """The RSS and Atom routes of one language (None: all languages, with no term feeds)."""
    base = urls.lang_path(lang.prefix if lang else urls.ALL_LANGUAGES, "")
    code = lang.code if lang else EVERY_LANGUAGE
    for fmt, file in urls.FEED_FILES.items():
        add(routes, f"{base}/{file}", home_feed, code, fmt)
        if lang is not None:
            for taxonomy in TAXONOMIES:
                add(routes, f"{base}/{taxonomy}/{{key}}/{file}", term_feed, code, fmt, taxonomy)


def _reply(
    request: Request, key: tuple, media: str, build: Callable[[SeoOutputs], Built]
) -> Response:
    """The cached document for `key` (built by `build` on a miss) as a conditional response."""
    built: list[datetime | None] = []

    def render() -> tuple[str, int]:
        text, modified = build(SeoOutputs(site_state(request), renderer(request)))
        built.append(modified)
        return text, 200

    return respond(request, ("seo", *key), render, MEDIA[media], lambda: built[0])


def robots_txt(request: Request) -> Response:
    return _reply(request, ("robots",), "text", SeoOutputs.robots)


def sitemap_xml(request: Request) -> Response:
    return _reply(request, ("sitemap", None), "xml", SeoOutputs.sitemap)


def sitemap_part(request: Request, n: str) -> Response:
    # text, not {n:int}: Starlette's int convertor raises (a 500) past 4,300 digits
    if not (n.isascii() and n.isdigit()) or len(n) > 9:
        raise NotFound("no such sitemap")
    number = int(n)
    return _reply(request, ("sitemap", number), "xml", lambda out: out.sitemap(number))


def _feed_language(request: Request) -> tuple[Language | None, list[str]]:
    code, *rest = bound(request)
    return (None if code == EVERY_LANGUAGE else site_state(request).site.languages[code]), rest


def home_feed(request: Request) -> Response:
    lang, (fmt,) = _feed_language(request)
    code = lang.code if lang else None
    return _reply(request, ("feed", fmt, code), fmt, lambda out: out.feed(fmt, lang))


def term_feed(request: Request, key: str) -> Response:
    lang, (fmt, taxonomy) = _feed_language(request)
    code = lang.code if lang else None
    return _reply(
        request,
        ("feed", fmt, code, taxonomy, key),
        fmt,
        lambda out: out.feed(fmt, lang, taxonomy, key),
    )
