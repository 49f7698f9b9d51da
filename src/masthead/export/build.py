"""`masthead build SITE OUT`: the whole public site as files, for any static host or CDN.

What is written (paths relative to OUT; URL paths are percent-decoded into file names, as a
static server maps a request to a file):
- every page at `<its path>/index.html`: each language's home and its pagination, posts, pages
  (also at `[permalinks]` URLs), the archive, the taxonomy indexes, every term page and its
  pagination (`posts/harbour/index.html`, `zh/posts/harbour/index.html`);
- the feeds (RSS and Atom per language, per term, `all/` on a site with several languages),
  and the comment feeds (`comments/feed.xml`, `posts/x/comments.xml`, …, as of the build),
  `sitemap.xml` (and `sitemap-N.xml` when it is a sitemap index), `robots.txt`;
- `static/…` and `media/…`: exactly the files those mounts serve (`web.media`'s allowlist);
- `thumbs/…`: the cover thumbnails the list pages use (made as they render: content/thumbs.py);
- `404.html`, the not-found page;
- for every alias and former URL of a post, a small redirect page (meta refresh, canonical,
  `noindex`) at the old path, and all of them in `_redirects` (Netlify and Cloudflare Pages:
  `/old/ /new/ 301` per line);
- `_headers` (Netlify and Cloudflare Pages): the security headers `serve` sends, the
  Content-Security-Policy among them; `_nginx.conf` and `.nojekyll` (export/hosts.py);
- without `api_url`, the search index in `pagefind/` and the search pages `/search/`
  (export/search_index.py); the pages are then those of an export (`create_app(export=True)`:
  that search, and the comments as of the build with no form).

Every page, feed and file is fetched through the real ASGI app (`web.app.create_app`, called
in process as a server calls it, with `Accept-Encoding: identity`), so its bytes are what
`masthead serve` sends for that URL with the same base URL. The URLs are enumerated from the
store, never guessed from links.

Incremental: a manifest in OUT (`MANIFEST`) lists the files the last build wrote. A file whose
bytes are unchanged is not rewritten (its mtime stays); a listed file the site no longer has is
removed, and a folder left empty by that with it. Nothing else in OUT is ever touched. Files are
written 0644 and folders 0755 whatever the umask (a web server's unprivileged worker reads them).
"""

from __future__ import annotations

import asyncio
import html
import json
import logging
import math
import multiprocessing
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing.context import BaseContext
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from masthead.config import Site
from masthead.content import thumbs, urls
from masthead.errors import ConfigError, MastheadError
from masthead.export import hosts, search_index
from masthead.store import export as export_store
from masthead.store import posts as store
from masthead.web.http.media import SVG_POLICY, media_type, refused
from masthead.web.http.security import security_headers

log = logging.getLogger(__name__)

MANIFEST = ".masthead-build.json"
FILE_MODE = 0o644
DIR_MODE = 0o755
NOT_FOUND_FILE = "404.html"
REDIRECTS_FILE = "_redirects"
HEADERS_FILE = "_headers"
HIGHLIGHT_CSS = "/static/css/highlight.css"  # a route (Pygments colours), not a file
TAXONOMIES = ("tags", "categories", "authors")
_SITEMAP_LOC = re.compile(r"<loc>([^<]+)</loc>")

Progress = Callable[[int, int], None]  # (done, total)


class BuildError(MastheadError):
    """The app answered an enumerated URL with a server error, or OUT cannot be written."""


@dataclass
class BuildReport:
    """What a build did: counts of files `written` (new or changed), `unchanged` (same bytes,
    left alone) and `removed` (written by an earlier build, gone from the site); `missing`
    lists enumerated URLs the app did not answer with 200 (left out); `seconds` of wall time."""

    written: int = 0
    unchanged: int = 0
    removed: int = 0
    missing: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def files(self) -> int:
        return self.written + self.unchanged


# --- where things go ------------------------------------------------------------------------


