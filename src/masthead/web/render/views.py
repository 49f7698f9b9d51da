"""Pages: database rows to template contexts to HTML. One function per page type.

Each function returns `(html, status)` and is only called on a page-cache miss. `Renderer.page`
also builds the head tags of every page (canonical, hreflang, feeds, social cards, JSON-LD) from
`masthead.seo`; the hreflang sets come from the same functions the sitemap uses, so a page's head
and its sitemap entry always agree (case C28).
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any
from urllib.parse import urljoin

from jinja2 import Environment
from markupsafe import Markup

from masthead.config import Language, Site
from masthead.content import authors as people
from masthead.content import refs, sanitize, urls
from masthead.content.meta import menu_entry
from masthead.content.text import html_to_text
from masthead.content.thumbs import Thumbnails, folder_for
from masthead.errors import NotFound
from masthead.i18n import gettext, long_date
from masthead.seo import jsonld
from masthead.seo import sitemap as seo_sitemap
from masthead.seo.meta import social_tags
from masthead.store import comments as comment_store
from masthead.store import posts as store
from masthead.store import seo as seo_store
from masthead.store.rows import PostLink, PostRow, PostSummary, RelatedPost
from masthead.web.cache.state import SiteState
from masthead.web.render import discussion

TAXONOMIES = ("tags", "categories", people.TAXONOMY)
HEADINGS = {"tags": "posts_tagged", "categories": "posts_in", people.TAXONOMY: "posts_by"}
RELATED_POSTS = 3  # related posts under a post, at most
BODY_MEMO = 2048  # post bodies kept sanitized per generation (a feed re-renders 20 of them)
LATEST_ON_404 = 5  # newest posts a 404 page lists
JSONLD_COMMENTS = 100  # Comment items in a post's JSON-LD at most (the oldest; the count is all)


@lru_cache(maxsize=4096)  # pure; each feed item and post page asks again
def author_people(raw: str) -> tuple[tuple[str, str | None], ...]:
    """`(plain-text name, profile URL or None)` of each author in a post's `authors` JSON list
    (see `content.authors.author`: inline Markdown, one http(s) link is the profile)."""
    return tuple((a.name, a.url) for a in post_authors(raw))


@lru_cache(maxsize=4096)
def post_authors(raw: str) -> tuple[people.Author, ...]:
    """The authors of a post's `authors` JSON list, one per key (content/authors.py)."""
    return people.authors(json.loads(raw) if raw else [])


def term_heading(locale: str, taxonomy: str, name: str) -> str:
    """A term page's heading: "Posts tagged “x”", "Posts in “x”", "Posts by x"."""
    return gettext(locale, HEADINGS.get(taxonomy, "posts_in"), name=name)


@dataclass(frozen=True)
class Alternate:
    hreflang: str
    href: str  # absolute
    lang: Language
    current: bool


