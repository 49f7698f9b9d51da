"""What the comment import parsers (`wxr`, `disqus`) yield: plain records, no database.

A `Thread` names the post a group of comments was written under, as the other system knew it
(its link, slug, identifier, title); `Imported` is one comment with its source's ids, its parent's
source id, its date as seconds since the epoch in UTC (None when the export gives no usable date)
and its status in masthead's words; `Problem` is a comment the parser could not read, reported
by the importer (the import then writes nothing).
"""

from __future__ import annotations

from dataclasses import dataclass, field

STATUSES = ("approved", "pending", "spam", "trash")
# the `source` of a stored comment whose `body` is the HTML as exported (cleaned into
# `body_html` as `comments.port.service` imports it); every other comment's `body` is the Markdown a
# reader typed ('' written here; 'json' keeps the source it was exported with)
HTML_SOURCES = frozenset({"wxr", "disqus"})
KINDS = ("comment", "pingback", "trackback")


@dataclass(frozen=True)
class Thread:
    """A post of the other system. `key` is unique within one file (a WXR item's position or
    post id, a Disqus thread's `dsq:id`); `link` the absolute URL it had; `slug` WordPress's
    `wp:post_name`; `identifier` Disqus's thread `<id>`; `date` its publication (UTC seconds)."""

    key: str
    title: str = ""
    link: str = ""
    slug: str = ""
    identifier: str = ""
    date: float | None = None


@dataclass(frozen=True)
class Imported:
    """One comment read from an export.

    `source` is 'wxr' or 'disqus'; `source_id` its id there (a string: Disqus ids exceed 2**53);
    `parent` the source id of the comment it answers, None at top level; `body` the HTML as
    exported (sanitize it before storing); `created` UTC seconds or None (`date_note` says why);
    `status` one of `STATUSES`; `kind` one of `KINDS`; `where` a position for reports;
    `lang` the language tag the export states for it, as written (`zh-CN`), '' when it states
    none (the importer never puts the post's language in its place); `site_lang` the tag the
    export states for the whole site (WXR's channel `<language>`), weaker than a language
    its thread's link carries (`/zh/…`)."""

    source: str
    source_id: str
    thread: Thread
    parent: str | None
    author_name: str
    author_email: str
    author_url: str
    body: str
    created: float | None
    status: str
    kind: str = "comment"
    date_note: str = ""
    where: str = ""
    notes: tuple[str, ...] = field(default=())
    lang: str = ""
    site_lang: str = ""


@dataclass(frozen=True)
class Problem:
    """A comment (or a part of the file) that cannot be imported as it is: `where` and why."""

    where: str
    reason: str


class ExportFormatError(ValueError):
    """The file is not a well-formed export of the expected kind (not XML, a DTD or entity
    declaration, the wrong root element). The message names the position when XML says it."""
