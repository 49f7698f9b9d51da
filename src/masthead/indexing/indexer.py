"""Files to index: walk the content folder, re-parse what changed, apply it in transactions.

An unchanged file (same size and mtime, or same SHA-256 content hash) is not parsed again. A file
that turns invalid keeps its last good post published, with the error recorded for `check`
and the dashboard (DESIGN.md). `full=True` re-parses every file, and so does a change to a
setting that shapes parsed posts (`PARSE_SETTINGS`: a new permalink pattern moves every post)
or to the parser itself (`PARSER`, moved by a release that parses the same bytes differently).

Parsing (Markdown, Pygments, the search values with Chinese segmentation) is pure and runs in a
process pool over all cores once there are `PARALLEL_MIN` files or more to parse; fewer (the
watcher, an edit or two) are parsed in this process, where a pool would cost more than it saves.
Whoever parses a file reads it (a worker, by path), so no process holds the bytes of the files
still to parse and the index's memory does not grow with the size of the site.
Either way the posts come back in file order and this process, the one writer, applies them in
one transaction per `BATCH` posts (readers see each batch, never half of one); deletions come in
the last. A masthead bug met in one file is that file's error, in a worker as here.
"""

from __future__ import annotations

import hashlib
import json
import logging
import multiprocessing
import os
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from masthead.config import Site
from masthead.content import cards
from masthead.content.discover import walk
from masthead.content.model import Post
from masthead.content.post import NotRendered, parse_post
from masthead.errors import ContentError, ContentIssue
from masthead.indexing import originals
from masthead.search.document import SearchValues, search_values
from masthead.store import posts as store
from masthead.store import search as search_store
from masthead.store.db import Database
from masthead.workers import follow_parent

log = logging.getLogger(__name__)
LAST_RUN = "last_index"  # site_state key: the summary of the last full pass (JSON)
PARALLEL_MIN = 64  # files to parse from which a process pool pays for its start (~0.1 s)
CHUNK = 16  # files per task sent to a worker (fewer round trips, still balanced)
BATCH = 250  # posts per write transaction: readers and other writers wait ~0.1 s at most
BULK = 1000  # files to parse from which the FTS5 indexes are bulk-loaded (`search.bulk_load`)

# the settings `parse_post` reads: when one changes, every file is parsed again
PARSE_SETTINGS = {
    "content_dir", "default_language", "languages", "params", "permalinks", "raw_html",
    "timezone", "toc_levels",
}  # fmt: skip


# what parsing makes of a file: moved when a release parses the same bytes differently (math,
# excerpts without footnote references, shortened URL segments...), so that an upgraded site's
# unchanged files are parsed again on its first index, as after a change of PARSE_SETTINGS
PARSER = 2


def parse_settings(site: Site) -> str:
    """The settings that shape parsed posts and the parser's version, as canonical JSON (stored
    with the index)."""
    shaping = site.settings.model_dump(include=PARSE_SETTINGS)
    return json.dumps({"parser": PARSER, **shaping}, sort_keys=True)


@dataclass
class IndexReport:
    """What one indexing pass did; `seconds` is wall time, `workers` the processes that parsed
    (1: this one)."""

    files: int = 0
    parsed: int = 0
    unchanged: int = 0
    deleted: int = 0
    errors: list[ContentIssue] = field(default_factory=list)
    generation: int = 0
    seconds: float = 0.0
    workers: int = 1

    def summary(self, at: float) -> dict[str, Any]:
        """What the dashboard shows of the last run: counts, seconds, and when (`at`)."""
        return {
            "at": at,
            "files": self.files,
            "parsed": self.parsed,
            "unchanged": self.unchanged,
            "deleted": self.deleted,
            "errors": len(self.errors),
            "seconds": round(self.seconds, 3),
        }


@dataclass
class Change:
    """One content file read from disk: site-relative `path`, its size, mtime and SHA-256, and
    either the parsed post (with its search values) or the error that keeps it out."""

    path: str
    size: int
    mtime_ns: int
    sha256: str
    post: Post | None = None
    error: ContentIssue | None = None
    values: SearchValues | None = None
    unpublished: ContentIssue | None = None  # a file Hugo renders no page for (NotRendered)


def _read(site: Site, rel: str) -> tuple[bytes, int, int] | None:
    path = site.content_dir / rel
    try:
        st = path.stat()
        data = path.read_bytes()
    except OSError:
        return None  # vanished or unreadable between walk and read: the next pass sees it
    return data, st.st_size, st.st_mtime_ns


def _digest(site: Site, rel: str) -> str | None:
    """The file's SHA-256 (hex), read in blocks (its bytes are not kept); None if unreadable."""
    try:
        with (site.content_dir / rel).open("rb") as f:
            return hashlib.file_digest(f, "sha256").hexdigest()
    except OSError:
        return None