class Renderer:
    """Builds pages for one site from its database and templates."""

    def __init__(self, state: SiteState, env: Environment) -> None:
        self.state = state
        self.env = env
        self.site: Site = state.site
        self._bodies: tuple[object, dict[tuple[str, str], str]] = (None, {})
        self.thumbs = Thumbnails(self.site.content_dir, folder_for(self.site.database_path))

    # --- helpers -----------------------------------------------------------------------------

    def absolute(self, path: str) -> str:
        return urls.absolute(self.state.base_url, path)

    def lang_path(self, lang: Language, path: str) -> str:
        """`/archive/` in `lang`: `/archive/` or `/zh/archive/`."""
        return urls.lang_path(lang.prefix, path)

    def body_html(self, html: str, lang: str) -> str:
        """A stored post body as a page shows it, the allowlist its last step: the text of
        standalone `ref`/`relref` links made their targets' permalinks (`content.refs.show`),
        then `/_ref/` links resolved to permalinks (`urls.resolve_link`) on parsed attributes,
        by one nh3 pass (`content.sanitize.clean`; trusted with `raw_html`). Run on a
        page-cache miss only."""
        table = self.state.source_urls()
        owner, memo = self._bodies  # one memo per index generation (its link table)
        if owner is not table or len(memo) > BODY_MEMO:
            memo = {}
            self._bodies = (table, memo)
        done = memo.get((html, lang))
        if done is not None:  # a post's body in its page, list feeds and term feeds: once
            return done
        content_dir = self.site.settings.content_dir

        def link(url: str) -> str:
            return urls.resolve_link(url, table, content_dir, lang)

        def permalink(target: str) -> str | None:
            return urls.resolve_ref(target, table, content_dir, lang)

        shown = refs.show(html, permalink, self.absolute)
        memo[(html, lang)] = done = sanitize.clean(shown, link, trusted=self.site.settings.raw_html)
        return done

    def date(self, iso: str, lang: Language) -> dict[str, str]:
        value = datetime.fromisoformat(iso)
        return {"iso": value.isoformat(), "text": long_date(value, lang.locale)}

    def author_nodes(self, raw: str, lang: Language) -> list[dict[str, Any]]:
        """JSON-LD `Person` of each author of a post: `url` their author page, `sameAs` the
        profile link written in front matter."""
        return [
            jsonld.person(a.name, self.absolute(people.bio_url(lang.prefix, a.key)), a.url)
            for a in post_authors(raw)
        ]

    def menu(self, lang: Language, path: str) -> list[dict[str, Any]]:
        """The menu of `lang`: `{"title", "url", "current"}` by weight, then the `menu`
        setting as written, then the posts and pages that joined it from front matter (oldest
        first; `meta.menu_entry`); `current` when the item is the page at `path`. A URL the
        setting has already is not repeated."""
        items = [(i.weight, i.title, i.url) for i in self.site.settings.menu.get(lang.code, [])]
        listed = {url for _, _, url in items}
        for row in store.menu_posts(self.state.db.read(), lang.code, self.state.now()):
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
        conn = self.state.db.read()
        about = store.page_url_by_slug(conn, "about", lang.code, self.state.now())
        if about is not None and any(item["url"] == about for item in menu):
            about = None
        feeds = [
            {"title": gettext(lang.locale, f"{fmt}_feed"), "url": urls.feed_url(lang.prefix, fmt),
             "type": mime}
            for fmt, mime in (("rss", "application/rss+xml"), ("atom", "application/atom+xml"))
        ]  # fmt: skip
        return {"about": about, "feeds": feeds}

    def card(
        self, row: PostRow | PostSummary, terms: dict[str, list], lang: Language
    ) -> dict[str, Any]:
        return {
            "title": row.title,
            "url": row.url,
            "date": self.date(row.date, lang),
            "excerpt": row.excerpt,
            "reading": gettext(lang.locale, "minutes_read", n=row.reading_minutes),
            "draft": bool(row.draft),
            "tags": self.term_links(lang, "tags", terms.get("tags", [])),
            "categories": self.term_links(lang, "categories", terms.get("categories", [])),
            "authors": self.term_links(lang, people.TAXONOMY, terms.get(people.TAXONOMY, [])),
        }

    def comment_counts(
        self, conn: sqlite3.Connection, rows: list[PostSummary], cards: list[dict], lang: Language
    ) -> None:
        """Add `comment_count` (`{"n", "text", "url"}`, None for none) to each card of `rows`;
        the page is then rendered again whenever a comment changes (`state.reads_comments`)."""
        self.state.reads_comments()
        counts = comment_store.approved_counts(conn, {r.translation_key for r in rows})
        for row, card in zip(rows, cards, strict=True):
            n = counts.get(row.translation_key, 0)
            key = "n_comments_one" if n == 1 else "n_comments"
            text = gettext(lang.locale, key, n=n)
            shown = {"n": n, "text": text, "url": row.url + "#mh-comments"}
            card["comment_count"] = shown if n else None

    def comment_feed_links(self, row: PostRow, lang: Language) -> list[dict[str, str]]:
        """`<link rel="alternate">` of a post's comment feeds (RSS, Atom), [] when its comments
        are off (`comments: false`) or it is a page (`content/pages/`: no comments)."""
        if not row.comments or row.kind != "post":
            return []
        title = gettext(lang.locale, "comments_on", title=row.title)
        url = row.url
        return [
            {"type": mime, "title": title, "href": self.absolute(urls.comment_feed_url(url, fmt))}
            for fmt, mime in (("rss", "application/rss+xml"), ("atom", "application/atom+xml"))
        ]

    def comment_nodes(
        self, conn: sqlite3.Connection, row: PostRow, page_url: str
    ) -> tuple[int | None, list[dict[str, Any]]]:
        """A post's `commentCount` (None when its comments are off) and JSON-LD `Comment` items
        (approved ones only: a removed comment's placeholder has no author and no text, C39).
        The page must be one that `reads_thread` its thread."""
        if not row.comments:
            return None, []
        thread = comment_store.public_thread(conn, row.translation_key)
        # readers' comments only: a pingback or trackback is another site's link, no Comment
        # a person wrote (schema.org has no type for it), so it is neither listed nor counted
        shown = [c for c in thread if not c.removed and not discussion.is_ping(c.kind)]
        listed = shown[:JSONLD_COMMENTS]
        ids = {c.id for c in listed}  # a reply to a removed comment names no parent
        written = self.site.languages.get(row.lang, self.site.default_language)
        nameless = gettext(written.locale, "anonymous")  # imported comments may have no name
        items = [
            jsonld.comment(
                url=f"{page_url}#c-{c.id}",
                author=jsonld.person(c.author_name.strip() or nameless, c.author_url or None),
                published=datetime.fromtimestamp(c.created, self.site.tz),
                text=html_to_text(c.body_html),
                language=self.hreflang_of(c.lang),
                parent=f"{page_url}#c-{c.parent_id}" if c.parent_id in ids else None,
            )
            for c in listed
        ]
        return len(shown), items

    def hreflang_of(self, code: str) -> str:
        """The BCP 47 tag of the site language `code` (the code itself when it is not one)."""
        lang = self.site.languages.get(code)
        return lang.hreflang if lang else code

    def term_links(self, lang: Language, taxonomy: str, terms: Iterable) -> list[dict[str, str]]:
        return [
            {"name": name, "url": urls.term_url(lang.prefix, taxonomy, key)} for key, name in terms
        ]

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
        return {
            code: urls.term_url(self.site.languages[code].prefix, taxonomy, key)
            for code in seo_store.term_languages(conn, taxonomy, key, self.state.now())
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

    def cover_url(self, cover: str) -> str:
        """A cover as an absolute http(s) URL (site paths get the base URL, `//host/x` the base
        URL's scheme), or "" for none (or one of another scheme, which `parse_post` never keeps)."""
        if cover.startswith("//"):
            return urljoin(self.state.base_url, cover)
        if cover.startswith("/"):
            return self.absolute(cover)
        return cover if sanitize.scheme(cover) in ("http", "https") else ""

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

        def t(key: str, **values: Any) -> str:
            return gettext(lang.locale, key, **values)

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
            # an exported page searches on the masthead at `api_url` (same form, no script)
            "search_url": (self.site.settings.api_url or "") + self.lang_path(lang, "/search"),
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

    # --- pages ---------------------------------------------------------------------------------

    def listing(
        self, lang: Language, page: int, taxonomy: str | None = None, key: str | None = None
    ) -> tuple[str, int]:
        conn = self.state.db.read()
        per = self.site.settings.posts_per_page
        rows, total = store.list_posts(
            conn,
            lang=lang.code,
            now=self.state.now(),
            limit=per,
            offset=(page - 1) * per,
            taxonomy=taxonomy,
            key=key,
            drafts=self.state.dev,
        )
        pages = max(1, math.ceil(total / per))
        if page > pages or page < 1:
            raise NotFound("no such page")
        name, bio = "", None
        if taxonomy:
            name = store.term_name(conn, taxonomy, key or "", lang.code) or ""
            if not name or total == 0:
                raise NotFound("no such term")
            base = urls.term_url(lang.prefix, taxonomy, key or "")
            if taxonomy == people.TAXONOMY:
                bio = self.bio(conn, key or "", lang)
                name = bio["name"] if bio else name
            heading = term_heading(lang.locale, taxonomy, name)
            versions = {lang.code: base, **self.term_versions(conn, taxonomy, key or "")}
        else:
            base, heading = lang.root, ""
            versions = self.section_versions("/")
        path = base if page == 1 else f"{base}page/{page}/"
        if page > 1:
            versions = {lang.code: path}
        terms = store.terms_of(conn, [r.id for r in rows])
        cards = [self.card(r, terms[r.id], lang) for r in rows]
        for row, card in zip(rows, cards, strict=True):
            card["thumb"] = self.thumbs.thumb(row.cover)  # resized once (content/thumbs.py)
        # the first thumbnail may be the largest paint: never lazy (the others wait their turn)
        card_eager = next((c for c in cards if c["thumb"]), None)
        if card_eager is not None:
            card_eager["thumb_eager"] = True
        self.comment_counts(conn, rows, cards, lang)

        def page_url(n: int) -> str | None:
            if n < 1 or n > pages:
                return None
            return base if n == 1 else f"{base}page/{n}/"

        title = heading or self.site.settings.title
        if page > 1:
            title = f"{title} · {gettext(lang.locale, 'page_n', n=page)}"
        settings = self.site.settings
        structured = [
            jsonld.collection_page(
                url=self.absolute(path),
                name=title,
                description="" if taxonomy else lang.description,
                language=lang.hreflang,
                items=[self.absolute(c["url"]) for c in cards],
            )
        ]
        if taxonomy:
            index = (gettext(lang.locale, taxonomy), self.lang_path(lang, f"/{taxonomy}/"))
            structured.append(self.crumbs(lang, index, (name, base)))
            if taxonomy == people.TAXONOMY:
                structured.append(self.profile(lang, base, name, bio))
        elif page == 1:  # the home page: the site and its search
            where = self.site.settings.api_url or self.absolute("")
            search = where + self.lang_path(lang, "/search") + "?q={search_term_string}"
            site_node = jsonld.website(
                name=settings.title,
                url=self.absolute(lang.root),
                language=lang.hreflang,
                description=lang.description,
                search_template=search,
            )
            structured.insert(0, site_node)
        return self.page(
            "list.html",
            lang,
            path=path,
            title=title,
            versions=versions,
            structured=structured,
            feeds=self.feed_links(lang, taxonomy, key, heading, every_language=not taxonomy),
            heading=heading,
            posts=cards,
            total=total,
            pagination={
                "page": page,
                "pages": pages,
                "newer": page_url(page - 1),
                "older": page_url(page + 1),
            },
            taxonomy=taxonomy,
            author=({"name": name, "bio": bio} if taxonomy == people.TAXONOMY else None),
        )

    def bio(self, conn: sqlite3.Connection, key: str, lang: Language) -> dict[str, Any] | None:
        """The bio of author `key` (`content/authors/KEY.md`) in `lang`, else in the default
        language, else in any: `{"name", "html", "avatar", "links"}`; None without one."""
        row = store.author_bio(conn, key, lang.code, self.site.settings.default_language)
        if row is None:
            return None
        extra = store.decode_json(row.extra) or {}
        return {
            "name": row.title,
            # the nh3 allowlist is the last step of body_html (raw_html trusts its authors)
            "html": Markup(self.body_html(row.html, row.lang)),  # nosec B704
            "avatar": row.cover if self.cover_url(row.cover) else "",
            "links": extra.get("links", []),
            "lang": self.hreflang_of(row.lang),
            "url": self.absolute(row.url),
        }

    def profile(
        self, lang: Language, path: str, name: str, bio: dict[str, Any] | None
    ) -> dict[str, Any]:
        """The JSON-LD `ProfilePage` of an author page: its `Person`, with the bio's links as
        `sameAs` and the avatar as `image`."""
        page_url = self.absolute(path)
        person = jsonld.person(name, page_url)
        if bio:
            if bio["links"]:
                person["sameAs"] = [link["url"] for link in bio["links"]]
            if bio["avatar"]:
                person["image"] = self.cover_url(bio["avatar"])
        return {"@type": "ProfilePage", "url": page_url, "inLanguage": lang.hreflang,
                "mainEntity": person}  # fmt: skip

    def post(
        self, lang: Language, url: str, comment_page: int = 1, preview: bool = False
    ) -> tuple[str, int]:
        """A post or page at `url`; a post shows page `comment_page` of its comment thread (the
        nearest page it has when it has not that one).
        With `preview` (a signed-in editor), a draft or a post dated in the future too,
        marked and noindex (the caller never caches it)."""
        conn = self.state.db.read()
        now = self.state.now()
        row = store.post_by_url(conn, url, now, drafts=self.state.dev)
        previewed = row is None and preview
        if previewed:
            row = store.preview_by_url(conn, url)
        if row is None:
            raise NotFound("no such post")
        self.state.reads_thread(row.translation_key)  # cached until its thread changes
        comments = discussion.block(conn, row, self.site, lang, now, comment_page)
        terms = store.terms_of(conn, [row.id])[row.id]
        others = store.translations(conn, row, now, drafts=self.state.dev)
        versions = {row.lang: row.url, **{o.lang: o.url for o in others}}
        post = {
            **self.card(row, terms, lang),
            "kind": row.kind,
            # the nh3 allowlist is the last step of body_html (raw_html trusts its authors)
            "html": Markup(self.body_html(row.html, row.lang)),  # nosec B704
            # the TOC is built from escaped heading text (content.headings.render_toc)
            "toc_html": Markup(row.toc_html) if row.show_toc else "",  # nosec B704
            "authors": [
                {"name": a.name, "url": people.bio_url(lang.prefix, a.key)}
                for a in post_authors(row.authors)
            ],
            "cover": row.cover if self.cover_url(row.cover) else "",
            "updated": self.date(row.updated, lang) if row.updated else None,
            "translations": [
                {
                    "name": self.site.languages[o.lang].name,
                    "hreflang": self.site.languages[o.lang].hreflang,
                    "url": o.url,
                    "title": o.title,
                }
                for o in others
                if o.lang in self.site.languages
            ],
        }
        page_url = self.absolute(row.url)
        canonical = row.canonical or page_url
        image = self.cover_url(row.cover)
        published = datetime.fromisoformat(row.date)
        modified = datetime.fromisoformat(row.updated) if row.updated else published
        tags = [n for _k, n in terms["tags"]]
        sections = [n for _k, n in terms["categories"]]
        if row.kind == "post":
            settings = self.site.settings
            comment_count, comment_items = self.comment_nodes(conn, row, page_url)
            node = jsonld.blog_posting(
                url=page_url,
                canonical=canonical,
                headline=row.title,
                description=row.excerpt,
                published=published,
                modified=modified,
                authors=self.author_nodes(row.authors, lang),
                image=image,
                language=lang.hreflang,
                publisher=jsonld.organization(settings.title, self.absolute("/")),
                keywords=tags,
                sections=sections,
                word_count=row.word_count,
                comment_count=comment_count,
                comments=comment_items,
            )
            trail = []
            if sections:  # the first category, as the card links it
                key, name = terms["categories"][0]
                trail = [(name, urls.term_url(lang.prefix, "categories", key))]
            og: dict[str, Any] = {
                "kind": "article",
                "image": image,
                "published": published,
                "modified": modified,
                "tags": tags,
                "section": sections[0] if sections else "",
            }
        else:
            node = jsonld.web_page(
                url=page_url, name=row.title, description=row.excerpt, language=lang.hreflang
            )
            trail, og = [], {"image": image}
        return self.page(
            "post.html",
            lang,
            path=row.url,
            title=row.title,
            versions=versions,
            hreflang=self.post_hreflang(conn, row),
            post=post,
            description=row.excerpt,
            canonical=canonical,
            noindex=bool(row.noindex or row.draft or previewed),
            og=og,
            structured=[node, self.crumbs(lang, *trail, (row.title, row.url))],
            preview=(
                {"scheduled": self.date(row.date, lang)}
                if previewed and row.date_ts > now
                else None
            ),
            feeds=self.feed_links(lang) + self.comment_feed_links(row, lang),
            comments=comments,
            **self.post_links(conn, row, lang, now),
        )

    def post_links(
        self, conn: sqlite3.Connection, row: PostRow, lang: Language, now: float
    ) -> dict[str, Any]:
        """A post's `neighbours` (`{"previous", "next"}`: the older and newer post of its
        language by date, each `{"title", "url"}` or None) and `related` (up to `RELATED_POSTS`
        posts of its language sharing the most tags, newest first on ties); none for pages.
        Both change only with the index, so the page's cache (per generation) stays right."""
        if row.kind != "post":
            return {"neighbours": None, "related": []}
        drafts = self.state.dev
        older, newer = store.neighbours(conn, row, now, drafts=drafts)
        related = store.related(conn, row, now, RELATED_POSTS, drafts=drafts)

        def link(r: PostLink | RelatedPost | None) -> dict[str, Any] | None:
            if r is None:
                return None
            return {"title": r.title, "url": r.url, "date": self.date(r.date, lang)}

        return {
            "neighbours": {"previous": link(older), "next": link(newer)},
            "related": [link(r) for r in related],
        }

    def terms(self, lang: Language, taxonomy: str) -> tuple[str, int]:
        rows = store.term_counts(self.state.db.read(), taxonomy, lang.code, self.state.now())
        items: list[dict[str, Any]] = [
            {"name": r.name, "url": urls.term_url(lang.prefix, taxonomy, r.key), "n": r.n}
            for r in rows
        ]
        path = self.lang_path(lang, f"/{taxonomy}/")
        title = gettext(lang.locale, f"all_{taxonomy}")
        structured = [
            self.collection(lang, path, title, [i["url"] for i in items]),
            self.crumbs(lang, (gettext(lang.locale, taxonomy), path)),
        ]
        return self.page(
            "terms.html",
            lang,
            path=path,
            title=title,
            versions=self.section_versions(f"/{taxonomy}/"),
            structured=structured,
            terms=items,
        )

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

    def archive(self, lang: Language) -> tuple[str, int]:
        rows = store.archive(
            self.state.db.read(), lang.code, self.state.now(), drafts=self.state.dev
        )
        years: dict[int, list[dict[str, Any]]] = {}
        for r in rows:
            when = datetime.fromisoformat(r.date)
            entry = {"title": r.title, "url": r.url, "date": self.date(r.date, lang)}
            years.setdefault(when.year, []).append({**entry, "draft": bool(r.draft)})
        path = self.lang_path(lang, "/archive/")
        title = gettext(lang.locale, "archive")
        structured = [
            self.collection(lang, path, title, [r.url for r in rows]),
            self.crumbs(lang, (title, path)),
        ]
        return self.page(
            "archive.html",
            lang,
            path=path,
            title=title,
            versions=self.section_versions("/archive/"),
            structured=structured,
            years=sorted(years.items(), reverse=True),
        )

    def error(self, lang: Language, status: int, message: str, path: str) -> tuple[str, int]:
        """An error page; a 404 offers a way forward: a search box and `LATEST_ON_404` of the
        language's newest posts (other errors read nothing, so they render whatever broke)."""
        key = "not_found" if status == 404 else "error"
        return self.page(
            "error.html",
            lang,
            path=path,
            title=gettext(lang.locale, key),
            status=status,
            error_status=status,
            message=message,
            noindex=True,
            latest=self.latest(lang) if status == 404 else [],
        )

    def latest(self, lang: Language) -> list[dict[str, Any]]:
        """The newest published posts of `lang` (`{"title", "url", "date"}`), at most
        `LATEST_ON_404`."""
        rows, _total = store.list_posts(
            self.state.db.read(), lang=lang.code, now=self.state.now(), limit=LATEST_ON_404
        )
        return [{"title": r.title, "url": r.url, "date": self.date(r.date, lang)} for r in rows]
