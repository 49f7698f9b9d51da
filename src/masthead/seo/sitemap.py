"""XML sitemaps (https://www.sitemaps.org/protocol.html, schema 0.9) with hreflang alternates.

Alternates follow Google's sitemap form of hreflang: each language version of a page has its own
`<url>`, and every one of them lists the whole set, itself included, plus `x-default`, as
`<xhtml:link rel="alternate" hreflang="…" href="…"/>`. The same `alternates()` builds the
`<link rel="alternate">` tags in page heads, so the two always agree (case C28).

A sitemap holds at most 50,000 URLs; a larger site gets a sitemap index whose children are
`/sitemap-1.xml`, `/sitemap-2.xml`, … (`split()`, `index()`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from masthead.seo.xmltext import document, element

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"
MAX_URLS = 50_000  # the protocol's limit per file


@dataclass(frozen=True)
class Entry:
    """One `<url>`: `loc` absolute; `lastmod` aware (the page's last real change) or None;
    `alternates` the `(hreflang, absolute href)` pairs from `alternates()`, or () for a page with
    no translation."""

    loc: str
    lastmod: datetime | None = None
    alternates: tuple[tuple[str, str], ...] = ()


def w3c_datetime(value: datetime) -> str:
    """`2024-03-01T20:00:00+08:00`: W3C Datetime (the sitemap's `lastmod`), whole seconds, in the
    author's offset. Raises ValueError for a naive datetime."""
    if value.tzinfo is None:
        raise ValueError("lastmod needs a UTC offset")
    return value.isoformat(timespec="seconds")


def alternates(
    versions: Mapping[str, str], hreflangs: Mapping[str, str], default: str
) -> list[tuple[str, str]]:
    """The hreflang set of one page: `(hreflang, href)` for each version, in the site's language
    order, then `("x-default", href)`.

    `versions` maps language codes to the URLs of the versions that may be advertised (published,
    indexable, not canonical elsewhere); `hreflangs` maps every configured language code, in the
    site's order, to its BCP 47 tag; `default` is the default language's code. x-default is the
    default language's version, else the first version in site order: the same for every member
    of the set, which is what makes the set reciprocal. Fewer than two versions: [] (a page does
    not announce itself alone).
    """
    present = [code for code in hreflangs if code in versions]
    if len(present) < 2:
        return []
    links = [(hreflangs[code], versions[code]) for code in present]
    fallback = default if default in versions else present[0]
    return [*links, ("x-default", versions[fallback])]


def urlset(entries: Iterable[Entry]) -> str:
    """A `<urlset>` document for `entries` (at most `MAX_URLS`; see `split`)."""
    root = element(None, "urlset", attrs={"xmlns": SITEMAP_NS, "xmlns:xhtml": XHTML_NS})
    for entry in entries:
        url = element(root, "url")
        element(url, "loc", entry.loc)
        if entry.lastmod is not None:
            element(url, "lastmod", w3c_datetime(entry.lastmod))
        for hreflang, href in entry.alternates:
            element(
                url, "xhtml:link", attrs={"rel": "alternate", "hreflang": hreflang, "href": href}
            )
    return document(root)


def newest(entries: Iterable[Entry]) -> datetime | None:
    """The latest `lastmod` of `entries`, or None when none has one."""
    dates = [e.lastmod for e in entries if e.lastmod is not None]
    return max(dates, key=lambda d: d.timestamp()) if dates else None


def split(entries: Sequence[Entry], limit: int = MAX_URLS) -> list[Sequence[Entry]]:
    """`entries` in consecutive chunks of at most `limit` (1 ≤ limit ≤ 50,000); [] for none."""
    if not 1 <= limit <= MAX_URLS:
        raise ValueError(f"limit must be between 1 and {MAX_URLS}")
    return [entries[i : i + limit] for i in range(0, len(entries), limit)]


def index(children: Sequence[tuple[str, datetime | None]]) -> str:
    """A `<sitemapindex>` document: one `<sitemap>` per `(absolute loc, lastmod or None)`."""
    root = element(None, "sitemapindex", attrs={"xmlns": SITEMAP_NS})
    for loc, lastmod in children:
        node = element(root, "sitemap")
        element(node, "loc", loc)
        if lastmod is not None:
            element(node, "lastmod", w3c_datetime(lastmod))
    return document(root)