def build_change(
    site: Site, rel: str, data: bytes, size: int, mtime_ns: int, card: bool = True
) -> Change:
    """Parse one file's bytes into a `Change`: its post and search values, or the error that
    keeps it out; with `card`, make the post's share card (`share_card`). No database: runs
    in a worker process as well as here."""
    path = site.settings.content_dir + "/" + rel
    change = Change(path, size, mtime_ns, hashlib.sha256(data).hexdigest())
    try:
        post = parse_post(site, rel, data)
        change.values = search_values(post)
        change.post = post
        if card:
            share_card(site, post)
    except ContentError as exc:
        change.error = exc.issue
    except NotRendered as exc:
        change.unpublished = exc.issue
    except Exception as exc:  # a masthead bug met in one file must not stop the others
        log.exception("%s: unexpected error while parsing", path)
        change.error = ContentIssue(
            path, 0, f"masthead failed on this file ({type(exc).__name__}: {exc}); a bug"
        )
    return change


def share_card(site: Site, post: Post) -> None:
    """Make the share card of a published post without a cover (content/cards.py), unless it
    exists: a name is a content hash, so an unchanged post costs a hash and a stat. A card that
    cannot be made is logged; the post is indexed all the same."""
    if post.kind != "post" or post.cover or post.draft or not site.settings.share_cards.enabled:
        return
    try:
        text = cards.card_text(
            site, post.lang, post.title, post.date, post.authors, post.reading_minutes
        )
        cards.ShareCards(site).card(text)
    except Exception:  # a card is never worth a post: the page makes it again if it can
        log.exception("%s: no share card", post.source)


def read_change(site: Site, rel: str, card: bool = True) -> Change | None:
    """Read one file (content-relative `rel`) and parse it (`build_change`): the size, mtime and
    hash recorded are those of the bytes parsed. None when the file vanished or cannot be read
    (the next pass sees it). Runs where the file is parsed, so that no process holds the bytes
    of files waiting their turn (the index's memory stays flat as the site grows)."""
    got = _read(site, rel)
    return None if got is None else build_change(site, rel, *got, card=card)


_worker_site: Site | None = None  # the site of this worker process (set by `_init_worker`)


def _init_worker(site: Site) -> None:
    global _worker_site
    _worker_site = site
    follow_parent()


def _parse_chunk(rels: list[str]) -> list[Change | None]:
    """Worker: read and parse a chunk of files (see `read_change`)."""
    site = _worker_site
    if site is None:  # pragma: no cover - the pool's initializer sets it
        raise RuntimeError("_parse_chunk runs in a pool started by parse_files")
    return [read_change(site, rel, card=False) for rel in rels]  # many files: see index_site


