"""Mermaid diagrams in real headless Chromium (issue 32, item 2), under the site's CSP: drawn
from the site's own copy of Mermaid with no violation reported and no other host asked, in the
page's theme and again when it changes; without JavaScript the source shows as a code block."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext

from masthead.web.app import create_app

from support.browser import WATCH_CSP
from support.servers import uvicorn_server
from support.sites import post, write_site

BODY = """
Intro.

```mermaid
graph TD
  A[Write] --> B{Review}
  B -->|ok| C[Publish]
```

After.
"""
# on the first screen: a drawing lower than its source (at 390 px) and one higher than it
HELD = (
    "Intro.\n\n```mermaid\ngraph LR\n  G[Tide gauge] --> R[Reduce soundings]\n"
    "  S[Survey lines] --> R\n  R --> C[Chart]\n```\n\nBetween.\n\n"
    "```mermaid\ngraph TD\n  A[Write] --> B{Review}\n  B -->|ok| C[Publish]\n```\n\n"
    + "\n\n".join(f"Paragraph {i} after the diagrams, long enough to scroll." for i in range(60))
)
SHIFTS = """window.__shifts = [];
new PerformanceObserver(list => {
  for (const e of list.getEntries()) if (!e.hadRecentInput) window.__shifts.push(e.value);
}).observe({type: "layout-shift", buffered: true});"""
DRAWN = "figure.diagram-mermaid.is-drawn .diagram__drawing svg"
NODE_FILL = "getComputedStyle(document.querySelector('.diagram__drawing svg .node rect')).fill"


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Iterator[str]:
    files = {
        "posts/d.md": post("Diagram", body=BODY),
        "posts/p.md": post("Plain"),
        "posts/held.md": post("Two diagrams", body=HELD),
    }
    site = write_site(tmp_path_factory.mktemp("diagrams") / "site", files)
    with uvicorn_server(create_app(site)) as url:
        yield url


def _context(browser: Browser, base: str, **options: object) -> BrowserContext:
    context = browser.new_context(viewport={"width": 1280, "height": 800}, **options)  # type: ignore[arg-type]
    context.add_init_script(WATCH_CSP)
    requests: list[str] = []
    context.on("request", lambda r: requests.append(r.url))
    context.requests = requests  # type: ignore[attr-defined]
    return context


def test_a_diagram_is_drawn_in_the_theme_and_again_when_it_changes(browser: Browser, base: str):
    context = _context(browser, base, color_scheme="light")
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(base + "/posts/d/")
    page.wait_for_selector(DRAWN)
    assert page.is_hidden("figure.diagram-mermaid .code-block"), "the source gives way"
    light = page.evaluate(NODE_FILL)
    assert page.get_attribute("figure.diagram-mermaid", "data-theme-drawn") == "light"
    page.click(".theme-switch")
    page.wait_for_selector("figure.diagram-mermaid[data-theme-drawn=dark]")
    page.wait_for_selector(DRAWN)
    assert page.evaluate(NODE_FILL) != light, "drawn again in the dark theme's colours"
    assert page.evaluate("window.__violations") == [] and errors == []
    foreign = [u for u in context.requests if not u.startswith(base)]  # type: ignore[attr-defined]
    assert foreign == []
    vendor = [u for u in context.requests if "/static/vendor/mermaid/" in u]  # type: ignore[attr-defined]
    assert vendor, "Mermaid comes from the site's static files"
    context.close()


def test_a_page_without_a_diagram_loads_no_mermaid(browser: Browser, base: str):
    context = _context(browser, base)
    page = context.new_page()
    page.goto(base + "/posts/p/")
    page.wait_for_load_state("load")
    assert not [u for u in context.requests if "mermaid" in u or "diagrams.js" in u]  # type: ignore[attr-defined]
    context.close()


def test_without_javascript_the_source_shows_as_a_code_block(browser: Browser, base: str):
    context = _context(browser, base, java_script_enabled=False)
    page = context.new_page()
    page.goto(base + "/posts/d/")
    code = page.locator("figure.diagram-mermaid .code-block pre code")
    assert code.is_visible() and "A[Write] --> B{Review}" in code.inner_text()
    assert not [u for u in context.requests if "/vendor/mermaid/" in u]  # type: ignore[attr-defined]
    context.close()


@pytest.mark.parametrize("width", [390, 1280])
def test_drawing_a_diagram_on_the_screen_moves_nothing(browser: Browser, base: str, width: int):
    """The text below a diagram drawn while the reader sees it stays where it was (no layout
    shift); once the figure is off the screen it takes the drawing's own height."""
    context = browser.new_context(viewport={"width": width, "height": 844})
    page = context.new_page()
    page.goto(base + "/posts/held/", wait_until="load")
    page.evaluate(SHIFTS)
    page.wait_for_function(
        "() => document.querySelectorAll('figure.diagram-mermaid.is-drawn svg').length === 2",
    )
    heights = page.evaluate(
        "[...document.querySelectorAll('figure.diagram-mermaid')].map(f => [f.style.minHeight,"
        " f.querySelector('svg').style.maxHeight])"
    )
    assert any(h != ["", ""] for h in heights), heights  # the drawings differ from the sources
    page.evaluate("requestAnimationFrame(() => requestAnimationFrame(() => window.__frames = 1))")
    page.wait_for_function("() => window.__frames === 1")
    assert page.evaluate("window.__shifts") == [], heights
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_function(
        "() => [...document.querySelectorAll('figure.diagram-mermaid')]"
        ".every(f => !f.style.minHeight && !f.querySelector('svg').style.maxHeight)",
    )
    context.close()
