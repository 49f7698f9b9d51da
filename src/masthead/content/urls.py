"""Permalinks and the rewriting of relative links and images in post HTML.

URL scheme (DESIGN.md): posts `/{prefix}/posts/{slug}/`, pages `/{prefix}/{slug}/`, taxonomy
`/{prefix}/tags/{key}/`; the default language has no prefix. Inside a post, a relative link to a
Markdown file or to a post's folder becomes `/_ref/{content-relative path}` (resolved to a
permalink when the page is served, so a renamed target never leaves stale links), and any other
relative URL (images, files beside the post) becomes `/media/{content-relative path}`.

These functions map one URL to another; they are applied to the parsed attributes of a body by
`masthead.content.sanitize.clean`, never to the markup itself.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from typing import NamedTuple, Protocol
from urllib.parse import quote, unquote

REF_PREFIX = "/_ref/"
MEDIA_PREFIX = "/media/"
# first path segments that masthead's own routes and mounts hold (a page cannot live there)
RESERVED = frozenset({
    "static", "media", "thumbs", "_ref", "_dev", "guanli", "api", "search", "comments",
    "healthz", "tags", "categories", "authors", "archive", "page",
})  # fmt: skip
MARKDOWN_SUFFIXES = (".md", ".markdown")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_SEPARATORS = re.compile(r"[\s/\\]+")


def segment(text: str) -> str:
    """`text` as one URL path segment (a slug, a section, a term key): lower-cased, control
    characters dropped, runs of whitespace, `/` and `\\` turned into one `-`; "" when nothing but
    dots is left ("." and ".." are not segments a page can live at); at most
    `MAX_SEGMENT_BYTES` of UTF-8 (`shorten`).

    Browsers drop control characters and read `\\` as `/` (WHATWG URL Standard), and the site
    301s any path that is not in that canonical form (`masthead.web.http.redirects`), so a permalink
    holding one would redirect away from itself.
    """
    text = _SEPARATORS.sub("-", _CONTROL.sub("", text).strip()).strip("-").lower()
    return "" if not text.strip(".") else shorten(text)


MAX_SEGMENT_BYTES = 200  # a file name holds 255 bytes (ext4, APFS, NTFS: 255 characters)


def shorten(text: str) -> str:
    """`text` when its UTF-8 fits in `MAX_SEGMENT_BYTES`; else its longest start that fits
    with `-` and 8 hex digits of its SHA-256 after it (cut between characters), so two long
    names that begin alike stay apart. Every permalink goes through `segment`, so the site
    served, `masthead check` and `masthead build` (one folder per segment, and a file system
    refuses a name past 255 bytes) all use the one short form."""
    raw = text.encode("utf-8")
    if len(raw) <= MAX_SEGMENT_BYTES:
        return text
    digest = hashlib.sha256(raw).hexdigest()[:8]
    head = raw[: MAX_SEGMENT_BYTES - len(digest) - 1].decode("utf-8", "ignore").rstrip("-.")
    return f"{head}-{digest}"


def static_url(rel: str) -> str:
    """The URL path at which the site's `static/` file `rel` (POSIX, relative to the folder) is
    served at the root, as Hugo publishes it: `/images/x.png`; a folder's `index.html` at the
    folder, `/about/`."""
    name = rel.rsplit("/", 1)[-1]
    if name in ("index.html", "index.htm"):
        return "/" + quote(rel[: -len(name)])
    return "/" + quote(rel)


def lang_path(prefix: str, path: str) -> str:
    """Site path `path` (`/archive/`) in the language whose URL prefix is `prefix`:
    `/archive/` for the default language (prefix ""), `/zh/archive/` for `zh`."""
    return f"/{prefix}{path}" if prefix else path


def absolute(base_url: str, path: str) -> str:
    """The absolute URL of site path `path` (which starts with `/`) under `base_url` (the
    `base_url` setting, validated without a trailing slash)."""
    return base_url + path


def post_url(prefix: str, slug: str) -> str:
    return lang_path(prefix, f"/posts/{quote(slug)}/")


def page_url(prefix: str, slug: str) -> str:
    return lang_path(prefix, f"/{quote(slug)}/")


def term_url(prefix: str, taxonomy: str, key: str) -> str:
    return lang_path(prefix, f"/{taxonomy}/{quote(key)}/")


FEED_FILES = {"rss": "feed.xml", "atom": "atom.xml"}
ALL_LANGUAGES = "all"  # `/all/feed.xml`: every language in one feed


def feed_url(prefix: str, fmt: str, taxonomy: str | None = None, key: str | None = None) -> str:
    """`/feed.xml`, `/zh/atom.xml`, `/tags/{key}/feed.xml`: the RSS (`fmt="rss"`) or Atom
    (`fmt="atom"`) feed of a language's home page or of one of its term pages."""
    base = term_url(prefix, taxonomy, key) if taxonomy and key else lang_path(prefix, "/")
    return base + FEED_FILES[fmt]


