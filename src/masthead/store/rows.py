"""What the store hands out about posts: frozen rows, one type per set of columns a query
selects, each field the column of that name (`posts`, migration 1 and after).

Columns that hold JSON (`authors`, `extra`) stay the text they are (`posts.decode_json` and the
callers read them); the flag columns (`draft`, `noindex`, `comments`, `show_toc`, `shadowed`,
0 or 1 in SQLite) are bools. `row_of` builds any of these types from a `sqlite3.Row` whose
column names are the type's fields.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, fields
from typing import TypeVar

R = TypeVar("R")
_FLAGS = frozenset({"draft", "noindex", "comments", "show_toc", "shadowed"})
_FIELDS: dict[type, tuple[str, ...]] = {}  # each row type's field names, in order


def row_of(cls: type[R], row: sqlite3.Row) -> R:
    """`cls` from the columns of `row` (by name; the flag columns as bools)."""
    return rows_of(cls, [row])[0]


def rows_of(cls: type[R], rows: list[sqlite3.Row]) -> list[R]:
    """`row_of` each row of one query. By position when the query's columns are the first
    fields of `cls` in their order (every query here): several times faster than by name, for
    the sitemap's thousands of rows."""
    if not rows:
        return []
    names = tuple(rows[0].keys())
    flags = [i for i, name in enumerate(names) if name in _FLAGS]
    if names != _field_names(cls)[: len(names)]:
        return [cls(**{n: bool(v) if n in _FLAGS else v for n, v in zip(names, r, strict=True)})
                for r in rows]  # fmt: skip
    if not flags:
        return [cls(*r) for r in rows]
    out = []
    for r in rows:
        values = list(r)
        for i in flags:
            values[i] = bool(values[i])
        out.append(cls(*values))
    return out


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in fields(cls))
    return names


def maybe_row(cls: type[R], row: sqlite3.Row | None) -> R | None:
    return None if row is None else row_of(cls, row)


@dataclass(frozen=True, slots=True)
class PostRow:
    """Every column of one post, page or author bio (`SELECT *`)."""

    id: int
    source: str  # the content file, relative to the content folder
    kind: str  # 'post', 'page' or 'author'
    lang: str
    slug: str
    url: str  # percent-encoded path
    title: str
    date: str  # ISO 8601 with the author's offset
    date_ts: float  # seconds since the epoch
    updated: str | None  # ISO 8601, or None
    authors: str  # JSON list of strings
    excerpt: str
    cover: str
    draft: bool
    noindex: bool
    comments: bool
    show_toc: bool
    canonical: str
    translation_key: str
    html: str
    toc_html: str
    body_text: str
    word_count: int
    reading_minutes: int
    extra: str  # JSON of unknown front-matter keys
    shadowed: bool  # another post holds this URL (duplicate slug)
    code_text: str
    series_weight: int | None  # front matter `series_weight` (migration 12)
    translation_of: str  # a translation: its original's body hash when last brought up to date
    body_hash: str  # content.translations.body_hash of its Markdown body


@dataclass(frozen=True, slots=True)
class PostSummary:
    """A post as list pages show it (`posts.list_posts`)."""

    id: int
    source: str
    kind: str
    lang: str
    slug: str
    url: str
    title: str
    date: str
    date_ts: float
    updated: str | None
    authors: str  # JSON list of strings
    excerpt: str
    cover: str
    draft: bool
    reading_minutes: int
    translation_key: str


@dataclass(frozen=True, slots=True)
class PostLink:
    """A post linked from another's page: its neighbours (`posts.neighbours`)."""

    id: int
    title: str
    url: str
    date: str


@dataclass(frozen=True, slots=True)
class RelatedPost:
    """A post sharing tags with another (`posts.related`): `shared`, how many."""

    id: int
    title: str
    url: str
    date: str
    shared: int


@dataclass(frozen=True, slots=True)
class TaggedPost:
    """A published post and its tag keys (`posts.tagged_posts`: `related` for every post at
    once): `tags` the JSON list of its keys."""

    id: int
    lang: str
    title: str
    url: str
    date: str
    date_ts: float
    source: str
    tags: str


