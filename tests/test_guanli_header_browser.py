"""The dashboard's header in real Chromium: at 1280 px the site name, the screens, the language
switch and "Signed in as NAME / Sign out" are one row, in English and Chinese, for an admin (the
most links); at 390 px it wraps without overlapping or overflowing the page."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page

from masthead.accounts import service as accounts
from masthead.config import load_site
from masthead.indexing.indexer import index_site
from masthead.store.db import Database
from masthead.web.app import create_app

from support.servers import uvicorn_server
from support.sites import post, write_site

# the tests share the module's site and signed-in page: one worker makes them, not every worker
pytestmark = pytest.mark.xdist_group("guanli-header")

PASSWORD = "a long password"  # pragma: allowlist secret
NAME = "margaret.harbour"  # a longer user name than most
PARTS = [
    ".guanli-header__site",
    ".guanli-nav",
    ".guanli-header__lang",
    ".guanli-header__out span",
    ".guanli-header__out button",
]


@pytest.fixture(scope="module")
def signed_in(tmp_path_factory, chromium) -> Iterator[tuple[str, Page]]:
    """One served site for the module (the tests only look at it) and a page signed in to it
    through the form, which the tests share (`at`): the site is made and the password checked
    once, not once a test."""
    root = tmp_path_factory.mktemp("header") / "site"
    site = write_site(root, {"posts/a.md": post("A")}, 'title = "Harbour"\n')
    db = Database(site.database_path)
    index_site(site, db)
    accounts.add_user(db, NAME, PASSWORD, "admin")
    db.close()
    with uvicorn_server(create_app(load_site(site.root))) as url:
        context = chromium.new_context()
        page = context.new_page()
        sign_in(page, url)
        yield url, page
        context.close()


def at(page: Page, url: str, width: int) -> None:
    """Load `url` in the shared page at `width` (the viewport set first: a fresh document at
    that size, as a new context's page would be)."""
    page.goto("about:blank")  # a new document, even of the URL shown now
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(url)


def sign_in(page: Page, base: str) -> None:
    page.goto(f"{base}/guanli/login")
    page.fill("#g-user", NAME)
    page.fill("#g-pass", PASSWORD)
    with page.expect_navigation():
        page.click("form[action='/guanli/login'] button[type=submit]")


def boxes(page: Page) -> dict[str, dict[str, float]]:
    found = {}
    for selector in PARTS:
        box = page.locator(selector).bounding_box()
        assert box is not None, f"{selector} is not shown"
        found[selector] = box
    return found


def one_row(found: dict[str, dict[str, float]]) -> bool:
    """True when every box shares a horizontal band with every other (one line of boxes)."""
    top = max(b["y"] for b in found.values())
    bottom = min(b["y"] + b["height"] for b in found.values())
    return top < bottom


@pytest.mark.parametrize("ui", ["en", "zh"])
def test_the_header_is_one_row_at_1280(signed_in, ui):
    base, page = signed_in
    for screen in ("/guanli/", "/guanli/comments", "/guanli/audit"):
        at(page, f"{base}{screen}?ui={ui}", 1280)
        found = boxes(page)
        assert one_row(found), (screen, ui, found)
        left_to_right = [found[s]["x"] for s in PARTS]
        assert left_to_right == sorted(left_to_right), (screen, ui, found)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 1280, (screen, ui, width)


@pytest.mark.parametrize("ui", ["en", "zh"])
def test_the_header_wraps_cleanly_at_390(signed_in, ui):
    base, page = signed_in
    at(page, f"{base}/guanli/comments?ui={ui}", 390)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    found = boxes(page)
    for box in found.values():
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, found
    links = page.locator(".guanli-nav a")
    shapes = [links.nth(i).bounding_box() for i in range(links.count())]
    named = list(found.items()) + [(f"nav {i}", b) for i, b in enumerate(shapes) if b]
    # the nav holds its links: compare the links with the header's other parts, not the nav
    named = [(k, b) for k, b in named if k != ".guanli-nav"]
    for i, (a_name, a) in enumerate(named):
        for b_name, b in named[i + 1 :]:
            apart = (
                a["x"] + a["width"] <= b["x"] + 0.5
                or b["x"] + b["width"] <= a["x"] + 0.5
                or a["y"] + a["height"] <= b["y"] + 0.5
                or b["y"] + b["height"] <= a["y"] + 0.5
            )
            assert apart, (ui, a_name, a, b_name, b)
