"""The watcher: file-system changes → re-index only what changed → caches follow → live reload.

`watchfiles` (inotify on Linux) watches the whole site folder recursively, so a content folder that
is replaced or renamed is still seen; the database folder is ignored. Events are coalesced
(debounce ≤ 100 ms) into batches, and each batch is applied in one transaction: no reader ever
sees half an update, and every cache keyed by the index generation follows.

Editors are not polite: a file may be missing for a moment during an atomic save (Vim renames the
original away, JetBrains moves a temporary file onto it), empty or half-written during a
non-atomic save, or rewritten twice in 30 ms by a formatter. A changed file is therefore
published only once it has settled: not empty, not still growing, parsable; a missing file is
removed only if it stays missing for `MISSING_GRACE`; once a file has not changed for
`SETTLE_LIMIT` (or after `SETTLE_CAP` in all) whatever is there is taken (an error then keeps the
last good version published and is reported). The limit counts from the file's last change, not
from the first event, so a slow writer (a loaded machine, a network drive) is waited for.

A batch that cannot be written (a full disk, SQLITE_FULL; the database locked by another
process) is kept and retried with backoff, up to `RETRY_MAX` apart, until it is written: the
author does not have to save the file again. The failure is logged once, the recovery once.

Settings are read at start-up only: a change to `masthead.toml` is not applied while serving,
so the watcher logs a WARNING naming the file ("restart to apply"), once for each new content of
it (an editor's save that leaves it as it was, or a `touch`, says nothing).

Readiness: watchfiles has no "armed" callback, so the watcher writes a probe file into a private
temporary folder it also watches; the first event seen for it proves the file-system watches are
in place (`WatchStats.armed`, on /healthz; `Watcher.armed`, a threading.Event).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from watchfiles import Change as FsChange
from watchfiles import awatch

from masthead.config import CONFIG_FILE, Site
from masthead.content.discover import is_content_file, is_ignored
from masthead.indexing.indexer import Change, build_change, commit, index_site
from masthead.store import posts as store
from masthead.store.db import Database

log = logging.getLogger(__name__)

DEBOUNCE_MS = 100  # longest a batch waits to collect more events
STEP_MS = 10  # a batch is closed after this long without a new event (watchfiles looks
# every STEP_MS and closes when a look finds nothing new: a lone save waits 1-2 steps, which
# at 30 was 30-60 ms of a save's way to its page, against 8 ms for the batch at 50,000 posts)
SETTLE_LIMIT = 1.0  # seconds without a change after which a file is taken as it is
SETTLE_CAP = 10.0  # seconds after which a file that never stops changing is taken anyway
MISSING_GRACE = 0.3  # seconds a vanished file may take to come back (atomic saves)
RECENT = 1.0  # a file changed this recently and not ending in a newline may be half-written
POLL = 0.03
RETRY_FIRST = 0.25  # seconds before a batch that could not be written is tried again
RETRY_MAX = 5.0  # the backoff doubles up to this
PROBE_EVERY = 0.05  # seconds between writes of the readiness probe until it is seen


@dataclass
class WatchStats:
    """What the watcher has done; reported by /healthz."""

    batches: int = 0
    files: int = 0  # content files examined over all batches
    last_batch_files: int = 0
    last_batch_ms: float = 0.0
    rescans: int = 0
    armed: bool = False  # the file-system watches are in place: changes from now on are seen
    write_failures: int = 0  # attempts to write a batch that failed (full disk, locked)
    retrying: bool = False  # a failed batch is waiting to be written again


class Watcher:
    """Watches one site; `on_change(kind)` is called after each applied batch, with kind
    "content" (the index changed) or "theme" (a template or static file changed, `--dev`)."""

    def __init__(
        self,
        site: Site,
        db: Database,
        on_change: Callable[[str], None] | None = None,
        *,
        dev: bool = False,
    ) -> None:
        self.site = site
        self.db = db
        self.on_change = on_change or (lambda kind: None)
        self.dev = dev
        self.stats = WatchStats()
        self.armed = threading.Event()
        self._probe_dir: Path | None = None
        self.content = site.content_dir.resolve()
        self.database_dir = site.database_path.resolve().parent
        self.theme = [
            (site.root / site.settings.templates_dir).resolve(),
            (site.root / site.settings.static_dir).resolve(),
        ]
        self.config = (site.root / CONFIG_FILE).resolve()
        self._config_seen = _digest(self.config)  # the settings this process runs with
        self._config_started = self._config_seen

    # --- which events matter ---------------------------------------------------------------

    def _inside(self, path: Path, folder: Path) -> bool:
        return path == folder or folder in path.parents

    def wanted(self, change: FsChange, raw: str) -> bool:
        path = Path(raw)
        if self._probe_dir is not None and self._inside(path, self._probe_dir):
            first = not self.armed.is_set()
            self._arm()
            # the first of the probe's events makes a batch (apply: a catch-up look at every
            # file); the probe's later writes are nobody's change
            return first
        if path == self.config:
            return True
        if self._inside(path, self.database_dir) or is_ignored(path.name):
            return False
        if self._inside(path, self.content):  # the folder itself too: it may be replaced
            return True
        return self.dev and any(self._inside(path, folder) for folder in self.theme)

    # --- the loop --------------------------------------------------------------------------

    async def run(self, stop: asyncio.Event) -> None:
        """Watch until `stop` is set. Each batch is applied in a worker thread, so the server
        keeps serving; changes that arrive meanwhile are queued by watchfiles and come next."""
        log.info("watching %s for changes", self.site.root)
        with contextlib.ExitStack() as cleanup:
            paths: list[Path] = [self.site.root]
            try:
                private = tempfile.TemporaryDirectory(prefix="masthead-watch-")
                self._probe_dir = Path(cleanup.enter_context(private)).resolve()
                paths.append(self._probe_dir)  # last: once its event is seen, all are watched
                probe = asyncio.create_task(self._probe(self._probe_dir / "probe", stop))
                cleanup.callback(probe.cancel)
            except OSError as exc:
                log.warning("no readiness probe (%s): /healthz will not report armed", exc)
            async for batch in awatch(
                *paths,
                watch_filter=self.wanted,
                debounce=DEBOUNCE_MS,
                step=STEP_MS,
                stop_event=stop,
                recursive=True,
                ignore_permission_denied=True,
            ):
                kinds = await self._apply_until_written(batch, stop)
                for kind in kinds:
                    self.on_change(kind)

    def _arm(self) -> None:
        if not self.armed.is_set():
            self.stats.armed = True
            self.armed.set()
            log.debug("the watcher is armed")

    async def _probe(self, probe: Path, stop: asyncio.Event) -> None:
        """Write `probe` until the watcher has seen it (the watches are created when watchfiles
        starts iterating, which this task cannot observe directly)."""
        count = 0
        while not self.armed.is_set() and not stop.is_set():
            count += 1
            try:
                probe.write_text(str(count))  # new content each time: an event every time
            except OSError as exc:  # a full temporary folder, say: try again later
                if count == 1:
                    log.warning("cannot write the watcher's readiness probe: %s", exc)
            await asyncio.sleep(PROBE_EVERY)

    async def _apply_until_written(
        self, batch: set[tuple[FsChange, str]], stop: asyncio.Event
    ) -> set[str]:
        """Apply `batch`; if the database cannot be written (a full disk, a lock held too
        long), keep it and try again with backoff until it is written or `stop` is set."""
        delay = RETRY_FIRST
        failed = 0
        while True:
            try:
                kinds = await asyncio.to_thread(self.apply, batch)
            except sqlite3.OperationalError as exc:  # SQLITE_FULL, SQLITE_BUSY, SQLITE_IOERR
                failed += 1
                self.stats.write_failures += 1
                self.stats.retrying = True
                if failed == 1:
                    log.error(
                        "could not write %d file changes to %s (%s); retrying until it works",
                        len(batch),
                        self.db.path,
                        exc,
                    )
                try:
                    await asyncio.wait_for(stop.wait(), delay)
                    self.stats.retrying = False
                    return set()  # stopping: the next start indexes what changed
                except TimeoutError:
                    delay = min(delay * 2, RETRY_MAX)
                continue
            except Exception:  # the watcher must outlive any one bad batch
                log.exception("could not apply a batch of file changes")
                self.stats.retrying = False
                return set()
            if failed:
                log.info("wrote the file changes after %d failed attempts", failed)
            self.stats.retrying = False
            return kinds

    def apply(self, batch: set[tuple[FsChange, str]]) -> set[str]:
        """Apply one batch of events; return the kinds of change ("content", "theme")."""
        started = time.perf_counter()
        kinds: set[str] = set()
        rels: set[str] = set()
        vanished: list[str] = []
        rescan = False
        catch_up = False
        for _change, raw in batch:
            path = Path(raw)
            if self._probe_dir is not None and self._inside(path, self._probe_dir):
                # Armed: every file saved from now on is seen. One saved after the start's
                # index had read it but before the watches existed is found by a look at
                # every file (sizes and mtimes; only changed files are parsed).
                catch_up = True
                continue
            if path == self.config:
                self._settings_changed()
                continue
            if not self._inside(path, self.content):
                kinds.add("theme")
                continue
            if path == self.content or path.is_dir():
                rescan = True  # a folder appeared, vanished or was replaced: look at everything
                continue
            rel = path.relative_to(self.content).as_posix()
            if is_content_file(rel):
                rels.add(rel)
            elif not path.exists():
                vanished.append(rel)  # a deleted folder, or an editor's temporary file
            else:
                kinds.add("content")  # an image or file beside a post: served as it is now
        if vanished and not rescan:
            # a vanished folder that held indexed posts: look at everything
            known = store.sources(self.db.read())
            prefix = self.site.settings.content_dir + "/"
            rescan = any(k.startswith(f"{prefix}{rel}/") for rel in vanished for k in known)
        if catch_up and not rescan:
            report = index_site(self.site, self.db)
            for issue in report.errors:
                log.warning("%s", issue.format())
            if report.parsed or report.deleted:
                log.info("saved while the watch started: %d", report.parsed + report.deleted)
                kinds.add("content")
            rels.clear()  # that look took them in
        if rescan:
            self.stats.rescans += 1
            report = index_site(self.site, self.db)
            for issue in report.errors:
                log.warning("%s", issue.format())
            changed = report.parsed + report.deleted
            log.info("rescanned the content folder: %d changed", changed)
            kinds.add("content")
        elif rels:
            changes, gone = self.settle(rels)
            if changes or gone:
                commit(self.db, changes, gone, site=self.site, touched_only=True)
                kinds.add("content")
        self.stats.batches += 1
        self.stats.files += len(rels)
        self.stats.last_batch_files = len(rels)
        self.stats.last_batch_ms = (time.perf_counter() - started) * 1000
        log.info(
            "batch %d: %d content files, %.0f ms",
            self.stats.batches,
            len(rels),
            self.stats.last_batch_ms,
        )
        return kinds

    def _settings_changed(self) -> None:
        """Log that `masthead.toml` changed and is not applied until a restart: a WARNING once
        for each new content (its SHA-256), an INFO when it is back as this process read it."""
        now = _digest(self.config)
        if now == self._config_seen:
            return
        self._config_seen = now
        if now == self._config_started:
            log.info("%s is back as it was at start-up", self.config)
        else:
            log.warning(
                "%s changed: settings are read at start-up only; restart masthead serve to "
                "apply them (this process keeps serving with the settings it started with)",
                self.config,
            )

    # --- settling ----------------------------------------------------------------------------

    def settle(self, rels: set[str]) -> tuple[list[Change], list[str]]:
        """Read each changed file once it has settled; return its changes and the sources gone.

        Unchanged content (same SHA-256 as indexed, and indexed fine) is left alone.
        """
        prefix = self.site.settings.content_dir + "/"
        known = store.sources_of(self.db.read(), [prefix + rel for rel in rels])
        first_seen = time.monotonic()
        seen: dict[str, tuple[object, float]] = {}  # rel → (last state seen, since when)
        pending = set(rels)
        changes: list[Change] = []
        gone: list[str] = []
        while pending:
            now = time.monotonic()
            for rel in sorted(pending):
                state = self._state(rel)
                if rel not in seen or seen[rel][0] != state:
                    seen[rel] = (state, now)  # changed since the last look: wait from now
                quiet = now - seen[rel][1]
                waited = quiet if now - first_seen < SETTLE_CAP else SETTLE_CAP
                outcome = self._try(rel, waited, known.get(prefix + rel))
                if outcome is None:
                    continue  # not settled yet
                pending.discard(rel)
                if outcome == "gone":
                    if prefix + rel in known:
                        gone.append(prefix + rel)
                elif outcome != "same":
                    changes.append(outcome)  # type: ignore[arg-type]
            if pending:
                time.sleep(POLL)
        for change in changes:
            if change.error is not None:
                log.warning("%s", change.error.format())
        return changes, gone

    def _state(self, rel: str) -> tuple[int, int] | None:
        """The file's (size, mtime) now, None while it is missing."""
        try:
            st = (self.content / rel).stat()
        except OSError:
            return None
        return (st.st_size, st.st_mtime_ns)

    def _try(self, rel: str, waited: float, old: object) -> Change | str | None:
        """One attempt at a changed file: a `Change`, "gone", "same", or None (try again).
        `waited` is how long the file has been as it is now (missing, or this size and mtime)."""
        path = self.content / rel
        late = waited >= SETTLE_LIMIT
        try:
            before = path.stat()
            data = path.read_bytes()  # read-only and shared: never blocks the editor's save
        except FileNotFoundError:
            return "gone" if waited >= MISSING_GRACE else None
        except OSError:
            return None if not late else "gone"
        if not late:
            if not data:
                return None  # truncated by a non-atomic save: the content is on its way
            fresh = time.time() - before.st_mtime < RECENT
            if fresh and not data.endswith(b"\n"):
                return None  # probably half-written; complete files end with a newline
        change = build_change(self.site, rel, data, before.st_size, before.st_mtime_ns)
        if change.error is not None and not late:
            return None  # retried until the file settles or the limit passes
        try:
            after = path.stat()
        except OSError:
            return None if not late else "gone"
        if (after.st_size, after.st_mtime_ns) != (before.st_size, before.st_mtime_ns) and not late:
            return None  # changed while being read
        if (
            old is not None
            and old["sha256"] == change.sha256  # type: ignore[index]
            and old["status"] == "ok"  # type: ignore[index]
            and change.post is not None
        ):
            return "same"
        return change


def _digest(path: Path) -> str | None:
    """The SHA-256 (hex) of the file at `path`, None while it is missing or unreadable."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None
