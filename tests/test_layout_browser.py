"""The layout of issue 13 (item 2, and item 4's geometry gate) measured in real headless Chromium
against real uvicorn servers: the bundled demo and the Kubernetes blog corpus (tests/data/k8s-blog,
CC BY 4.0), in both languages, at the widths readers use (390 px phone to 1920 px desktop).

Each test states one promise of the layout as geometry read from the page (bounding boxes,
`scrollWidth`, computed styles), or as behaviour (scrolling, keyboard, clipboard, axe-core rules).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page

from masthead.config import load_site
from masthead.web.app import create_app

from support.browser import quiet
from support.servers import uvicorn_server
from support.sites import DEMO

# the tests reading the module's served sites: one worker makes them, not every worker
pytestmark = pytest.mark.xdist_group("layout-sites")

CORPUS = Path(__file__).parent / "data" / "k8s-blog"
WIDTHS = (390, 768, 1152, 1280, 1440, 1920)
RAIL_WIDTHS = (1152, 1280, 1440, 1920)
PHONE = 390

DEMO_PAGES = (
    "/",
    "/zh/",
    "/posts/typography-for-long-reads/",
    "/zh/posts/typography-for-long-reads/",
    "/posts/kubelet-syncloop-pleg/",
    "/zh/posts/kubelet-syncloop-pleg/",
    "/series/kubelet-source-code-deep-dive/",
    "/posts/moving-from-hugo/",
    "/archive/",
    "/zh/archive/",
    "/tags/",
    "/tags/kubernetes/",
    "/search?q=kubelet",
    "/about/",
)
# corpus posts with long code lines, wide tables, long inline code and long titles
CORPUS_POSTS = (
    "/posts/ipvs-in-cluster-load-balancing/",
    "/posts/local-k8s-development-tools/",
    "/posts/kubernetes-v1-30-release/",
    "/posts/cpumanager-strict-cpu-reservation/",
    "/zh/posts/cpumanager-strict-cpu-reservation/",
    "/zh/posts/kubernetes-1-31-prevent-persistentvolume-leaks-when-deleting-out-of-order/",
    "/zh/posts/fine-grained-pod-topology-spread-features-beta/",
)


def _serve(root: Path, tmp_path_factory, menu: list | None = None) -> Iterator[str]:
    site_root = tmp_path_factory.mktemp("layout") / root.name
    shutil.copytree(root, site_root, ignore=shutil.ignore_patterns(".masthead"))
    app = create_app(load_site(site_root))
    if menu is not None:  # READER's `menu` context: the site's pages, header and footer
        app.state.renderer.env.globals["menu"] = menu
    with uvicorn_server(app) as base:
        yield base


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Iterator[str]:
    yield from _serve(DEMO, tmp_path_factory)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Iterator[str]:
    yield from _serve(CORPUS, tmp_path_factory)


@pytest.fixture(scope="module")
def corpus_with_menu(tmp_path_factory) -> Iterator[str]:
    """The corpus (a long site title) with three menu entries in the header."""
    menu = [
        {"title": "About", "url": "/about/"},
        {"title": "Contributing", "url": "/contribute/"},
        {"title": "Releases", "url": "/releases/"},
    ]
    yield from _serve(CORPUS, tmp_path_factory, menu)


@pytest.fixture(scope="module")
def reader(chromium) -> Iterator[Page]:
    """One page for the tests that only read, scroll and resize (`_page`): a context costs
    Chromium about a fifth of a second, and these tests leave nothing in it (no cookie, no
    storage, no permission). The code-copy tests, which grant clipboard access, have their own."""
    context = chromium.new_context()
    yield context.new_page()
    context.close()


def _page(reader: Page, width: int, scheme: str = "light") -> Page:
    """The shared page at this viewport and colour scheme, for the test's next load: each
    `goto` after this is a fresh document at that size, as a new context's page would be."""
    height = 844 if width < 600 else 900
    reader.goto("about:blank")  # the next load is a new document, even of the URL shown now
    reader.set_viewport_size({"width": width, "height": height})
    reader.emulate_media(color_scheme=scheme)
    return reader


