"""The reading side's layout from a reader's trial (issue 29 item 3), measured in real headless
Chromium on the bundled demo: at 390 px every header menu item can be reached and is visibly
there (not cut off in a strip whose scrollbar is hidden), and at 1440 px the search page's
result column starts where the home page's list starts."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from support.a11y_rig import demo_server
from support.browser import quiet

pytestmark = pytest.mark.browser

MENU = [
    {"title": "About", "url": "/about/"},
    {"title": "Contributing", "url": "/about/"},
    {"title": "Releases", "url": "/about/"},
]


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Iterator[str]:
    with demo_server(tmp_path_factory.mktemp("reader-layout")) as url:
        yield url


def _page(browser: Browser, width: int) -> Page:
    page = browser.new_page(viewport={"width": width, "height": 844 if width < 600 else 900})
    return page


# an item is visibly there when its whole box is inside the viewport and inside every box that
# clips it (a scroll strip), and the point at its middle hits it (nothing drawn over it)
SHOWN = """(el) => {
  const r = el.getBoundingClientRect();
  if (r.width < 1 || r.height < 1 || !el.checkVisibility({visibilityProperty: true})) return false;
  if (r.left < 0 || r.top < 0 || r.right > innerWidth + 0.5 || r.bottom > innerHeight) return false;
  for (let p = el.parentElement; p; p = p.parentElement) {
    const s = getComputedStyle(p);
    if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
    const c = p.getBoundingClientRect();
    if (r.left < c.left - 0.5 || r.right > c.right + 0.5 || r.top < c.top - 0.5
        || r.bottom > c.bottom + 0.5) return false;
  }
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return hit === el || el.contains(hit);
}"""


def _shown(page: Page) -> list[tuple[str, bool]]:
    links = page.locator(".site-nav a")
    return [(links.nth(i).inner_text(), links.nth(i).evaluate(SHOWN)) for i in range(links.count())]


@pytest.mark.parametrize("path", ["/", "/zh/", "/posts/typography-for-long-reads/", "/about/"])
def test_every_menu_item_is_reachable_and_visible_on_a_phone(browser, base, path):
    """Each item of the header's menu is on screen at 390 px, or one visible control away
    (the Menu button), and then on screen."""
    page = _page(browser, 390)
    page.goto(base + path)
    quiet(page)
    shown = _shown(page)
    assert len(shown) >= 4, shown  # archive, tags, categories, the demo's About
    if not all(ok for _, ok in shown):
        button = page.locator(".site-nav__toggle")
        assert button.count() == 1, ("items out of sight and no Menu button", shown)
        assert button.evaluate(SHOWN), ("items out of sight and no visible Menu button", shown)
        button.click()
        quiet(page)
        shown = _shown(page)
        assert all(ok for _, ok in shown), ("the opened menu still hides items", shown)
        page.keyboard.press("Escape")
        quiet(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.close()


def test_the_search_results_share_the_home_lists_left_edge(browser, base):
    """One column, one left edge at 1440 px: the first result, the search box and the title
    start where the home page's list does; the facets stand beside, inside the viewport."""
    page = _page(browser, 1440)
    page.goto(base + "/")
    quiet(page)
    home = page.locator(".list .card").first.bounding_box()
    assert home is not None
    page.goto(base + "/search?q=kubelet")
    quiet(page)
    for selector in (".hit", ".search-form--page", ".search-page .list__title"):
        box = page.locator(selector).first.bounding_box()
        assert box is not None, selector
        assert abs(box["x"] - home["x"]) <= 1, (selector, box["x"], home["x"])
    hit = page.locator(".hit").first.bounding_box()
    facets = page.locator(".facets").bounding_box()
    assert hit is not None and facets is not None
    assert abs(hit["width"] - home["width"]) <= 1, (hit["width"], home["width"])
    assert facets["x"] >= hit["x"] + hit["width"], "the facets overlap the results"
    assert facets["x"] + facets["width"] <= 1440
    page.close()