def file_for(url_path: str) -> str | None:
    """The OUT-relative POSIX file name a static server maps URL path `url_path` (root-relative,
    percent-encoded, query ignored) to: `/posts/x/` → `posts/x/index.html`, `/feed.xml` →
    `feed.xml`, `/tags/%E4%B8%AD/` → `tags/中/index.html`. None for a path no file can have
    (a segment that decodes to `.`, `..`, or holds `/`, `\\` or NUL)."""
    path = urlsplit(url_path).path
    if not path.startswith("/"):
        return None
    parts = path[1:].split("/")
    if path.endswith("/"):
        parts[-1] = "index.html"
    try:
        names = [unquote(p, errors="strict") if "%" in p else p for p in parts]
    except UnicodeDecodeError:
        return None
    for name in names:
        if name in ("", ".", "..") or any(c in name for c in "/\\\x00"):
            return None
    return "/".join(names)


def check_output(site: Site, out: Path) -> Path:
    """`out` resolved, refused with a one-line `ConfigError` when it is a file, the site folder
    (or a folder holding it), inside the site's content or static folder, or not writable."""
    target = out.resolve()
    root = site.root.resolve()
    if target.exists() and not target.is_dir():
        raise ConfigError(f"{out}: is a file, not a folder")
    if target == root or root.is_relative_to(target):
        raise ConfigError(f"{out}: is the site folder (or holds it); choose one such as public/")
    for inner in (site.content_dir, root / site.settings.static_dir):
        if target.is_relative_to(inner.resolve()):
            raise ConfigError(f"{out}: is inside {inner}, whose files the site serves")
    existing = target
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise ConfigError(f"{out}: not writable ({existing} may not be written by this user)")
    return target


# --- the URLs of a site ---------------------------------------------------------------------


def page_urls(site: Site, conn: Any, now: float) -> list[str]:
    """Every page, feed and SEO file URL path of the site (percent-encoded), as the store holds
    them at `now`: per language the home page and its pagination (`posts_per_page`), the archive,
    taxonomy indexes, every term with a published post and its pagination and feeds, every
    published post and page; the all-languages feeds; the comment feeds (the site's, each post's
    that takes comments); robots.txt and sitemap.xml."""
    per = site.settings.posts_per_page
    out: list[str] = ["/robots.txt", "/sitemap.xml"]
    languages = list(site.languages.values())
    for lang in languages:
        _rows, total = store.list_posts(conn, lang=lang.code, now=now, limit=0)
        out += _listing(lang.root, total, per)
        out += [urls.feed_url(lang.prefix, fmt) for fmt in urls.FEED_FILES]
        out.append(urls.lang_path(lang.prefix, "/archive/"))
        for taxonomy in TAXONOMIES:
            out.append(urls.lang_path(lang.prefix, f"/{taxonomy}/"))
            for row in store.term_counts(conn, taxonomy, lang.code, now):
                out += _listing(urls.term_url(lang.prefix, taxonomy, row.key), row.n, per)
                out += [
                    urls.feed_url(lang.prefix, fmt, taxonomy, row.key) for fmt in urls.FEED_FILES
                ]
    if len(languages) > 1 and all(lang.prefix != urls.ALL_LANGUAGES for lang in languages):
        out += [urls.feed_url(urls.ALL_LANGUAGES, fmt) for fmt in urls.FEED_FILES]
    posts = [r for r in export_store.published_urls(conn, now) if r.lang in site.languages]
    out += [r.url for r in posts]
    # the comment feeds: the site's, and each post's that takes comments (as its head links)
    out += [urls.comment_feed_url(None, fmt) for fmt in urls.FEED_FILES]
    for page in posts:
        if page.kind == "post" and page.comments:
            out += [urls.comment_feed_url(page.url, fmt) for fmt in urls.FEED_FILES]
    return list(dict.fromkeys(out))  # one each, first place kept


def _listing(base: str, total: int, per: int) -> list[str]:
    """A list page and its pagination: `base`, `basepage/2/`, …"""
    pages = max(1, math.ceil(total / per))
    return [base] + [f"{base}page/{n}/" for n in range(2, pages + 1)]


def asset_urls(site: Site) -> list[str]:
    """Candidate `/static/` and `/media/` URL paths: every file of the package's and the site's
    static folders and, in the content folder, every file of a type `/media/` serves; names no
    mount serves (hidden, backups, sources: `web.media.refused`) are left out. The app has the
    last word (only its 200s are written)."""
    from masthead.web.app import PACKAGE_STATIC

    found: list[str] = [HIGHLIGHT_CSS]
    for folder in (site.root / site.settings.static_dir, PACKAGE_STATIC):
        found += ["/static/" + quote(rel) for rel in _files(folder)]
    found += [
        urls.MEDIA_PREFIX + quote(rel)
        for rel in _files(site.content_dir)
        if media_type(rel) is not None
    ]
    return list(dict.fromkeys(found))