COMMENT_FEEDS = "/comments/"  # `/comments/feed.xml`, `/comments/atom.xml`: every thread
THREAD_FEED_FILES = {"rss": "comments.xml", "atom": "comments-atom.xml"}


def comment_feed_url(permalink: str | None, fmt: str) -> str:
    """The RSS (`fmt="rss"`) or Atom feed of the comments of the post at `permalink` (a path
    ending in `/`: `/posts/a/comments.xml`), or of every thread (`permalink` None:
    `/comments/feed.xml`)."""
    if permalink is None:
        return COMMENT_FEEDS + FEED_FILES[fmt]
    return permalink + THREAD_FEED_FILES[fmt]


def resolve_relative(url: str, post_dir: str, *, file: bool = False) -> str:
    """Rewrite one relative `url` found in a post whose source folder is `post_dir`
    (content-relative, POSIX). Absolute URLs, site paths, fragments and mailto: stay as they are.

    A link to a Markdown file (`../a/index.md`, `b.md`) or to what may be a post's folder (a path
    ending in `/` or whose last part has no file suffix: `../lighthouse/`, `../lighthouse`) becomes
    `/_ref/{content-relative path}`, resolved when the page is served (`resolve_link`); any other
    file (`map.png`) becomes `/media/{content-relative path}`, where masthead serves it. A path
    that climbs out of the content folder is left as written. `file=True` (a cover image) always
    gives `/media/…`.
    """
    url = url.strip()
    if not url or url.startswith(("#", "/", "?")) or _SCHEME.match(url):
        return url
    path, hashmark, fragment = url.partition("#")
    path, _q, _query = path.partition("?")
    target = posixpath.normpath(posixpath.join(post_dir, unquote(path)))
    if target.startswith("../") or target == "..":
        return url
    last = path.rstrip("/").rsplit("/", 1)[-1]
    folder_like = path.endswith("/") or "." not in last.strip(".")
    if not file and (target.lower().endswith(MARKDOWN_SUFFIXES) or (folder_like and target != ".")):
        return REF_PREFIX + quote(target) + (hashmark + fragment)
    return MEDIA_PREFIX + quote(target) + (hashmark + fragment)


class Source(NamedTuple):
    """What a `/_ref/` link may resolve to: a content file's post (`store.posts.source_urls`)."""

    url: str
    lang: str
    group: str = ""  # its translation group (kind and translation key); "": none known
    published: bool = False  # shown to readers now (not a draft, not scheduled)


class Sources(Protocol):
    """The posts of content files, as `resolve_ref` asks for them: by path, by path prefix, by
    the end of the path, by translation group. `SourceTable` holds them all in memory; a
    server asks its database for the few a page names (`web.cache.state.SourceLookup`)."""

    def get(self, source: str) -> Source | None: ...

    def starting_with(self, prefix: str) -> dict[str, Source]: ...

    def ending_with(self, tails: tuple[str, ...]) -> dict[str, Source]: ...

    def in_group(self, group: str) -> list[Source]: ...


class SourceTable:
    """`Sources` from a dict of every content file's post (`masthead check`, a build)."""

    def __init__(self, table: dict[str, Source]) -> None:
        self.table = table

    def get(self, source: str) -> Source | None:
        return self.table.get(source)

    def starting_with(self, prefix: str) -> dict[str, Source]:
        return {k: v for k, v in self.table.items() if k.startswith(prefix)}

    def ending_with(self, tails: tuple[str, ...]) -> dict[str, Source]:
        return {k: v for k, v in self.table.items() if ("/" + k).endswith(tails)}

    def in_group(self, group: str) -> list[Source]:
        return [v for v in self.table.values() if v.group == group]


def resolve_link(url: str, sources: Sources, content_dir: str, lang: str | None) -> str:
    """A URL of a stored post body as the page shows it: a `/_ref/{path}#fragment` link becomes
    the permalink of the post it names (see `resolve_ref`) with its fragment; a `/_ref/` link to a
    folder or extensionless path that names no post becomes `/media/{path}` (a file beside the
    post); a `/_ref/` link to a missing `.md` file stays (the `/_ref/` route answers 404 with the
    reason; `masthead check` names it). Any other URL is returned unchanged."""
    if not url.startswith(REF_PREFIX):
        return url
    target, hashmark, fragment = url[len(REF_PREFIX) :].partition("#")
    found = resolve_ref(target, sources, content_dir, lang)
    if found is None:
        if target.lower().endswith(MARKDOWN_SUFFIXES):
            return url
        return MEDIA_PREFIX + target + hashmark + fragment
    return found + hashmark + fragment


