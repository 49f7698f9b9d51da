"""Screenshots of issue 13's item-2 flaws, one clipped region each (docs/screenshots/issue-13/,
pairs 10-14): the 404 page, search snippets and facet links, the phone's Contents button after
scrolling down and up, a table and a code block's scroll cue, and the interface fonts. Each shot
is the bundled demo of the masthead that is imported (so an old commit shows its own demo),
served by a real uvicorn, in headless Chromium at the width in its name.

    python tests/screenshots_flaws.py OUT STATE [NAME ...]
    PYTHONPATH=/tmp/wt-old/src python tests/screenshots_flaws.py OUT before 10-404

STATE (`before` or `after`) ends each file name: NAME-WIDTH-THEME-STATE.png. NAMEs limit the
run to some shots (default: all). For each shot it prints what the page measured (heights,
`lang`, the fonts Chromium drew the text in, from CDP's CSS.getPlatformFontsForNode), which
the README quotes. Not a test: tests/test_layout_browser.py asserts the geometry.
Chromium: $MASTHEAD_CHROMIUM, else /usr/bin/chromium (see tests/support/browser.py).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from playwright.sync_api import Page, sync_playwright
from screenshots import DRAW_ALL, FRAMES

import masthead
from masthead.config import load_site
from masthead.web.app import create_app

from support.browser import FLAGS, chromium_path
from support.servers import uvicorn_server

POST = "/posts/typography-for-long-reads/"
ZH_POST = "/zh/posts/kubelet-syncloop-pleg/"
# the page box of the elements matched, united, in CSS px of the whole page
BOX = """sels => {
  const rs = sels.flatMap(s => [...document.querySelectorAll(s)].slice(0, 1))
    .map(e => e.getBoundingClientRect());
  if (!rs.length) return null;
  const x = Math.min(...rs.map(r => r.left)), y = Math.min(...rs.map(r => r.top));
  return {x: x + scrollX, y: y + scrollY,
          width: Math.max(...rs.map(r => r.right)) - x,
          height: Math.max(...rs.map(r => r.bottom)) - y};
}"""


def clip_of(page: Page, *selectors: str, pad: float = 12, max_height: float = 1400) -> dict:
    """The region around the first match of each selector (united), `pad` px wider on each side
    and cut at the page's width; raises if none matches."""
    box = page.evaluate(BOX, list(selectors))
    if box is None:
        raise LookupError(f"nothing matches {selectors}")
    width = page.evaluate("document.documentElement.clientWidth")
    x = max(0, box["x"] - pad)
    y = max(0, box["y"] - pad)
    return {
        "x": x,
        "y": y,
        "width": min(width - x, box["width"] + 2 * pad),
        "height": min(max_height, box["height"] + 2 * pad),
    }


def shot(page: Page, file: Path, *selectors: str, **kw: Any) -> None:
    """A PNG of the region around `selectors` (see `clip_of`), all blocks drawn."""
    page.add_style_tag(content=DRAW_ALL)
    page.evaluate(FRAMES)
    page.screenshot(path=str(file), full_page=True, clip=clip_of(page, *selectors, **kw))


def fonts(page: Page, selector: str) -> str:
    """The fonts Chromium drew the text directly inside the first `selector` match in, with
    their glyph counts (CDP CSS.getPlatformFontsForNode), e.g. 'DejaVu Serif 12'."""
    page.add_style_tag(content=DRAW_ALL)  # a skipped block (content-visibility) draws nothing
    page.evaluate(FRAMES)
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument")["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    used = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    cdp.detach()
    return ", ".join(f"{f['familyName']} {f['glyphCount']}" for f in used) or "none"


def say(name: str, what: str) -> None:
    print(f"  {name}: {what}")


def not_found(page: Page, base: str, stem: str, out: Path) -> None:
    page.goto(base + "/no-such-page/")
    contrast = page.evaluate(
        """() => { const p = document.querySelector('.error-page__status');
           const s = getComputedStyle(p); return s.color + ' on ' +
           getComputedStyle(document.body).backgroundColor; }"""
    )
    say(stem, f"the big status: {contrast}")
    shot(page, out / f"{stem}.png", "main", pad=0)


