"""RSS 2.0 and Atom 1.0 feeds from published posts.

Formats: RSS 2.0 (https://www.rssboard.org/rss-specification) with the `content:encoded`,
`dc:creator` and `atom:link rel="self"` extensions the RSS Advisory Board's best-practices profile
recommends; Atom 1.0 (RFC 4287). Dates are RFC 822 (with four-digit years, as RFC 1123 and the RSS
profile allow) in RSS and RFC 3339 in Atom, in the author's own UTC offset.

Written with the standard library's ElementTree rather than feedgen: feedgen 1.0 switches the
process-wide `LC_TIME` locale for every RSS date (not thread-safe in a threaded server), drops the
`rel`/`type` of Atom entry links, and needs an e-mail address for an RSS author. Every output is
checked by feedparser and a strict XML parser in the tests.

Text is escaped once, by the serializer: a title `Q&A: <video>` reads back exactly as typed
(case C27). HTML (post bodies, the plain-text summary escaped as HTML, also in Atom, so a reader
that ignores `type="text"` still shows text) goes into `content:encoded`, `description` and Atom
`type="html"` elements as escaped text, never CDATA, so `]]>` in a code
block cannot end it. Every `href`, `src`, `srcset` candidate, `cite` and `poster` in a body (and the
cover) is made absolute against the post's URL, because feed readers show the HTML away from the
site (case C26); that rewrite is the body's last step, done on parsed attributes by the same nh3
allowlist pass as pages (`masthead.content.sanitize`), so a body reaches a feed sanitized.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import format_datetime
from functools import lru_cache
from urllib.parse import urljoin

from masthead.content import sanitize
from masthead.seo.xmltext import document, element

ATOM_NS = "http://www.w3.org/2005/Atom"
CONTENT_NS = "http://purl.org/rss/1.0/modules/content/"
DC_NS = "http://purl.org/dc/elements/1.1/"
GENERATOR = "masthead"
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)  # Atom requires <updated>; an empty feed has no date


@dataclass(frozen=True)
class Category:
    """A tag or category of an item: `name` as written, `scheme` the absolute URL of its
    taxonomy's index page (`https://example.com/tags/`), which tells tags from categories."""

    name: str
    scheme: str


@dataclass(frozen=True)
class FeedItem:
    """One post. `url` is its absolute permalink; `published`/`updated` are aware datetimes;
    `authors` are plain-text names; `summary` is plain text; `html` is the body, whose relative
    links are resolved against `url`; `image` an absolute cover URL or ""; `lang` a BCP 47 tag;
    `raw_html` True when the body is the trusted HTML of a `raw_html` site (kept as written)."""

    title: str
    url: str
    published: datetime
    updated: datetime | None
    authors: tuple[str, ...]
    categories: tuple[Category, ...]
    summary: str
    html: str
    image: str = ""
    lang: str = ""
    raw_html: bool = False

    @property
    def modified(self) -> datetime:
        """The last real change: `updated`, else `published`."""
        return self.updated or self.published


@dataclass(frozen=True)
class FeedInfo:
    """The feed itself: `page_url` is the absolute URL of the HTML page it mirrors (a home or term
    page); `rss_url` and `atom_url` its own two absolute URLs; `language` a BCP 47 tag, or "" for
    a feed mixing languages; `author` the name Atom gives posts without one (default: `title`)."""

    title: str
    description: str
    page_url: str
    rss_url: str
    atom_url: str
    language: str = ""
    author: str = ""


def rfc822(value: datetime) -> str:
    """`Fri, 01 Mar 2024 09:00:00 +0800` (RFC 822 as updated by RFC 1123/2822); locale-free.

    Raises ValueError for a naive datetime (its offset would be a guess).
    """
    if value.tzinfo is None:
        raise ValueError("a feed date needs a UTC offset")
    return format_datetime(value.replace(microsecond=0))


def rfc3339(value: datetime) -> str:
    """`2024-03-01T09:00:00+08:00` (RFC 3339, whole seconds). Raises ValueError when naive."""
    if value.tzinfo is None:
        raise ValueError("a feed date needs a UTC offset")
    return value.isoformat(timespec="seconds")


def last_modified(items: Sequence[FeedItem]) -> datetime | None:
    """The newest `updated`-else-`published` of `items` (None for no items): the feed's own
    last change, for `lastBuildDate`, Atom `updated` and HTTP `Last-Modified`."""
    return max((i.modified for i in items), key=lambda d: d.timestamp(), default=None)


