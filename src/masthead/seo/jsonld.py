"""schema.org structured data as JSON-LD (https://www.w3.org/TR/json-ld11/, https://schema.org).

Builders return plain dicts; `script()` turns a page's nodes into one `@graph` that is safe inside
`<script type="application/ld+json">`: `<`, `>` and `&` are written as `\\u003c`, `\\u003e` and
`\\u0026`, so no title or description (`</script>`, `<!--`, quotes) can end the element or open
markup, and U+2028/U+2029 are escaped for old JavaScript parsers. JSON readers decode them back.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

CONTEXT = "https://schema.org"
_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def dumps(data: Any) -> str:
    """`data` as compact JSON safe to embed in an HTML `<script>` element (see module doc)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    for char, escaped in _UNSAFE.items():
        text = text.replace(char, escaped)
    return text


def script(nodes: Sequence[Mapping[str, Any]]) -> str:
    """The JSON text of one `{"@context", "@graph"}` document holding `nodes` (embed-safe)."""
    return dumps({"@context": CONTEXT, "@graph": list(nodes)})


def _date(value: datetime) -> str:
    return value.isoformat(timespec="seconds")  # ISO 8601 with the author's offset


def organization(name: str, url: str) -> dict[str, Any]:
    """The site as publisher: an `Organization` with an `@id` of `{url}#publisher`."""
    return {"@type": "Organization", "@id": f"{url}#publisher", "name": name, "url": url}


def person(name: str, url: str | None = None, same_as: str | None = None) -> dict[str, Any]:
    """An author as a `Person`; `url` (their page: the site's author page, or a profile link)
    and `same_as` (a profile elsewhere, schema.org `sameAs`) when known."""
    node: dict[str, Any] = {"@type": "Person", "name": name}
    if url:
        node["url"] = url
    if same_as and same_as != url:
        node["sameAs"] = same_as
    return node


def website(
    *, name: str, url: str, language: str, description: str, search_template: str
) -> dict[str, Any]:
    """The home page's `WebSite` with a sitelinks `SearchAction`.

    `search_template` is an absolute URL containing `{search_term_string}`, e.g.
    `https://example.com/search?q={search_term_string}`.
    """
    node: dict[str, Any] = {
        "@type": "WebSite",
        "@id": f"{url}#website",
        "name": name,
        "url": url,
        "inLanguage": language,
        "potentialAction": {
            "@type": "SearchAction",
            "target": {"@type": "EntryPoint", "urlTemplate": search_template},
            "query-input": "required name=search_term_string",
        },
    }
    if description:
        node["description"] = description
    return node


def blog_posting(
    *,
    url: str,
    canonical: str,
    headline: str,
    description: str,
    published: datetime,
    modified: datetime,
    authors: Sequence[Mapping[str, Any]],
    image: str,
    language: str,
    publisher: Mapping[str, Any],
    keywords: Sequence[str],
    sections: Sequence[str],
    word_count: int,
    comment_count: int | None = None,
    comments: Sequence[Mapping[str, Any]] = (),
    part_of: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """A post's `BlogPosting`; `part_of`, the `series()` it is a part of (`isPartOf`). `url` is
    its permalink here and `canonical` its canonical URL
    (`mainEntityOfPage`; another site's for a post whose canonical is elsewhere); dates are aware;
    `image` an absolute URL or "" (then left out); `word_count` counts words plus CJK characters;
    `comment_count` its approved comments (`commentCount`; None leaves it out: comments off) and
    `comments` `Comment` nodes (`comment()`)."""
    node: dict[str, Any] = {
        "@type": "BlogPosting",
        "@id": f"{url}#article",
        "url": url,
        "mainEntityOfPage": {"@type": "WebPage", "@id": canonical},
        "headline": headline,
        "description": description,
        "datePublished": _date(published),
        "dateModified": _date(modified),
        "author": list(authors),
        "inLanguage": language,
        "publisher": dict(publisher),
        "wordCount": word_count,
    }
    if image:
        node["image"] = image
    if keywords:
        node["keywords"] = ", ".join(keywords)
    if sections:
        node["articleSection"] = list(sections)
    if comment_count is not None:
        node["commentCount"] = comment_count
    if comments:
        node["comment"] = list(comments)
    if part_of:
        node["isPartOf"] = part_of[0] if len(part_of) == 1 else list(part_of)
    return node


def series(*, url: str, name: str, language: str) -> dict[str, Any]:
    """A series of posts (https://schema.org/CreativeWorkSeries) whose page is `url`: what a
    part's `isPartOf` names."""
    return {
        "@type": "CreativeWorkSeries",
        "@id": f"{url}#series",
        "url": url,
        "name": name,
        "inLanguage": language,
    }


def comment(
    *,
    url: str,
    author: Mapping[str, Any],
    published: datetime,
    text: str,
    language: str,
    parent: str | None = None,
) -> dict[str, Any]:
    """A reader's `Comment` (https://schema.org/Comment): `url` its absolute address on the page
    (`…/posts/a/#c-12`, also its `@id`), `author` a `person()` (a name and the website they
    gave, never an email), `published` aware, `text` plain text, `language` a BCP 47 tag ('':
    not known, no `inLanguage`); `parent` the `@id` of the comment it replies to (`parentItem`)."""
    node: dict[str, Any] = {
        "@type": "Comment",
        "@id": url,
        "url": url,
        "author": dict(author),
        "datePublished": _date(published),
        "text": text,
    }
    if language:
        node["inLanguage"] = language
    if parent:
        node["parentItem"] = {"@id": parent}
    return node


def web_page(*, url: str, name: str, description: str, language: str) -> dict[str, Any]:
    """A standalone page (`content/pages/`) as a `WebPage`."""
    node: dict[str, Any] = {
        "@type": "WebPage",
        "@id": url,
        "url": url,
        "name": name,
        "inLanguage": language,
    }
    if description:
        node["description"] = description
    return node


def collection_page(
    *, url: str, name: str, description: str, language: str, items: Sequence[str]
) -> dict[str, Any]:
    """A list page (home, term, taxonomy index, archive) as a `CollectionPage` whose `mainEntity`
    is an `ItemList` of the absolute URLs it links to, in page order."""
    node: dict[str, Any] = {
        "@type": "CollectionPage",
        "@id": url,
        "url": url,
        "name": name,
        "inLanguage": language,
        "mainEntity": {
            "@type": "ItemList",
            "itemListElement": [
                {"@type": "ListItem", "position": n, "url": item}
                for n, item in enumerate(items, start=1)
            ],
        },
    }
    if description:
        node["description"] = description
    return node


def breadcrumbs(trail: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """A `BreadcrumbList` from `(name, absolute URL)` pairs, from the home page down."""
    return {
        "@type": "BreadcrumbList",
        "itemListElement": [
            {"@type": "ListItem", "position": n, "name": name, "item": url}
            for n, (name, url) in enumerate(trail, start=1)
        ],
    }