def _files(folder: Path) -> list[str]:
    """POSIX paths relative to `folder` of its regular files (links followed) that no mount
    refuses; hidden folders are not entered."""
    if not folder.is_dir():
        return []
    out = []
    for top, dirs, names in os.walk(folder, followlinks=True):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        rel_top = Path(top).relative_to(folder).as_posix()
        for name in sorted(names):
            rel = name if rel_top == "." else f"{rel_top}/{name}"
            if not refused(rel):
                out.append(rel)
    return out


def redirects(site: Site, conn: Any, now: float, pages: Iterable[str]) -> list[tuple[str, str]]:
    """`(old path, new path)` of every alias and former URL that `serve` redirects (the same
    `store.posts.alias_target` lookup), except paths that are pages themselves."""
    taken = set(pages)
    out = []
    for path in export_store.moved_paths(conn):
        if path in taken:
            continue
        target = store.alias_target(conn, path, now)
        if target and target != path:
            out.append((path, target))
    return out


# --- what is written besides the fetched responses ------------------------------------------


def alias_page(target: str, absolute: str) -> bytes:
    """A redirect page for a static host: a meta refresh to the root-relative `target`, its
    `absolute` URL as the canonical link, `noindex` (as Hugo's alias pages)."""
    t, a = html.escape(target), html.escape(absolute)
    return (
        '<!doctype html>\n<html>\n<head>\n<meta charset="utf-8">\n'
        f'<title>{a}</title>\n<link rel="canonical" href="{a}">\n'
        '<meta name="robots" content="noindex">\n'
        f'<meta http-equiv="refresh" content="0; url={t}">\n</head>\n'
        f'<body><p><a href="{t}">{a}</a></p></body>\n</html>\n'
    ).encode()


def headers_file(headers: list[tuple[str, str]], svgs: Iterable[str]) -> bytes:
    """`_headers` (Netlify, Cloudflare Pages): the security headers `serve` sends with every
    response (`web.security`, the CSP among them) for `/*`, and for each SVG under `/media/`
    its own sandbox policy (`web.media.SVG_POLICY`; a host joins both policies, and a browser
    enforces each)."""
    lines = ["/*", *(f"  {name}: {value}" for name, value in headers)]
    lines += [thumbs.URL_PREFIX + "*", f"  Cache-Control: {thumbs.THUMB_CACHE}"]  # content hashes
    for url in svgs:
        lines += [url, f"  Content-Security-Policy: {SVG_POLICY}"]
    return ("\n".join(lines) + "\n").encode()


def redirects_file(moves: list[tuple[str, str]]) -> bytes:
    """`_redirects` (Netlify, Cloudflare Pages): `/old/ /new/ 301`, one line each."""
    return "".join(f"{old} {new} 301\n" for old, new in moves).encode()


# --- the output folder ----------------------------------------------------------------------