def _box(page: Page, selector: str) -> dict[str, float]:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, f"{selector} is not rendered on {page.url}"
    return box


def test_the_rail_header_and_column_share_one_grid(reader, demo, corpus):
    """The TOC rail starts where the header's content starts (never in the viewport's edge,
    never left of the header), and ends before the text column, at every width with a rail.
    A page is loaded once and resized (its layout is the CSS's alone: no script reads the
    width, as in `test_no_element_is_wider_than_the_viewport`)."""
    page = _page(reader, RAIL_WIDTHS[0])
    for url in (
        demo + "/posts/typography-for-long-reads/",
        demo + "/zh/posts/typography-for-long-reads/",
        corpus + "/posts/ipvs-in-cluster-load-balancing/",
    ):
        page.set_viewport_size({"width": RAIL_WIDTHS[0], "height": 900})
        page.goto(url)
        for width in RAIL_WIDTHS:
            page.set_viewport_size({"width": width, "height": 900})
            _rail_in_the_grid(page, url, width)


def _rail_in_the_grid(page: Page, url: str, width: int) -> None:
    header = _box(page, ".site-title")
    rail = _box(page, ".toc-rail")
    title = _box(page, ".toc__title")
    column = _box(page, ".post-main")
    assert rail["x"] >= header["x"] - 0.5, (url, width, rail["x"], header["x"])
    assert title["x"] >= header["x"] - 0.5, (url, width, "CONTENTS", title["x"])
    assert rail["x"] + rail["width"] <= column["x"], (url, width, "rail overlaps the text")
    assert column["x"] + column["width"] <= width - header["x"] + 0.5, (url, width)


def test_archive_titles_get_most_of_a_phone(reader, demo, corpus):
    """The archive's title column is at least 60% of a 390 px phone's width."""
    page = _page(reader, PHONE)
    for url in (corpus + "/archive/", corpus + "/zh/archive/", demo + "/archive/"):
        page.goto(url)
        columns = page.evaluate(
            """() => [...document.querySelectorAll('.archive-list li')].map(li => {
                 const a = li.querySelector('a').getBoundingClientRect();
                 return li.getBoundingClientRect().right - a.left; })"""
        )
        assert columns, url
        assert min(columns) >= 0.6 * PHONE, (url, min(columns))


def _too_wide(page: Page) -> list[str]:
    """What sticks out of the viewport: the document's scrollWidth, and the elements whose
    right edge passes the viewport (outside any scroll container)."""
    return page.evaluate(
        """() => {
          const root = document.documentElement;
          if (root.scrollWidth <= innerWidth) return [];
          const out = ['scrollWidth ' + root.scrollWidth + ' > ' + innerWidth];
          for (const e of document.body.querySelectorAll('*')) {
            const b = e.getBoundingClientRect();
            if (b.width && b.right > innerWidth + 0.5) {
              let p = e.parentElement, clipped = false;
              for (; p && p !== document.body; p = p.parentElement)
                if (getComputedStyle(p).overflowX !== 'visible') { clipped = true; break; }
              if (!clipped) out.push(`${e.tagName}.${e.className}: ${e.textContent.slice(0, 40)}`);
            }
          }
          return out.slice(0, 6);
        }"""
    )


def test_no_element_is_wider_than_the_viewport(reader, demo, corpus):
    """Nothing scrolls the page sideways: the demo's pages at every width, the corpus' hardest
    posts (long code lines and inline code, wide tables, long titles) at a phone's and a
    laptop's width. Both themes share this geometry."""
    page = _page(reader, PHONE)
    found = {}
    pages = [(demo + u, WIDTHS) for u in DEMO_PAGES]
    pages += [(corpus + u, (PHONE, 1280)) for u in CORPUS_POSTS]
    pages += [(corpus + u, (PHONE,)) for u in ("/", "/zh/", "/archive/", "/search?q=volume")]
    for url, widths in pages:
        page.set_viewport_size({"width": widths[0], "height": 844})
        page.goto(url)
        for width in widths:
            page.set_viewport_size({"width": width, "height": 844})
            wide = _too_wide(page)
            if wide:
                found[f"{url} @{width}"] = wide
    assert found == {}, found


