"""`masthead build SITE OUT`: the whole public site as files, for any static host or CDN.

What is written (paths relative to OUT; URL paths are percent-decoded into file names, as a
static server maps a request to a file):
- every page at `<its path>/index.html`: each language's home and its pagination, posts, pages
  (also at `[permalinks]` URLs), the archive, the taxonomy indexes, every term page and its
  pagination (`posts/harbour/index.html`, `zh/posts/harbour/index.html`);
- the series pages (`series/KEY/index.html`, per language) and their feeds;
- the feeds (RSS and Atom per language, per term, `all/` on a site with several languages),
  and the comment feeds (`comments/feed.xml`, `posts/x/comments.xml`, …, as of the build),
  `sitemap.xml` (and `sitemap-N.xml` when it is a sitemap index), `robots.txt`;
- `static/…` and `media/…`: exactly the files those mounts serve (`web.media`'s allowlist), and
  the site's `static/` files at the root too (`images/x.png`), as Hugo publishes them;
- `thumbs/…`: the cover thumbnails the list pages use (made as they render: content/thumbs.py);
- `cards/…`: the share cards the posts' pages name as `og:image` (content/cards.py);
- `404.html`, the not-found page;
- for every alias and former URL of a post, a small redirect page (meta refresh, canonical,
  `noindex`) at the old path, and all of them in `_redirects` (Netlify and Cloudflare Pages:
  `/old/ /new/ 301` per line);
- `_headers` (Netlify and Cloudflare Pages): the security headers `serve` sends, the
  Content-Security-Policy among them; `_nginx.conf` and `.nojekyll` (export/hosts.py);
- without `api_url`, the search index in `search-index/` and the search pages `/search/`
  (export/search_index.py); the pages are then those of an export (`create_app(export=True)`:
  that search, and the comments as of the build with no form).

Every page, feed and file is what `masthead serve` sends for its URL with the same base URL:
page, feed and sitemap endpoints are called directly, through the same `respond` and renderer
the server uses (export/direct.py), everything else through the real ASGI app
(`web.app.create_app`, called in process as a server calls it, with `Accept-Encoding:
identity`: export/client.py). The URLs are enumerated from the store, never guessed from links.

Incremental: a manifest in OUT (`MANIFEST`) lists the files the last build wrote and what it
was made from (export/made.py). When only comments changed since, only the pages showing them
are fetched again; when posts were saved (and no template, setting or file changed), only the
pages they change (export/changes.py); a build with nothing changed renders nothing. Otherwise
every file is fetched, and a file whose bytes are unchanged is not rewritten (its mtime
stays); a listed file the site no longer has is removed, and a folder left empty by that with
it. Nothing else in OUT is ever touched. Files are written 0644 and folders 0755 whatever the
umask (a web server's unprivileged worker reads them).
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import itertools
import json
import logging
import math
import multiprocessing
import os
import re
import stat
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from multiprocessing.context import BaseContext
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote, urlsplit

from masthead.config import Site
from masthead.content import cards, thumbs, urls
from masthead.errors import ConfigError
from masthead.export import changes, hosts, search_index
from masthead.export.client import BuildError, Client
from masthead.export.made import Made, Mark, Versions, fingerprint, record
from masthead.store import export as export_store
from masthead.store import posts as store
from masthead.store import series as series_store
from masthead.store.db import Database
from masthead.web.render.series import series_url
from masthead.workers import follow_parent

if TYPE_CHECKING:  # the app is imported only when a page is to be fetched
    from masthead.export.direct import Answer, Direct

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


@dataclass
class BuildReport:
    """What a build did: counts of files `written` (new or changed), `unchanged` (same bytes,
    left alone) and `removed` (written by an earlier build, gone from the site); `missing`
    lists enumerated URLs the app did not answer with 200 (left out); `seconds` of wall time;
    `changed` the files written; `fetched` how many URLs were asked of the app (none when
    nothing changed); `workers` the processes that rendered beside this one (0: none)."""

    written: int = 0
    unchanged: int = 0
    removed: int = 0
    missing: list[str] = field(default_factory=list)
    seconds: float = 0.0
    changed: list[str] = field(default_factory=list)  # the files written
    fetched: int = 0  # URLs asked of the app (rendered, unless the app had them cached)
    workers: int = 0  # processes that rendered beside this one (0: this one alone)

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
    series with a part in that language and its feeds, every published post and page; the
    all-languages feeds; the comment feeds (the site's, each post's that takes comments);
    robots.txt and sitemap.xml."""
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
        for key in series_store.keys(conn):  # each series with a part in this language
            if series_store.parts(conn, key, lang.code, now):
                base = series_url(lang.prefix, key)
                out += [base] + [base + file for file in urls.FEED_FILES.values()]
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


