"""Gate: axe-core finds no violation on any kind of demo page, at a phone's and a desktop's width,
in the light and the dark theme (issue 13, item 4).

axe-core is the npm package pinned in package.json (4.10, the version Lighthouse 12 runs), injected
through the DevTools protocol (so the site's CSP, which forbids inline scripts, does not stop it)
into one Chromium for the whole module. All of axe's rules run except the experimental ones
(`axe.run`'s default: WCAG 2.0–2.2 A/AA and best practices). The dark theme is the
`prefers-color-scheme: dark` media feature, emulated.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from support.a11y_rig import (
    AXE_JS,
    assert_author_page_covered,
    assert_series_and_behind_covered,
    demo_server,
    npm_tool,
    pages,
)

pytestmark = pytest.mark.gate  # the accessibility, HTML and performance gates (pyproject)

WIDTHS = (390, 1280)
SCHEMES = ("light", "dark")


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Iterator[str]:
    with demo_server(tmp_path_factory.mktemp("axe")) as url:
        yield url


def _violations(result: dict, where: str) -> list[str]:
    """One readable line per violated rule: where, rule, impact, what it means, which nodes."""
    lines = []
    for v in result["violations"]:
        targets = ", ".join(" ".join(n["target"]) for n in v["nodes"][:5])
        more = f" (+{len(v['nodes']) - 5} more)" if len(v["nodes"]) > 5 else ""
        lines.append(f"{where}: {v['id']} [{v['impact']}] {v['help']}: {targets}{more}")
    return lines


# One part per width and theme, each in a page of its own: the parts are independent, and a
# test of them all (52 pages, about 40 s of CPU) kept one xdist worker busy alone at the end.
@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", WIDTHS)
def test_axe_finds_no_violation(browser, base, width, scheme):
    axe = npm_tool(AXE_JS).read_text(encoding="utf-8")
    found: list[str] = []
    checked = 0
    page = browser.new_page(viewport={"width": width, "height": 900}, color_scheme=scheme)
    for name, path in pages(base).items():
        page.goto(base + path, wait_until="load")
        page.evaluate(axe)
        version = page.evaluate("axe.version")
        result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
        found += _violations(result, f"{name} {path} @{width}px {scheme}")
        checked += 1
    page.close()
    assert version.startswith("4.10."), version
    assert checked >= 12
    assert not found, f"{len(found)} axe violations:\n" + "\n".join(found)


def test_the_gate_covers_an_author_page(base):
    assert_author_page_covered(base)


def test_the_gate_covers_a_series_and_a_translation_behind(base):
    assert_series_and_behind_covered(base)
