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
    for width in WIDTHS:
        for scheme in SCHEMES:
            context = browser.new_context(
                viewport={"width": width, "height": 900}, color_scheme=scheme
            )
            context.add_init_script(WATCH_CSP)
            requests: list[str] = []
            context.on("request", lambda r, seen=requests: seen.append(r.url))
            page = context.new_page()
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
            assert [u for u in requests if not u.startswith(base)] == [], (width, scheme)
            context.close()
    assert not found, f"{len(found)} axe violations:\n" + "\n".join(found)


def test_nu_checker_finds_no_error_on_the_technical_post(base, tmp_path):
    from test_html_valid import _check  # the HTML gate's own run of the Nu checker

    file = tmp_path / "technical.html"
    file.write_text(httpx.get(base + POST, timeout=CEILING).text, encoding="utf-8")
    errors = [
        f"{m.get('lastLine', '?')}: {m['message']} [{m.get('extract', '').strip()[:80]}]"
        for m in _check([file])
        if m["type"] in ("error", "non-document-error")
    ]
    assert not errors, f"{len(errors)} Nu errors:\n" + "\n".join(errors)