def _rows(page: Page) -> int:
    """How many rows the header's items take: boxes that overlap vertically share a row."""
    boxes = page.evaluate(
        """() => [...document.querySelector('.site-header__inner').querySelectorAll(
                   '.site-title, .site-nav a, .search-form, .lang-switch li, '
                   + '.site-header__tools > *')]
              .map(e => e.getBoundingClientRect()).filter(b => b.width > 0 && b.height > 0)
              .map(b => [b.top, b.bottom])"""
    )
    rows: list[list[float]] = []
    for top, bottom in sorted(boxes):
        if rows and top < rows[-1][1] - 2:
            rows[-1][1] = max(rows[-1][1], bottom)
        else:
            rows.append([top, bottom])
    return len(rows)


def test_the_phone_header_takes_two_rows_at_most(reader, demo, corpus, corpus_with_menu):
    """At 360 and 390 px: each page loaded once at 360 px, then resized (as above)."""
    page = _page(reader, 360)
    for url in (
        corpus_with_menu + "/",
        corpus_with_menu + "/zh/archive/",
        corpus + "/",
        corpus + "/zh/posts/cpumanager-strict-cpu-reservation/",
        corpus + "/search?q=volume",
        demo + "/",
        demo + "/zh/",
    ):
        page.set_viewport_size({"width": 360, "height": 844})
        page.goto(url)
        for width in (360, PHONE):
            page.set_viewport_size({"width": width, "height": 844})
            _header_in_two_rows(page, url, width)


def _header_in_two_rows(page: Page, url: str, width: int) -> None:
    """The header of the page shown at `width`: two rows at most, the title on one line, no
    overflow, a search box one can type in."""
    assert _rows(page) <= 2, (url, width, _rows(page))
    title = _box(page, ".site-title")
    line = page.evaluate(
        "() => parseFloat(getComputedStyle(document.querySelector('.site-title')).lineHeight)"
    )
    assert title["height"] < 1.5 * line, (url, "the site title wraps")
    assert _box(page, ".site-header")["height"] <= 100, url
    assert page.evaluate("document.documentElement.scrollWidth") <= width, url
    if "/search" not in url:  # the search page has its own, big box instead
        box = _box(page, ".site-header .search-form input")
        assert box["width"] >= 80, (url, "a search box one can type in", box["width"])


def _button_shown(page: Page) -> bool:
    return page.evaluate(
        """() => { const b = document.querySelector('.toc-button').getBoundingClientRect();
                   const s = getComputedStyle(document.querySelector('.toc-button'));
                   return s.visibility !== 'hidden' && parseFloat(s.opacity) > 0.5
                          && b.top < innerHeight && b.bottom > 0; }"""
    )


def test_the_contents_button_hides_on_scroll_down_and_returns_on_scroll_up(reader, demo):
    page = _page(reader, PHONE)
    page.goto(demo + "/posts/typography-for-long-reads/")
    assert _button_shown(page)
    for _ in range(6):
        page.mouse.wheel(0, 200)
        quiet(page)
    page.wait_for_function("() => window.scrollY > 600")
    quiet(page)
    assert not _button_shown(page), "the button stays over the text while reading down"
    page.mouse.wheel(0, -150)
    quiet(page)
    assert _button_shown(page), "scrolling up brings the button back"
    # tucked away, it stays in the tab order, and shows itself when Tab reaches it
    for _ in range(6):
        page.mouse.wheel(0, 200)
        quiet(page)
    quiet(page)
    assert not _button_shown(page)
    page.evaluate(
        """() => { const b = document.querySelector('.toc-button');
                   const all = [...document.querySelectorAll('a[href], button, [tabindex="0"]')];
                   all[all.indexOf(b) - 1].focus({ preventScroll: true }); }"""
    )
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className").startswith("toc-button")
    quiet(page)
    assert _button_shown(page), "keyboard focus brings the button back"


