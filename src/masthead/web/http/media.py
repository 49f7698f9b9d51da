"""`/media/` (the files beside posts) and `/static/` (the theme's and the site's files); the
site's `static/` files are also served at the root, where no page is, as Hugo serves them
(`static/images/x.png` at `/images/x.png`: `Files.respond`, from the permalink catch-all).

`/media/` serves an allowlist of media types only (`MEDIA_TYPES`, by file extension, with the
Content-Type set from that table rather than guessed): images, audio, video, PDF, fonts and plain
data files. Anything else beside a post (HTML, XML, scripts, Markdown sources, settings) answers
404, so no active document from a content folder runs on the site's origin. SVG can hold script:
it is served with its own `Content-Security-Policy` (`sandbox`, no script, no requests), which a
browser applies when the file is opened directly (an `<img>` never runs script anyway).

Both mounts refuse hidden files and folders (any path segment starting with `.`: `.git/`, `.env`,
Vim's `.post.md.swp`, Emacs's `.#post.md`), editor backups and temporary files (`post.md~`,
`#post.md#`, `*.bak`, `*.tmp`, `*.swp`…) and sources (`*.md`, `*.toml`, SQLite files), also
when a link's target has such a name. ETag, Last-Modified and 304 come from Starlette's
StaticFiles (RFC 9110 §13); a 304 repeats Cache-Control and the file's own headers.

`/static/` text files (`COMPRESSIBLE`: CSS, JavaScript, SVG, XML, JSON, plain text, up to
`MEMORY_LIMIT`) are served from memory instead, read and compressed (gzip, brotli) once per
version of the file, and answered like cached pages by `conditional.conditional_response`
(ETag per coding, `Vary: Accept-Encoding`, Last-Modified from the file, 304).
"""

from __future__ import annotations

import mimetypes
import os
import stat
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from starlette.datastructures import Headers
from starlette.responses import FileResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from masthead.web.cache.conditional import conditional_response
from masthead.web.cache.state import Page

STATIC_CACHE = "public, max-age=3600"
SVG_POLICY = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox"

MEDIA_TYPES: Mapping[str, str] = {
    # images
    ".avif": "image/avif",
    ".gif": "image/gif",
    ".ico": "image/x-icon",
    ".jpeg": "image/jpeg",
    ".jpg": "image/jpeg",
    ".png": "image/png",
    ".svg": "image/svg+xml",
    ".webp": "image/webp",
    # audio
    ".aac": "audio/aac",
    ".flac": "audio/flac",
    ".m4a": "audio/mp4",
    ".mp3": "audio/mpeg",
    ".oga": "audio/ogg",
    ".ogg": "audio/ogg",
    ".opus": "audio/ogg",
    ".wav": "audio/wav",
    # video
    ".m4v": "video/mp4",
    ".mov": "video/quicktime",
    ".mp4": "video/mp4",
    ".ogv": "video/ogg",
    ".webm": "video/webm",
    # documents and fonts
    ".pdf": "application/pdf",
    ".otf": "font/otf",
    ".ttf": "font/ttf",
    ".woff": "font/woff",
    ".woff2": "font/woff2",
    # plain data: never rendered as a document (nosniff keeps them text)
    ".csv": "text/csv; charset=utf-8",
    ".geojson": "application/geo+json",
    ".json": "application/json",
    ".txt": "text/plain; charset=utf-8",
    ".vtt": "text/vtt; charset=utf-8",
}
COMPRESSIBLE = frozenset({".css", ".js", ".mjs", ".svg", ".xml", ".json", ".txt", ".map"})
# bytes: a larger file is streamed from disk as it is. Mermaid's chunks (static/vendor/mermaid/,
# up to 1.6 MB) fit: compressed, a page's diagram costs a quarter of its bytes (docs/performance.md)
MEMORY_LIMIT = 2 * 1024 * 1024
MEMORY_FILES = 256  # files kept in memory per mount, the oldest out first
# Extra headers per type: SVG is a document that can hold script.
TYPE_HEADERS: Mapping[str, Mapping[str, str]] = {".svg": {"Content-Security-Policy": SVG_POLICY}}

BACKUP_SUFFIXES = (
    "~", ".bak", ".tmp", ".temp", ".swp", ".swo", ".swx", ".orig", ".rej", ".old", ".save",
    ".part", ".crdownload", "___jb_tmp___", "___jb_old___",
)  # fmt: skip
SOURCE_SUFFIXES = (
    ".md", ".markdown", ".toml", ".db", ".sqlite", ".sqlite3", "-wal", "-shm", "-journal",
)  # fmt: skip


def refused(relative: str) -> bool:
    """Whether a path (relative to the served folder, `/` or `os.sep` separated) is one no
    mount ever serves: a hidden file or folder, an editor backup or temporary file, or a source."""
    parts = [p for p in relative.replace(os.sep, "/").split("/") if p]
    if not parts:
        return True
    name = parts[-1].lower()
    return (
        any(p.startswith(".") for p in parts)
        or name.endswith(BACKUP_SUFFIXES + SOURCE_SUFFIXES)
        or (name.startswith("#") and name.endswith("#"))
        or name.startswith("~$")  # Office lock files
        or name == "4913"  # Vim's test that a folder is writable
    )


def media_type(name: str) -> str | None:
    """The Content-Type `/media/` serves a file name with, or None when it is not served."""
    return MEDIA_TYPES.get(os.path.splitext(name)[1].lower())


