"""A WordPress export (WXR 1.0-1.2) read as items, streamed with defusedxml's `iterparse`
(no DTD, no entities: the file is untrusted), one `<item>` in memory at a time.

`read(path)` yields the channel's authors and categories (`Author`, `Category`), then each
`Item`, in file order. Fields are those of `wp-admin/includes/export.php`; namespaces differ
between WXR versions (`export/1.0/` … `1.2/`), so tags are matched by their local names.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import ParseError, iterparse

from masthead.comments.port.records import ExportFormatError

if TYPE_CHECKING:  # the type of the elements defusedxml's parser builds; nothing is parsed
    from xml.etree.ElementTree import Element  # nosec B405

WP = "{http://wordpress.org/export/"


@dataclass(frozen=True)
class Author:
    login: str
    name: str


@dataclass(frozen=True)
class Category:
    nicename: str
    name: str
    parent: str


@dataclass
class Term:
    domain: str  # category, post_tag, language, post_translations, …
    nicename: str
    name: str


@dataclass
class Item:
    """One `<item>`: a post, page, attachment, menu item…"""

    title: str = ""
    link: str = ""
    creator: str = ""
    guid: str = ""
    content: str = ""
    excerpt: str = ""
    fields: dict[str, str] = field(default_factory=dict)  # wp:post_id, wp:status, …
    meta: dict[str, str] = field(default_factory=dict)  # wp:postmeta
    terms: list[Term] = field(default_factory=list)
    comments: int = 0

    @property
    def id(self) -> str:
        return self.fields.get("post_id", "")

    @property
    def type(self) -> str:
        return self.fields.get("post_type", "post") or "post"

    @property
    def status(self) -> str:
        return self.fields.get("status", "")

    def terms_of(self, domain: str) -> list[Term]:
        return [t for t in self.terms if t.domain == domain]


@dataclass
class Channel:
    """What the channel says about the site (`base_site_url`, its `<link>`)."""

    link: str = ""
    base_site_url: str = ""
    base_blog_url: str = ""


def read(path: Path, channel: Channel) -> Iterator[Author | Category | Item]:
    """Yield the authors, categories and items of the export at `path`; fill `channel`.

    Raises `ExportFormatError` for a file that is not well-formed XML, declares a DTD or
    entities, or is not an RSS document."""
    top: Element | None = None
    depth = 0
    try:
        with open(path, "rb") as stream:
            for event, elem in iterparse(stream, events=("start", "end"), forbid_dtd=True):
                if event == "start":
                    if depth == 0 and _local(elem.tag) != "rss":
                        raise ExportFormatError(
                            f"<{_local(elem.tag)}>: not a WordPress export (WXR: <rss>)"
                        )
                    if depth == 1 and top is None:
                        top = elem
                    depth += 1
                    continue
                depth -= 1
                if top is None or depth != 2:  # only the channel's children
                    continue
                found = _child(elem, channel)
                if found is not None:
                    yield found
                top.remove(elem)  # streaming: what was read is dropped
    except ParseError as exc:
        line, column = exc.position
        raise ExportFormatError(f"not well-formed XML at line {line}, column {column}") from None
    except DefusedXmlException as exc:
        raise ExportFormatError(f"refused: {type(exc).__name__} (DTDs and entities)") from None
    if top is None:
        raise ExportFormatError("no <channel>: not a WordPress export (WXR)")


def _child(elem: Element, channel: Channel) -> Author | Category | Item | None:
    tag = elem.tag
    name = _local(tag)
    if tag == "item":
        return _item(elem)
    if tag == "link":
        channel.link = _text(elem)
    elif tag.startswith(WP):
        if name == "author":
            f = _fields(elem)
            login = f.get("author_login", "")
            return Author(login, f.get("author_display_name", "") or login)
        if name == "category":
            f = _fields(elem)
            return Category(
                f.get("category_nicename", ""),
                f.get("cat_name", "") or f.get("category_nicename", ""),
                f.get("category_parent", ""),
            )
        if name in ("base_site_url", "base_blog_url"):
            setattr(channel, name, _text(elem))
    return None


def _item(elem: Element) -> Item:
    item = Item()
    for c in elem:
        tag, name = c.tag, _local(c.tag)
        if tag == "title":
            item.title = _text(c)
        elif tag == "link":
            item.link = _text(c)
        elif tag == "guid":
            item.guid = _text(c)
        elif tag == "category":
            item.terms.append(
                Term(c.get("domain") or "category", c.get("nicename") or "", _text(c))
            )
        elif name == "creator":
            item.creator = _text(c)
        elif name == "encoded":
            if "excerpt" in tag:
                item.excerpt = c.text or ""
            else:
                item.content = c.text or ""
        elif tag.startswith(WP):
            if name == "postmeta":
                f = _fields(c)
                item.meta[f.get("meta_key", "")] = f.get("meta_value", "")
            elif name == "comment":
                item.comments += 1
            elif len(c) == 0:
                item.fields[name] = _text(c)
    return item


def _fields(elem: Element) -> dict[str, str]:
    return {_local(c.tag): _text(c) for c in elem if len(c) == 0}


def _text(elem: Element) -> str:
    return (elem.text or "").strip()


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]
