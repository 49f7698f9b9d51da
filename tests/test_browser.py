"""The post layout in real headless Chromium (Playwright) against a real uvicorn server.

Browser: $MASTHEAD_CHROMIUM, else /usr/bin/chromium (Debian's package), else Playwright's own.
With none, the test fails and says how to install one; it is never skipped.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from playwright.sync_api import Browser, Error, Page, sync_playwright

from masthead.web.app import create_app

POST = "/posts/typography-for-long-reads/"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
INSTALL = (
    "no Chromium found: install Debian's `apt-get install chromium`, or run "
    "`python -m playwright install chromium`, or set MASTHEAD_CHROMIUM to a Chromium binary"
)


def chromium_path() -> str | None:
    env = os.environ.get("MASTHEAD_CHROMIUM")
    if env:
        return env
    for candidate in ("/usr/bin/chromium", "/usr/bin/chromium-browser"):
        if Path(candidate).exists():
            return candidate
    return shutil.which("chromium")


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    from masthead.config import load_site

    root = tmp_path_factory.mktemp("browser") / "demo"
    shutil.copytree(Path(__file__).parent.parent / "src" / "masthead" / "demo", root)
    app = create_app(load_site(root))
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not srv.started:
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(5)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        path = chromium_path()
        try:
            b = p.chromium.launch(executable_path=path, args=FLAGS)
        except Error as exc:
            pytest.fail(f"{INSTALL} ({exc})")
        yield b
        b.close()


def _open(browser: Browser, url: str, width: int, height: int) -> Page:
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(url)
    return page


def test_toc_docked_in_left_margin_on_wide_screens(browser, server):
    page = _open(browser, server + POST, 1280, 900)
    rail = page.locator(".toc-rail")
    assert rail.is_visible()
    assert not page.locator(".toc-button").is_visible()
    toc = page.locator("#mh-toc").bounding_box()
    body = page.locator(".post-body").bounding_box()
    assert toc and body
    assert toc["x"] + toc["width"] <= body["x"], "the TOC sits left of the text column"
    assert 560 <= body["width"] <= 820, "a comfortable measure"
    # sticky, and the current section follows the reading position
    heading_id = page.locator(".post-body h2").nth(3).get_attribute("id")
    page.evaluate("id => document.getElementById(id).scrollIntoView()", heading_id)
    page.evaluate("window.scrollBy(0, 10)")
    page.wait_for_function(
        "id => { const a = document.querySelector('#mh-toc a.is-current');"
        " return a && decodeURIComponent(a.getAttribute('href')) === '#' + id; }",
        arg=heading_id,
        timeout=5000,
    )
    box = page.locator("#mh-toc").bounding_box()
    assert box and 0 <= box["y"] < 900, "the TOC stays in view while reading"
    page.close()


def test_bottom_sheet_on_phones(browser, server):
    page = _open(browser, server + POST, 390, 844)
    assert not page.locator(".toc-rail").is_visible()
    button = page.locator(".toc-button")
    assert button.is_visible()
    sheet = page.locator("#mh-toc-sheet")
    assert not sheet.is_visible()

    # opens as a modal dialog, focus moves in; Esc closes it and focus comes back
    button.click()
    assert sheet.is_visible()
    assert page.evaluate("document.getElementById('mh-toc-sheet').open")
    assert page.evaluate("document.getElementById('mh-toc-sheet').contains(document.activeElement)")
    assert button.get_attribute("aria-expanded") == "true"
    box = sheet.bounding_box()
    assert box and box["y"] + box["height"] >= 843 and box["width"] >= 389, "docked at the bottom"
    page.keyboard.press("Escape")
    assert not sheet.is_visible()
    assert page.evaluate("document.activeElement.classList.contains('toc-button')")

    # a tap outside the panel closes it
    button.click()
    assert sheet.is_visible()
    page.mouse.click(195, 20)
    assert not sheet.is_visible()

    # a link closes it and goes to its section
    button.click()
    link = sheet.locator("a").nth(2)
    href = link.get_attribute("href")
    link.click()
    assert not sheet.is_visible()
    page.wait_for_function("() => window.scrollY > 200")
    heading = page.locator(f"[id='{href[1:]}']")
    top = heading.bounding_box()
    assert top and 0 <= top["y"] < 200, "the section is at the top of the screen"
    page.close()


def test_dark_mode_follows_the_system(browser, server):
    page = browser.new_page(color_scheme="dark", viewport={"width": 1280, "height": 800})
    page.goto(server + POST)
    bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
    page.close()
    light = browser.new_page(color_scheme="light", viewport={"width": 1280, "height": 800})
    light.goto(server + POST)
    assert bg != light.evaluate("getComputedStyle(document.body).backgroundColor")
    light.close()