def workers_for(files: int) -> int:
    """Processes to parse `files` files with: 1 (no pool) below `PARALLEL_MIN` or on one core,
    else every core this process may use."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return 1 if files < PARALLEL_MIN else max(1, min(cores, -(-files // CHUNK)))


def _pool_context() -> multiprocessing.context.BaseContext:
    """fork (instant, shares the loaded modules) unless threads run here (a server, the watcher),
    where a forked child could inherit a lock held by another thread: then forkserver."""
    methods = multiprocessing.get_all_start_methods()
    if threading.active_count() == 1 and "fork" in methods:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def parse_files(site: Site, rels: Sequence[str], workers: int) -> Iterator[Change | None]:
    """The `Change` of each file (content-relative paths `rels`), in order, None for one that
    vanished before it was read (see `read_change`): in this process when `workers` is 1, else in
    a pool of `workers` processes that read the files themselves, with a bounded number of chunks
    in flight (memory stays flat when the writer is slower than the parsers, and no process holds
    the bytes of the files still to parse). A pool that breaks (a worker killed) is reported and
    the rest is parsed one file a time in fresh workers (`_isolated`)."""
    if workers <= 1:
        for rel in rels:
            yield read_change(site, rel, card=len(rels) < PARALLEL_MIN)
        return
    chunks = [list(rels[i : i + CHUNK]) for i in range(0, len(rels), CHUNK)]
    done = 0
    try:
        with ProcessPoolExecutor(
            workers, mp_context=_pool_context(), initializer=_init_worker, initargs=(site,)
        ) as pool:
            pending: deque[Future[list[Change | None]]] = deque()
            feed = iter(chunks)
            for chunk in feed:
                pending.append(pool.submit(_parse_chunk, chunk))
                if len(pending) >= workers * 4:
                    break
            try:
                while pending:
                    changes = pending.popleft().result()
                    for chunk in feed:  # keep the workers busy while this chunk is written
                        pending.append(pool.submit(_parse_chunk, chunk))
                        break
                    done += 1
                    yield from changes
            finally:  # the writer failed (a full disk): do not parse what will not be written
                for future in pending:
                    future.cancel()
    except BrokenProcessPool as exc:
        log.error("the indexing worker pool failed (%s); parsing the rest one file a time", exc)
        yield from _isolated(site, [rel for chunk in chunks[done:] for rel in chunk])


def _isolated(site: Site, rels: list[str]) -> Iterator[Change | None]:
    """The `Change` of each file, parsed one at a time in a one-worker pool, after a pool broke:
    a file that kills its worker (a crash in a compiled parser) is reported as that file's error
    and a new worker takes the rest, so that no crash takes the index, or this process, down."""
    pos = 0
    while pos < len(rels):
        with ProcessPoolExecutor(
            1, mp_context=_pool_context(), initializer=_init_worker, initargs=(site,)
        ) as pool:
            try:
                while pos < len(rels):
                    (change,) = pool.submit(_parse_chunk, [rels[pos]]).result()
                    pos += 1
                    yield change
            except BrokenProcessPool:
                yield _crashed(site, rels[pos])
                pos += 1


def _crashed(site: Site, rel: str) -> Change | None:
    """The error `Change` of a file that killed the worker parsing it (its size, mtime and hash
    as on disk now), or None if it has vanished since."""
    path = site.settings.content_dir + "/" + rel
    log.error("%s: the parser crashed on this file", path)
    try:
        st = (site.content_dir / rel).stat()
    except OSError:
        return None
    digest = _digest(site, rel)
    if digest is None:
        return None
    change = Change(path, st.st_size, st.st_mtime_ns, digest)
    reason = "masthead's parser crashed on this file (a bug: please report it)"
    change.error = ContentIssue(path, 0, reason)
    return change


def index_site(
    site: Site,
    db: Database,
    *,
    full: bool = False,
    progress: Callable[[int, int], None] | None = None,
    workers: int | None = None,
) -> IndexReport:
    """Bring the index in step with the content folder; return what changed.

    Share cards (content/cards.py) are made as posts are parsed when fewer than `PARALLEL_MIN`
    files are (an edit, a new post); a pass over more (a first index, `--full` after a new
    setting) leaves them to the first time each post's page is rendered, and to `masthead
    build`: drawing one costs several times what parsing the post does (bench/bench_cards.py),
    and a card never drawn before is the rule in such a pass.

    `progress(done, to_parse)` is called once the changed files are known and then as each
    is parsed (for progress bars; a rate in posts per second). `workers` overrides
    `workers_for` (1: no pool). Each file is read when it is parsed, so a file saved after the
    pass began is indexed as it is then, and memory does not grow with the size of the site.
    """
    started = time.perf_counter()
    report = IndexReport()
    known = store.sources(db.read())
    settings = parse_settings(site)
    settings_changed = store.state(db.read(), "parse_settings") != settings
    if settings_changed and known:
        log.info("settings that shape posts changed (permalinks, languages…): re-parsing all")
    full = full or settings_changed
    prefix = site.settings.content_dir + "/"
    files = list(walk(site.content_dir)) if site.content_dir.is_dir() else []
    report.files = len(files)
    jobs: list[str] = []  # content-relative paths to parse; read by whoever parses them
    touched: list[Change] = []
    for rel in files:
        old = known.get(prefix + rel)
        try:
            st = (site.content_dir / rel).stat()
        except OSError:
            continue
        if not full and old and old["size"] == st.st_size and old["mtime_ns"] == st.st_mtime_ns:
            report.unchanged += 1
            continue
        if not full and old and old["status"] == "ok":
            digest = _digest(site, rel)
            if digest is None:
                continue  # vanished or unreadable: the next pass sees it
            if old["sha256"] == digest:
                report.unchanged += 1
                touched.append(Change(prefix + rel, st.st_size, st.st_mtime_ns, digest))
                continue
        jobs.append(rel)
    if progress:
        progress(0, len(jobs))
    on_disk = {prefix + rel for rel in files}
    gone = [p for p in known if p not in on_disk]
    batch: list[Change] = []
    report.workers = workers or workers_for(len(jobs))
    bulk = len(jobs) >= BULK
    if bulk or search_store.automerge_off(db.read()):
        with db.write() as conn:
            search_store.bulk_load(conn, bulk)
    try:
        for done, change in enumerate(parse_files(site, jobs, report.workers), 1):
            if change is not None:
                report.parsed += 1
                if change.error is not None:
                    report.errors.append(change.error)
                    log.warning("%s", change.error.format())
                batch.append(change)
            if len(batch) >= BATCH and done < len(jobs):
                commit(db, batch, [], [], site=site, final=False)
                batch = []
            if progress:
                progress(done, len(jobs))
        report.deleted = len(gone)
        report.generation = commit(db, batch, gone, touched, site=site)
        if bulk:
            with db.write() as conn:
                search_store.optimize(conn)
    finally:
        if bulk:  # on failure too; if this fails as well, the next run sets it back
            with suppress(sqlite3.Error), db.write() as conn:
                search_store.bulk_load(conn, False)
    report.seconds = time.perf_counter() - started
    with db.write() as conn:
        if settings_changed:
            store.set_state(conn, "parse_settings", settings)
        store.set_state(conn, LAST_RUN, json.dumps(report.summary(time.time())))
    return report


def commit(
    db: Database,
    changes: list[Change],
    gone: list[str],
    touched: list[Change] | None = None,
    *,
    site: Site | None = None,
    final: bool = True,
    touched_only: bool = False,
) -> int:
    """Apply re-parsed files and deletions in one transaction; return the index generation
    (bumped when anything a reader sees may have changed). `touched` files only had their
    mtime change: their source rows are refreshed. The `final` commit of a pass also keeps the
    bodies of originals with translations (`originals.keep_bodies`, reading `site`'s files
    for originals not parsed in it): earlier batches may not hold the translations yet.
    `touched_only` (the watcher's batches): only in the translation groups these changes touch
    (with those of every post at a URL they hold or held, which a duplicate slug may have
    shadowed or shown), read through their indexes, so a saved post reads no other post."""

    def record_touched(conn: sqlite3.Connection) -> None:
        for change in touched or []:
            store.record_source(
                conn, change.path, change.size, change.mtime_ns, change.sha256, "ok"
            )

    if not changes and not gone:
        if touched:
            with db.write() as conn:
                record_touched(conn)
        return store.generation(db.read())

    def apply(conn: sqlite3.Connection) -> None:
        record_touched(conn)
        sources = [c.path for c in changes] + gone
        urls = store.urls_of(conn, sources)
        hashes = {p: r["sha256"] for p, r in store.sources_of(conn, gone).items()}
        keys = store.translation_keys_of(conn, gone)
        parsed = store.translation_keys_of(conn, [c.path for c in changes if c.post is not None])
        written = [(apply_change(conn, change), change) for change in changes]
        for path in gone:
            store.delete_source(conn, path)
        urls |= {c.post.url for c in changes if c.post is not None}
        store.resolve_duplicates(conn, urls)
        store.follow_renames(conn, hashes, keys)  # old URLs and comments follow a rename
        store.follow_key_changes(conn, parsed)  # and a translationKey added or changed
        if final:
            posts = [c.post for c in changes if c.post is not None]
            groups = None
            if touched_only:  # the groups before the change (`keys`, `parsed`) and after it
                groups = {*keys.values(), *parsed.values(), *(p.translation_key for p in posts)}
                groups |= store.translation_keys_at(conn, urls)
            originals.keep_bodies(conn, posts, site, groups, sources)
        # last: a statement after them would flush FTS5's pending terms (`store.write_post`)
        for post_id, change in written:
            if post_id is not None and change.post is not None:
                search_store.index_post(conn, post_id, change.post, change.values)

    return store.commit_generation(db, apply)


def apply_change(conn: sqlite3.Connection, change: Change) -> int | None:
    """Write one re-parsed file: its post (or, on error, keep the last good post) and issues,
    not its search rows; return the post's id, None for a file in error (whose search rows
    stay those of its last good post). The caller writes the search rows (`search.index_post`)
    after every other statement of the transaction (see `store.write_post` for why)."""
    if change.unpublished is not None:  # no page: forget the post it may have had
        store.delete_source(conn, change.path)
        store.record_source(conn, change.path, change.size, change.mtime_ns, change.sha256, "ok")
        return None
    status = "ok" if change.post else "error"
    store.record_source(conn, change.path, change.size, change.mtime_ns, change.sha256, status)
    if change.post is not None:
        post_id = store.write_post(conn, change.post)
        store.set_issues(conn, change.path, change.post.warnings, ("parse", "shortcode"))
        return post_id
    if change.error is not None:
        store.set_issues(conn, change.path, [change.error], ("parse", "shortcode"))
    return None


def index_and_log(site: Site, db: Database) -> IndexReport:
    """`index_site` (incremental), then log what it did and every open error, also of files
    this pass did not re-read (their last good post is served). For servers, before serving."""
    report = index_site(site, db)
    open_errors = [i for i in store.issues(db.read()) if i.severity == "error"]
    log.info(
        "indexed %d files (%d parsed) in %.2fs; %d files with errors",
        report.files,
        report.parsed,
        report.seconds,
        len(open_errors),
    )
    for issue in open_errors:
        log.warning("%s", issue.format())
    return report
