"""What a post's scripts cost the browser while it loads (issue 13: Lighthouse's mobile performance
on the Chinese post; LH2 in BENCHMARKS.md).

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
from collections.abc import Iterator

import httpx
import pytest
from a11y_rig import demo_server
from playwright.sync_api import Browser
from test_browser import one_browser

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


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from one_browser()


def _passes_inside(browser: Browser, url: str, codes: dict[str, str], width: int) -> dict:
    """The style and layout passes Chromium ran while each script of `codes` (name: source)
    ran once more on the loaded page `url`, by script name."""
    context = browser.new_context(viewport={"width": width, "height": 823}, bypass_csp=True)
    page = context.new_page()  # bypass_csp: eval here only (the policy has its own tests)
    page.goto(url, wait_until="load")
    page.wait_for_timeout(200)
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
    codes = {name: httpx.get(f"{base}/static/js/{name}").text for name in SCRIPTS}
    found = _passes_inside(browser, base + path, codes, width)
    forced = {name: passes for name, passes in found.items() if passes}
    assert not forced, f"{path} @{width}px: style or layout inside {forced}"
