"""Interface text and dates in the page's language.

One plain message catalog per language (keyed by the primary subtag: `en`, `zh`), kept as data in
`catalogs/LANG.json` (a key, its text; plural forms as `KEY_one`, `KEY_other`...), and dates by
Babel (CLDR formats: `July 15, 2025`, `2025年7月15日`). Missing keys fall back to English. A new
language is one more catalog file.
"""

from __future__ import annotations

import json
from datetime import date, datetime
from functools import lru_cache
from importlib import resources

from babel import Locale, UnknownLocaleError
from babel.dates import format_date, format_time, get_datetime_format


def _load() -> dict[str, dict[str, str]]:
    folder = resources.files(__package__) / "catalogs"
    return {
        item.name.removesuffix(".json"): json.loads(item.read_text(encoding="utf-8"))
        for item in folder.iterdir()
        if item.name.endswith(".json")
    }


CATALOGS: dict[str, dict[str, str]] = _load()


@lru_cache(maxsize=64)
def catalog(locale: str) -> dict[str, str]:
    """The catalog for a Babel locale or code (`zh_Hans_CN`, `zh`, `en`); English if none."""
    primary = locale.replace("_", "-").split("-")[0].lower()
    return CATALOGS.get(primary, CATALOGS["en"])


def gettext(locale: str, key: str, **values: object) -> str:
    """Interface text `key` in `locale`, with `{name}` placeholders filled from `values`.
    With a whole number `n`, the text of its CLDR plural category (`KEY_one`, `KEY_few`...,
    Unicode TR35 plural rules through Babel) when the catalog has one, else `key`: English
    `{n} comments` has `_one` "1 comment"; Chinese has one form for every number."""
    texts = catalog(locale)
    n = values.get("n")
    if isinstance(n, int) and not isinstance(n, bool):
        form = texts.get(f"{key}_{_locale(locale).plural_form(n)}")
        if form is not None:
            return form.format(**values)
    text = texts.get(key) or CATALOGS["en"].get(key, key)
    return text.format(**values) if values else text


@lru_cache(maxsize=32)
def _locale(locale: str) -> Locale:
    try:
        return Locale.parse(locale)
    except (UnknownLocaleError, ValueError):
        return Locale.parse("en")


def long_date(value: datetime, locale: str) -> str:
    """A date as readers of `locale` write it: `July 15, 2025`, `2025年7月15日` (CLDR long)."""
    return _long_date(value.date(), locale)


@lru_cache(maxsize=8192)  # a post's date shows on its page, its neighbours', lists, cards
def _long_date(day: date, locale: str) -> str:
    return format_date(day, format="long", locale=_locale(locale))


def long_datetime(value: datetime, locale: str) -> str:
    """An instant as readers of `locale` write it, in `value`'s own zone (give it the site's):
    `May 2, 2024, 7:30 AM`, `2024年5月2日 07:30` (CLDR long date and short time)."""
    loc = _locale(locale)
    date = format_date(value.date(), format="long", locale=loc)
    time = format_time(value.timetz(), format="short", locale=loc)
    pattern = str(get_datetime_format("long", locale=loc))  # CLDR: "{1}, {0}", "{1} {0}"
    return pattern.replace("'", "").replace("{1}", date).replace("{0}", time)
