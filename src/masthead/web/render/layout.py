"""The frame of every page (`Layout.page`): the template context all pages share, the menu,
the footer, the language switcher, and the head tags (canonical, hreflang, feeds, social
cards, JSON-LD) built from `masthead.seo`; the hreflang sets come from the same functions the
sitemap uses, so a page's head and its sitemap entry always agree (case C28).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from markupsafe import Markup

from masthead.config import Language
from masthead.content import urls
from masthead.content.meta import menu_entry
from masthead.i18n import gettext
from masthead.seo import jsonld
from masthead.seo import sitemap as seo_sitemap
from masthead.seo.meta import social_tags
from masthead.store import posts as store
from masthead.store import seo as seo_store
from masthead.store.rows import PostRow
from masthead.web.render.base import Base


@lru_cache(maxsize=64)
def _plain_texts(locale: str) -> dict[str, str]:
    """The interface texts of `locale` asked for without values so far (`gettext`, kept)."""
    return {}


@dataclass(frozen=True)
class Alternate:
    hreflang: str
    href: str  # absolute
    lang: Language
    current: bool


class Layout(Base):
    """The frame and head tags every page type draws (`page`)."""

    def menu(self, lang: Language, path: str) -> list[dict[str, Any]]:
        """The menu of `lang`: `{"title", "url", "current"}` by weight, then the `menu`
        setting as written, then the posts and pages that joined it from front matter (oldest
        first; `meta.menu_entry`); `current` when the item is the page at `path`. A URL the
        setting has already is not repeated."""
        items = [(i.weight, i.title, i.url) for i in self.site.settings.menu.get(lang.code, [])]
        listed = {url for _, _, url in items}
        rows = self.state.memo(  # the same on every page of one version
            ("menu_posts", lang.code),
            lambda: store.menu_posts(self.state.db.read(), lang.code, self.state.now()),
        )
        for row in rows:
            extra = store.decode_json(row.extra) or {}
            entry, _ = menu_entry(extra)  # `check` reports the problems
            if entry is None or row.url in listed:
                continue
            link_title = extra.get("linkTitle")  # Hugo's default name, before the title
            if not isinstance(link_title, str) or not link_title.strip():
                link_title = row.title
            title = entry.title or " ".join(link_title.split())
            items.append((entry.weight, title, row.url))
            listed.add(row.url)
        items.sort(key=lambda item: item[0])  # stable: equal weights keep their order
        return [{"title": title, "url": url, "current": url == path} for _, title, url in items]

    def footer(self, lang: Language, menu: list[dict[str, Any]]) -> dict[str, Any]:
        """The footer's links: the language's feeds (RSS, Atom), and its About page (a page
        with the slug `about`) unless the menu links to it already."""
        about = self.state.memo(  # the same on every page of one version
            ("about", lang.code),
            lambda: store.page_url_by_slug(
                self.state.db.read(), "about", lang.code, self.state.now()
            ),
        )
        if about is not None and any(item["url"] == about for item in menu):
            about = None
        feeds = [
            {"title": gettext(lang.locale, f"{fmt}_feed"), "url": urls.feed_url(lang.prefix, fmt),
             "type": mime}
            for fmt, mime in (("rss", "application/rss+xml"), ("atom", "application/atom+xml"))
        ]  # fmt: skip
        return {"about": about, "feeds": feeds}

    def hreflang_links(self, versions: dict[str, str]) -> list[tuple[str, str]]:
        """The `(hreflang, absolute href)` set, x-default last, of a page whose advertised versions
        are `{lang code: path}` (see `seo.sitemap.alternates`); [] for a single version."""
        hreflangs = {code: lang.hreflang for code, lang in self.site.languages.items()}
        absolute = {code: self.absolute(p) for code, p in versions.items() if code in hreflangs}
        return seo_sitemap.alternates(absolute, hreflangs, self.site.settings.default_language)

    def alternates(self, versions: dict[str, str], current: Language) -> list[Alternate]:
        """hreflang alternates from `{lang code: path}`; empty when there is only one version."""
        links = dict(self.hreflang_links(versions))
        return [
            Alternate(lang.hreflang, links[lang.hreflang], lang, code == current.code)
            for code, lang in self.site.languages.items()
            if code in versions and lang.hreflang in links
        ]

    def section_versions(self, suffix: str) -> dict[str, str]:
        """A section page (`/`, `/archive/`, `/tags/`…) exists in every language."""
        return {code: self.lang_path(other, suffix) for code, other in self.site.languages.items()}

    def term_versions(self, conn: sqlite3.Connection, taxonomy: str, key: str) -> dict[str, str]:
        """The term's page in each language where it has a published post."""
        now = self.state.now()
        codes = self.state.memo(  # once per term and version, not per page of the term
            ("term_languages", taxonomy, key),
            lambda: seo_store.term_languages(conn, taxonomy, key, now),
        )
        return {
            code: urls.term_url(self.site.languages[code].prefix, taxonomy, key)
            for code in codes
            if code in self.site.languages
        }

    def post_hreflang(self, conn: sqlite3.Connection, row: PostRow) -> dict[str, str]:
        """The versions of a post its head and sitemap entry advertise: the indexable members of
        its translation set; only itself when it is a draft, noindex, canonical elsewhere, or
        not the version its language holds in the set."""
        own = {row.lang: row.url}
        if row.draft or row.noindex or row.canonical:
            return own
        versions = seo_store.hreflang_versions(
            conn, row.translation_key, row.kind, self.state.now()
        )
        if versions.get(row.lang) != row.url:
            return own
        return {code: url for code, url in versions.items() if code in self.site.languages}

    def feed_title(self, lang: Language | None, heading: str = "") -> str:
        """A feed's title: the site's, with the language when the site has several (None: all
        languages), and the term page's heading for a term feed."""
        title = self.site.settings.title
        if heading:
            return f"{title}: {heading}"
        if lang is None:
            return f"{title} ({gettext(self.site.default_language.locale, 'all_languages')})"
        return f"{title} ({lang.name})" if len(self.site.languages) > 1 else title

    def feed_links(
        self,
        lang: Language,
        taxonomy: str | None = None,
        key: str | None = None,
        heading: str = "",
        *,
        every_language: bool = False,
    ) -> list[dict[str, str]]:
        """`<link rel="alternate">` feeds for a page: its language's RSS and Atom; on a term page
        the term's too; on a home page of a site with several languages, the all-languages feeds."""
        targets: list[tuple[str, str | None, str | None, str]] = [
            (lang.prefix, None, None, self.feed_title(lang))
        ]
        if taxonomy and key:
            targets.append((lang.prefix, taxonomy, key, self.feed_title(lang, heading)))
        if every_language and len(self.site.languages) > 1:
            targets.append((urls.ALL_LANGUAGES, None, None, self.feed_title(None)))
        links = []
        for prefix, tax, term, title in targets:
            for fmt, mime in (("rss", "application/rss+xml"), ("atom", "application/atom+xml")):
                href = self.absolute(urls.feed_url(prefix, fmt, tax, term))
                links.append({"type": mime, "title": title, "href": href})
        return links

    def switcher(self, versions: dict[str, str], current: Language) -> list[dict[str, Any]]:
        """Every language: a link to this page's version in it, or to that language's home."""
        return [
            {
                "name": lang.name,
                "hreflang": lang.hreflang,
                "url": versions.get(code, lang.root),
                "current": code == current.code,
                "translated": code in versions,
            }
            for code, lang in self.site.languages.items()
        ]

    def page(
        self,
        template: str,
        lang: Language,
        *,
        path: str,
        title: str,
        versions: dict[str, str] | None = None,
        hreflang: dict[str, str] | None = None,
        status: int = 200,
        description: str = "",
        canonical: str | None = None,
        noindex: bool = False,
        og: dict[str, Any] | None = None,
        structured: list[dict[str, Any]] | None = None,
        feeds: list[dict[str, str]] | None = None,
        **context: Any,
    ) -> tuple[str, int]:
        """Render `template` for a page at `path` in `lang`.

        `versions` ({lang code: path}) drive the language switcher; `hreflang` (default: the
        same) the hreflang links. A page has one absolute canonical URL (`canonical`, default its
        own URL), except noindex pages that are not posts (search, errors), which have none.
        `og` adds Open Graph fields (`kind`, `image`, `published`, …), `structured` JSON-LD nodes.
        """
        versions = versions if versions is not None else {lang.code: path}
        hreflang = hreflang if hreflang is not None else versions
        if hreflang.get(lang.code) != path:  # a set that does not list the page is not its set
            hreflang = {lang.code: path}
        links = self.hreflang_links(hreflang)
        alternates = self.alternates(hreflang, lang) if links else []
        x_default = links[-1][1] if links else None
        if canonical is None and not noindex:
            canonical = self.absolute(path)
        description = description or lang.description  # the language's, else the site's

        locale = lang.locale
        plain = _plain_texts(locale)  # a key without values: the same text on every page

        def t(key: str, **values: Any) -> str:
            if values:
                return gettext(locale, key, **values)
            text = plain.get(key)
            if text is None:
                text = plain[key] = gettext(locale, key)
            return text

        menu = self.menu(lang, path)

        social = []
        if status == 200:
            others = [a.lang.locale for a in alternates if not a.current]
            social = social_tags(
                **{"kind": "website", **(og or {})},
                title=title,
                description=description,
                url=canonical or self.absolute(path),
                site_name=self.site.settings.title,
                locale=lang.locale,
                alternate_locales=others,
            )
        ctx = {
            "site": self.site.settings,
            "lang": lang,
            "languages": list(self.site.languages.values()),
            "t": t,
            "title": title,
            "path": path,
            "description": description,
            "noindex": noindex,
            "canonical": canonical,
            "alternates": alternates,
            "x_default": x_default,
            "hreflang_links": links,
            "feeds": feeds if feeds is not None else self.feed_links(lang),
            "social": social,
            # jsonld.script escapes <, >, & and line separators inside the JSON
            "jsonld": Markup(jsonld.script(structured)) if structured else None,  # nosec B704
            "switcher": self.switcher(versions, lang),
            "home": lang.root,
            # an exported page searches on the masthead at `api_url` (same form, no script), or
            # with no masthead behind it in the files' own index (`static_search`)
            "search_url": self.search_url(lang),
            "static_search": self.state.self_contained,
            "nav": {
                "archive": self.lang_path(lang, "/archive/"),
                "tags": self.lang_path(lang, "/tags/"),
                "categories": self.lang_path(lang, "/categories/"),
            },
            "menu": menu,  # READER: the header (LAYOUT) and the footer draw it
            "origin": self.state.base_url,  # print: links show base_url + path (site.css)
            "footer": self.footer(lang, menu),
            "dev": self.state.dev,
            "dev_version": self.state.reload_version(),
            **context,
        }
        return self.env.get_template(template).render(ctx), status

    def crumbs(self, lang: Language, *trail: tuple[str, str]) -> dict[str, Any]:
        """A JSON-LD `BreadcrumbList` from the language's home page down `trail` (name, path)."""
        home = (gettext(lang.locale, "home"), self.absolute(lang.root))
        return jsonld.breadcrumbs([home, *((n, self.absolute(p)) for n, p in trail)])

    def collection(
        self, lang: Language, path: str, title: str, item_paths: list[str]
    ) -> dict[str, Any]:
        """The JSON-LD CollectionPage of a list page at `path` listing `item_paths`."""
        return jsonld.collection_page(
            url=self.absolute(path),
            name=title,
            description="",
            language=lang.hreflang,
            items=[self.absolute(p) for p in item_paths],
        )