@lru_cache(maxsize=2048)  # pure; a post is in its language's, every language's and term feeds
def absolutize(body: str, base: str, *, trusted: bool = False) -> str:
    """`body` (HTML) through the allowlist (`masthead.content.sanitize.clean`; `trusted` for a
    `raw_html` site) with every `href`, `src`, `cite`, `poster` and `srcset` URL made absolute
    against the absolute URL `base` (RFC 3986 resolution: `/media/x.png`, `img.png`, `#fn:1` and
    `//cdn/x` all become absolute; `https:` and `mailto:` URLs are unchanged)."""
    return sanitize.clean(body, lambda url: urljoin(base, url), trusted=trusted)


def _body(item: FeedItem) -> str:
    cover = (
        f'<p><img src="{html.escape(item.image, quote=True)}" alt=""></p>\n' if item.image else ""
    )
    return absolutize(cover + item.html, item.url, trusted=item.raw_html)


def rss(info: FeedInfo, items: Sequence[FeedItem], *, full_text: bool = True) -> str:
    """An RSS 2.0 document (a str starting with the XML declaration) for `items`, newest first as
    given. `full_text=False` leaves out `content:encoded` (the summary stays in `description`)."""
    root = element(
        None,
        "rss",
        attrs={
            "version": "2.0",
            "xmlns:atom": ATOM_NS,
            "xmlns:content": CONTENT_NS,
            "xmlns:dc": DC_NS,
        },
    )
    channel = element(root, "channel")
    element(channel, "title", info.title)
    element(channel, "link", info.page_url)
    # HTML in readers, as an item's: escaped so a term's or author's name stays text (D9)
    element(channel, "description", html.escape(info.description or info.title, quote=False))
    if info.language:
        element(channel, "language", info.language)
    newest = last_modified(items)
    if newest is not None:
        element(channel, "lastBuildDate", rfc822(newest))
    element(channel, "generator", GENERATOR)
    element(channel, "docs", "https://www.rssboard.org/rss-specification")
    element(
        channel,
        "atom:link",
        attrs={"href": info.rss_url, "rel": "self", "type": "application/rss+xml"},
    )
    for item in items:
        node = element(channel, "item")
        element(node, "title", item.title)
        element(node, "link", item.url)
        element(node, "guid", item.url, {"isPermaLink": "true"})
        element(node, "pubDate", rfc822(item.published))
        for name in item.authors:
            element(node, "dc:creator", name)  # RSS <author> must be an e-mail address
        for cat in item.categories:
            element(node, "category", cat.name, {"domain": cat.scheme})
        # description is HTML in RSS: the plain summary is escaped so `5 < 6` stays text
        element(node, "description", html.escape(item.summary, quote=False))
        if full_text:
            element(node, "content:encoded", _body(item))
    return document(root)


def atom(info: FeedInfo, items: Sequence[FeedItem], *, full_text: bool = True) -> str:
    """An Atom 1.0 document (RFC 4287) for `items`, newest first as given. The feed's id is its
    own URL; entries' ids are their permalinks. `full_text=False` leaves out `<content>` (the
    summary stays in `<summary>`)."""
    attrs = {"xmlns": ATOM_NS}
    if info.language:
        attrs["xml:lang"] = info.language
    root = element(None, "feed", attrs=attrs)
    element(root, "title", info.title, {"type": "text"})
    if info.description:
        element(root, "subtitle", info.description, {"type": "text"})
    element(root, "id", info.atom_url)
    element(
        root, "link", attrs={"rel": "self", "type": "application/atom+xml", "href": info.atom_url}
    )
    element(root, "link", attrs={"rel": "alternate", "type": "text/html", "href": info.page_url})
    element(root, "updated", rfc3339(last_modified(items) or EPOCH))
    element(root, "generator", GENERATOR)
    # Atom needs an author on the feed or on every entry: the site stands in for posts without one
    element(element(root, "author"), "name", info.author or info.title)
    for item in items:
        entry_attrs = {"xml:lang": item.lang} if item.lang and item.lang != info.language else {}
        entry = element(root, "entry", attrs=entry_attrs)
        element(entry, "title", item.title, {"type": "text"})
        element(entry, "link", attrs={"rel": "alternate", "type": "text/html", "href": item.url})
        element(entry, "id", item.url)
        element(entry, "published", rfc3339(item.published))
        element(entry, "updated", rfc3339(item.modified))
        for name in item.authors:
            element(element(entry, "author"), "name", name)
        for cat in item.categories:
            element(
                entry, "category", attrs={"term": cat.name, "scheme": cat.scheme, "label": cat.name}
            )
        # type="html" with the text escaped, as RSS: text to a strict reader and to a lax one
        element(entry, "summary", html.escape(item.summary, quote=False), {"type": "html"})
        if full_text:
            element(entry, "content", _body(item), {"type": "html"})
    return document(root)
