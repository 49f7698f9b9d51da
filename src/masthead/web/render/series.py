"""Series: the box at the top and bottom of each part ("Part 2 of 5" and the other parts, in
order) and the page of a series in one language (`/series/KEY/`, `/zh/series/KEY/`), which
lists its parts in order; store/series.py says which posts are parts and in which order.

Each part shows the reading time its post shows (`minutes_read` of `reading_minutes`).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from masthead.config import Language
from masthead.content import urls
from masthead.errors import NotFound
from masthead.i18n import gettext
from masthead.seo import jsonld
from masthead.store import series as store
from masthead.store.rows import PostRow
from masthead.web.render.layout import Layout

SERIES = "series"  # the URL segment: /series/KEY/


def series_url(prefix: str, key: str) -> str:
    """`/series/KEY/`, or `/PREFIX/series/KEY/` in a language with a prefix."""
    return urls.term_url(prefix, SERIES, key)


class SeriesPages(Layout):
    """The series box of a post, and the page of a series."""

    def series_boxes(
        self, conn: sqlite3.Connection, row: PostRow, lang: Language, now: float
    ) -> list[dict[str, Any]]:
        """One box per series the post is a part of (own or its original's): `name`, `url`
        (the series page), `n`, `total`, `label` ("Part 2 of 5") and `parts` (`title`, `url`,
        `reading`, `current`), in order. [] for a page, or a post in no series."""
        if row.kind != "post":
            return []
        boxes = []
        for named in store.of_post(conn, row.id, row.translation_key):
            parts = store.parts(conn, named.key, row.lang, now, drafts=self.state.dev)
            ids = [p.id for p in parts]
            if row.id not in ids:  # a preview of a draft part: not (yet) in the series
                continue
            n = ids.index(row.id) + 1
            name = store.name(conn, named.key, row.lang) or named.name
            boxes.append(
                {
                    "key": named.key,
                    "name": name,
                    "url": series_url(lang.prefix, named.key),
                    "n": n,
                    "total": len(parts),
                    "label": gettext(lang.locale, "series_part", n=n, total=len(parts)),
                    "parts": [
                        {
                            "title": p.title,
                            "url": p.url,
                            "reading": gettext(lang.locale, "minutes_read", n=p.reading_minutes),
                            "current": p.id == row.id,
                        }
                        for p in parts
                    ],
                }
            )
        return boxes

    def series_nodes(self, boxes: list[dict[str, Any]], lang: Language) -> list[dict[str, Any]]:
        """The JSON-LD `CreativeWorkSeries` each box names (a part's `isPartOf`)."""
        return [
            jsonld.series(url=self.absolute(b["url"]), name=b["name"], language=lang.hreflang)
            for b in boxes
        ]

    def series(self, lang: Language, key: str) -> tuple[str, int]:
        """The page of series `key` in `lang`: its parts in order. NotFound when it has none
        published in that language."""
        conn = self.state.db.read()
        now = self.state.now()
        parts = store.parts(conn, key, lang.code, now, drafts=self.state.dev)
        name = store.name(conn, key, lang.code)
        if not parts or name is None:
            raise NotFound("no such series")
        path = series_url(lang.prefix, key)
        versions = {
            code: series_url(other.prefix, key)
            for code, other in self.site.languages.items()
            if code == lang.code or store.parts(conn, key, code, now)
        }
        heading = gettext(lang.locale, "series_heading", name=name)
        items = [
            {
                "n": n,
                "title": p.title,
                "url": p.url,
                "date": self.date(p.date, lang),
                "reading": gettext(lang.locale, "minutes_read", n=p.reading_minutes),
                "draft": bool(p.draft),
            }
            for n, p in enumerate(parts, start=1)
        ]
        node = jsonld.series(url=self.absolute(path), name=name, language=lang.hreflang)
        node["hasPart"] = [
            {"@type": "BlogPosting", "url": self.absolute(p.url), "headline": p.title,
             "position": n}
            for n, p in enumerate(parts, start=1)
        ]  # fmt: skip
        feeds = [
            {"type": mime, "title": self.feed_title(lang, heading),
             "href": self.absolute(path + urls.FEED_FILES[fmt])}
            for fmt, mime in (("rss", "application/rss+xml"), ("atom", "application/atom+xml"))
        ]  # fmt: skip
        return self.page(
            "series.html",
            lang,
            path=path,
            title=heading,
            versions=versions,
            structured=[node, self.crumbs(lang, (name, path))],
            feeds=feeds,
            heading=heading,
            parts=items,
        )
