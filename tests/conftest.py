"""Fixtures, thin ones over `support`: real site folders in tmp_path, real SQLite files, the real
app over HTTP, one headless Chromium per test process; and the markers the suite applies itself.

    -m "not browser and not gate and not slow"   the everyday loop (docs/contributing.md)
"""

# ruff: noqa: E402  (the imports follow the bytecode setting below, on purpose)

from __future__ import annotations

import asyncio
import functools
import inspect
import linecache
import math
import os
import re
import shutil
import sys
import types

# Cache compiled modules (__pycache__, git-ignored) even where PYTHONDONTWRITEBYTECODE is set, as
# in many containers: otherwise every xdist worker compiles the project and rewrites the asserts of
# every test module again at each run (about 12 s of CPU a worker), and every `masthead` process a
# test starts compiles the modules it imports. Set before the imports below, so they are cached.
sys.dont_write_bytecode = False

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright
from starlette.testclient import TestClient

from masthead.config import Site
from masthead.web.app import create_app

from support import cli, cpu
from support.browser import NO_OTHER_HOSTS, launch, watch_children_without_threads
from support.sites import (
    BILINGUAL_TOML,
    K8S_CORPUS,
    copy_site,
    demo_copy,
    index_closed,
    write_site,
)


@pytest.fixture
def make_site(tmp_path: Path) -> Callable[..., Site]:
    """Write `files` (content-relative path → text or bytes) into a new site folder."""

    def make(files: dict[str, str | bytes], toml: str = BILINGUAL_TOML) -> Site:
        return write_site(tmp_path / "site", files, toml)

    return make


@pytest.fixture
def serve() -> Iterator[Callable[..., TestClient]]:
    """Start the real app for a site (lifespan run) and return an HTTP client for it."""
    clients: list[TestClient] = []

    def start(site: Site, **options: object) -> TestClient:
        client = TestClient(create_app(site, **options), follow_redirects=False)  # type: ignore[arg-type]
        client.__enter__()
        clients.append(client)
        return client

    yield start
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def demo_site(tmp_path: Path) -> Site:
    """A copy of the bundled demo site with its database in tmp_path."""
    return demo_copy(tmp_path / "demo")


@pytest.fixture(scope="module")
def demo_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The real app on one copy of the demo site, shared by the tests of a module that only read
    it (GET and HEAD requests): the site is copied and indexed once a module, not once a test. A
    test that writes to its site takes `demo_site` and `serve` instead."""
    site = demo_copy(tmp_path_factory.mktemp("demo") / "demo")
    with TestClient(create_app(site), follow_redirects=False) as client:
        yield client


@pytest.fixture(scope="session")
def k8s_indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Kubernetes blog corpus (tests/data/k8s-blog) indexed once a test process, its database
    closed (no thread or connection left open): `k8s_client` serves a copy of it."""
    return index_closed(shutil.copytree(K8S_CORPUS, tmp_path_factory.mktemp("k8s") / "site"))


@pytest.fixture(scope="module")
def k8s_client(k8s_indexed: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The real app on a copy of the indexed Kubernetes corpus, for the tests of a module that only
    read it (GETs, searches): its first index finds every file unchanged. Each such test carries
    `support.sites.K8S_GROUP` (an xdist group), so one worker indexes the corpus. Served for a
    module, not the session: an app's threads (its lifespan, the client's portal) end with the
    module, and tests that fork (tests/test_index_parallel.py) need a process without them."""
    site = copy_site(k8s_indexed, tmp_path_factory.mktemp("k8s-copy") / "site")
    with TestClient(create_app(site), follow_redirects=False) as client:
        yield client


# --- the browser --------------------------------------------------------------------------------
#
# Playwright's sync API marks its event loop as the running one in this thread between calls.
# While the session's Chromium is up, a test without the browser would then find a "running" loop
# (`asyncio.run` refuses to start): `_without_playwright_loop` hides it around such tests.

_PLAYWRIGHT_LOOP: list[asyncio.AbstractEventLoop] = []


@pytest.fixture(scope="session")
def chromium() -> Iterator[Browser]:
    """One headless Chromium for this test process (each xdist worker has its own): every
    browser test shares it, in a context of its own (`browser`, `context`, `page`)."""
    watch_children_without_threads()
    with sync_playwright() as p:
        _PLAYWRIGHT_LOOP.append(asyncio.get_running_loop())
        browser = launch(p, NO_OTHER_HOSTS)
        yield browser
        asyncio._set_running_loop(_PLAYWRIGHT_LOOP[0])  # Playwright's own calls need it back
        browser.close()
    _PLAYWRIGHT_LOOP.clear()
    asyncio._set_running_loop(None)


@pytest.fixture
def browser(chromium: Browser) -> Iterator[Browser]:
    """The session's Chromium, for one test: every context (and page: `new_page` opens one) the
    test opens is closed after it, so no test sees another's cookies, storage or pages."""
    before = set(chromium.contexts)
    yield chromium
    for context in chromium.contexts:
        if context not in before:
            context.close()


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    """A fresh browser context for one test."""
    ctx = browser.new_context()
    yield ctx
    ctx.close()


@pytest.fixture
def page(context: BrowserContext) -> Page:
    """A fresh page in a fresh context, for one test."""
    return context.new_page()


def pytest_configure(config: pytest.Config) -> None:
    cpu.register(config)  # MASTHEAD_TEST_CPU=DIR: each test's CPU time (support/cpu.py)
    cli.make_commands_once()  # Typer's runner: the app's command made once (support/cli.py)