def snippet(page: Page, base: str, stem: str, out: Path) -> None:
    page.goto(base + "/search?q=heart")
    say(stem, page.locator(".hit__snippet").first.inner_text())
    shot(page, out / f"{stem}.png", ".hit", pad=8)


FACET_OUTLINE = ".facet a { outline: 1px dashed #c00; outline-offset: 0; }"


def facets(page: Page, base: str, stem: str, out: Path) -> None:
    page.goto(base + "/search?q=kubelet")
    heights = page.eval_on_selector_all(
        ".facet a", "as => as.map(a => Math.round(a.getBoundingClientRect().height))"
    )
    say(stem, f"facet link heights {heights} px")
    page.add_style_tag(content=FACET_OUTLINE)  # the target's box, drawn for the picture
    shot(page, out / f"{stem}.png", ".facets", pad=8)


def contents_button(page: Page, base: str, stem: str, out: Path) -> None:
    """Two shots of the viewport's lower 320 px: after reading down, after scrolling back."""
    page.goto(base + POST)
    page.wait_for_load_state("networkidle")
    page.mouse.move(195, 400)
    views = page.viewport_size or {"width": 390, "height": 844}
    region = {"x": 0, "y": views["height"] - 320, "width": views["width"], "height": 320}
    # six wheel steps down, then two back up: the reader still inside the text
    for direction, dy, steps in (("down", 300, 6), ("up", -300, 2)):
        for _ in range(steps):
            page.mouse.wheel(0, dy)
            page.wait_for_timeout(120)
        page.wait_for_timeout(600)  # the transition (site.css: transform, opacity)
        state = page.eval_on_selector(
            ".toc-button",
            "b => b.className + ' opacity=' + getComputedStyle(b).opacity",
        )
        say(f"{stem}-{direction}", f"scrollY={page.evaluate('scrollY')} button: {state}")
        # the viewport, not the page: the button is fixed to it
        prefix, state = stem.rsplit("-", 1)
        page.screenshot(path=str(out / f"{prefix}-{direction}-{state}.png"), clip=region)


def table(page: Page, base: str, stem: str, out: Path) -> None:
    page.goto(base + POST)
    widths = page.evaluate(
        """() => { const t = document.querySelector('.prose table');
           const col = t.closest('.prose').getBoundingClientRect().width;
           const tb = t.querySelector('tbody').getBoundingClientRect().width;
           return Math.round(tb) + ' px of a ' + Math.round(col) + ' px column'; }"""
    )
    say(stem, f"table rows {widths}")
    # the column's width around the table: its paragraph above shows where the column ends
    page.add_style_tag(content=DRAW_ALL)
    page.evaluate(FRAMES)
    col = clip_of(page, ".prose", pad=12)
    tab = clip_of(page, ".prose table", pad=16)
    region = {"x": col["x"], "y": tab["y"], "width": col["width"], "height": tab["height"]}
    page.screenshot(path=str(out / f"{stem}.png"), full_page=True, clip=region)


def code_cue(page: Page, base: str, stem: str, out: Path) -> None:
    page.goto(base + POST)
    wide = page.evaluate(
        """() => [...document.querySelectorAll('.prose pre')].findIndex(
             p => p.scrollWidth > p.clientWidth)"""
    )
    say(stem, f"first code block wider than its frame: #{wide}")
    # its frame if there is one (after), else the pre itself (before)
    page.evaluate(
        """i => { const p = document.querySelectorAll('.prose pre')[i];
           (p.closest('.code-block') || p).id = 'mh-shot'; }""",
        wide,
    )
    shot(page, out / f"{stem}.png", "#mh-shot", pad=10)


def header_lang(page: Page, base: str, stem: str, out: Path) -> None:
    page.goto(base + POST)
    say(stem, "中文 in " + fonts(page, ".lang-switch a"))
    say(stem, "English in " + fonts(page, ".lang-switch [aria-current]"))
    say(stem, "中文 lang=" + str(page.eval_on_selector(".lang-switch a", "a => a.lang")))
    shot(page, out / f"{stem}.png", ".lang-switch", pad=10)


