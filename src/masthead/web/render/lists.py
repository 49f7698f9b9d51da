"""List pages: the home page and term pages (tags, categories, authors) with their pages, the
index of a taxonomy's terms, and the archive.
"""

from __future__ import annotations

import math
import sqlite3
from datetime import datetime
from typing import Any

from markupsafe import Markup

from masthead.config import Language
from masthead.content import authors as people
from masthead.content import urls
from masthead.errors import NotFound
from masthead.i18n import gettext
from masthead.seo import jsonld
from masthead.store import posts as store
from masthead.store.rows import PostSummary
from masthead.web.render.base import term_heading
from masthead.web.render.layout import Layout


class ListPages(Layout):
    """The home page, term pages, term indexes and the archive."""

    def listing(
        self, lang: Language, page: int, taxonomy: str | None = None, key: str | None = None
    ) -> tuple[str, int]:
        conn = self.state.db.read()
        per = self.site.settings.posts_per_page
        rows, total = self.listed(conn, lang, per, (page - 1) * per, taxonomy, key)
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
            search = self.search_url(lang)
            if search.startswith("/"):
                search = self.absolute(search)
            search += "?q={search_term_string}"
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

    def listed(
        self,
        conn: sqlite3.Connection,
        lang: Language,
        limit: int,
        offset: int,
        taxonomy: str | None,
        key: str | None,
    ) -> tuple[list[PostSummary], int]:
        """`store.posts.list_posts`; in a build (`state.bulk`), the page's slice of the list's
        ids, read once per version for all its pages (a count and a walk of the index per
        page otherwise), and the same rows."""
        now = self.state.now()
        if not (self.state.bulk and not self.state.dev):
            return store.list_posts(
                conn, lang=lang.code, now=now, limit=limit, offset=offset, taxonomy=taxonomy,
                key=key, drafts=self.state.dev,
            )  # fmt: skip
        ids = self.state.memo(
            ("listed", lang.code, taxonomy, key),
            lambda: store.listed_ids(conn, lang=lang.code, now=now, taxonomy=taxonomy, key=key),
        )
        return store.summaries(conn, ids[offset : offset + limit]), len(ids)

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