class Files(StaticFiles):
    """StaticFiles that refuse what `refused` names (also as a symlink's target), optionally
    only the types of `types` (with that Content-Type), with a Cache-Control header on 200 and
    304 alike."""

    def __init__(
        self,
        *args: Any,
        cache_control: str | None = None,
        types: Mapping[str, str] | None = None,
        precompressed: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.cache_control = cache_control or STATIC_CACHE
        self.types = types
        self.precompressed = precompressed  # serve COMPRESSIBLE files from memory, compressed
        self._pages: dict[str, tuple[tuple[int, int, int], Page]] = {}
        # request path -> (the file each folder would give, in lookup order; version; page)
        self._served: dict[str, tuple[tuple[str, ...], tuple[int, int, int], Page]] = {}

    def allowed(self, relative: str) -> bool:
        if refused(relative):
            return False
        return self.types is None or os.path.splitext(relative)[1].lower() in self.types

    def lookup_path(self, path: str) -> tuple[str, os.stat_result | None]:
        if not self.allowed(path):
            return "", None
        full, stat = super().lookup_path(path)
        if stat is None:
            return "", None
        for directory in self.all_directories:  # a link named x.png must not serve .env
            root = os.path.realpath(directory)
            if os.path.commonpath([full, root]) == root:
                if not self.allowed(os.path.relpath(full, root)):
                    return "", None
                break
        return full, stat

    def respond(self, path: str, scope: Scope) -> Response | None:
        """The response for the file at `path` (relative to the folders; a folder's
        `index.html` for a path ending in `/`), or None when there is no such file. For a
        route that serves files where no page is (the site's `static/` at the root)."""
        try:
            full, found = self.lookup_path(path.lstrip("/"))
            if found is not None and stat.S_ISDIR(found.st_mode):
                if not path.endswith("/"):
                    return None  # the not-found handler redirects it to the path with a slash
                full, found = self.lookup_path(path.lstrip("/") + "index.html")
        except (OSError, ValueError):  # a name no file can have (too long, a NUL)
            return None
        if found is None or not stat.S_ISREG(found.st_mode):
            return None
        return self.file_response(full, found, scope)

    def file_response(  # type: ignore[override]
        self, full_path: str, stat_result: os.stat_result, scope: Scope, status_code: int = 200
    ) -> Response:
        ext = os.path.splitext(full_path)[1].lower()
        headers = {"Cache-Control": self.cache_control, **TYPE_HEADERS.get(ext, {})}
        if self.precompressed and ext in COMPRESSIBLE and stat_result.st_size <= MEMORY_LIMIT:
            page = self._page(full_path, stat_result, headers)
            if page is not None:
                self._remember(scope, stat_result, page)
                return conditional_response(Headers(scope=scope), page)
        media = self.types.get(ext) if self.types is not None else None
        response = FileResponse(
            full_path,
            status_code=status_code,
            stat_result=stat_result,
            headers=headers,
            media_type=media,
        )
        if self.is_not_modified(response.headers, Headers(scope=scope)):
            kept = {"etag": response.headers["etag"], **headers}
            return Response(status_code=304, headers=kept)
        return response

    def _remember(self, scope: Scope, stat_result: os.stat_result, page: Page) -> None:
        """Let `hit` answer this request path with `page` while the file stays the same."""
        rel = self.get_path(scope)
        candidates = tuple(os.path.join(d, rel) for d in self.all_directories)
        version = (stat_result.st_ino, stat_result.st_size, stat_result.st_mtime_ns)
        self._served.pop(scope["path"], None)
        self._served[scope["path"]] = (candidates, version, page)
        while len(self._served) > MEMORY_FILES:
            self._served.pop(next(iter(self._served)))

    def hit(self, path: str) -> Page | None:
        """The in-memory page for a request of `path` (as served before by this mount), when
        the file that lookup would find now is still the one it was made from: the first
        regular file among the folders' candidates (a site file that appeared in front of a
        package file, an edit, a replaced file or symlink: a miss, served by the mount again).
        One `os.stat` per folder up to that file; no thread pool."""
        known = self._served.get(path)
        if known is None:
            return None
        candidates, version, page = known
        for candidate in candidates:
            try:
                st = os.stat(candidate)
            except OSError:
                continue
            if not stat.S_ISREG(st.st_mode):
                continue
            return page if (st.st_ino, st.st_size, st.st_mtime_ns) == version else None
        return None

    def _page(
        self, full_path: str, stat_result: os.stat_result, headers: Mapping[str, str]
    ) -> Page | None:
        """The file as a page with its compressed bodies, made once per (inode, size, mtime);
        None when it cannot be read now (then it is served from disk as usual)."""
        version = (stat_result.st_ino, stat_result.st_size, stat_result.st_mtime_ns)
        known = self._pages.get(full_path)
        if known is not None and known[0] == version:
            return known[1]
        try:
            with open(full_path, "rb") as file:
                data = file.read(MEMORY_LIMIT + 1)
        except OSError:
            return None
        if len(data) != stat_result.st_size:
            return None  # changed while being read: not cached under this version
        media = mimetypes.guess_type(full_path)[0] or "text/plain"
        if media.startswith("text/"):
            media += "; charset=utf-8"  # as Starlette's FileResponse says it
        page = Page.make(
            data,
            media_type=media,
            cache_control=headers["Cache-Control"],
            modified=datetime.fromtimestamp(stat_result.st_mtime, UTC),
            headers=tuple((k, v) for k, v in headers.items() if k != "Cache-Control"),
        )
        self._pages.pop(full_path, None)
        self._pages[full_path] = (version, page)
        while len(self._pages) > MEMORY_FILES:
            self._pages.pop(next(iter(self._pages)))
        return page
