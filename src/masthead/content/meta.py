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
from urllib.parse import quote, unquote

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
_PAGE_FILE = re.compile(r"\.html?$", re.IGNORECASE)  # `url: /2010/01/post.html`
_UNSAFE_PATH = re.compile(r"[?#\\\s]|//|(?:^|/)\.{1,2}(?:/|$)")
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
    url: str = ""
    comments: bool = True
    toc: bool = True
    noindex: bool = False
    series: tuple[str, ...] = ()
    series_weight: int | None = None
    translation_of: str = ""

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

    @field_validator("category", "tags", "series", mode="before")
    @classmethod
    def _terms(cls, value: Any) -> tuple[str, ...]:
        seen: dict[str, str] = {}
        for name in _strings(value, split=True):
            seen.setdefault(term_key(name), name)
        return tuple(seen.values())

    @field_validator(
        "excerpt", "cover", "lang", "slug", "translationKey", "canonical", "url", mode="before"
    )
    @classmethod
    def _text(cls, value: Any) -> str:
        if value is None:
            return ""
        if isinstance(value, list | dict):
            raise ValueError("must be a single string")
        return " ".join(str(value).split())

    @field_validator("series_weight", mode="before")
    @classmethod
    def _weight(cls, value: Any) -> int:
        if isinstance(value, bool | list | dict):
            raise ValueError("must be a whole number")
        try:
            return int(str(value).strip())
        except ValueError:
            raise ValueError(f"{value!r} is not a whole number") from None

    @field_validator("translation_of", mode="before")
    @classmethod
    def _hash(cls, value: Any) -> str:
        text = "" if value is None else str(value).strip().lower()
        if text and not re.fullmatch(r"[0-9a-f]{8,64}", text):
            raise ValueError(
                f"{value!r} is not a content hash; `masthead translation mark-current` writes it"
            )
        return text

    @field_validator("draft", "comments", "toc", "noindex", mode="before")
    @classmethod
    def _flag(cls, value: Any) -> bool:
        return _bool(value)

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        """Hugo's `url`: the page's path as written (no language prefix added), with a slash
        at each end, percent-encoded; never a path masthead serves itself. A file name
        (`/2010/01/post.html`, kept by sites that moved from Blogger or WordPress) is served at
        its folder form (`/2010/01/post/`), and the file name redirects there
        (`url_suffix`)."""
        if not value:
            return ""
        inner = unquote(value).strip("/")
        if not inner:
            raise ValueError("the home page is the list of posts; give a path such as /about-us/")
        if _UNSAFE_PATH.search(inner) or value.startswith(("http://", "https://")):
            raise ValueError(
                f"{value!r}: write a site path such as /about-us/ (no host, ?, #, spaces, "
                "'.' or '..' segments)"
            )
        first = inner.split("/", 1)[0]
        if first in urls.RESERVED:
            raise ValueError(
                f"{value!r} is under /{first}/, where masthead serves its own pages or files; "
                "choose another path"
            )
        return quote(f"/{_PAGE_FILE.sub('', inner)}/")

    @field_validator("canonical")
    @classmethod
    def _canonical(cls, value: str) -> str:
        if value and not value.startswith(("http://", "https://")):
            raise ValueError("must be an absolute URL (https://…)")
        return value


KNOWN = frozenset(Meta.model_fields)


def url_suffix(written: Any) -> str:
    """The file suffix of a front-matter `url` written as a file name (`.html` of
    `/2010/01/post.html`), whose old address redirects to the page; "" for a folder-like one."""
    found = _PAGE_FILE.search(unquote(str(written or "")).strip().rstrip("/"))
    return found.group(0) if found else ""


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


# --- menus from front matter ----------------------------------------------------------------

MENU_KEYS = ("menu", "menus")  # Hugo reads both
MAIN_MENU = "main"
_ENTRY_KEYS = frozenset({"name", "title", "weight", "parent", "identifier"})


class MenuEntry(BaseModel):
    """A post's own entry in its language's menu (Hugo's front-matter `menu`): `title` the link
    text (None: the post's `linkTitle`, else its title), `weight` the order (lower first)."""

    model_config = ConfigDict(frozen=True)

    title: str | None = None
    weight: int = 0


def menu_entry(data: dict[str, Any]) -> tuple[MenuEntry | None, list[str]]:
    """The entry that front matter `data` (raw, as loaded: `extra` holds it) puts in the menu.

    Accepted, as in Hugo (https://gohugo.io/content-management/menus/#define-in-front-matter):
    `menu: main`, `menu: [main]`, or `menu: {main: {name|title: TEXT, weight: INT}}`; `menus`
    is the same key. masthead draws one menu per language, `main`, in the header and footer.

    Returns `(entry, problems)`: `entry` None when the post is in no menu or its entry is
    invalid; `problems` are reasons for a `check` warning (never an error: the post publishes).
    Values arrive as typed text (`frontmatter`), so `weight: 10` may be "10" or 10.
    """
    key = next((k for k in MENU_KEYS if data.get(k) is not None), None)
    if key is None:
        return None, []
    value = data[key]
    where = f"front-matter key '{key}'"
    if isinstance(value, str):
        value = [value]
    if isinstance(value, list):
        if not all(isinstance(name, str) for name in value):
            return None, [f"{where}: write a menu name (main) or a list of names"]
        value = dict.fromkeys(value)
    if not isinstance(value, dict):
        return None, [f"{where}: write main, [main] or {{main: {{weight: 10}}}}"]
    problems = [
        f"{where}: unknown menu {str(name)!r} (masthead has one menu, main, drawn in the "
        "header and the footer); left out"
        for name in value
        if name != MAIN_MENU
    ]
    if MAIN_MENU not in value:
        return None, problems
    fields = value[MAIN_MENU]
    if fields is None:
        return MenuEntry(), problems
    if not isinstance(fields, dict):
        return None, [*problems, f"{where}.main: write a map such as {{weight: 10}}"]
    for name in sorted(set(fields) - _ENTRY_KEYS):
        problems.append(f"{where}.main: unknown key {name!r} (name, title, weight); ignored")
    if fields.get("parent") is not None:
        problems.append(f"{where}.main.parent: menus are flat; the entry is shown at the top level")
    title = fields.get("name", fields.get("title"))
    weight = fields.get("weight", 0)
    if title is not None and (isinstance(title, list | dict) or not str(title).strip()):
        return None, [*problems, f"{where}.main.name: must be a non-empty string; left out"]
    try:
        weight = int(str(weight).strip())
    except ValueError:
        return None, [*problems, f"{where}.main.weight: {weight!r} is not a whole number; left out"]
    text = " ".join(str(title).split()) if title is not None else None
    return MenuEntry(title=text, weight=weight), problems