def _uses_browser(item: pytest.Item) -> bool:
    return "chromium" in getattr(item, "fixturenames", ())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    with _without_playwright_loop(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    with _without_playwright_loop(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    with _without_playwright_loop(item):
        return (yield)


class _without_playwright_loop:  # used as a `with` statement, like a function
    def __init__(self, item: pytest.Item) -> None:
        self.hide = not _uses_browser(item)

    def __enter__(self) -> None:
        if self.hide and _PLAYWRIGHT_LOOP:
            asyncio._set_running_loop(None)

    def __exit__(self, *exc: object) -> None:
        # the session's Chromium may have started (a module fixture) or ended (the last test)
        if self.hide:
            asyncio._set_running_loop(_PLAYWRIGHT_LOOP[0] if _PLAYWRIGHT_LOOP else None)


# --- markers --------------------------------------------------------------------------------------


# A test that starts a real server, in its body or in a fixture it uses (directly or not).
STARTS_SERVER = re.compile(
    r"\b(uvicorn_server|cli_server|demo_server|serve_and_get|_process)\(|\"serve\","
)


# ... and one that runs `masthead serve` (or another long-lived process) as processes of its own:
# their start-up (an index, N workers) takes seconds each time, over 5 s with what the test does
STARTS_PROCESSES = re.compile(r"\b(cli_server|serve_and_get|_process|Popen)\(|\"serve\",")


# xdist groups whose fixture indexes or exports the whole Kubernetes corpus: seconds before
# the group's first test (support.sites.K8S_GROUP, test_export.py's K8S)
SLOW_GROUPS = {"k8s-corpus", "k8s-export"}


def _group(item: pytest.Item) -> str | None:
    mark = item.get_closest_marker("xdist_group")
    if mark is None:
        return None
    return str(mark.args[0] if mark.args else mark.kwargs.get("name"))


@functools.cache
def _starts(func: Callable[..., object]) -> tuple[bool, bool]:
    """Whether `func` starts a server, and whether as processes of its own."""
    text = _source(func)
    return bool(STARTS_SERVER.search(text)), bool(STARTS_PROCESSES.search(text))


def _source(func: Callable[..., object]) -> str:
    """The lines of `func`'s definition, decorators included (as `inspect.getsource`, which
    tokenizes the file to find the end: a third of collecting the suite)."""
    code = getattr(inspect.unwrap(func), "__code__", None)
    if code is None:
        return ""
    first = code.co_firstlineno
    return "".join(linecache.getlines(code.co_filename)[first - 1 : _last_line(code)])


def _last_line(code: types.CodeType) -> int:
    """The last line of `code`, nested functions' included."""
    nested = [_last_line(c) for c in code.co_consts if isinstance(c, types.CodeType)]
    lines = (line for _start, _end, line in code.co_lines() if line)
    return max([code.co_firstlineno, *lines, *nested]) + 1  # + 1: a call's closing line


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """`browser` on every test that uses the session's Chromium (directly or through a fixture);
    `server` on every test that starts a real server (uvicorn in a thread, `masthead serve`), in
    its body or in one of its fixtures, and `slow` too when that is `masthead serve` as a process
    or when the test is in one of `SLOW_GROUPS`. `gate` (and `slow` elsewhere) are set by the
    modules and tests themselves."""
    for item in items:
        if _uses_browser(item):
            item.add_marker(pytest.mark.browser)
        info = getattr(item, "_fixtureinfo", None)
        funcs = [getattr(item, "function", None)]
        if info is not None:
            funcs += [d.func for defs in info.name2fixturedefs.values() for d in defs]
        starts = [_starts(f) for f in funcs if f is not None]
        if any(server for server, _processes in starts):
            item.add_marker(pytest.mark.server)
        if any(processes for _server, processes in starts) or _group(item) in SLOW_GROUPS:
            item.add_marker(pytest.mark.slow)
    items[:] = longest_first(items)


def longest_first(items: list[pytest.Item]) -> list[pytest.Item]:
    """The order the tests are handed out in (pytest-xdist gives them to whichever worker is
    free, in this order): the modules holding `slow` tests first, their slow tests at their
    head, then every other module as collected. A test of a minute or two started last would
    keep one worker busy long after the other ran out of work; started first, it runs while the
    other workers go through the short ones. A module stays in one block, so its module-scoped
    fixtures are still made once a worker."""
    modules: dict[str, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(item.nodeid.split("::")[0], []).append(item)

    def is_slow(item: pytest.Item) -> bool:
        return item.get_closest_marker("slow") is not None

    heavy = [tests for tests in modules.values() if any(is_slow(t) for t in tests)]
    light = [tests for tests in modules.values() if not any(is_slow(t) for t in tests)]
    ordered = [t for tests in heavy for t in sorted(tests, key=lambda t: not is_slow(t))]
    return ordered + [t for tests in light for t in tests]


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto`: one and a half workers a core (3 on 2 cores). About half of the suite's
    time is spent waiting, not computing: on `masthead serve` and Litestream processes, on
    restarts, retries and sync intervals, on Chromium's frames. With one worker a core, a core
    idles while its worker waits; a third worker uses that time. PYTEST_XDIST_AUTO_NUM_WORKERS
    still sets the number (pytest-xdist's own variable)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # pytest-xdist's own implementation reads it
    return math.ceil(len(os.sched_getaffinity(0)) * 1.5)
