"""Front matter keys to typed values: one processor per key, validated by a pydantic model.

The keys, their aliases and meanings are the front-matter table of DESIGN.md. Text fields arrive
as the exact strings the author typed (see `frontmatter`); this module only trims, splits and
parses them. Unknown keys are kept in `extra` for templates.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime, time, tzinfo
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from masthead.content import urls

ALIASES = {
    "lastmod": "updated",
    "authors": "author",
    "categories": "category",
    "summary": "excerpt",
    "description": "excerpt",
    "image": "cover",
    "canonicalUrl": "canonical",
}
_SPLIT = re.compile(r"[,，、]")
_DATE = re.compile(
    r"^(\d{4})-(\d{1,2})-(\d{1,2})"
    r"(?:[Tt ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6})\d*)?)?)?"
    r"\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?$"
)
_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0", ""}


def parse_date(value: Any, tz: tzinfo) -> datetime:
    """Parse `YYYY-MM-DD` or ISO 8601 (`T` or space, optional seconds, `Z`, `+08:00`, `+0800`,
    `+08`).

    A value without an offset is read in the site zone `tz`; never the server's zone or UTC.
    Raises ValueError with the accepted forms.
    """
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=tz)
    if isinstance(value, date):
        return datetime.combine(value, time(), tz)
    m = _DATE.match(str(value).strip())
    if not m:
        raise ValueError(f"{value!r} is not a date; write YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS+08:00")
    y, mo, d, hh, mm, ss, frac, off = m.groups()
    text = f"{y}-{int(mo):02d}-{int(d):02d}T{int(hh or 0):02d}:{mm or '00'}:{ss or '00'}"
    if frac:
        text += "." + frac.ljust(6, "0")
    if off:
        minutes = off[3:].lstrip(":") or "00"
        text += "+00:00" if off in ("Z", "z") else f"{off[:3]}:{minutes}"
    parsed = datetime.fromisoformat(text)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=tz)


def _strings(value: Any, split: bool) -> list[str]:
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    out: list[str] = []
    for item in items:
        if item is None:  # `tags: [a, ~]` or an empty `- ` entry
            continue
        if isinstance(item, list | dict):
            raise ValueError("must be a string or a list of strings")
        parts = _SPLIT.split(str(item)) if split and not isinstance(value, list) else [str(item)]
        out.extend(" ".join(p.split()) for p in parts)
    return [p for p in out if p]


def term_key(name: str) -> str:
    """The URL slug of a tag or category: NFKC, case-folded, spaces to `-`, unsafe characters out.

    `Python`, `python` and ` python ` share one key; `C#` becomes `csharp`; Chinese stays Chinese.
    """
    text = unicodedata.normalize("NFKC", name).casefold().strip()
    text = text.replace("#", "sharp").replace("&", " and ")
    text = re.sub(r"[\\/?%<>\"'`{}|^\[\]]+", "", text)
    if not text.strip().strip("."):  # "." and ".." are not path segments a tag page can live at
        text = text.replace(".", "dot-")
    return urls.segment(text) or "untitled"


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"{value!r} is not true or false")


class Meta(BaseModel):
    """Validated front matter. `date` and `updated` are timezone-aware."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    title: str
    date: datetime
    updated: datetime | None = None
    author: tuple[str, ...] = ()
    category: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    excerpt: str = ""
    cover: str = ""
    lang: str = ""
    slug: str = ""
    draft: bool = False
    translationKey: str = ""
    aliases: tuple[str, ...] = ()
    canonical: str = ""
    comments: bool = True
    toc: bool = True
    noindex: bool = False

    @field_validator("title")
    @classmethod
    def _title(cls, value: Any) -> str:
        text = " ".join(str(value).split())
        if not text:
            raise ValueError("must not be empty")
        return text

    @field_validator("author", "aliases", mode="before")
    @classmethod
    def _list(cls, value: Any) -> tuple[str, ...]:
        return tuple(_strings(value, split=False))

    @field_validator("category", "tags", mode="before")
    @classmethod
    def _terms(cls, value: Any) -> tuple[str, ...]:
        seen: dict[str, str] = {}
        for name in _strings(value, split=True):
            seen.setdefault(term_key(name), name)
        return tuple(seen.values())

    @field_validator(
        "excerpt", "cover", "lang", "slug", "translationKey", "canonical", mode="before"
    )
    @classmethod
    def _text(cls, value: Any) -> str:
        if value is None:
            return ""
        if isinstance(value, list | dict):
            raise ValueError("must be a single string")
        return " ".join(str(value).split())

    @field_validator("draft", "comments", "toc", "noindex", mode="before")
    @classmethod
    def _flag(cls, value: Any) -> bool:
        return _bool(value)

    @field_validator("canonical")
    @classmethod
    def _canonical(cls, value: str) -> str:
        if value and not value.startswith(("http://", "https://")):
            raise ValueError("must be an absolute URL (https://…)")
        return value


KNOWN = frozenset(Meta.model_fields)


def normalise(data: dict[str, Any], lines: dict[str, int], tz: tzinfo) -> tuple[Meta, dict, list]:
    """Validate raw front matter.

    Returns `(meta, extra, problems)`: `extra` holds unknown keys as loaded; `problems` is a list of
    `(line, reason)` errors (empty when `meta` is valid; then `meta` is not None).
    """
    values: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    where: dict[str, int] = {}
    for key, value in data.items():
        name = ALIASES.get(key, key)
        if name in KNOWN and value is None:
            continue  # `draft:`, `updated: ~`: an empty value is an absent key
        if name in KNOWN:
            if name not in values or values[name] in (None, "", []):
                values[name] = value
                where[name] = lines.get(key, 1)
        else:
            extra[key] = value
    problems: list[tuple[int, str]] = []
    for required in ("title", "date"):
        if values.get(required) in (None, ""):
            problems.append((1, f"missing required front-matter key '{required}'"))
    for key in ("date", "updated"):
        if values.get(key) not in (None, ""):
            try:
                values[key] = parse_date(values[key], tz)
            except ValueError as exc:
                problems.append((where[key], f"front-matter key '{key}': {exc}"))
        elif key in values:
            values.pop(key)
    if problems:
        return None, extra, problems  # type: ignore[return-value]
    try:
        meta = Meta.model_validate(values)
    except ValidationError as exc:
        for err in exc.errors():
            key = str(err["loc"][0]) if err["loc"] else "?"
            msg = err["msg"].removeprefix("Value error, ")
            problems.append((where.get(key, 1), f"front-matter key '{key}': {msg}"))
        return None, extra, problems  # type: ignore[return-value]
    return meta, extra, []
