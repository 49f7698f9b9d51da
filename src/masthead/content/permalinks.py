"""Permalink patterns: Hugo's `permalinks` setting (https://gohugo.io/configuration/permalinks).

A pattern such as `/blog/:year/:month/:day/:slug/` names a post's URL path; the language prefix
(`/zh`) goes in front of it. Tokens, with Hugo's meanings (Hugo's `_common/permalink-tokens.md`):

    :year :month :day        the front-matter `date`: 4-digit year, 2-digit month and day
    :monthname :weekday :weekdayname :yearday
                             English month name, weekday (Sunday = 0), its name, day of the year
    :section                 the first folder under the language's content folder (`posts`)
    :title                   the title, slugified as Hugo's `urlize` does (the file name when
                             nothing is left of it, e.g. a title of only punctuation)
    :slug                    front-matter `slug`, else the slugified title
    :slugorcontentbasename   front-matter `slug`, else the file name (`2024-05-02-name.md` and
                             `name/index.md` give `name`): masthead's slug (DESIGN.md), the default
    :contentbasename         the file name alone; `:filename` and `:slugorfilename` are Hugo's
                             older names for these two

Pure functions: `validate` is run on `masthead.toml` at start-up, `expand` by the content engine.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import quote

from masthead.config.permalinks import PERMALINK_TOKEN as _TOKEN
from masthead.content.urls import shorten

_MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip
_DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]


def urlize(text: str) -> str:
    """Slugify `text` as Hugo's `urlize` does (helpers.PathSpec.UnicodeSanitize, lower-cased):
    letters, digits, marks and `. _ + ~ - @` are kept, runs of spaces become one `-`, anything else
    is dropped. `/`, `\\` and `#`, which Hugo keeps, are dropped too: a title is one path segment.
    """
    out: list[str] = []
    pending_hyphen = False
    for ch in text:
        category = unicodedata.category(ch)
        if ch in "._+~-@" or category[0] in "LM" or category == "Nd":
            if pending_hyphen and ch != "-":
                out.append("-")
            pending_hyphen = False
            out.append(ch)
        elif ch.isspace() and out and out[-1] != "-":
            pending_hyphen = True
    return "".join(out).lower()


@dataclass(frozen=True)
class Fields:
    """What a post's permalink can be made of.

    `slug` is front matter's `slug` as written ("" if none), `base` the file-name slug
    (`discover.classify`), `section` the first folder under the language's content folder.
    """

    date: datetime
    title: str
    slug: str
    base: str
    section: str


def _title(f: Fields) -> str:
    """The slugified title; the file name when nothing is left of it (`???`, `.`), so that no
    post gets an empty or dot segment."""
    slug = urlize(f.title)
    return slug if slug.strip(".") else f.base


def _value(token: str, f: Fields) -> str:
    d = f.date
    values = {
        "year": f"{d.year:04d}",
        "month": f"{d.month:02d}",
        "day": f"{d.day:02d}",
        "monthname": _MONTHS[d.month - 1],
        "weekday": str(d.isoweekday() % 7),
        "weekdayname": _DAYS[d.isoweekday() % 7],
        "yearday": str(d.timetuple().tm_yday),
        "section": f.section,
        "title": _title(f),
        "slug": f.slug or _title(f),
        "slugorcontentbasename": f.slug or f.base,
        "slugorfilename": f.slug or f.base,
        "contentbasename": f.base,
        "filename": f.base,
    }
    return values[token]


def expand(pattern: str, prefix: str, fields: Fields) -> str:
    """The URL path (percent-encoded, with a trailing slash) of a post: `pattern` (validated)
    with its tokens filled in from `fields`, under the language `prefix` ("" or "zh").

    An empty value (a post at the content root has no `:section`) leaves no empty segment; a
    segment longer than a file name may be is cut as every segment is (`urls.shorten`).
    """
    path = _TOKEN.sub(lambda m: _value(m.group(1), fields).strip("/"), pattern)
    path = "/".join(shorten(part) for part in re.sub(r"/{2,}", "/", path).split("/"))
    if prefix:
        path = f"/{prefix}{path}"
    return quote(path)