@dataclass(frozen=True, slots=True)
class Translation:
    """Another language's version of a post (`posts.translations`)."""

    id: int
    lang: str
    url: str
    title: str


@dataclass(frozen=True, slots=True)
class ArchivePost:
    """One line of the archive page (`posts.archive`)."""

    id: int
    title: str
    url: str
    date: str
    date_ts: float
    draft: bool


@dataclass(frozen=True, slots=True)
class MenuPost:
    """A post or page whose front matter may name a menu (`posts.menu_posts`)."""

    url: str
    title: str
    extra: str  # JSON of unknown front-matter keys


@dataclass(frozen=True, slots=True)
class TermCount:
    """A term of a taxonomy and how many published posts it has (`posts.term_counts`)."""

    key: str
    name: str
    n: int


@dataclass(frozen=True, slots=True)
class FeedPost:
    """A post as a feed lists it (`seo.feed_posts`)."""

    id: int
    lang: str
    url: str
    title: str
    date: str
    updated: str | None
    authors: str  # JSON list of strings
    excerpt: str
    cover: str
    html: str


@dataclass(frozen=True, slots=True)
class IndexablePost:
    """A sitemap entry's post or page (`seo.indexable_posts`)."""

    id: int
    kind: str
    lang: str
    url: str
    date: str
    updated: str | None
    translation_key: str


@dataclass(frozen=True, slots=True)
class PostDates:
    """The dates of one published post (`seo.post_dates_by_language`)."""

    lang: str
    date: str
    updated: str | None


@dataclass(frozen=True, slots=True)
class TermPostDates:
    """The dates of one published post on one term page (`seo.term_post_dates`)."""

    taxonomy: str
    key: str
    lang: str
    date: str
    updated: str | None


# A searchable post as the search catalog reads it (`search.catalog`): id, lang, date_ts,
# authors (a JSON list of strings, or NULL), draft (0/1)
CatalogRow = tuple[int, str, float, str | None, int]
# one of its tags or categories (`search.catalog_terms`): post id, taxonomy, key, name
CatalogTerm = tuple[int, str, str, str]


@dataclass(frozen=True, slots=True)
class HitPost:
    """A post on a page of search results (`search.page_rows`): `body_text` is the first
    `search.BODY_SCAN` characters of its text; `title_hl` and `snippet` marked by sentinels, or
    None (see `page_rows`)."""

    id: int
    title: str
    url: str
    lang: str
    date: str
    excerpt: str
    body_text: str
    word_count: int
    draft: bool
    title_hl: str | None = None
    snippet: str | None = None


@dataclass(frozen=True, slots=True)
class ThreadPost:
    """A published post of a comment thread (`purge.thread_posts`)."""

    id: int
    url: str
    lang: str
    date_ts: float
    source: str


@dataclass(frozen=True, slots=True)
class PublishedPage:
    """A published post or page the static export writes (`export.published_urls`)."""

    url: str
    lang: str
    kind: str
    comments: bool


@dataclass(frozen=True, slots=True)
class ImportTarget:
    """The post a thread of an imported export is mapped to (`comment_targets`)."""

    id: int
    url: str
    lang: str
    kind: str
    slug: str
    translation_key: str
    date_ts: float


@dataclass(frozen=True, slots=True)
class SeriesPart:
    """A part of a series in one language (`series.parts`): `weight` its own `series_weight`,
    else that of its translation group's post that names the series; `group_ts` the date of
    that post (a translated series keeps the original's order)."""

    id: int
    title: str
    url: str
    date: str
    reading_minutes: int
    draft: bool
    weight: int | None
    group_ts: float


@dataclass(frozen=True, slots=True)
class SeriesName:
    """A series a post is a part of (`series.of_post`): its key and name."""

    key: str
    name: str


@dataclass(frozen=True, slots=True)
class GroupMember:
    """A post of a translation group, as `translations.behind` compares them."""

    id: int
    source: str
    lang: str
    url: str
    title: str
    date_ts: float
    updated: str | None
    translation_key: str
    kind: str
    translation_of: str
    body_hash: str
