"""Purging a CDN (or an exported copy) after comments change: `purge_command`, `purge_webhook`.

When a comment thread's version moves (a comment approved, trashed, edited...:
store/comment_threads.py bumps it and the change signal), the URLs that now show something else are
sent to the `purge_command` (its argument list with the absolute URLs appended, at most `BATCH` per
run) and POSTed to the `purge_webhook` as JSON `{"urls": [...]}`: every published language version
of the thread (and its further pages of comments, `?cpage=N`), their comment feeds, the site-wide
comment feeds and the list pages whose cards count its comments (its language's home page and term
pages, at the page number it is on).

One process of those serving a site purges: the holder of an exclusive `flock(2)` on
`SITE.db.purge.lock` (as indexing/watch_lock.py does for the watcher); when it dies another takes
over.
It looks at the change signal every `POLL` seconds (one `os.stat`), reads the versions only when
it moved (`SiteState.seen`), and purges in the background: a slow or failing command or webhook
never holds up a request, and changes made while one runs are sent together after it. Failures
are logged (exit status and the start of stderr; the HTTP status or the network error).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import logging
import os
import sqlite3
import subprocess  # nosec B404 (the operator's own purge_command, no shell)
import urllib.request
from collections.abc import Iterable
from pathlib import Path

from masthead.comments import threads as thread_tree
from masthead.config import Settings
from masthead.content import urls
from masthead.store import comments as comment_store
from masthead.store import purge as store
from masthead.web.cache.state import Seen, SiteState

log = logging.getLogger(__name__)

POLL = 0.25  # seconds between looks at the change signal
LOCK_POLL = 2.0  # seconds between tries of a process that does not purge
BATCH = 200  # URLs per run of the purge command (argument lists have a limit)
TIMEOUT = 30.0  # seconds a purge command or webhook call may take


def lock_path(database: Path) -> Path:
    """The purge lock beside the database: its path plus `.purge.lock`."""
    return database.with_name(database.name + ".purge.lock")


def changed_threads(before: Seen, after: Seen) -> set[str]:
    """The threads whose version differs between two reads."""
    keys = set(before.threads) | set(after.threads)
    return {t for t in keys if before.threads.get(t, 0) != after.threads.get(t, 0)}


def comment_pages(conn: sqlite3.Connection, thread: str, settings: Settings) -> int:
    """How many pages of comments (`?cpage=N`) `thread` has, as its post page draws them."""
    view = thread_tree.build(
        comment_store.public_thread(conn, thread),
        depth=settings.comments_depth,
        order=settings.comments_order,
        per_page=settings.comments_per_page,
        page=1,
    )
    return view.pages


class Purger:
    """Sends the URLs that comment changes made stale to the settings' command and webhook."""

    def __init__(self, state: SiteState) -> None:
        self.state = state
        settings = state.site.settings
        self.command = list(settings.purge_command)
        self.webhook = settings.purge_webhook

    @property
    def enabled(self) -> bool:
        return bool(self.command or self.webhook)

    def urls(self, changed: Iterable[str]) -> list[str]:
        """The absolute URLs that show the comments of the threads `changed` (see the module
        doc), sorted."""
        state = self.state
        conn = state.db.read()
        now = state.now()
        per = state.site.settings.posts_per_page
        paths = {urls.comment_feed_url(None, fmt) for fmt in urls.FEED_FILES}
        for thread in changed:
            pages = comment_pages(conn, thread, state.site.settings)
            for post in store.thread_posts(conn, thread, now):
                lang = state.site.languages.get(post.lang)
                if lang is None:
                    continue
                paths.add(post.url)
                paths.update(f"{post.url}?cpage={n}" for n in range(2, pages + 1))
                paths.update(urls.comment_feed_url(post.url, fmt) for fmt in urls.FEED_FILES)
                lists: list[tuple[str, str | None, str | None]] = [(lang.root, None, None)]
                lists += [
                    (urls.term_url(lang.prefix, taxonomy, key), taxonomy, key)
                    for taxonomy, key in store.post_terms(conn, post.id)
                ]
                for base, taxonomy, key in lists:
                    n = store.list_position(conn, post, now, taxonomy, key) // per + 1
                    paths.add(base if n == 1 else f"{base}page/{n}/")
        return sorted(urls.absolute(state.base_url, p) for p in paths)

    def send(self, changed: list[str]) -> None:
        """Run the command and call the webhook with `changed` (blocking: run it in a thread);
        every failure is logged, none raised."""
        if self.command:
            for start in range(0, len(changed), BATCH):
                self._run(changed[start : start + BATCH])
        if self.webhook:
            self._post(self.webhook, changed)

    def _run(self, batch: list[str]) -> None:
        try:
            done = subprocess.run(  # nosec B603
                [*self.command, *batch], capture_output=True, timeout=TIMEOUT, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            log.error("purge_command %s failed: %s", self.command[0], exc)
            return
        if done.returncode != 0:
            said = done.stderr.decode("utf-8", "replace").strip()[:500]
            log.error(
                "purge_command %s exited %d: %s", self.command[0], done.returncode, said or "-"
            )

    def _post(self, webhook: str, changed: list[str]) -> None:
        body = json.dumps({"urls": changed}).encode("utf-8")
        request = urllib.request.Request(  # the setting is checked to be an http(s) URL
            webhook, data=body, headers={"Content-Type": "application/json"}, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:  # nosec B310
                response.read()
        except OSError as exc:  # URLError, HTTPError (a 4xx/5xx answer) and timeouts
            log.error("purge_webhook %s failed: %s", webhook, exc)

    async def run(self, stop: asyncio.Event) -> None:
        """Purge after every comment change until `stop` is set, once this process holds the
        purge lock (see the module doc)."""
        path = lock_path(self.state.db.path)
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            log.error("not purging: cannot open %s (%s)", path, exc)
            return
        try:
            while not _try_lock(fd):
                if await _wait(stop, LOCK_POLL):
                    return
            last = await asyncio.to_thread(self.state.seen)
            log.info("this process purges after comment changes (it holds %s)", path.name)
            while not await _wait(stop, POLL):
                seen = self.state.current()  # one os.stat while nothing changed
                if seen is None:
                    seen = await asyncio.to_thread(self.state.seen)
                moved = changed_threads(last, seen)
                last = seen
                if moved:
                    stale = await asyncio.to_thread(self.urls, moved)
                    await asyncio.to_thread(self.send, stale)
        finally:
            os.close(fd)  # drops the lock


def _try_lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


async def _wait(stop: asyncio.Event, seconds: float) -> bool:
    """Wait `seconds` or until `stop` is set; whether it is."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)
    return stop.is_set()


def start(state: SiteState, stop: asyncio.Event) -> asyncio.Task[None] | None:
    """Start purging in the background when a purge setting is set (None otherwise)."""
    purger = Purger(state)
    return asyncio.create_task(purger.run(stop)) if purger.enabled else None


async def finish(task: asyncio.Task[None] | None) -> None:
    """Wait for a purge task to end after `stop` was set (cancelled after 5 s: a command or
    webhook call still running is left to its timeout)."""
    if task is None:
        return
    try:
        await asyncio.wait_for(task, 5)
    except (TimeoutError, asyncio.CancelledError):
        task.cancel()