_CARD = re.compile(r'<meta property="og:image" content="[^"]*?(/cards/[0-9a-f]{32}\.png)"')


def shared_cards(out: Path, pages: list[str]) -> list[str]:
    """The `/cards/…` URL paths the written pages of `pages` name as their `og:image` (each
    once): the share cards of posts without a cover, and no stale one."""
    found: list[str] = []
    for url in pages:
        rel = file_for(url)
        if rel is None or not rel.endswith(".html"):
            continue
        try:
            text = (out / rel).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        found += _CARD.findall(text)
    return list(dict.fromkeys(found))


def _listing(base: str, total: int, per: int) -> list[str]:
    """A list page and its pagination: `base`, `basepage/2/`, …"""
    pages = max(1, math.ceil(total / per))
    return [base] + [f"{base}page/{n}/" for n in range(2, pages + 1)]


def asset_urls(site: Site) -> list[str]:
    """Candidate `/static/` and `/media/` URL paths: every file of the package's and the site's
    static folders, the site's also at the root (`urls.static_url`, as Hugo serves them) and, in the
    content folder, every file of a type `/media/` serves; names no
    mount serves (hidden, backups, sources: `web.media.refused`) are left out. The app has the
    last word (only its 200s are written)."""
    from masthead.web.app import PACKAGE_STATIC
    from masthead.web.http.media import media_type

    found: list[str] = [HIGHLIGHT_CSS]
    for folder in (site.root / site.settings.static_dir, PACKAGE_STATIC):
        found += ["/static/" + quote(rel) for rel in _files(folder)]
    found += [urls.static_url(rel) for rel in _files(site.root / site.settings.static_dir)]
    found += [
        urls.MEDIA_PREFIX + quote(rel)
        for rel in _files(site.content_dir)
        if media_type(rel) is not None
    ]
    return list(dict.fromkeys(found))