# This machine has no font the old stacks named before `serif` (Noto/Source Han CJK), so its
# old pages drew Latin text in Liberation Serif anyway; a machine that has one drew English in
# the CJK font's Latin glyphs. The machine's CJK font under those names stands in for one.
CJK_INSTALLED = "".join(
    f'@font-face {{ font-family: "{name}"; src: local("WenQuanYi Zen Hei"); }}'
    for name in ("Noto Serif CJK SC", "Noto Sans CJK SC", "Source Han Serif SC")
)


def latin_text(page: Page, base: str, stem: str, out: Path) -> None:
    page.goto(base + POST)
    page.add_style_tag(content=CJK_INSTALLED)
    page.evaluate(
        """() => { const p = [...document.querySelectorAll('.prose p')]
             .find(p => p.textContent.includes('sit down')); p.id = 'mh-shot'; }"""
    )
    say(stem, "an English paragraph in " + fonts(page, "#mh-shot"))
    shot(page, out / f"{stem}.png", "#mh-shot", pad=10)


def zh_title(page: Page, base: str, stem: str, out: Path) -> None:
    page.goto(base + ZH_POST)
    say(stem, "the title in " + fonts(page, "h1"))
    say(stem, "the header's English link in " + fonts(page, ".lang-switch a"))
    shot(page, out / f"{stem}.png", "h1", pad=12)


def zh_hit(page: Page, base: str, stem: str, out: Path) -> None:
    page.goto(base + "/search?q=kubelet")
    page.evaluate(
        """() => { const a = [...document.querySelectorAll('.hit__title a')]
             .find(a => a.getAttribute('hreflang') === 'zh-Hans');
           a.closest('.hit').id = 'mh-shot'; }"""
    )
    lang = page.evaluate(
        """() => { const h = document.getElementById('mh-shot');
           return [...h.querySelectorAll('[lang]')].map(e => e.tagName + '[lang=' +
             e.getAttribute('lang') + '] ' + getComputedStyle(e).fontFamily.slice(0, 40)); }"""
    )
    say(stem, f"lang attributes in the Chinese hit: {lang}")
    say(stem, "its title in " + fonts(page, "#mh-shot .hit__title a"))
    say(stem, "its snippet in " + fonts(page, "#mh-shot .hit__snippet"))
    shot(page, out / f"{stem}.png", "#mh-shot", pad=10)


Take = Callable[[Page, str, str, Path], None]
# name: (width, function); all in the light theme, at 1 device px a CSS px but SCALED
SHOTS: dict[str, tuple[int, Take]] = {
    "10-404": (390, not_found),
    "11-snippet": (390, snippet),
    "11-facets": (390, facets),
    "12-contents-button": (390, contents_button),
    "13-table": (1280, table),
    "13-code-cue": (390, code_cue),
    "14-lang-switch": (1280, header_lang),
    "14-latin-text-with-noto-cjk": (1280, latin_text),
    "14-zh-title": (1280, zh_title),
    "14-search-zh-hit": (1280, zh_hit),
}
SCALED = {"14-lang-switch": 2}  # two short words: drawn at 2 device px a CSS px to be read


def main(out: Path, state: str, names: list[str]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    demo = Path(masthead.__file__).parent / "demo"
    print(f"masthead from {demo.parent}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "demo"
        shutil.copytree(demo, root, ignore=shutil.ignore_patterns(".masthead"))
        with (
            uvicorn_server(create_app(load_site(root)), timeout=60) as base,
            sync_playwright() as p,
        ):
            # a script, not a test: no session fixture, its own Chromium
            browser = p.chromium.launch(executable_path=chromium_path(), args=FLAGS)
            for name in names or list(SHOTS):
                width, take = SHOTS[name]
                height = 844 if width < 600 else 900
                page = browser.new_page(  # bypass_csp: DRAW_ALL is an inline style
                    viewport={"width": width, "height": height},
                    color_scheme="light",
                    device_scale_factor=SCALED.get(name, 1),
                    bypass_csp=True,
                )
                take(page, base, f"{name}-{width}-light-{state}", out)
                page.close()
            browser.close()


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[2] not in ("before", "after"):
        sys.exit(__doc__)
    main(Path(sys.argv[1]), sys.argv[2], sys.argv[3:])
