"""Screenshots of the reading pages for review (issue 13, item 4): the bundled demo's home, a post
in English and one in Chinese, the archive and a search, at 390, 768, 1280 and 1440 px wide, in
the light and the dark theme (`prefers-color-scheme` emulated), full page, as PNG files named
`PAGE-WIDTH-THEME.png`. CI runs it after the tests and uploads the folder as an artefact.

    python tests/screenshots.py [OUT]      # OUT defaults to build/screenshots

Chromium: $MASTHEAD_CHROMIUM, else /usr/bin/chromium (see tests/support/browser.py). Not a test:
what a screenshot shows is for a person to judge; tests/test_layout_browser.py asserts the
geometry.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from playwright.sync_api import sync_playwright

from masthead.config import load_site
from masthead.web.app import create_app

from support.browser import FLAGS, chromium_path
from support.servers import uvicorn_server
from support.sites import DEMO

PAGES = {
    "home": "/",
    "post-en": "/posts/typography-for-long-reads/",
    "post-zh": "/zh/posts/kubelet-syncloop-pleg/",
    "archive": "/archive/",
    "search": "/search?q=kubelet",
}
WIDTHS = (390, 768, 1280, 1440)
THEMES = ("light", "dark")
# what a reader sees on scrolling through: a full-page capture draws only the blocks near the
# viewport, and site.css skips the others (content-visibility: auto, LH3); and no room for a
# scrollbar that headless Chromium hides (`--hide-scrollbars`) but would keep for it
# (scrollbar-gutter): the page as with overlay scrollbars (phones, macOS)
DRAW_ALL = (
    "* { content-visibility: visible !important; } html { scrollbar-gutter: auto !important; }"
)
FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


def shoot(out: Path) -> list[Path]:
    """Write every page × width × theme into `out`; the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "demo"
        shutil.copytree(DEMO, root, ignore=shutil.ignore_patterns(".masthead"))
        with (
            uvicorn_server(create_app(load_site(root)), timeout=60) as base,
            sync_playwright() as p,
        ):
            # a script, not a test: no session fixture, its own Chromium
            browser = p.chromium.launch(executable_path=chromium_path(), args=FLAGS)
            for theme in THEMES:
                for width in WIDTHS:
                    viewport = {"width": width, "height": 844 if width < 600 else 900}
                    page = browser.new_page(  # bypass_csp: DRAW_ALL is an inline style
                        viewport=viewport, color_scheme=theme, bypass_csp=True
                    )
                    for name, path in PAGES.items():
                        page.goto(base + path)
                        page.wait_for_load_state("networkidle")
                        page.add_style_tag(content=DRAW_ALL)
                        page.evaluate(FRAMES)
                        file = out / f"{name}-{width}-{theme}.png"
                        page.screenshot(path=str(file), full_page=True)
                        written.append(file)
                    page.close()
            browser.close()
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("build") / "screenshots"
    files = shoot(target)
    print(f"{len(files)} screenshots in {target}")