def _files(folder: Path) -> list[str]:
    """POSIX paths relative to `folder` of its regular files (links followed) that no mount
    refuses; hidden folders are not entered."""
    from masthead.web.http.media import refused

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
        if path in taken or "?" in path:  # `/?p=12`: a static host cannot tell queries apart
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
    from masthead.web.http.media import SVG_POLICY

    lines = ["/*", *(f"  {name}: {value}" for name, value in headers)]
    lines += [thumbs.URL_PREFIX + "*", f"  Cache-Control: {thumbs.THUMB_CACHE}"]  # content hashes
    lines += [cards.URL_PREFIX + "*", f"  Cache-Control: {cards.CARD_CACHE}"]
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
        self.previous: set[str] = set()
        self.made = Made()  # what the previous build was made from (export/made.py)
        if manifest:
            self._read_manifest()
        self.kept: set[str] = set()
        self.changed: list[str] = []  # the files written (new or changed bytes)
        self.written = 0
        self.unchanged = 0
        self.marks: dict[str, Mark] = {}  # this build's files that show comments
        self.result = Made()  # what this build was made from, once it has succeeded
        self._dirs: set[Path] = set()
        self._made: set[str] = set()  # folders (as `write` names them) known to exist
        self._carried: set[str] = set()  # kept from the previous build without a fetch
        self.aliases: list[str] = list(self.made.aliases)  # the alias pages OUT holds

    def _read_manifest(self) -> None:
        try:
            data = json.loads((self.root / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if not isinstance(data, dict):
            return
        files = data.get("files", [])
        if isinstance(files, list):
            self.previous = {f for f in files if isinstance(f, str) and _inside(f)}
        self.made = Made.load(data.get("made"))

    def complete(self) -> bool:
        """Whether every file the previous build listed is still in OUT."""
        root = str(self.root)
        return all(os.path.isfile(os.path.join(root, rel)) for rel in self.previous)

    def keep_previous(self) -> None:
        """Keep every file of the previous build (and what it recorded of them) as it is."""
        self._carried = set(self.previous - self.kept)
        self.kept |= self._carried
        self.unchanged += len(self._carried)
        self.marks.update((r, m) for r, m in self.made.marks.items() if r in self.previous)

    def keep(self, rels: Collection[str]) -> None:
        """Keep the files `rels` of the previous build as they are (this build made them too):
        counted as unchanged."""
        new = set(rels) - self.kept
        self.kept |= new
        self.unchanged += len(new)

    def release(self, prefix: str) -> None:
        """Forget that files under `prefix` were kept from the previous build (a search index
        made again): those this build does not write again are removed by `finish`."""
        for rel in [r for r in self._carried if r.startswith(prefix)]:
            self._carried.discard(rel)
            self.kept.discard(rel)
            self.unchanged -= 1

    def forget(self, rel: str | None) -> None:
        """Leave file `rel` out of this build: `finish` removes it if the last build wrote it."""
        if rel is None:
            return
        if rel in self._carried:
            self._carried.discard(rel)
            self.unchanged -= 1
        self.kept.discard(rel)

    def mark(self, rel: str, mark: Mark | None) -> None:
        """Record (or forget) what comments file `rel` shows."""
        if mark is None:
            self.marks.pop(rel, None)
        else:
            self.marks[rel] = mark

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
        if rel in self._carried:  # kept from before unread, now fetched again
            self._carried.discard(rel)
            self.unchanged -= 1
        self.kept.add(rel)
        path = os.path.join(self.root, rel)
        try:
            try:
                st = os.stat(path)
            except FileNotFoundError:
                pass  # a new file (most of a first build): one stat, no Path
            else:
                if stat.S_ISREG(st.st_mode) and st.st_size == len(data):
                    with open(path, "rb") as f:
                        if f.read() == data:
                            self.unchanged += 1
                            return
            folder = os.path.dirname(path)
            if folder not in self._made:  # one Path and one look per folder, not per file
                self._folder(Path(folder))
                self._made.add(folder)
            _replace(path, folder, data)
        except OSError as exc:
            raise BuildError(f"{path}: cannot write ({exc.strerror or exc})") from None
        self.written += 1
        self.changed.append(rel)

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
        root = str(self.root)
        left = {r for r in self.previous - self.kept if os.path.isfile(os.path.join(root, r))}
        files = sorted(self.kept | left)
        made = self.result.dump()  # an empty one unless the build succeeded: the next is full
        made["marks"] = {r: m for r, m in sorted(self.marks.items()) if r in self.kept}
        manifest = {"format": 2, "files": files, "made": made}
        data = json.dumps(manifest, ensure_ascii=False, indent=0, separators=(",", ":"))
        saved, self.written, self.unchanged = (self.written, self.unchanged), 0, 0
        changed = list(self.changed)
        self.write(MANIFEST, data.encode() + b"\n")
        self.kept.discard(MANIFEST)
        self.written, self.unchanged = saved
        self.changed = changed

    def _prune(self, folder: Path) -> None:
        while folder != self.root and folder.is_relative_to(self.root):
            try:
                folder.rmdir()  # only an empty folder: a foreign file keeps it
            except OSError:
                return
            folder = folder.parent


_TEMPORARY = itertools.count()  # names of files being written, unique in this process


def _replace(path: str, folder: str, data: bytes) -> None:
    """Write `data` to a new file in `folder` (mode `FILE_MODE` whatever the umask), then
    rename it to `path`: a reader sees the old bytes or the new ones, never a part."""
    tmp = os.path.join(folder, f".mh-{os.getpid()}-{next(_TEMPORARY)}")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
    try:
        fd = os.open(tmp, flags, FILE_MODE)
    except FileExistsError:  # left by a build that died with this process id: ours to remove
        os.unlink(tmp)
        fd = os.open(tmp, flags, FILE_MODE)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fchmod(fd, FILE_MODE)  # the umask may have taken bits off
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _inside(rel: str) -> bool:
    """Whether a manifest entry names a file under OUT (never `..`, absolute or the manifest)."""
    parts = rel.split("/")
    return (
        bool(rel)
        and not rel.startswith("/")
        and ".." not in parts
        and "\0" not in rel
        and rel != MANIFEST
        and any(p not in ("", ".") for p in parts)
    )


# --- the build ------------------------------------------------------------------------------


def build(
    site: Site,
    out: Path,
    *,
    progress: Progress | None = None,
    clock: Callable[[], float] = time.time,
    jobs: int | None = 1,
) -> BuildReport:
    """Index `site` (incrementally) and write its public site into `out` (see the module), as
    it is at one instant (`clock()` once: a post due mid-build is in every file or none).

    `site.settings.base_url` must be the site's absolute URL (canonical links, feeds, sitemaps).
    `jobs` > 1 renders in that many processes (each with its own app over the one database);
    None in as many as the site's pages are worth, up to one per core (`processes_for`).
    Raises `ConfigError` for an unusable `out` (`check_output`), `BuildError` when the app
    answers an enumerated URL with a 5xx or a file cannot be written.

    The steps, in order:
    1. index the site; read what the pages depend on in the database (`Versions`) and what
       the last build was made from (its manifest, `Output.made`);
    2. nothing but comments changed since: fetch again only the pages showing those
       (`_refresh`; with none, no app is even made); posts saved, nothing else (code,
       settings, templates, files) changed: fetch the pages those posts change
       (export/changes.py) and the comments' (`_update`); else every page, feed, static and
       media file, thumbnail, alias page, `_headers` and `_redirects` (`_full`), writing only
       the files whose bytes changed;
    3. the search index (from the database alone: in a full build with workers, made in
       this process while they render);
    4. remove the files of the last build the site no longer has; write the manifest."""
    started = time.perf_counter()
    if not site.settings.base_url:
        raise ConfigError(f"{site.root}: an export needs base_url (absolute canonical URLs)")
    target = check_output(site, out)
    now = clock()
    done = progress or (lambda done, total: None)
    output = Output(target)
    versions = _index(site, now)
    made = Made(fingerprint(site, base_url(site)), versions.generation, versions.due)
    previous = output.made
    stale = todo = None
    complete = output.complete()
    if previous.same_pages(made.fingerprint, versions, now) and complete:
        stale = previous.stale(versions)
        made.posts = previous.posts
    else:
        states = _states(site)
        made.posts = changes.dump_states(states)
        old = changes.load_states(previous.posts)
        if old is not None and previous.same_files(made.fingerprint, now) and complete:
            todo = changes.plan(site, old, states, now)
    report = BuildReport()
    output._folder(target)
    searched: list[int] = []

    def index_search() -> None:
        """The search index (export/search_index.py: from the database alone), once."""
        if search_index.wanted(site) and not searched:
            searched.append(search_index.write(site, output, now))

    try:
        if todo is not None:
            todo |= {url for _rel, url in previous.stale(versions)}  # comments moved too
            asyncio.run(_update(site, target, now, output, report, versions, todo, done))
        elif stale is None:
            asyncio.run(
                _full(site, target, now, output, report, versions, jobs, done, index_search)
            )
        else:
            output.keep_previous()
            if stale:
                asyncio.run(_refresh(site, now, output, report, versions, stale, done))
        index_search()  # unless a full build made it while its workers rendered
    except BaseException:
        output.save()
        raise
    made.aliases = output.aliases
    output.result = made
    report.removed = output.finish()
    report.written, report.unchanged = output.written, output.unchanged
    report.changed = list(output.changed)
    report.seconds = time.perf_counter() - started
    return report


def _index(site: Site, now: float) -> Versions:
    """Bring the index up to date (incremental); what the pages depend on in it at `now`."""
    from masthead.indexing.indexer import index_and_log

    db = Database(site.database_path)
    try:
        index_and_log(site, db)
        return Versions.read(db.read(), now)
    finally:
        db.close()


def _states(site: Site) -> changes.States:
    """The state of every post in the (indexed) database (export/changes.py)."""
    db = Database(site.database_path)
    try:
        return changes.read_states(db.read())
    finally:
        db.close()


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


def _open(site: Site, now: float) -> Direct:
    """What a build fetches from: the app (the index already up to date), its clock stopped at
    `now`, mailing no one, keeping no compressed bodies of pages or static files (every request
    asks for identity), reading site-wide tables once (`SiteState.bulk`) and its templates
    once."""
    from starlette.routing import Mount

    from masthead.export.direct import Direct
    from masthead.web.app import create_app
    from masthead.web.http.media import Files

    app = create_app(site, index=False, clock=_Fixed(now), send_mail=False, export=True)
    state = app.state.masthead
    state.compressed = False
    state.bulk = True
    state.cache_bytes = BUILD_CACHE_BYTES  # each page is asked for once: keep few in memory
    # static text files are read as they are, not compressed once more (gzip and brotli of
    # every CSS and script file: about 40% of a warm build of the demo)
    for route in app.router.routes:
        if isinstance(route, Mount) and isinstance(route.app, Files):
            route.app.precompressed = False
    # templates do not change during a build: no look for a new override at every render
    app.state.renderer.env.auto_reload = False
    return Direct(app, Client(app, base_url(site)))


@contextmanager
def _fetcher(site: Site, now: float) -> Iterator[Direct]:
    """`_open`, its search log and database closed after."""
    fetcher = _open(site, now)
    try:
        yield fetcher
    finally:
        fetcher.app.state.search.close()
        fetcher.state.db.close()


async def _refresh(
    site: Site,
    now: float,
    output: Output,
    report: BuildReport,
    versions: Versions,
    stale: list[tuple[str, str]],
    progress: Progress,
) -> None:
    """Fetch again the files of `stale` (`(file, URL)`: their comments moved since)."""
    progress(0, len(stale))
    with _fetcher(site, now) as fetcher:
        for n, (rel, url) in enumerate(stale, start=1):
            answer = await _fetch(fetcher, url, report)
            if answer is not None and _write(output, url, answer.body, report):
                output.mark(rel, record(url, answer.mark, versions))
            progress(n, len(stale))


async def _full(
    site: Site,
    out: Path,
    now: float,
    output: Output,
    report: BuildReport,
    versions: Versions,
    jobs: int | None,
    progress: Progress,
    meanwhile: Callable[[], None] = lambda: None,
) -> None:
    """Fetch and write every file of the site; `meanwhile` runs here while worker processes
    render (if any do)."""
    with _fetcher(site, now) as fetcher:
        await _fetch_all(
            site, out, now, fetcher, output, report, versions, jobs, progress, meanwhile
        )


async def _fetch_all(
    site: Site,
    out: Path,
    now: float,
    fetcher: Direct,
    output: Output,
    report: BuildReport,
    versions: Versions,
    jobs: int | None,
    progress: Progress,
    meanwhile: Callable[[], None],
) -> None:
    conn = fetcher.state.db.read()
    pages = page_urls(site, conn, now) + search_index.page_urls(site)
    assets = asset_urls(site)
    moves = redirects(site, conn, now, pages)
    # the sitemap first: a sitemap index names its parts
    pages += await _render(fetcher, output, report, ["/sitemap.xml"], site, pages, versions)
    pages.remove("/sitemap.xml")
    total = len(pages) + len(assets) + len(moves) + 4
    progress(1, total)
    svgs = await _render_all(
        site,
        out,
        now,
        fetcher,
        output,
        report,
        versions,
        pages,
        assets,
        jobs,
        lambda done: progress(1 + done, total),
        meanwhile,
    )
    # cover thumbnails are made as list pages render (content/thumbs.py): written after them
    made = sorted(thumbs.folder_for(site.database_path).glob("*.webp"))
    todo = [thumbs.URL_PREFIX + p.name for p in made]
    # share cards: those the pages name (made at index time, or as the page rendered)
    todo += shared_cards(out, pages)
    await _render(fetcher, output, report, todo, site, pages, versions, quiet=True)
    await _site_files(site, fetcher, output, moves, svgs)
    progress(total, total)


async def _site_files(
    site: Site, fetcher: Direct, output: Output, moves: list[tuple[str, str]], svgs: list[str]
) -> None:
    """The not-found page, the alias pages of `moves` (those of the last build that are no
    longer aliases left out), `_redirects`, `_headers` and the other hosts' files."""
    status, body = await fetcher.client.get("/" + NOT_FOUND_FILE)
    if status != 404:
        raise BuildError(f"/{NOT_FOUND_FILE}: the app answered {status}")
    output.write(NOT_FOUND_FILE, body)
    aliases = []
    for old, new in moves:
        rel = file_for(old)
        if rel is not None:
            output.write(rel, alias_page(new, urls.absolute(base_url(site), new)))
            aliases.append(rel)
    for rel in set(output.aliases) - set(aliases):
        output.forget(rel)
    output.aliases = aliases
    output.write(REDIRECTS_FILE, redirects_file(moves))
    from masthead.web.http.security import security_headers

    headers = security_headers(site.settings, base_url(site))
    output.write(HEADERS_FILE, headers_file(headers, svgs))
    hosts.write(output, headers, moves, svgs)


async def _update(
    site: Site,
    out: Path,
    now: float,
    output: Output,
    report: BuildReport,
    versions: Versions,
    todo: set[str],
    progress: Progress,
) -> None:
    """Fetch again the URLs of `todo` the site has (export/changes.py: what saved posts
    change), and leave out those it no longer has; keep every other file of the last build.
    The share cards and thumbnails those pages name, the alias pages and the host files
    follow."""
    output.keep_previous()
    with _fetcher(site, now) as fetcher:
        conn = fetcher.state.db.read()
        pages = page_urls(site, conn, now) + search_index.page_urls(site)
        have = set(pages)
        for url in todo - have:
            output.forget(file_for(url))
        fetch = sorted(todo & have) + search_index.page_urls(site)
        fetch = list(dict.fromkeys(u for u in fetch if u != "/sitemap.xml"))
        cards_before = set(shared_cards(out, sorted(todo)))  # gone pages' cards too
        progress(0, len(fetch) + 1)
        fetch += await _render(fetcher, output, report, ["/sitemap.xml"], site, pages, versions)
        for n, url in enumerate(fetch, start=1):
            await _render(fetcher, output, report, [url], site, pages, versions)
            progress(n, len(fetch) + 1)
        cards_now = shared_cards(out, fetch)
        for url in cards_before - set(cards_now):
            output.forget(file_for(url))
        made = sorted(thumbs.folder_for(site.database_path).glob("*.webp"))
        more = [thumbs.URL_PREFIX + p.name for p in made] + cards_now
        more = [u for u in more if file_for(u) not in output.kept]
        await _render(fetcher, output, report, more, site, pages, versions, quiet=True)
        svgs = [
            u
            for u in asset_urls(site)
            if u.startswith(urls.MEDIA_PREFIX)
            and u.lower().endswith(".svg")
            and (file_for(u) or "") in output.kept
        ]
        moves = redirects(site, conn, now, pages)
        await _site_files(site, fetcher, output, moves, svgs)
        progress(len(fetch) + 1, len(fetch) + 1)


def cores() -> int:
    """The cores this process may use: the most processes `masthead build` renders in
    unless `--jobs` says otherwise (`processes_for`)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


BUILD_CACHE_BYTES = 2 * 1024 * 1024  # the page cache of a build's app (serve: 64 MiB)
BATCH = 64  # URLs per task of a build worker, about (the progress bar moves per task)
# pages a build worker must have to render to be worth starting: a worker's start (Python, the
# app's import, `create_app`, its first templates) costs about 1.4 s of CPU, what rendering
# some 320 pages does (4 to 5 ms each, the demo's and the Kubernetes corpus's; 2026-12-06).
# Static files are not counted: read from disk, each costs a tenth of a page or less.
WORKER_PAGES = 320


def processes_for(pages: int, jobs: int | None, cores: int) -> int:
    """The worker processes a full build of `pages` pages (feeds and sitemaps among them)
    renders in, besides this process (0: none, this one renders): `jobs` when given (`--jobs`;
    1 is this process), else one per `WORKER_PAGES` pages, at most one per core of `cores`,
    and none when that is fewer than two (one worker would only add its start)."""
    if jobs is not None:
        return jobs if jobs > 1 else 0
    workers = min(cores, pages // WORKER_PAGES)
    return workers if workers > 1 else 0


async def _render_all(
    site: Site,
    out: Path,
    now: float,
    fetcher: Direct,
    output: Output,
    report: BuildReport,
    versions: Versions,
    pages: list[str],
    assets: list[str],
    jobs: int | None,
    done: Callable[[int], None],
    meanwhile: Callable[[], None] = lambda: None,
) -> list[str]:
    """Fetch and write every URL of `pages` (noted in the report when not a 200) and of
    `assets` (silently left out when not served), here or in worker processes
    (`processes_for`; this process runs `meanwhile` as they render); the `/media/` SVG files
    written (they get their own policy in `_headers`)."""
    marked = [(u, False) for u in pages] + [(u, True) for u in assets]
    workers = report.workers = processes_for(len(pages), jobs, cores())
    if not workers:
        for n, (url, quiet) in enumerate(marked, start=1):
            await _render(fetcher, output, report, [url], site, pages, versions, quiet=quiet)
            done(n)
    else:
        # interleaved batches: feeds (the dearest pages) are spread over the workers
        n = max(workers * 4, math.ceil(len(marked) / BATCH))
        batches = [marked[i::n] for i in range(n)]
        # never a fork of this process (it holds SQLite connections); spawned, each worker is
        # a child of this process, whose CPU time then counts its workers' (a fork server's
        # children are not: `os.wait4` and `time` miss them), for one more import of the app
        context: BaseContext = multiprocessing.get_context("spawn")
        finished = 0
        with ProcessPoolExecutor(
            workers,
            mp_context=context,
            initializer=_worker_start,
            initargs=(site, out, now, replace(versions, threads=dict(versions.threads))),
        ) as pool:
            results = pool.map(_worker_batch, batches)  # every batch handed out now
            meanwhile()
            for kept, changed, unchanged, marks, missing, count in results:
                output.kept |= kept
                output.written += len(changed)
                output.changed += changed
                output.unchanged += unchanged
                output.marks.update(marks)
                report.missing += missing
                report.fetched += count
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
    fetcher: Direct,
    output: Output,
    report: BuildReport,
    todo: list[str],
    site: Site,
    pages: list[str],
    versions: Versions,
    quiet: bool = False,
) -> list[str]:
    """Fetch and write each URL of `todo`, recording the comments each shows; the sitemap
    parts a sitemap index names."""
    more: list[str] = []
    for url in todo:
        answer = await _fetch(fetcher, url, report, quiet=quiet)
        if answer is None:
            continue
        rel = file_for(url)
        if _write(output, url, answer.body, report) and rel is not None:
            output.mark(rel, None if quiet else record(url, answer.mark, versions))
            more += _sitemap_parts(url, answer.body, base_url(site), pages)
    return more


_WORKER: dict[str, Any] = {}


def _worker_start(site: Site, out: Path, now: float, versions: Versions) -> None:
    """A build worker's app (the index is already up to date) and its output."""
    follow_parent()
    logging.getLogger("masthead").addHandler(logging.NullHandler())
    fetcher = _open(site, now)
    _WORKER.update(site=site, fetcher=fetcher, out=out, versions=versions)


def _worker_batch(
    batch: list[tuple[str, bool]],
) -> tuple[set[str], list[str], int, dict[str, Mark], list[str], int]:
    """Render `batch` (`(url, quiet)` pairs) in a build worker: the files kept, the files
    written, the count unchanged, the comments shown, the URLs missing, and how many URLs were
    done."""
    output = Output(_WORKER["out"], manifest=False)
    report = BuildReport()

    async def run() -> None:
        for url, quiet in batch:
            await _render(
                _WORKER["fetcher"], output, report, [url], _WORKER["site"], [], _WORKER["versions"],
                quiet,
            )  # fmt: skip

    asyncio.run(run())
    return output.kept, output.changed, output.unchanged, output.marks, report.missing, len(batch)


async def _fetch(
    fetcher: Direct, url: str, report: BuildReport, quiet: bool = False
) -> Answer | None:
    """What the app sends for GET `url` with status 200; None (and, unless `quiet`, the URL
    noted in the report) for any other answer but a server error, which raises."""
    report.fetched += 1
    answer = await fetcher.get(url)
    if answer.status >= 500:
        raise BuildError(f"{url}: the app answered {answer.status}")
    if answer.status != 200:
        if not quiet:
            report.missing.append(url)
            log.warning("%s: the app answered %d; left out", url, answer.status)
        return None
    return answer


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
