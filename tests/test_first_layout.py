"""A post's first layout shapes its first screens only, and what the reader reaches is drawn where
it lands (issue 13: Lighthouse's mobile performance; LH3 in the old BENCHMARKS.md).

The longest task of a post's load was its one big layout, and most of that was waiting for fonts:
one synchronous look-up per font name a stack gives before one the machine has, per weight. So
- each Latin stack names first the font Chromium on Linux draws for it anyway (Liberation, DejaVu),
  and the CJK serif stack names WenQuanYi before the macOS and Windows Song faces;
- the body's blocks after the 8th and what follows a long body are `content-visibility: auto`
  (site.css LH3): laid out when the reader nears them, never on the first screen;
- and with blocks above the reading position taking their real size late, scroll anchoring must
  hold the text: a #fragment, a TOC link and find-in-page land on what they target.

Real headless Chromium (one for the module) on the bundled demo over HTTP. Whether a block was
laid out is the last `contentvisibilityautostatechange` event the block got (CSS Containment 2:
`skipped` true while its contents are not laid out); a block that never got one is not skipped.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from urllib.parse import urljoin

import pytest
from PIL import Image
from playwright.sync_api import Browser, Page

from support.a11y_rig import demo_server
from support.browser import FRAMES
from support.layout import OBSERVE, shifts_when_settled, still, two_part_proxy
from support.servers import uvicorn_server

pytestmark = pytest.mark.gate  # the accessibility, HTML and performance gates (pyproject)

POST = "/posts/typography-for-long-reads/"
POST_ZH = "/zh/posts/typography-for-long-reads/"
SEARCH = "/search?q=kubelet"
SCREENS = {390: 844, 412: 823, 1280: 900, 1350: 940}  # width: height (Lighthouse's are 412, 1350)
WATCH = """document.addEventListener("contentvisibilityautostatechange",
  e => { e.target.dataset.skipped = e.skipped; }, true);"""
DRAWN = "e => e.dataset.skipped !== 'true'"
# the body's blocks: [drawn, top] each, with the window's height
BLOCKS = """() => [innerHeight, [...document.querySelectorAll('.post-body > *')].map(e =>
  [e.dataset.skipped !== 'true', e.getBoundingClientRect().top])]"""
SHOWN = "e => getComputedStyle(e).contentVisibility === 'visible'"


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Iterator[str]:
    with demo_server(tmp_path_factory.mktemp("first-layout")) as url:
        yield url


@pytest.fixture(scope="module")
def shared(chromium: Browser) -> Iterator[Page]:
    """One page for the tests that load a page and read it: each test loads its URL afresh (a new
    document, `WATCH` run again), at its width, with the HTTP cache off as in a new context. A
    new page each test cost a renderer process of its own (about 0.4 s of CPU; 22 tests)."""
    context = chromium.new_context()
    page = context.new_page()
    page.add_init_script(WATCH)
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    yield page
    context.close()


def _load(page: Page, width: int, url: str) -> Page:
    """`url` loaded in `page` (`shared`) at `width` (its screen's height), as a new document."""
    page.emulate_media(media="null")  # a test before may have printed
    page.set_viewport_size({"width": width, "height": SCREENS[width]})
    if "#" in url and page.url.split("#")[0] == url.split("#")[0]:
        # else only a jump within the document already there; a page of the same site keeps
        # the renderer process (about:blank would take a new one)
        page.goto(urljoin(url, "/healthz"))
    page.goto(url, wait_until="load")
    return page


def _top(page: Page, id_: str) -> float:
    return page.evaluate("id => document.getElementById(id).getBoundingClientRect().top", id_)


@pytest.mark.parametrize("width", [412, 1350])
@pytest.mark.parametrize("path", [POST, POST_ZH])
def test_a_post_lays_out_its_first_screens_only_and_prints_everything(shared, base, path, width):
    page = _load(shared, width, base + path)
    page.evaluate(FRAMES)
    height, blocks = page.evaluate(BLOCKS)
    on_screen = [i for i, (_, top) in enumerate(blocks) if top < height]
    assert on_screen and all(blocks[i][0] for i in on_screen), "every block on screen is drawn"
    far = [drawn for drawn, top in blocks if top > 3 * height]
    assert far and not any(far), "no block three screens down is laid out at load"
    for after in (".comments", ".site-footer"):
        assert not page.locator(after).evaluate(DRAWN), f"{after} is not laid out at load"
    page.emulate_media(media="print")
    printed = page.locator(".post-body > *, .post-main > *, .site-footer").evaluate_all(
        f"els => els.map({SHOWN})"
    )
    assert all(printed), "a printed post shows every block"


@pytest.mark.parametrize(("width", "height"), [(390, 1800), (800, 2400)])
def test_a_post_painted_with_skippable_blocks_on_screen_does_not_move(browser, base, width, height):
    """A window taller than the 8 blocks never skipped, and a page painted before its body is
    parsed to the end (a proxy sends it in two parts, 1.5 s apart): the blocks on screen that
    may be skipped are drawn at their real size, and nothing drawn moves (Layout Instability
    API) when the rest arrives."""
    proxy = two_part_proxy(base, '<div class="code-block"')
    with uvicorn_server(proxy) as url:
        page = browser.new_page(viewport={"width": width, "height": height})
        page.add_init_script(OBSERVE)
        page.goto(url + POST, wait_until="commit")
        # the first part drawn before the second arrives
        proxy.paint_then_release(page, before="!!document.querySelector('.post-body .code-block')")
        assert not proxy.before_release, "the test shows nothing: it was all there at once"
        shifts = shifts_when_settled(page)
        skippable = page.evaluate(
            """() => [...document.querySelectorAll('.post-body > *')].filter(e =>
            getComputedStyle(e).contentVisibility === 'auto'
            && e.getBoundingClientRect().top < innerHeight).length"""
        )
        page.close()
    assert skippable, "no block on screen may be skipped: the test shows nothing"
    assert shifts == [], shifts


LATE = ("hyphenation-and-justification", "a-checklist-for-your-next-long-read", "fn:2")


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("target", LATE)
def test_a_fragment_lands_on_its_target_over_blocks_not_yet_laid_out(shared, base, target, width):
    """The blocks between the first screen and the target are still skipped when the page opens
    at the target; blocks near it take their real size after the jump, and the target stays
    where the jump put it (html's scroll-padding and :target's scroll-margin: 48 px)."""
    page = _load(shared, width, f"{base}{POST}#{target}")
    still(page)  # the blocks near the target have taken their real size
    assert abs(_top(page, target) - 48) <= 1.5, f"#{target} at {_top(page, target)} px"
    middle = page.locator(".post-body > :nth-child(12)")
    assert not middle.evaluate(DRAWN), "the blocks in between were jumped over, not laid out"


def test_toc_links_and_find_in_page_reach_blocks_not_yet_laid_out(shared, base):
    page = _load(shared, 1280, base + POST)
    assert not page.locator(f"[id='{LATE[0]}']").evaluate(DRAWN)
    for target in (LATE[0], "why-long-reads-are-different"):  # down over skipped blocks, back up
        page.locator(f"#mh-toc a[href='#{target}']").click()
        still(page)  # the jump (and any smooth scroll) ended, the blocks near it laid out
        assert abs(_top(page, target) - 48) <= 1.5
        current = page.locator("#mh-toc a.is-current").get_attribute("href")
        assert current == f"#{target}", "the TOC marks the section jumped to"
    page.evaluate("scrollTo(0, 0)")
    page.evaluate(FRAMES)
    last = page.locator(".post-body > p").last
    assert not last.evaluate(DRAWN)
    words = " ".join(last.text_content().split()[-4:])  # a skipped block keeps its text
    assert page.evaluate("w => window.find(w)", words), "find-in-page finds it"
    page.evaluate(FRAMES)
    assert last.evaluate(DRAWN)
    box = last.bounding_box()
    assert box and 0 <= box["y"] < SCREENS[1280], "and shows it"


def test_the_reading_position_holds_when_a_block_above_it_grows(shared, base):
    """Scroll anchoring (CSS Scroll Anchoring 1) keeps the text in place: on wide screens the
    TOC rail, in the viewport at every position, came first in the anchor search, and its
    sticky list never moves, so the text moved by what grew above it (phones have no rail)."""
    page = _load(shared, 1280, base + POST)
    target = "choosing-a-typeface"
    page.evaluate("id => document.getElementById(id).scrollIntoView()", target)
    page.evaluate(FRAMES)
    before = _top(page, target)
    grow = "() => { const p = document.querySelector('.post-body > p'); p.append(p.textContent) }"
    page.evaluate(grow)  # a block above the reading position grows
    page.evaluate(FRAMES)
    assert abs(_top(page, target) - before) <= 1, f"moved {_top(page, target) - before:+.0f} px"


# site.css's local() faces (@font-face), by the installed family each one names
LOCAL_FACES = {"WenQuanYi Zen Hei local": "WenQuanYi Zen Hei"}


def _names(stack: str) -> list[str]:
    """The families of a computed `font-family`, each local() face as the font it draws."""
    names = [name.strip().strip('"') for name in stack.split(",")]
    return [LOCAL_FACES.get(name, name) for name in names]


# which stack sets what, the first name it gives on a Linux machine with Chromium's font
# packages (Debian's chromium depends on fonts-liberation; .ci/run installs fonts-wqy-zenhei),
# and how many names may come before the one drawn
STACKS = [
    (POST, ".post-body > p", 0),  # serif
    (POST, ".site-nav a", 0),  # sans
    (POST, ".code-block code", 0),  # mono
    (POST_ZH, ".post-body > p", 2),  # CJK serif: Source Han and Noto before WenQuanYi
]


@pytest.mark.parametrize(("path", "selector", "before"), STACKS)
def test_each_stack_names_the_font_drawn_on_linux_before_other_systems_fonts(
    shared, base, path, selector, before
):
    """Every name before the one drawn costs a synchronous look-up per weight in the first
    layout; macOS and Windows ship none of the Linux fonts named first, so they keep theirs."""
    page = _load(shared, 1280, base + path)
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    cdp.detach()
    drawn = max(fonts, key=lambda f: f["glyphCount"])["familyName"]
    stack = page.locator(selector).first.evaluate("e => getComputedStyle(e).fontFamily")
    names = _names(stack)
    assert drawn in names, f"{selector} drawn in {drawn}, not in its stack {names}"
    assert names.index(drawn) <= before, f"{selector}: {names[: names.index(drawn)]} first"


# Chinese text on the English search page, and how many names of its stack may come before
# the one that draws it: the CJK serif stack for titles and snippets, the CJK sans in facets
MIXED = [
    (".hit:has(a[hreflang='zh-Hans']) .hit__snippet", 2),
    (".hit a[hreflang='zh-Hans']", 2),
    (".facet a[href$='lang=zh']", 4),  # PingFang, YaHei, Source Han and Noto first
    (".facet a[href*='tag=%E6']", 4),  # a tag of the Chinese post only (源码)
]


@pytest.mark.parametrize(("selector", "before"), MIXED)
def test_a_hit_in_another_language_is_set_in_its_own_stack(shared, base, selector, before):
    """A Chinese hit among English ones says its language (WCAG 3.1.2, Language of Parts), so
    its Han characters take the CJK stack at once: without it each walked the whole Latin stack
    first, one synchronous look-up per absent name and weight, in the page's first layout."""
    page = _load(shared, 1280, base + SEARCH)
    element = page.locator(selector).first
    assert element.evaluate("e => e.closest('[lang]').lang") == "zh-Hans"
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    drawn = [
        f["familyName"] for f in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    ]
    cdp.detach()
    stack = element.evaluate("e => getComputedStyle(e).fontFamily")
    names = _names(stack)
    late = [f for f in drawn if f not in names[: before + 1]]
    assert not late, f"{selector} drawn in {drawn}; its stack {names}"


INK = """async (weight) => {
  const h = document.querySelector('.post-header h1');
  h.style.fontWeight = weight;
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
}"""


def _ink(page: Page, selector: str) -> int:
    """Dark pixels in a screenshot of `selector` (the text's ink)."""
    shot = Image.open(io.BytesIO(page.locator(selector).screenshot())).convert("L")
    return sum(shot.histogram()[:128])


@pytest.mark.parametrize("path", [POST_ZH, "/zh/posts/kubelet-syncloop-pleg/"])
def test_chinese_headings_are_bold_in_a_font_with_one_weight(shared, base, path):
    """WenQuanYi Zen Hei (Linux's usual CJK font, as in .ci/run) has no bold face; named in a
    stack, Chromium drew a Chinese heading's bold regular. site.css names it as a local() face
    declared regular, so bold is synthesised: the heading has clearly more ink than at 400."""
    page = _load(shared, 1280, base + path)
    selector = ".post-header h1"
    bold = _ink(page, selector)
    page.evaluate(INK, "400")
    regular = _ink(page, selector)
    assert bold > regular * 1.15, f"bold {bold} dark pixels, regular {regular}"