def test_code_blocks_show_their_language_scroll_cue_and_copy_by_keyboard(browser, demo):
    context = browser.new_context(viewport={"width": PHONE, "height": 844})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=demo)
    page = context.new_page()
    page.goto(demo + "/posts/typography-for-long-reads/")
    block = page.locator(".code-block").first
    pre = block.locator("pre")
    lang = pre.get_attribute("data-lang")
    assert lang
    shown = block.evaluate("b => getComputedStyle(b, '::before').content")
    assert shown == f'"{lang}"', "the language label comes from data-lang, by CSS"
    # reachable by keyboard, with a name (axe scrollable-region-focusable)
    assert pre.get_attribute("tabindex") == "0" and pre.get_attribute("aria-label")
    # a long line: the block scrolls, and says so (a shadow at the edge with more code)
    wide = page.locator(".code-block pre").evaluate_all(
        "ps => ps.filter(p => p.scrollWidth > p.clientWidth).map(p => getComputedStyle(p))"
        ".map(s => [s.backgroundImage, s.backgroundAttachment])"
    )
    assert wide, "the demo post has a code block wider than a phone"
    for image, attachment in wide:
        assert "gradient" in image and "local" in attachment and "scroll" in attachment
    # the copy button, by keyboard: focus, Enter, clipboard holds the code, "Copied" announced
    code = pre.evaluate("p => p.textContent")
    button = block.locator("button.code-copy")
    button.focus()
    page.keyboard.press("Enter")
    status = page.locator("[role=status].code-copy-status")
    status.wait_for(state="attached")
    page.wait_for_function(
        "() => document.querySelector('.code-copy-status').textContent.trim() !== ''"
    )
    assert status.text_content().strip() == "Copied"
    assert page.evaluate("navigator.clipboard.readText()") == code
    # what the button says is added by script: never in the page's HTML (search text)
    html = page.evaluate("fetch(location.href).then(r => r.text())")
    assert "code-copy" not in html
    context.close()


def test_the_chinese_copy_button_speaks_chinese(browser, demo):
    context = browser.new_context(viewport={"width": PHONE, "height": 844})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=demo)
    page = context.new_page()
    page.goto(demo + "/zh/posts/typography-for-long-reads/")
    page.locator("button.code-copy").first.click()
    page.wait_for_function(
        "() => document.querySelector('.code-copy-status').textContent.trim() !== ''"
    )
    assert page.locator(".code-copy-status").text_content().strip() == "已复制"
    context.close()


AXE_RULES = [
    "scrollable-region-focusable",
    "landmark-complementary-is-top-level",
    "landmark-unique",
    "aria-prohibited-attr",
    "aria-allowed-role",
    "nested-interactive",
    "target-size",
]


def test_axe_code_blocks_toc_and_targets(reader, demo, corpus):
    """axe-core's rules for what this layout owns: scrollable code blocks and tables reachable
    by keyboard, the TOC not a complementary landmark inside main, targets of 24 px; on a
    phone in the light scheme and at 1280 px in the dark one. A page is loaded once for both:
    resized and switched to dark (theme.js follows prefers-color-scheme's change as a page
    opened in dark would; no script reads the width)."""
    page = _page(reader, PHONE)
    axe = Axe()
    options = {"runOnly": {"type": "rule", "values": AXE_RULES}, "resultTypes": ["violations"]}
    found = {}
    for url in (
        demo + "/posts/typography-for-long-reads/",
        demo + "/zh/posts/kubelet-syncloop-pleg/",
        demo + "/search?q=kubelet",
        corpus + "/posts/local-k8s-development-tools/",
        corpus + "/zh/posts/cpumanager-strict-cpu-reservation/",
    ):
        _page(page, PHONE, "light").goto(url)
        for scheme, width in (("light", PHONE), ("dark", 1280)):
            page.set_viewport_size({"width": width, "height": 844 if width < 600 else 900})
            page.emulate_media(color_scheme=scheme)
            quiet(page)  # the new size and scheme drawn, theme.js's change handled
            violations = axe.run(page, options=options).response["violations"]
            if violations:
                key = f"{url} {scheme} @{width}"
                found[key] = [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in violations]
    assert found == {}, found


