"""The published unit of content: a frozen `Post` and its taxonomy `Term`s, as `content.post`
parses them from a file and `content.authors` from an author's bio."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from masthead.errors import ContentIssue


@dataclass(frozen=True)
class Term:
    """A tag or category: `name` as first written, `key` its URL slug (`term_key`)."""

    name: str
    key: str


@dataclass(frozen=True)
class Post:
    """One published post or page. Paths are site-relative POSIX; dates are aware datetimes."""

    source: str
    kind: str
    lang: str
    slug: str
    url: str
    title: str
    date: datetime
    updated: datetime | None
    authors: tuple[str, ...]
    categories: tuple[Term, ...]
    tags: tuple[Term, ...]
    excerpt: str
    cover: str
    draft: bool
    noindex: bool
    comments: bool
    show_toc: bool
    canonical: str
    translation_key: str
    aliases: tuple[str, ...]
    html: str
    toc_html: str
    text: str  # prose, outside code blocks
    code: str  # the text of code blocks (searched, weighted low)
    word_count: int
    reading_minutes: int
    extra: dict[str, Any] = field(default_factory=dict)
    warnings: tuple[ContentIssue, ...] = ()
    series: tuple[Term, ...] = ()  # front matter `series`: the series this post is a part of
    series_weight: int | None = None  # its place in them (lower first; None: by date)
    translation_of: str = ""  # a translation: its original's body hash when last brought up to date
    body_hash: str = ""  # content.translations.body_hash of `body`
    body: str = ""  # the Markdown body as written (an original's is kept for translators' diffs)
