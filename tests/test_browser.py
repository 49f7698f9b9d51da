"""The post layout in real headless Chromium (Playwright) against a real uvicorn server, under
the site's Content-Security-Policy (no violation may be reported).

Browser: $MASTHEAD_CHROMIUM, else /usr/bin/chromium (Debian's package), else Playwright's own.
With none, the test fails and says how to install one; it is never skipped.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from masthead.web.app import create_app

from support.browser import WATCH_CSP
from support.servers import cli_server, uvicorn_server

POST = "/posts/typography-for-long-reads/"


def _demo(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("browser") / "demo"
    shutil.copytree(Path(__file__).parent.parent / "src" / "masthead" / "demo", root)
    return root


def _serve(tmp_path_factory, dev: bool = False) -> Iterator[str]:
    from masthead.config import load_site

    app = create_app(load_site(_demo(tmp_path_factory)), dev=dev)
    with uvicorn_server(app) as base:
        yield base
        app.state.reloader.close()  # ends open live-reload streams


@pytest.fixture(scope="module", params=["1 worker", "2 workers"])
def server(request, tmp_path_factory) -> Iterator[str]:
    """The demo served in this process, and by `masthead serve --workers 2` (each page may come
    from either worker process)."""
    if request.param == "1 worker":
        yield from _serve(tmp_path_factory)
        return
    with cli_server(str(_demo(tmp_path_factory)), "--workers", "2", "--no-watch") as url:
        yield url.rstrip("/")


def _open(browser: Browser, url: str, width: int, height: int) -> Page:
    """A page at `url` that records CSP and Permissions-Policy complaints in `page.complaints`
    (console messages) and `window.__violations` (securitypolicyviolation events)."""
    page = browser.new_page(viewport={"width": width, "height": height})
    complaints: list[str] = []
    page.on(
        "console",
        lambda m: (
            complaints.append(m.text)
            if "Content Security Policy" in m.text or "Permissions-Policy" in m.text
            else None
        ),
    )
    page.complaints = complaints  # type: ignore[attr-defined]
    page.add_init_script(WATCH_CSP)
    page.goto(url)
    return page


def _assert_no_violation(page: Page) -> None:
    assert page.evaluate("window.__violations") == [], page.url
    assert page.complaints == [], page.url  # type: ignore[attr-defined]


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
    )
    box = page.locator("#mh-toc").bounding_box()
    assert box and 0 <= box["y"] < 900, "the TOC stays in view while reading"
    _assert_no_violation(page)
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
    _assert_no_violation(page)
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


def test_pages_run_under_the_policy_with_no_violation(browser, server):
    """Every kind of demo page renders under the CSP (styles, scripts, SVG icons, images,
    JSON-LD data blocks) with no violation, and the policy is in force: a script injected
    inline is refused and reported."""
    # one page goes from URL to URL (a new document each time, its init script run again): a
    # new page each time cost a renderer process of its own, about 0.4 s of CPU
    page = _open(browser, "about:blank", 1280, 900)
    for url in (POST, "/", "/posts/field-notes-harbour/", "/zh/posts/kubelet-syncloop-pleg/",
                "/tags/", "/archive/", "/search?q=kubelet", "/no/such/page/", POST):  # fmt: skip
        page.goto(server + url)
        page.wait_for_load_state("load")
        assert page.evaluate("getComputedStyle(document.body).fontFamily"), "site.css applied"
        _assert_no_violation(page)
    # the last URL is the post again, loaded afresh: an inline script is refused there
    assert page.evaluate("document.querySelector('.toc a') !== null")
    page.evaluate(
        "() => { const s = document.createElement('script');"
        " s.textContent = 'window.injected = true'; document.head.appendChild(s); }"
    )
    page.wait_for_function("window.__violations.length > 0")
    assert page.evaluate("window.injected") is None
    assert page.evaluate("window.__violations")[0].startswith("script-src")
    page.close()


@pytest.fixture(scope="module")
def dev_server(tmp_path_factory) -> Iterator[str]:
    yield from _serve(tmp_path_factory, dev=True)


def test_dev_live_reload_runs_under_the_policy(browser, dev_server):
    page = browser.new_page()
    page.add_init_script(WATCH_CSP)
    complaints: list[str] = []
    page.on("console", lambda m: complaints.append(m.text))
    with page.expect_request(lambda r: r.url.endswith("/_dev/reload")):
        response = page.goto(dev_server + POST)
    assert response is not None
    assert "script-src 'self';" in response.headers["content-security-policy"]
    page.wait_for_load_state("load")
    assert page.evaluate("window.__violations") == []
    assert not [c for c in complaints if "Content Security Policy" in c], complaints
    page.close()
