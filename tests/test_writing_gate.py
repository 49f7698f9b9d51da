"""Gate (issue 32's acceptance): axe-core finds no violation on a post that has math, a Mermaid
diagram, six photos and a table, at a phone's and a desktop's width, in the light and the dark
theme, once the diagram is drawn and the photos loaded; and the page asks no other host and
reports no CSP violation. (Lighthouse's four scores on that page: bench/lighthouse.sh with
SITE=…, docs/performance.md.)"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from masthead.config import load_site
from masthead.web.app import create_app

from support import nu
from support.a11y_rig import AXE_JS, npm_tool
from support.browser import WATCH_CSP
from support.servers import uvicorn_server
from support.technical import write
from support.wait import CEILING

pytestmark = pytest.mark.gate

POST = "/posts/survey/"
WIDTHS = (390, 1280)
SCHEMES = ("light", "dark")


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Iterator[str]:
    root = write(tmp_path_factory.mktemp("writing") / "site", photos=6, size=(1600, 1067))
    with uvicorn_server(create_app(load_site(root))) as url:
        yield url


def _violations(result: dict, where: str) -> list[str]:
    lines = []
    for v in result["violations"]:
        targets = ", ".join(" ".join(n["target"]) for n in v["nodes"][:5])
        lines.append(f"{where}: {v['id']} [{v['impact']}] {v['help']}: {targets}")
    return lines


def test_the_technical_post_has_what_the_gate_is_about(base, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(base + POST, wait_until="load")
    body = page.locator(".post-body")
    assert body.locator("math").count() >= 3
    assert body.locator("figure.diagram-mermaid").count() == 1
    assert body.locator("img[srcset]").count() == 6
    assert body.locator("table").count() == 1
    page.close()


def test_axe_finds_no_violation_on_the_technical_post(browser, base):
    axe = npm_tool(AXE_JS).read_text(encoding="utf-8")
    found: list[str] = []
    # one page, loaded afresh at each width and theme (the emulated `prefers-color-scheme` is
    # in force before the load, as a context's own): the context's HTTP and script caches keep
    # Mermaid's chunks and the photos, which new contexts parsed and decoded four times
    context = browser.new_context()
    context.add_init_script(WATCH_CSP)
    requests: list[str] = []
    context.on("request", lambda r: requests.append(r.url))
    page = context.new_page()
    for width in WIDTHS:
        for scheme in SCHEMES:
            page.set_viewport_size({"width": width, "height": 900})
            page.emulate_media(color_scheme=scheme)
            requests.clear()
            page.goto(base + POST, wait_until="load")
            page.locator("figure.diagram-mermaid").scroll_into_view_if_needed()
            page.wait_for_selector("figure.diagram-mermaid.is-drawn svg")
            page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
            page.wait_for_function(
                "[...document.images].every(i => i.complete && i.naturalWidth > 0)",
            )
            assert page.get_attribute("figure.diagram-mermaid", "data-theme-drawn") == scheme
            page.evaluate(axe)
            result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
            found += _violations(result, f"{POST} @{width}px {scheme}")
            assert page.evaluate("window.__violations") == [], (width, scheme)
            assert requests and [u for u in requests if not u.startswith(base)] == [], (
                width,
                scheme,
            )
    context.close()
    assert not found, f"{len(found)} axe violations:\n" + "\n".join(found)


def test_nu_checker_finds_no_error_on_the_technical_post(base, tmp_path):
    file = tmp_path / "technical.html"
    file.write_text(httpx.get(base + POST, timeout=CEILING).text, encoding="utf-8")
    errors = nu.errors(nu.check([file]))
    assert not errors, f"{len(errors)} Nu errors:\n" + "\n".join(errors)