def resolve_ref(target: str, sources: Sources, content_dir: str, lang: str | None) -> str | None:
    """The permalink of the content file a `/_ref/` link names, or None when there is none.

    `target` is content-relative (as `resolve_relative` wrote it, percent-encoded). A Markdown
    file's path names that file; a folder or extensionless path names `path.md` or
    `path/index.md`, or a translation of it (`path/index.zh.md`), preferring the linking post's
    language `lang`. When none exists: a unique file of that name anywhere (preferring the linking
    post's language), as Hugo's `ref` does.

    Then, as Hugo resolves a ref in the linking page's language: when the post found is in
    another language than `lang`, its published translation in `lang` (same translation group:
    file name or `translationKey`, and kind) is the answer, if it has one. A file named with
    its language suffix (`x.zh.md` for a Chinese post) is that language's version on purpose
    and is kept.
    """
    path = unquote(target).strip("/")
    base = f"{content_dir}/{path}"
    is_file = path.lower().endswith(MARKDOWN_SUFFIXES)
    if is_file:
        exact = sources.get(base)
        if exact is not None:
            return _in_language(exact, path, sources, lang)
        tails = ["/" + path.rsplit("/", 1)[-1]]
    else:
        variant = re.compile(re.escape(base) + r"(?:\.[^./]+|/index(?:\.[^./]+)?)\.(?:md|markdown)")
        near = sources.starting_with(base + ".") | sources.starting_with(base + "/index")
        found = sorted((k for k in near if variant.fullmatch(k)), key=_plain_first)
        if found:
            same = [k for k in found if near[k].lang == lang]
            key = (same or found)[0]
            return _in_language(near[key], key, sources, lang)
        name = path.rsplit("/", 1)[-1]
        tails = [f"/{name}.md", f"/{name}/index.md"]
    matches = list(sources.ending_with(tuple(tails)).items())
    if len(matches) > 1 and lang:
        matches = [m for m in matches if m[1].lang == lang] or matches
    if len(matches) != 1:
        return None
    return _in_language(matches[0][1], matches[0][0], sources, lang)


def _in_language(found: Source, named: str, sources: Sources, lang: str | None) -> str:
    """The URL of `found` (the post of content file `named`), or of its published translation
    in `lang` when `found` is in another language and `named` does not state its language."""
    if not lang or found.lang == lang or not found.group or _states_language(named, found.lang):
        return found.url
    for other in sources.in_group(found.group):
        if other.lang == lang and other.published:
            return other.url
    return found.url


def _states_language(named: str, lang: str) -> bool:
    """Whether the file name `named` carries language suffix `lang` (`x.zh.md`,
    `index.zh-cn.md` for `zh`)."""
    stem = posixpath.basename(named.rstrip("/")).rsplit(".", 1)[0].lower()
    suffix = stem.rsplit(".", 1)[-1] if "." in stem else ""
    return bool(suffix) and (suffix == lang.lower() or suffix.startswith(lang.lower() + "-"))


def _plain_first(source: str) -> tuple[int, str]:
    """`x.md` and `x/index.md` before their translations `x.zh.md`, `x/index.zh.md`."""
    name = source.rsplit("/", 1)[-1]
    return (name.count("."), source)


_PATH_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_INDEX_FILES = ("index.html", "index.htm", "index")


def canonical_path(path: str) -> str:
    """The canonical form of a decoded request path: control characters dropped, backslashes
    read as slashes and runs of slashes collapsed (as browsers do), dot segments removed
    (RFC 3986 §5.2.4), and a trailing `index.html`/`index.htm`/`index` replaced by `/`."""
    clean = _PATH_CONTROL.sub("", path).replace("\\", "/")
    parts = clean.split("/")
    trailing = parts[-1] in ("", ".", "..")
    segments: list[str] = []
    for part in parts:
        if part in ("", "."):
            continue
        if part == "..":
            if segments:
                segments.pop()
            continue
        segments.append(part)
    if segments and not trailing and segments[-1] in _INDEX_FILES:
        segments.pop()
        trailing = True
    if not segments:
        return "/"
    return "/" + "/".join(segments) + ("/" if trailing else "")
