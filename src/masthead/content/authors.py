"""Authors: who wrote a post (front matter `author`/`authors`) and their bios (`content/authors/`).

Authors are a taxonomy, as in Hugo (`/authors/{key}/`): each entry of a post's `authors` list is
inline Markdown (`Elena Marsh`, `[Ann](https://ann.example) (Acme)`); its plain-text name gives
the key (`term_key`: `elena-marsh`), and a single http(s) link in it is the author's profile.

A bio is `content/authors/{key}.md` (or `{key}.zh.md`, or under a language folder), with front
matter `name` (or `title`), optional `avatar` (an image beside it or a URL) and `links` (a list
of URLs or of `{name, url}`), and a Markdown body rendered and sanitized like a post's. It is
stored as a row of kind `author` at the author page's URL; it is never listed as a post.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from masthead.config import Site
from masthead.content import frontmatter, markdown, sanitize, source, text, urls
from masthead.content.discover import PathInfo
from masthead.content.meta import term_key
from masthead.content.model import Post
from masthead.errors import ContentError, ContentIssue

TAXONOMY = "authors"
FOLDER = "authors"  # content/authors/{key}.md
BIO_DATE = datetime(1970, 1, 1, tzinfo=UTC)  # a bio has no date; visible from the start


@dataclass(frozen=True)
class Author:
    """One author of a post: plain-text `name`, URL `key`, profile `url` (None when unknown)."""

    name: str
    key: str
    url: str | None


@lru_cache(maxsize=4096)  # pure; each card and feed item asks again
def author(entry: str) -> Author | None:
    """The author written as `entry` (inline Markdown), or None when it has no visible text.

    The name is the visible text of the sanitized line; the URL the link when the entry has
    exactly one http(s) link (read from the parsed attributes, never by pattern)."""
    rendered = sanitize.clean(markdown.render_inline(entry))
    name = " ".join(text.html_to_text(rendered).split())
    if not name:
        return None
    links = [u for u in sanitize.urls_in(rendered) if sanitize.scheme(u) in ("http", "https")]
    return Author(name, term_key(name), links[0] if len(links) == 1 else None)


def authors(entries: tuple[str, ...] | list[str]) -> tuple[Author, ...]:
    """The authors of `entries` (a post's `authors`), one per key, in written order."""
    seen: dict[str, Author] = {}
    for entry in entries:
        found = author(entry)
        if found is not None:
            seen.setdefault(found.key, found)
    return tuple(seen.values())


def bio_url(prefix: str, key: str) -> str:
    """The author page of `key` in the language with URL `prefix`: `/authors/KEY/`."""
    return urls.term_url(prefix, TAXONOMY, key)


def _links(value: Any, path: str, line: int) -> list[dict[str, str]]:
    """`links` front matter as `[{"name", "url"}]`; only http(s) and mailto URLs."""
    if value is None:
        return []
    if not isinstance(value, list):
        value = [value]
    out = []
    for item in value:
        if isinstance(item, dict):
            url, name = str(item.get("url", "")).strip(), str(item.get("name", "")).strip()
        elif isinstance(item, str):
            url, name = item.strip(), ""
        else:
            raise ContentError(
                path, line, "front-matter key 'links': a list of URLs or {name, url}"
            )
        if sanitize.scheme(url) not in ("http", "https", "mailto"):
            raise ContentError(
                path, line, f"front-matter key 'links': {url!r} is not an http(s) URL"
            )
        out.append({"name": name or url.split("://", 1)[-1].rstrip("/"), "url": url})
    return out


def parse_bio(site: Site, info: PathInfo, raw: bytes) -> Post:
    """The bio at `info.rel` (kind `author`) as a `Post` of kind `author` whose title is the
    author's name, `cover` the avatar and `extra["links"]` the links. Raises ContentError
    (site-relative path, line, reason) for a missing name, an unknown language or a bad link."""
    path = posixpath.join(site.settings.content_dir, info.rel)
    fm = frontmatter.split(path, source.decode(path, raw))
    data = fm.data
    name = " ".join(str(data.get("name") or data.get("title") or "").split())
    if not name:
        raise ContentError(path, 1, "missing front-matter key 'name' (the author's name)")
    lang = site.languages[info.lang] if info.lang else site.default_language
    if data.get("lang"):
        found = site.resolve_language(str(data["lang"]))
        if found is None:
            line = fm.lines.get("lang", 1)
            raise ContentError(path, line, f"unknown language {data['lang']!r}")
        lang = found
    links = _links(data.get("links"), path, fm.lines.get("links", 1))
    avatar = str(data.get("avatar") or "").strip()
    warnings: tuple[ContentIssue, ...] = ()
    if avatar:
        avatar = urls.resolve_relative(avatar, info.folder, file=True)
        if sanitize.scheme(avatar) not in ("", "http", "https"):
            reason = f"avatar {avatar!r} is not an image URL (http, https or a file); left out"
            warnings = (ContentIssue(path, fm.lines.get("avatar", 1), reason, "warning"),)
            avatar = ""
    rendered = markdown.render(fm.body)
    html = sanitize.clean(
        rendered.html,
        lambda url: urls.resolve_relative(url, info.folder),
        trusted=site.settings.raw_html,
    )
    plain = text.html_to_text(html)
    return Post(
        source=path,
        kind="author",
        lang=lang.code,
        slug=info.slug,
        url=bio_url(lang.prefix, info.slug),
        title=name,
        date=BIO_DATE,
        updated=None,
        authors=(),
        categories=(),
        tags=(),
        excerpt=text.truncate(plain, 300),
        cover=avatar,
        draft=False,
        noindex=False,
        comments=False,
        show_toc=False,
        canonical="",
        translation_key="p:" + info.base,
        aliases=(),
        html=html,
        toc_html="",
        text=plain,
        code="",
        word_count=0,
        reading_minutes=0,
        extra={"links": links},
        warnings=warnings,
    )
