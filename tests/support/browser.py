"""Headless Chromium for the browser tests (Playwright).

Browser: $MASTHEAD_CHROMIUM, else /usr/bin/chromium-headless-shell (Debian's headless-only build,
what Playwright runs headless: the same Blink for about a quarter less CPU than the whole
browser, which /usr/bin/chromium is, the next choice), else Playwright's own.
With none, a test fails and says how to install one; it is never skipped.

The suite launches it once per test process (conftest's session fixture `chromium`); each test
gets a context of its own (`browser` closes every context a test opened). `launch` is for the
few that need a process of their own (a script, or flags the shared one must not have).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Error, Page, Playwright

from support.wait import CEILING

FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# Every host but the test servers' is unresolvable: nothing a page loads leaves this machine (the
# XSS tests rely on it: a vector's request to another host cannot succeed and hide a result).
NO_OTHER_HOSTS = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"
INSTALL = (
    "no Chromium found: install Debian's `apt-get install chromium-headless-shell`, or run "
    "`python -m playwright install chromium`, or set MASTHEAD_CHROMIUM to a Chromium binary"
)

# Recorded by the page itself (an init script runs before the page's own scripts).
WATCH_CSP = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__violations.push(e.violatedDirective + " " + e.blockedURI);
});
"""

# Resolves after two animation frames: whatever the page changed before has been laid out and
# painted (a frame's rendering steps run before the next frame's callbacks).
FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


# in order: scripts/test.py installs the first (Debian's chromium-headless-shell package)
CANDIDATES = ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium", "/usr/bin/chromium-browser")


def chromium_path() -> str | None:
    env = os.environ.get("MASTHEAD_CHROMIUM")
    if env:
        return env
    for candidate in CANDIDATES:
        if Path(candidate).exists():
            return candidate
    return shutil.which("chromium")


def launch(playwright: Playwright, *extra: str) -> Browser:
    """Chromium with the suite's flags (and `extra`); a missing one fails with how to install it.
    Every context and page it opens waits up to the suite's ceiling (`with_ceiling`)."""
    try:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=[*FLAGS, *extra])
    except Error as exc:
        pytest.fail(f"{INSTALL} ({exc})")
    return with_ceiling(browser)


CEILING_MS = CEILING * 1000  # Playwright counts in milliseconds


def with_ceiling(browser: Browser) -> Browser:
    """Make every context `browser` opens (`new_context`, and `new_page`'s own) wait up to
    support.wait's CEILING for an action, a navigation or a selector, instead of Playwright's
    30 s: on a busy machine a page can take longer than that, and a timeout only ends a hang.
    A test gives a shorter `timeout=` only where it waits for something that must not happen."""
    open_context, open_page = browser.new_context, browser.new_page

    def new_context(**options: object) -> BrowserContext:
        context = open_context(**options)  # type: ignore[arg-type]
        context.set_default_timeout(CEILING_MS)
        return context

    def new_page(**options: object) -> Page:
        page = open_page(**options)  # type: ignore[arg-type]
        page.context.set_default_timeout(CEILING_MS)
        return page

    # the instance's own methods, over the class's (mypy: tests are not type-checked)
    browser.new_context = new_context  # type: ignore[method-assign]
    browser.new_page = new_page  # type: ignore[method-assign]
    return browser


def settle(page: Page) -> None:
    """Wait until the page has rendered two frames since now: what it was doing is drawn."""
    page.evaluate(FRAMES)


# Resolves once the page is quiet: two frames drawn (a scroll or a focus handled, its style
# changes applied), every CSS transition and animation then running finished, two frames more.
QUIET = """async () => {
  const frames = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  await frames();
  await Promise.all(document.getAnimations().map(a => a.finished.catch(() => null)));
  await frames();
}"""


def quiet(page: Page) -> None:
    """Wait until what the page was doing is drawn and its transitions have ended (`QUIET`)."""
    page.evaluate(QUIET)


@contextmanager
def outside_playwright() -> Iterator[None]:
    """Run code that starts an event loop of its own (`asyncio.run`) in a browser test: between
    its calls Playwright's sync API leaves its loop marked as this thread's running one."""
    loop = asyncio._get_running_loop()
    asyncio._set_running_loop(None)
    try:
        yield
    finally:
        asyncio._set_running_loop(loop)


def watch_children_without_threads() -> None:
    """Before Playwright starts its driver (a child process of asyncio's): on Python 3.11,
    asyncio waits for each child in a thread of its own, which would make every later test in
    this process a multi-threaded one (the indexer forks no pool then: test_index_parallel).
    3.12 and later watch children through pidfds already; this does the same on 3.11."""
    if sys.version_info >= (3, 12) or not hasattr(os, "pidfd_open"):
        return

    class Watcher(asyncio.PidfdChildWatcher):
        """3.12's pidfd watcher: each child is watched on the loop that started it, so a child of
        another loop (a test's `asyncio.run`) never detaches Playwright's driver from its own
        (3.11's `attach_loop` drops every child watched so far: the driver's exit then goes
        unseen, and the session's Playwright never stops)."""

        def is_active(self) -> bool:
            return True

        def attach_loop(self, loop: asyncio.AbstractEventLoop | None) -> None:
            pass

        def add_child_handler(self, pid, callback, *args):  # type: ignore[no-untyped-def]
            loop = asyncio.get_running_loop()
            pidfd = os.pidfd_open(pid)
            loop._add_reader(pidfd, self._exited, loop, pid, pidfd, callback, args)  # type: ignore[attr-defined]

        def _exited(self, loop, pid, pidfd, callback, args):  # type: ignore[no-untyped-def]
            loop._remove_reader(pidfd)
            try:
                _, status = os.waitpid(pid, 0)
            except ChildProcessError:  # reaped by someone else
                returncode = 255
            else:
                returncode = os.waitstatus_to_exitcode(status)
            os.close(pidfd)
            callback(pid, returncode, *args)

        def remove_child_handler(self, pid: int) -> bool:
            return True  # as 3.12's: a child's reader goes when it exits

    asyncio.set_child_watcher(Watcher())
