"""Pages: database rows to template contexts to HTML. One function per page type.

Each function returns `(html, status)` and is only called on a page-cache miss.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from jinja2 import Environment
from markupsafe import Markup

from masthead.config import Language, Site
from masthead.content import sanitize, urls
from masthead.content.markdown import render_inline
from masthead.errors import NotFound
from masthead.i18n import gettext, long_date
from masthead.store import posts as store
from masthead.web.state import SiteState

TAXONOMIES = ("tags", "categories")


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

    # --- helpers -----------------------------------------------------------------------------

    def absolute(self, path: str) -> str:
        return self.site.settings.base_url + path

    def lang_path(self, lang: Language, path: str) -> str:
        """`/archive/` in `lang`: `/archive/` or `/zh/archive/`."""
        return (f"/{lang.prefix}" if lang.prefix else "") + path

    def resolve_refs(self, html: str, lang: str) -> str:
        table = self.state.source_urls()
        content_dir = self.site.settings.content_dir

        def sub(m: re.Match[str]) -> str:
            url = urls.resolve_ref(m.group(1), table, content_dir, lang)
            return f'href="{url}{m.group(2)}"' if url else m.group(0)

        return urls.REF_LINK.sub(sub, html)

    def date(self, iso: str, lang: Language) -> dict[str, str]:
        value = datetime.fromisoformat(iso)
        return {"iso": value.isoformat(), "text": long_date(value, lang.locale)}

    def authors_html(self, raw: str) -> Markup:
        names = json.loads(raw) if raw else []
        return Markup(", ".join(sanitize.clean(render_inline(n)) for n in names))

    def card(self, row: sqlite3.Row, terms: dict[str, list], lang: Language) -> dict[str, Any]:
        return {
            "title": row["title"],
            "url": row["url"],
            "date": self.date(row["date"], lang),
            "excerpt": row["excerpt"],
            "reading": gettext(lang.locale, "minutes_read", n=row["reading_minutes"]),
            "draft": bool(row["draft"]),
            "tags": self.term_links(lang, "tags", terms.get("tags", [])),
            "categories": self.term_links(lang, "categories", terms.get("categories", [])),
        }

    def term_links(self, lang: Language, taxonomy: str, terms: Iterable) -> list[dict[str, str]]:
        return [
            {"name": name, "url": urls.term_url(lang.prefix, taxonomy, key)} for key, name in terms
        ]

    def alternates(self, versions: dict[str, str], current: Language) -> list[Alternate]:
        """hreflang alternates from `{lang code: path}`; empty when there is only one version."""
        if len(versions) < 2:
            return []
        return [
            Alternate(lang.hreflang, self.absolute(versions[code]), lang, code == current.code)
            for code, lang in self.site.languages.items()
            if code in versions
        ]

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
        status: int = 200,
        **context: Any,
    ) -> tuple[str, int]:
        versions = versions if versions is not None else {lang.code: path}
        default = self.site.default_language.code
        alternates = self.alternates(versions, lang)
        x_default = versions.get(default) or versions.get(lang.code)

        def t(key: str, **values: Any) -> str:
            return gettext(lang.locale, key, **values)

        ctx = {
            "site": self.site.settings,
            "lang": lang,
            "languages": list(self.site.languages.values()),
            "t": t,
            "title": title,
            "path": path,
            "canonical": context.pop("canonical", None) or self.absolute(path),
            "alternates": alternates,
            "x_default": self.absolute(x_default) if alternates and x_default else None,
            "switcher": self.switcher(versions, lang),
            "home": lang.root,
            "search_url": self.lang_path(lang, "/search"),
            "nav": {
                "archive": self.lang_path(lang, "/archive/"),
                "tags": self.lang_path(lang, "/tags/"),
                "categories": self.lang_path(lang, "/categories/"),
            },
            "dev": self.state.dev,
            "dev_version": self.state.reload_version(),
            **context,
        }
        return self.env.get_template(template).render(ctx), status

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
        if taxonomy:
            name = store.term_name(conn, taxonomy, key or "", lang.code)
            if name is None or total == 0:
                raise NotFound("no such term")
            base = urls.term_url(lang.prefix, taxonomy, key or "")
            heading = gettext(
                lang.locale, "posts_tagged" if taxonomy == "tags" else "posts_in", name=name
            )
            versions = {
                code: urls.term_url(other.prefix, taxonomy, key or "")
                for code, other in self.site.languages.items()
                if code == lang.code or store.term_name(conn, taxonomy, key or "", code)
            }
        else:
            base, heading = lang.root, ""
            versions = {code: other.root for code, other in self.site.languages.items()}
        path = base if page == 1 else f"{base}page/{page}/"
        if page > 1:
            versions = {lang.code: path}
        terms = store.terms_of(conn, [r["id"] for r in rows])
        cards = [self.card(r, terms[r["id"]], lang) for r in rows]

        def page_url(n: int) -> str | None:
            if n < 1 or n > pages:
                return None
            return base if n == 1 else f"{base}page/{n}/"

        title = heading or self.site.settings.title
        if page > 1:
            title = f"{title} · {gettext(lang.locale, 'page_n', n=page)}"
        return self.page(
            "list.html",
            lang,
            path=path,
            title=title,
            versions=versions,
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
        )

    def post(self, lang: Language, url: str) -> tuple[str, int]:
        conn = self.state.db.read()
        now = self.state.now()
        row = store.post_by_url(conn, url, now, drafts=self.state.dev)
        if row is None:
            raise NotFound("no such post")
        terms = store.terms_of(conn, [row["id"]])[row["id"]]
        others = store.translations(conn, row, now, drafts=self.state.dev)
        versions = {row["lang"]: row["url"], **{o["lang"]: o["url"] for o in others}}
        if row["canonical"] or row["noindex"]:
            versions = {row["lang"]: row["url"]}
        post = {
            **self.card(row, terms, lang),
            "kind": row["kind"],
            "html": Markup(self.resolve_refs(row["html"], row["lang"])),
            "toc_html": Markup(row["toc_html"]) if row["show_toc"] else "",
            "authors": self.authors_html(row["authors"]),
            "cover": row["cover"],
            "updated": self.date(row["updated"], lang) if row["updated"] else None,
            "translations": [
                {
                    "name": self.site.languages[o["lang"]].name,
                    "hreflang": self.site.languages[o["lang"]].hreflang,
                    "url": o["url"],
                    "title": o["title"],
                }
                for o in others
                if o["lang"] in self.site.languages
            ],
        }
        return self.page(
            "post.html",
            lang,
            path=row["url"],
            title=row["title"],
            versions=versions,
            post=post,
            description=row["excerpt"],
            canonical=row["canonical"] or None,
            noindex=bool(row["noindex"] or row["draft"]),
        )

    def terms(self, lang: Language, taxonomy: str) -> tuple[str, int]:
        rows = store.term_counts(self.state.db.read(), taxonomy, lang.code, self.state.now())
        items = [
            {"name": r["name"], "url": urls.term_url(lang.prefix, taxonomy, r["key"]), "n": r["n"]}
            for r in rows
        ]
        path = self.lang_path(lang, f"/{taxonomy}/")
        versions = {c: self.lang_path(o, f"/{taxonomy}/") for c, o in self.site.languages.items()}
        title = gettext(lang.locale, "all_tags" if taxonomy == "tags" else "all_categories")
        return self.page("terms.html", lang, path=path, title=title, versions=versions, terms=items)

    def archive(self, lang: Language) -> tuple[str, int]:
        rows = store.archive(self.state.db.read(), lang.code, self.state.now())
        years: dict[int, list[dict[str, Any]]] = {}
        for r in rows:
            when = datetime.fromisoformat(r["date"])
            years.setdefault(when.year, []).append(
                {"title": r["title"], "url": r["url"], "date": self.date(r["date"], lang)}
            )
        path = self.lang_path(lang, "/archive/")
        versions = {c: self.lang_path(o, "/archive/") for c, o in self.site.languages.items()}
        return self.page(
            "archive.html",
            lang,
            path=path,
            title=gettext(lang.locale, "archive"),
            versions=versions,
            years=sorted(years.items(), reverse=True),
        )

    def error(self, lang: Language, status: int, message: str, path: str) -> tuple[str, int]:
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
        )