class Output:
    """Writes files under `root` only when their bytes changed, and afterwards removes the
    files the previous build listed in its manifest that this one did not write."""

    def __init__(self, root: Path, *, manifest: bool = True) -> None:
        self.root = root
        self.previous = self._read_manifest() if manifest else set()
        self.kept: set[str] = set()
        self.written = 0
        self.unchanged = 0
        self._dirs: set[Path] = set()

    def _read_manifest(self) -> set[str]:
        try:
            data = json.loads((self.root / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return set()
        files = data.get("files", []) if isinstance(data, dict) else []
        return {f for f in files if isinstance(f, str) and _inside(f)}

    def _folder(self, path: Path) -> None:
        if path in self._dirs:
            return
        missing = []
        here = path
        while not here.exists():
            missing.append(here)
            here = here.parent
        for folder in reversed(missing):
            try:
                folder.mkdir()
                os.chmod(folder, DIR_MODE)  # mkdir's mode is masked by the umask
            except FileExistsError:
                pass  # made by another build worker just now
            except OSError as exc:
                raise BuildError(f"{folder}: not writable ({exc.strerror or exc})") from None
        self._dirs.add(path)

    def write(self, rel: str, data: bytes) -> None:
        """Write `data` to OUT/`rel` (a POSIX relative path) unless it already holds it."""
        self.kept.add(rel)
        path = self.root / rel
        try:
            if path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data:
                self.unchanged += 1
                return
            self._folder(path.parent)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".mh-")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                    os.fchmod(f.fileno(), FILE_MODE)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as exc:
            raise BuildError(f"{path}: cannot write ({exc.strerror or exc})") from None
        self.written += 1

    def finish(self) -> int:
        """Remove the previous build's files that this one did not write (and folders that
        leaves empty), record the manifest; the number of files removed."""
        removed = 0
        for rel in sorted(self.previous - self.kept):
            path = self.root / rel
            if path.is_file() or path.is_symlink():
                path.unlink()
                removed += 1
                self._prune(path.parent)
        self.save()
        return removed

    def save(self) -> None:
        """Record what OUT holds from builds: this one's files, and the previous build's still
        there (a failed build must not forget files it did not get to remove)."""
        files = sorted(self.kept | {r for r in self.previous if (self.root / r).is_file()})
        data = json.dumps({"format": 1, "files": files}, ensure_ascii=False, indent=0).encode()
        saved, self.written, self.unchanged = (self.written, self.unchanged), 0, 0
        self.write(MANIFEST, data + b"\n")
        self.kept.discard(MANIFEST)
        self.written, self.unchanged = saved

    def _prune(self, folder: Path) -> None:
        while folder != self.root and folder.is_relative_to(self.root):
            try:
                folder.rmdir()  # only an empty folder: a foreign file keeps it
            except OSError:
                return
            folder = folder.parent


def _inside(rel: str) -> bool:
    """Whether a manifest entry names a file under OUT (never `..`, absolute or the manifest)."""
    p = PurePosixPath(rel)
    return bool(p.parts) and not p.is_absolute() and ".." not in p.parts and rel != MANIFEST


# --- the build ------------------------------------------------------------------------------


def build(
    site: Site,
    out: Path,
    *,
    progress: Progress | None = None,
    clock: Callable[[], float] = time.time,
    jobs: int = 1,
) -> BuildReport:
    """Index `site` (incrementally) and write its public site into `out` (see the module), as
    it is at one instant (`clock()` once: a post due mid-build is in every file or none).

    `site.settings.base_url` must be the site's absolute URL (canonical links, feeds, sitemaps).
    `jobs` > 1 renders in that many processes (each with its own app over the one database).
    Raises `ConfigError` for an unusable `out` (`check_output`), `BuildError` when the app
    answers an enumerated URL with a 5xx or a file cannot be written."""
    started = time.perf_counter()
    if not site.settings.base_url:
        raise ConfigError(f"{site.root}: an export needs base_url (absolute canonical URLs)")
    target = check_output(site, out)
    report = asyncio.run(
        _build(site, target, progress or (lambda done, total: None), clock(), jobs)
    )
    report.seconds = time.perf_counter() - started
    return report


def base_url(site: Site) -> str:
    """The absolute URL the export is for: the `base_url` setting, which `build` requires (the
    CLI sets it from `--base-url`)."""
    return site.settings.base_url or ""


class _Fixed:
    """A clock stopped at `now` (picklable, for the build workers)."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


async def _build(site: Site, out: Path, progress: Progress, now: float, jobs: int) -> BuildReport:
    from masthead.web.app import create_app

    app = create_app(site, clock=_Fixed(now), send_mail=False, export=True)  # mails no one
    app.state.masthead.compressed = False  # every request asks for identity: no page pays
    client = Client(app, base_url(site))
    report = BuildReport()
    output = Output(out)
    async with app.router.lifespan_context(app):  # closes the database and the search log after
        conn = app.state.masthead.db.read()
        pages = page_urls(site, conn, now) + search_index.page_urls(site)
        assets = asset_urls(site)
        moves = redirects(site, conn, now, pages)
        output._folder(out)
        try:
            # the sitemap first: a sitemap index names its parts
            pages += await _render(client, output, report, ["/sitemap.xml"], site, pages)
            pages.remove("/sitemap.xml")
            total = len(pages) + len(assets) + len(moves) + 4
            progress(1, total)
            svgs = await _render_all(
                site,
                out,
                now,
                client,
                output,
                report,
                pages,
                assets,
                jobs,
                lambda done: progress(1 + done, total),
            )
            # cover thumbnails are made as list pages render (content/thumbs.py): written after them
            made = sorted(thumbs.folder_for(site.database_path).glob("*.webp"))
            todo = [thumbs.URL_PREFIX + p.name for p in made]
            await _render(client, output, report, todo, site, pages, quiet=True)
            status, body = await client.get("/" + NOT_FOUND_FILE)
            if status != 404:
                raise BuildError(f"/{NOT_FOUND_FILE}: the app answered {status}")
            output.write(NOT_FOUND_FILE, body)
            for old, new in moves:
                rel = file_for(old)
                if rel is not None:
                    output.write(rel, alias_page(new, urls.absolute(base_url(site), new)))
            output.write(REDIRECTS_FILE, redirects_file(moves))
            static_search = search_index.wanted(site)
            headers = security_headers(site.settings, base_url(site), wasm=static_search)
            output.write(HEADERS_FILE, headers_file(headers, svgs))
            hosts.write(output, headers, moves, svgs)
            if static_search:
                await search_index.write(output, set(output.kept))
            progress(total, total)
        except BaseException:
            output.save()
            raise
        report.removed = output.finish()
    report.written, report.unchanged = output.written, output.unchanged
    return report


BATCH = 64  # URLs per task of a build worker, about (the progress bar moves per task)
PARALLEL_MIN = 2 * BATCH  # fewer URLs than this are not worth starting processes for


async def _render_all(
    site: Site,
    out: Path,
    now: float,
    client: Client,
    output: Output,
    report: BuildReport,
    pages: list[str],
    assets: list[str],
    jobs: int,
    done: Callable[[int], None],
) -> list[str]:
    """Fetch and write every URL of `pages` (noted in the report when not a 200) and of
    `assets` (silently left out when not served), here or in `jobs` worker processes; the
    `/media/` SVG files written (they get their own policy in `_headers`)."""
    marked = [(u, False) for u in pages] + [(u, True) for u in assets]
    if jobs <= 1 or len(marked) < PARALLEL_MIN:
        for n, (url, quiet) in enumerate(marked, start=1):
            await _render(client, output, report, [url], site, pages, quiet=quiet)
            done(n)
    else:
        # interleaved batches: feeds (the dearest pages) are spread over the workers
        n = max(jobs * 4, math.ceil(len(marked) / BATCH))
        batches = [marked[i::n] for i in range(n)]
        # never a fork of this process (it holds SQLite connections): a fork server that has
        # imported the app once starts each worker
        context: BaseContext = multiprocessing.get_context("spawn")
        if "forkserver" in multiprocessing.get_all_start_methods():
            server = multiprocessing.get_context("forkserver")
            server.set_forkserver_preload(["masthead.web.app"])
            context = server
        finished = 0
        with ProcessPoolExecutor(
            jobs, mp_context=context, initializer=_worker_start, initargs=(site, out, now)
        ) as pool:
            for kept, written, unchanged, missing, count in pool.map(_worker_batch, batches):
                output.kept |= kept
                output.written += written
                output.unchanged += unchanged
                report.missing += missing
                finished += count
                done(finished)
    return [
        u
        for u in assets
        if u.startswith(urls.MEDIA_PREFIX)
        and u.lower().endswith(".svg")
        and (file_for(u) or "") in output.kept
    ]


async def _render(
    client: Client,
    output: Output,
    report: BuildReport,
    todo: list[str],
    site: Site,
    pages: list[str],
    quiet: bool = False,
) -> list[str]:
    """Fetch and write each URL of `todo`; the sitemap parts a sitemap index names."""
    more: list[str] = []
    for url in todo:
        body = await _fetch(client, url, report, quiet=quiet)
        if body is not None and _write(output, url, body, report):
            more += _sitemap_parts(url, body, base_url(site), pages)
    return more


_WORKER: dict[str, Any] = {}


def _worker_start(site: Site, out: Path, now: float) -> None:
    """A build worker's app (the index is already up to date) and its output."""
    from masthead.web.app import create_app

    logging.getLogger("masthead").addHandler(logging.NullHandler())
    app = create_app(site, index=False, clock=_Fixed(now), send_mail=False, export=True)
    app.state.masthead.compressed = False
    _WORKER.update(site=site, client=Client(app, base_url(site)), out=out)


def _worker_batch(batch: list[tuple[str, bool]]) -> tuple[set[str], int, int, list[str], int]:
    """Render `batch` (`(url, quiet)` pairs) in a build worker: the files kept, the counts
    written and unchanged, the URLs missing, and how many URLs were done."""
    output = Output(_WORKER["out"], manifest=False)
    report = BuildReport()

    async def run() -> None:
        for url, quiet in batch:
            await _render(_WORKER["client"], output, report, [url], _WORKER["site"], [], quiet)

    asyncio.run(run())
    return output.kept, output.written, output.unchanged, report.missing, len(batch)


class Client:
    """GET requests to an ASGI app in this process, with the scope a server such as uvicorn
    gives it (ASGI 3.0 HTTP, https://asgi.readthedocs.io/en/latest/specs/www.html): the
    `Host` of `base_url`, `Accept-Encoding: identity` (the bytes a server sends uncompressed),
    no body. Cheaper per request than an HTTP client over an ASGI transport."""

    def __init__(self, app: Any, base_url: str) -> None:
        parts = urlsplit(base_url)
        self.app = app
        self.scheme = parts.scheme
        port = parts.port or (443 if parts.scheme == "https" else 80)
        self.server = (parts.hostname or "localhost", port)
        self.headers = [
            (b"host", parts.netloc.encode("idna")),
            (b"accept-encoding", b"identity"),
            (b"user-agent", b"masthead-build"),
        ]

    async def get(self, url: str) -> tuple[int, bytes]:
        """`(status, body)` of GET `url` (a root-relative URL, percent-encoded). Raises
        BuildError when the app fails (an exception instead of a response)."""
        parts = urlsplit(url)
        scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.4"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": self.scheme,
            "path": unquote(parts.path),
            "raw_path": parts.path.encode("ascii"),
            "query_string": parts.query.encode("ascii"),
            "root_path": "",
            "headers": self.headers,
            "client": ("127.0.0.1", 0),
            "server": self.server,
        }
        status = 0
        chunks: list[bytes] = []
        sent = asyncio.Event()

        async def receive() -> dict[str, Any]:
            if not sent.is_set():
                sent.set()
                return {"type": "http.request", "body": b"", "more_body": False}
            await asyncio.Event().wait()  # no disconnect: cancelled when the response ends
            return {"type": "http.disconnect"}  # pragma: no cover

        async def send(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        try:
            await self.app(scope, receive, send)
        except Exception as exc:
            raise BuildError(f"{url}: the app failed ({type(exc).__name__}: {exc})") from exc
        return status, b"".join(chunks)


async def _fetch(
    client: Client, url: str, report: BuildReport, quiet: bool = False
) -> bytes | None:
    """The body the app sends for GET `url` with status 200; None (and, unless `quiet`, the
    URL noted in the report) for any other answer but a server error, which raises."""
    status, body = await client.get(url)
    if status >= 500:
        raise BuildError(f"{url}: the app answered {status}")
    if status != 200:
        if not quiet:
            report.missing.append(url)
            log.warning("%s: the app answered %d; left out", url, status)
        return None
    return body


def _write(output: Output, url: str, body: bytes, report: BuildReport) -> bool:
    rel = file_for(url)
    if rel is None:
        report.missing.append(url)
        log.warning("%s: no file name can hold this URL; left out", url)
        return False
    output.write(rel, body)
    return True


def _sitemap_parts(url: str, body: bytes, base_url: str, pages: list[str]) -> list[str]:
    """The `/sitemap-N.xml` files a sitemap index (`/sitemap.xml`) lists, as URL paths."""
    if url != "/sitemap.xml" or b"<sitemapindex" not in body[:500]:
        return []
    found = []
    for loc in _SITEMAP_LOC.findall(body.decode("utf-8")):
        loc = html.unescape(loc)
        if loc.startswith(base_url + "/"):
            path = loc[len(base_url) :]
            if path not in pages:
                found.append(path)
    return found
