"""What a post's scripts cost the browser while it loads (issue 13: Lighthouse's mobile performance
on the Chinese post; LH2 in the old BENCHMARKS.md).

The deferred scripts (site.js, suggest.js, comments.js) run when the parser reaches the end of the
page, usually before Chromium has laid out what it parsed last. A layout read there (`scrollY`,
`getBoundingClientRect`, `getComputedStyle`) makes Chromium lay out the whole page inside the
script: one long task after the first paint, which Lighthouse counts as Total Blocking Time.

Real headless Chromium runs each script once more on a loaded post whose layout was just made
stale, between two User Timing marks, and records its own trace (`devtools.timeline`, the events
Lighthouse reads): no style or layout pass may fall between the marks. No timing is asserted
(benchmarks are bench/lighthouse.sh and bench/trace_post.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser

from support.a11y_rig import demo_server
from support.browser import quiet
from support.wait import CEILING

pytestmark = pytest.mark.gate  # the accessibility, HTML and performance gates (pyproject)

POSTS = ("/posts/typography-for-long-reads/", "/zh/posts/typography-for-long-reads/")
SCRIPTS = ("site.js", "suggest.js", "comments.js")  # base.html and post.html, all `defer`
PASSES = ("Layout", "UpdateLayoutTree")  # Chromium's layout and style passes
# the end of the post changed (layout stale, as when the parser has just appended it), then the
# script run as the page runs it, between two marks
RUN = """([code]) => {
  document.querySelector(".post-body").insertAdjacentHTML("beforeend", "<p>…</p>");
  performance.mark("mh-before");
  (0, eval)(code);
  performance.mark("mh-after");
}"""


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Iterator[str]:
    with demo_server(tmp_path_factory.mktemp("load")) as url:
        yield url


def _passes_inside(browser: Browser, url: str, codes: dict[str, str], width: int) -> dict:
    """The style and layout passes Chromium ran while each script of `codes` (name: source)
    ran once more on the loaded page `url`, by script name."""
    context = browser.new_context(viewport={"width": width, "height": 823}, bypass_csp=True)
    page = context.new_page()  # bypass_csp: eval here only (the policy has its own tests)
    page.goto(url, wait_until="load")
    quiet(page)
    found = {}
    for name, code in codes.items():
        browser.start_tracing(page=page, categories=["devtools.timeline", "blink.user_timing"])
        page.evaluate(RUN, [code])
        events = json.loads(browser.stop_tracing())["traceEvents"]
        marks = {e["name"]: e for e in events if e["name"] in ("mh-before", "mh-after")}
        assert set(marks) == {"mh-before", "mh-after"}, "the trace has both marks"
        before, after = marks["mh-before"], marks["mh-after"]
        found[name] = [
            e["name"]
            for e in events
            if e["name"] in PASSES
            and e.get("ph") == "X"
            and (e["pid"], e["tid"]) == (before["pid"], before["tid"])
            and before["ts"] <= e["ts"] <= after["ts"]
        ]
    context.close()
    return found


@pytest.mark.parametrize("width", [412, 1350])
@pytest.mark.parametrize("path", POSTS)
def test_post_scripts_read_no_layout_while_the_page_loads(browser, base, path, width):
    codes = {name: httpx.get(f"{base}/static/js/{name}", timeout=CEILING).text for name in SCRIPTS}
    found = _passes_inside(browser, base + path, codes, width)
    forced = {name: passes for name, passes in found.items() if passes}
    assert not forced, f"{path} @{width}px: style or layout inside {forced}"


def test_the_post_carries_its_toc_once_and_the_sheet_shows_it_when_opened(browser, base):
    """The phone's bottom sheet (which needs script to open) gets its TOC from the rail's when
    it first opens, not from a second copy in every post's HTML; the reading position is marked
    in it as in the rail, and stays so while the reader moves on."""
    path = POSTS[1]
    html = httpx.get(base + path, timeout=CEILING).text
    first = re.search(r'<a href="(#[^"]+)"', html[html.index('id="mh-toc"') :])
    assert first and html.count(f'href="{first.group(1)}"') == 1, "one TOC in the page"
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(base + path, wait_until="load")
    rail = page.locator("#mh-toc a")
    hrefs = rail.evaluate_all("links => links.map(a => a.getAttribute('href'))")
    assert len(hrefs) > 4
    sheet = page.locator("#mh-toc-sheet .toc a")
    for nth in (2, 4):  # a section, then a later one with the sheet already filled
        heading = hrefs[nth][1:]
        page.evaluate(
            "id => document.getElementById(decodeURIComponent(id)).scrollIntoView()", heading
        )
        page.wait_for_function(
            "h => document.querySelector('#mh-toc a.is-current')?.getAttribute('href') === h",
            arg=hrefs[nth],
        )
        page.locator(".toc-button").click()
        assert sheet.evaluate_all("links => links.map(a => a.getAttribute('href'))") == hrefs
        current = page.locator("#mh-toc-sheet .toc a[aria-current='location']")
        assert current.count() == 1 and current.get_attribute("href") == hrefs[nth]
        assert page.evaluate("document.activeElement.getAttribute('href')") == hrefs[nth]
        page.keyboard.press("Escape")
    context.close()
