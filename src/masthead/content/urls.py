"""Permalinks and the rewriting of relative links and images in post HTML.

URL scheme (DESIGN.md): posts `/{prefix}/posts/{slug}/`, pages `/{prefix}/{slug}/`, taxonomy
`/{prefix}/tags/{key}/`; the default language has no prefix. Inside a post, a relative link to a
Markdown file becomes `/_ref/{content-relative path}` (resolved to a permalink when the page is
served, so a renamed target never leaves stale links), and any other relative URL (images, files
beside the post) becomes `/media/{content-relative path}`.
"""

from __future__ import annotations

import posixpath
import re
from urllib.parse import quote, unquote

REF_PREFIX = "/_ref/"
MEDIA_PREFIX = "/media/"
_ATTR = re.compile(r'(\s(?:href|src)=)(?:"([^"]*)"|\'([^\']*)\')')
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def post_url(prefix: str, slug: str) -> str:
    return f"/{prefix}/posts/{quote(slug)}/" if prefix else f"/posts/{quote(slug)}/"


def page_url(prefix: str, slug: str) -> str:
    return f"/{prefix}/{quote(slug)}/" if prefix else f"/{quote(slug)}/"


def term_url(prefix: str, taxonomy: str, key: str) -> str:
    base = f"/{prefix}" if prefix else ""
    return f"{base}/{taxonomy}/{quote(key)}/"


FEED_FILES = {"rss": "feed.xml", "atom": "atom.xml"}
ALL_LANGUAGES = "all"  # `/all/feed.xml`: every language in one feed


def feed_url(prefix: str, fmt: str, taxonomy: str | None = None, key: str | None = None) -> str:
    """`/feed.xml`, `/zh/atom.xml`, `/tags/{key}/feed.xml`: the RSS (`fmt="rss"`) or Atom
    (`fmt="atom"`) feed of a language's home page or of one of its term pages."""
    base = (
        term_url(prefix, taxonomy, key) if taxonomy and key else (f"/{prefix}/" if prefix else "/")
    )
    return base + FEED_FILES[fmt]


def resolve_relative(url: str, post_dir: str) -> str:
    """Rewrite one relative `url` found in a post whose source folder is `post_dir`
    (content-relative, POSIX). Absolute URLs, site paths, fragments and mailto: stay as they are."""
    url = url.strip()
    if not url or url.startswith(("#", "/", "?")) or _SCHEME.match(url):
        return url
    path, hashmark, fragment = url.partition("#")
    path, _q, _query = path.partition("?")
    target = posixpath.normpath(posixpath.join(post_dir, unquote(path)))
    if target.startswith("../") or target == "..":
        return url
    if target.lower().endswith((".md", ".markdown")):
        return REF_PREFIX + quote(target) + (hashmark + fragment)
    return MEDIA_PREFIX + quote(target) + (hashmark + fragment)


def rewrite_html(html: str, post_dir: str) -> str:
    """Apply `resolve_relative` to every `href` and `src` attribute in `html`."""

    def sub(m: re.Match[str]) -> str:
        value = m.group(2) if m.group(2) is not None else m.group(3)
        new = resolve_relative(value.replace("&amp;", "&"), post_dir).replace("&", "&amp;")
        return f'{m.group(1)}"{new}"'

    return _ATTR.sub(sub, html)


def resolve_ref(
    target: str, source_urls: dict[str, tuple[str, str]], content_dir: str, lang: str | None
) -> str | None:
    """The permalink of the content file a `/_ref/` link names, or None when there is none.

    `target` is content-relative (as `resolve_relative` wrote it, percent-encoded). Tries the exact
    file, then `.md` and `/index.md` added, then a unique file of that name anywhere (preferring the
    linking post's language), as Hugo's `ref` does.
    """
    path = unquote(target).strip("/")
    base = f"{content_dir}/{path}"
    for candidate in (base, base + ".md", base + "/index.md"):
        if candidate in source_urls:
            return source_urls[candidate][0]
    tail = "/" + path.rsplit("/", 1)[-1]
    matches = [v for k, v in source_urls.items() if ("/" + k).endswith(tail)]
    if len(matches) > 1 and lang:
        matches = [m for m in matches if m[1] == lang] or matches
    return matches[0][0] if len(matches) == 1 else None


REF_LINK = re.compile(r'href="/_ref/([^"#]*)((?:#[^"]*)?)"')