def test_tables_use_the_column_width(reader, demo, corpus):
    """A table's rows span the text column (a `display: block` table box does, its rows not)."""
    page = _page(reader, 1280)
    for url in (
        demo + "/posts/typography-for-long-reads/",
        corpus + "/posts/kubernetes-v1-30-release/",
    ):
        page.goto(url)
        column = _box(page, ".post-body")["width"]
        widths = page.locator(".post-body table").evaluate_all(
            "ts => ts.map(t => t.querySelector('tr').getBoundingClientRect().width)"
        )
        assert widths, url
        for w in widths:
            assert w >= column - 1, (url, w, column)


def test_touch_targets_on_phones(reader, demo):
    """Task-list checkboxes big enough to see and hit; facet links at least 24 px tall."""
    page = _page(reader, PHONE)
    page.goto(demo + "/posts/typography-for-long-reads/")
    boxes = page.locator(".task-list-item input").evaluate_all(
        "xs => xs.map(x => x.getBoundingClientRect()).map(b => [b.width, b.height])"
    )
    assert boxes and all(w >= 16 and h >= 16 for w, h in boxes), boxes
    page.goto(demo + "/search?q=kubernetes")
    heights = page.locator(".facet a").evaluate_all(
        "xs => xs.map(x => x.getBoundingClientRect().height)"
    )
    assert heights and min(heights) >= 24, heights


def _split_words(page: Page, word: str) -> bool:
    """True when the post title breaks a line inside `word` (its characters on two lines)."""
    return page.evaluate(
        """word => {
          const h = document.querySelector('.post-title');
          const walker = document.createTreeWalker(h, NodeFilter.SHOW_TEXT);
          const chars = [];
          for (let n; (n = walker.nextNode());)
            for (let i = 0; i < n.data.length; i++) chars.push([n, i]);
          const text = chars.map(([n, i]) => n.data[i]).join('');
          const at = text.indexOf(word);
          if (at < 0) throw new Error('no ' + word + ' in ' + text);
          const tops = new Set();
          for (let k = at; k < at + word.length; k++) {
            const r = document.createRange();
            r.setStart(chars[k][0], chars[k][1]); r.setEnd(chars[k][0], chars[k][1] + 1);
            tops.add(Math.round(r.getBoundingClientRect().top));
          }
          return tops.size > 1;
        }""",
        word,
    )


def test_chinese_titles_break_between_words(reader, demo):
    """深度解 / 析 no more: a Chinese title breaks between words, at every phone width, and
    headings are balanced."""
    page = _page(reader, PHONE)
    page.goto(demo + "/zh/posts/kubelet-syncloop-pleg/")
    split = []
    for width in range(320, 481, 8):
        page.set_viewport_size({"width": width, "height": 844})
        split += [(width, w) for w in ("深度", "解析", "源码") if _split_words(page, w)]
    assert split == []
    styles = page.evaluate(
        """() => { const s = getComputedStyle(document.querySelector('.post-title'));
                   return [s.textWrap || s.textWrapStyle, s.wordBreak, s.lineBreak]; }"""
    )
    assert "balance" in styles[0] and styles[1:] == ["keep-all", "strict"], styles


def test_a_footnote_marker_never_starts_a_line(reader, demo):
    page = _page(reader, PHONE)
    page.goto(demo + "/zh/posts/kubelet-syncloop-pleg/")
    orphaned = []
    for width in range(320, 481, 4):
        page.set_viewport_size({"width": width, "height": 844})
        gap = page.evaluate(
            """() => { const ref = document.querySelector('.footnote-ref');
                 const before = ref.previousSibling;
                 const r = document.createRange();
                 r.setStart(before, before.data.length - 1); r.setEnd(before, before.data.length);
                 const a = ref.getBoundingClientRect(), b = r.getBoundingClientRect();
                 return a.bottom <= b.top + 2 || a.top >= b.bottom - 2; }"""
        )
        if gap:
            orphaned.append(width)
    assert orphaned == []
