"""The shared part of every page renderer: the site, its state and template environment,
URLs, dates, post bodies and the cards list pages and posts show.

The renderer (`renderer.Renderer`) is built from one class per page type (`post`, `lists`,
`errors`) over `layout.Layout`, which draws the frame and the head tags every page shares,
over `Base`. Each page function returns `(html, status)` and is only called on a page-cache
miss.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from datetime import datetime
from functools import lru_cache
from typing import Any
from urllib.parse import urljoin

from jinja2 import Environment

from masthead.config import Language, Site
from masthead.content import authors as people
from masthead.content import refs, sanitize, urls
from masthead.content.cards import ShareCards
from masthead.content.thumbs import Thumbnails, folder_for
from masthead.i18n import gettext, long_date
from masthead.store import comments as comment_store
from masthead.store.rows import PostRow, PostSummary
from masthead.web.cache.state import SiteState

TAXONOMIES = ("tags", "categories", people.TAXONOMY)
HEADINGS = {"tags": "posts_tagged", "categories": "posts_in", people.TAXONOMY: "posts_by"}
BODY_MEMO = 2048  # post bodies kept sanitized per generation (a feed re-renders 20 of them)


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


class Base:
    """The site, its state and templates, and the helpers every page type uses."""

    def __init__(self, state: SiteState, env: Environment) -> None:
        self.state = state
        self.env = env
        self.site: Site = state.site
        self._bodies: tuple[object, dict[tuple[str, str], str]] = (None, {})
        self.thumbs = Thumbnails(self.site.content_dir, folder_for(self.site.database_path))
        self.cards = ShareCards(self.site)

    def absolute(self, path: str) -> str:
        return urls.absolute(self.state.base_url, path)

    def lang_path(self, lang: Language, path: str) -> str:
        """`/archive/` in `lang`: `/archive/` or `/zh/archive/`."""
        return urls.lang_path(lang.prefix, path)

    def search_url(self, lang: Language) -> str:
        """Where a search form of `lang` sends its query: this site's `/search`, that masthead's
        on an export with `api_url`, and on an export with no masthead behind it the page
        `/search/` of the files, which searches their index (export/search_index.py)."""
        if self.state.self_contained:
            return self.lang_path(lang, "/search/")
        return (self.site.settings.api_url or "") + self.lang_path(lang, "/search")

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
        trusted = self.site.settings.raw_html
        memo[(html, lang)] = done = sanitize.clean(shown, link, trusted=trusted, mathml=True)
        return done

    def date(self, iso: str, lang: Language) -> dict[str, str]:
        value = datetime.fromisoformat(iso)
        return {"iso": value.isoformat(), "text": long_date(value, lang.locale)}

    def cover_url(self, cover: str) -> str:
        """A cover as an absolute http(s) URL (site paths get the base URL, `//host/x` the base
        URL's scheme), or "" for none (or one of another scheme, which `parse_post` never keeps)."""
        if cover.startswith("//"):
            return urljoin(self.state.base_url, cover)
        if cover.startswith("/"):
            return self.absolute(cover)
        return cover if sanitize.scheme(cover) in ("http", "https") else ""

    def hreflang_of(self, code: str) -> str:
        """The BCP 47 tag of the site language `code` (the code itself when it is not one)."""
        lang = self.site.languages.get(code)
        return lang.hreflang if lang else code

    def term_links(self, lang: Language, taxonomy: str, terms: Iterable) -> list[dict[str, str]]:
        return [
            {"name": name, "url": urls.term_url(lang.prefix, taxonomy, key)} for key, name in terms
        ]

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
        the page is then rendered again whenever a comment of one of those threads changes
        (`state.reads_thread`)."""
        threads = {r.translation_key for r in rows}
        for thread in sorted(threads):
            self.state.reads_thread(thread)
        counts = comment_store.approved_counts(conn, threads)
        for row, card in zip(rows, cards, strict=True):
            n = counts.get(row.translation_key, 0)
            key = "n_comments_one" if n == 1 else "n_comments"
            text = gettext(lang.locale, key, n=n)
            shown = {"n": n, "text": text, "url": row.url + "#mh-comments"}
            card["comment_count"] = shown if n else None
