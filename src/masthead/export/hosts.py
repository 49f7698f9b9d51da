"""What each kind of static host needs beside the pages, so an export behaves as `serve` does.

`export/build.py` writes `_redirects` and `_headers` (Netlify, Cloudflare Pages) and an alias page
(meta refresh, canonical link) at every old path; here are the other hosts' files:

- `.nojekyll` (GitHub Pages): the files are served as they are, not run through Jekyll (which
  would leave out every name that starts with `_` or `.`);
- `_nginx.conf` (nginx): included in the `server` block that serves OUT (docs: Deploying), it
  sends the security headers `serve` sends (the CSP among them), answers every alias and former
  URL with a 301, serves `404.html` for a missing page, gives each file the media type `serve`
  gives it (feeds included) and the cover thumbnails their long cache, and keeps the build's
  own files (`_headers`, `_redirects`, itself, the manifests) from being served.

nginx reads a `location = PATH` against the request's decoded, normalised path, so each path is
written decoded and quoted; `add_header` in a `location` replaces the server's, so a location
that adds one repeats them all.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol
from urllib.parse import unquote

from masthead.content import thumbs, urls
from masthead.errors import ConfigError

NOJEKYLL = ".nojekyll"
NGINX_FILE = "_nginx.conf"
FEED_TYPES = {  # as web/routes/seo.py serves them (nginx's mime.types says text/xml)
    "application/rss+xml": (urls.FEED_FILES["rss"], urls.THREAD_FEED_FILES["rss"]),
    "application/atom+xml": (urls.FEED_FILES["atom"], urls.THREAD_FEED_FILES["atom"]),
}
# the types of the site's own files, as `serve` sends them (media files: web.http.media)
PAGE_TYPES = {
    ".html": "text/html",
    ".css": "text/css",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".xml": "application/xml",  # sitemaps (feeds: FEED_TYPES)
    ".txt": "text/plain",
    ".json": "application/json",
}
# the types sent with `; charset=utf-8`, as `serve` sends them
CHARSET_TYPES = (
    "text/html", "text/css", "text/javascript", "text/plain", "text/csv", "text/vtt",
    "application/xml", "application/rss+xml", "application/atom+xml",
)  # fmt: skip
# files of the build, never pages: `_headers`, `_redirects`, this file, `.masthead-*`
PRIVATE = r"^/(_headers|_redirects|_nginx\.conf|\.masthead-[^/]*|\.nojekyll)$"


class Output(Protocol):
    def write(self, rel: str, data: bytes) -> None: ...


def write(
    output: Output,
    headers: list[tuple[str, str]],
    moves: list[tuple[str, str]],
    svgs: Iterable[str],
) -> None:
    """Write `.nojekyll` and `_nginx.conf` for an export with these security `headers`,
    redirects `moves` (old path, new path) and `/media/` SVG files `svgs`."""
    output.write(NOJEKYLL, b"")
    output.write(NGINX_FILE, nginx_conf(headers, moves, svgs))


def nginx_conf(
    headers: list[tuple[str, str]], moves: list[tuple[str, str]], svgs: Iterable[str]
) -> bytes:
    """The `_nginx.conf` of an export (see the module)."""
    from masthead.web.http.media import SVG_POLICY

    def adds(pairs: list[tuple[str, str]]) -> list[str]:
        return [f"add_header {name} {_quoted(value)} always;" for name, value in pairs]

    lines = [
        "# written by masthead build: include it in the server block whose root is this folder",
        "absolute_redirect off;  # a redirect names a path on the host the reader asked",
        f"types {{ {' '.join(_types())} }}",
        "charset utf-8;",
        f"charset_types {' '.join(CHARSET_TYPES)};",
        "error_page 404 /404.html;",
        *adds(headers),
        f"location ~ {_quoted(PRIVATE, literal=True)} {{ return 404; }}",
    ]
    for media, names in FEED_TYPES.items():
        pattern = "/(" + "|".join(n.replace(".", r"\.") for n in names) + ")$"
        lines.append(
            f"location ~ {_quoted(pattern, literal=True)} {{ types {{ }} "
            f"default_type {_quoted(media + '; charset=utf-8')}; }}"
        )
    cache = [("Cache-Control", thumbs.THUMB_CACHE)]
    lines.append(f"location ^~ {thumbs.URL_PREFIX} {{ {' '.join(adds(headers + cache))} }}")
    for url in svgs:
        own = [(k, v) for k, v in headers if k.lower() != "content-security-policy"]
        own.append(("Content-Security-Policy", SVG_POLICY))
        lines.append(f"location = {_path(url)} {{ {' '.join(adds(own))} }}")
    for old, new in moves:
        target = _quoted(new.replace("$", "%24"))  # the same URL (RFC 3986 §2.1)
        lines.append(f"location = {_path(old)} {{ return 301 {target}; }}")
    return ("\n".join(lines) + "\n").encode()


def _types() -> list[str]:
    """nginx `types` entries (`image/png png;`): each extension with the type `serve` gives it."""
    from masthead.web.http.media import MEDIA_TYPES

    by_type: dict[str, list[str]] = {}
    for ext, media in {**PAGE_TYPES, **MEDIA_TYPES}.items():
        by_type.setdefault(media.partition(";")[0], []).append(ext.lstrip("."))
    return [f"{media} {' '.join(exts)};" for media, exts in sorted(by_type.items())]


def _path(url_path: str) -> str:
    """A URL path (percent-encoded) as nginx matches it: decoded, quoted."""
    return _quoted(unquote(url_path), literal=True)


def _quoted(value: str, *, literal: bool = False) -> str:
    """`value` as one nginx string. nginx expands `$name` in a header's value or a redirect's
    target and has no escape for `$`: there one (or a control character anywhere) is refused.
    A `literal` string (a location's path or pattern) is read as it is."""
    if (not literal and "$" in value) or any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise ConfigError(f"{value!r}: cannot be written into nginx's configuration")
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
