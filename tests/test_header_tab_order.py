"""Keyboard order in the site header (issue 13): Tab from the top of a page reaches the header's
controls in the order a reader sees them, row by row and left to right (WCAG 2.2 SC 2.4.3 Focus
Order), in real headless Chromium against the demo.

On a wide screen that is title, navigation, search, language and theme switches; on a phone, whose
header has two rows (title and switches; navigation and search), the switches come right after
the title (site.css `reading-flow`). The last session drew the switches last with `order` while
the source had them first, so Tab reached them before the navigation.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page

from support.a11y_rig import demo_server

PAGES = ["/", "/zh/posts/typography-for-long-reads/", "/search?q=kubelet"]

# what a reader sees: the header's parts (title, nav, search, switches), each with its box and
# its visible controls in source order (a nav that scrolls sideways keeps its order)
PARTS = """() => [...document.querySelector('.site-header__inner').children]
  .filter(part => part.checkVisibility())
  .map(part => { const r = part.getBoundingClientRect();
    const controls = [part, ...part.querySelectorAll('a[href], button, input, [tabindex]')]
      .filter(el => el.matches('a[href], button, input, [tabindex]') && el.tabIndex >= 0
                    && el.checkVisibility({visibilityProperty: true}))
      .map(el => el.outerHTML.slice(0, 60));
    return {controls: controls, x: r.x, top: r.top, bottom: r.bottom}; })"""
FOCUSED = """() => { const el = document.activeElement;
  return el && el.closest('.site-header') ? el.outerHTML.slice(0, 60) : null; }"""


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Iterator[str]:
    with demo_server(tmp_path_factory.mktemp("tab")) as url:
        yield url


def _visual_order(page: Page) -> list[str]:
    """The header's controls part by part, row by row (parts whose boxes overlap vertically
    share a row), each row left to right."""
    rows: list[list[dict]] = []
    for part in sorted(page.evaluate(PARTS), key=lambda p: p["top"]):
        middle = (part["top"] + part["bottom"]) / 2
        if rows and rows[-1][0]["top"] <= middle <= rows[-1][0]["bottom"]:
            rows[-1].append(part)
        else:
            rows.append([part])
    parts = [part for row in rows for part in sorted(row, key=lambda p: p["x"])]
    return [control for part in parts for control in part["controls"]]


def _tab_order(page: Page) -> list[str]:
    """The header's controls in the order Tab reaches them from the top of the page."""
    stops: list[str] = []
    for _ in range(40):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED)
        if focused is None and stops:
            return stops  # out of the header
        if focused is not None:
            stops.append(focused)
    return stops


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("path", PAGES)
def test_tab_reaches_the_header_controls_in_visual_order(browser, base, path, width):
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto(base + path, wait_until="load")
    seen = _visual_order(page)
    tabbed = _tab_order(page)
    context.close()
    # title, 3 nav links, a switch and the theme button at least; on a phone the links are
    # behind the Menu button (issue 29), and the search page's header has no search box
    assert len(seen) >= (6 if width > 600 else 4), seen
    if width <= 600:
        assert any("site-nav__toggle" in c for c in seen), seen
    assert tabbed == seen, f"@{width}px {path}\nTab:    {tabbed}\nvisual: {seen}"
