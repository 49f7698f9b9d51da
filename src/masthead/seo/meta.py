"""Social-card meta tags: Open Graph (https://ogp.me) and Twitter cards.

`social_tags()` returns `(attribute, key, content)` triples that the `_seo_head.html` partial
writes as `<meta {attribute}="{key}" content="{content}">`; Jinja2 escapes every value, so a title
with quotes or `<` is safe in an attribute (case C27).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import lru_cache

from babel import Locale, UnknownLocaleError
from babel.core import get_global

Tag = tuple[str, str, str]


@lru_cache(maxsize=32)
def og_locale(locale: str) -> str:
    """Open Graph's `language_TERRITORY` for a Babel locale or BCP 47 tag: `zh_Hans_CN` → `zh_CN`,
    `en` → `en_US` (the likeliest territory, from CLDR). An unknown locale is returned as given."""
    try:
        parsed = Locale.parse(locale.replace("-", "_"))
    except (UnknownLocaleError, ValueError):
        return locale
    territory = parsed.territory
    if not territory:
        likely = get_global("likely_subtags").get(parsed.language, "")
        territory = likely.split("_")[-1] if likely.count("_") >= 1 else None
    return f"{parsed.language}_{territory}" if territory else parsed.language


def social_tags(
    *,
    kind: str,
    title: str,
    description: str,
    url: str,
    site_name: str,
    locale: str,
    alternate_locales: Sequence[str] = (),
    image: str = "",
    image_width: int = 0,
    image_height: int = 0,
    image_alt: str = "",
    published: datetime | None = None,
    modified: datetime | None = None,
    tags: Sequence[str] = (),
    section: str = "",
) -> list[Tag]:
    """Open Graph and Twitter card tags for one page.

    `kind` is `article` for posts and `website` otherwise; `url` the page's canonical URL; `image`
    an absolute URL or "" (then the card is `summary` instead of `summary_large_image`), with its
    size and text alternative when known (`image_width`, `image_height`, `image_alt`); `locale`
    and `alternate_locales` Babel locales or BCP 47 tags; dates aware (ISO 8601 in the output).
    """
    out: list[Tag] = [
        ("property", "og:type", kind),
        ("property", "og:title", title),
        ("property", "og:url", url),
        ("property", "og:site_name", site_name),
        ("property", "og:locale", og_locale(locale)),
    ]
    out += [("property", "og:locale:alternate", og_locale(alt)) for alt in alternate_locales]
    if description:
        out.append(("property", "og:description", description))
    if image:
        out.append(("property", "og:image", image))
        if image_width and image_height:
            out.append(("property", "og:image:width", str(image_width)))
            out.append(("property", "og:image:height", str(image_height)))
        if image_alt:
            out.append(("property", "og:image:alt", image_alt))
    if kind == "article":
        if published is not None:
            out.append(("property", "article:published_time", published.isoformat("T", "seconds")))
        if modified is not None:
            out.append(("property", "article:modified_time", modified.isoformat("T", "seconds")))
        if section:
            out.append(("property", "article:section", section))
        out += [("property", "article:tag", tag) for tag in tags]
    out.append(("name", "twitter:card", "summary_large_image" if image else "summary"))
    out.append(("name", "twitter:title", title))
    if description:
        out.append(("name", "twitter:description", description))
    if image:
        out.append(("name", "twitter:image", image))
        if image_alt:
            out.append(("name", "twitter:image:alt", image_alt))
    return out
