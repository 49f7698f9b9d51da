"""Issue 13's light/dark switch, print stylesheet, search suggestions and font stacks per
language, in real headless Chromium (one browser for the module) against a real uvicorn
server, under the site's Content-Security-Policy (no violation may be reported)."""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from masthead.web.app import create_app

from support.browser import WATCH_CSP, quiet
from support.servers import uvicorn_server
from support.sites import post, write_site

LIGHT_BG = "rgb(251, 250, 247)"  # site.css --bg
DARK_BG = "rgb(21, 20, 19)"
LOCAL_FACES = {"WenQuanYi Zen Hei local": "WenQuanYi Zen Hei"}  # site.css's @font-face
CJK = re.compile(r"\b[ST]C\b|CJK|YaHei|JhengHei|PingFang|Hiragino|Song|SimSun|MingLiU|WenQuanYi")
BODY = """
Read [the upstream docs](https://kubernetes.io/docs/), [our kube-proxy notes](kube-proxy.md)
or [jump below](#details).

```python
# LONG
print("hello")
```

{{< figure src="/static/favicon.svg" alt="A diagram" caption="A figure" >}}

## Details

The end.
""".replace("LONG", "a comment too long for any column, wrapped when printed " * 4)
FILES = {
    "posts/kubelet-basics.md": post("Kubelet basics", "2024-03-01", BODY, tags="[k8s]"),
    "posts/kubelet-basics.zh.md": post("Kubelet 入门", "2024-03-01", "“节点”上的代理。\n"),
    "posts/kubernetes-networking.md": post("Kubernetes networking", "2024-02-01"),
    "posts/kube-proxy.md": post("What kube-proxy does", "2024-01-01"),
    "posts/sourdough.md": post("Sourdough", "2023-12-01"),
}


@pytest.fixture(scope="module")
def site_app(tmp_path_factory) -> Iterator[tuple[str, Any]]:
    site = write_site(tmp_path_factory.mktemp("theme") / "site", FILES)
    app = create_app(site)
    with uvicorn_server(app) as base:
        yield base, app


@pytest.fixture(scope="module")
def base(site_app) -> str:
    return site_app[0]


def _context(browser: Browser, base: str, **options: Any) -> BrowserContext:
    """A fresh context (its own localStorage) that records CSP violations and every request
    to another origin."""
    context = browser.new_context(viewport={"width": 1280, "height": 800}, **options)
    context.add_init_script(WATCH_CSP)
    foreign: list[str] = []
    context.on("request", lambda r: None if r.url.startswith(base) else foreign.append(r.url))
    context.foreign = foreign  # type: ignore[attr-defined]
    return context


def _clean(page: Page, context: BrowserContext) -> None:
    assert page.evaluate("window.__violations") == [], page.url
    assert [u for u in context.foreign if not u.startswith("data:")] == []  # type: ignore[attr-defined]


def _bg(page: Page) -> str:
    return page.evaluate("getComputedStyle(document.body).backgroundColor")


# --- the light/dark switch ------------------------------------------------------------------


@pytest.mark.parametrize("system", ["light", "dark"])
def test_the_choice_persists_across_reloads_and_pages_and_can_return_to_the_system(
    browser, base, system
):
    other = "dark" if system == "light" else "light"
    context = _context(browser, base, color_scheme=system)
    page = context.new_page()
    page.goto(base + "/")
    button = page.locator(".theme-switch")
    assert button.is_visible()
    assert button.get_attribute("aria-label") == "Dark theme"
    assert button.get_attribute("aria-pressed") == ("true" if system == "dark" else "false")
    assert page.evaluate("document.documentElement.dataset.theme") == "system"
    assert _bg(page) == (DARK_BG if system == "dark" else LIGHT_BG)

    # by keyboard: Tab reaches the button, Enter presses it
    for _ in range(20):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('theme-switch')"):
            break
    else:
        pytest.fail("the theme switch cannot be reached with Tab")
    page.keyboard.press("Enter")
    assert page.evaluate("document.documentElement.dataset.theme") == other
    assert button.get_attribute("aria-pressed") == ("true" if other == "dark" else "false")
    assert _bg(page) == (DARK_BG if other == "dark" else LIGHT_BG)
    assert page.evaluate("localStorage.getItem('masthead-theme')") == other

    # remembered: after a reload, on another page, in another language
    for url in ("/", "/posts/kubelet-basics/", "/zh/posts/kubelet-basics/", "/search?q=kube"):
        page.goto(base + url)
        assert page.evaluate("document.documentElement.dataset.theme") == other, url
        assert _bg(page) == (DARK_BG if other == "dark" else LIGHT_BG), url
        assert page.locator(".theme-switch").get_attribute("aria-pressed") == (
            "true" if other == "dark" else "false"
        )
    # the Chinese page names the button in Chinese
    page.goto(base + "/zh/")
    assert page.locator(".theme-switch").get_attribute("aria-label") == "深色主题"

    # pressing it again (Space this time) chooses the system's own theme: the choice is
    # forgotten, and the page follows the system setting again
    page.locator(".theme-switch").focus()
    page.keyboard.press("Space")
    assert page.evaluate("localStorage.getItem('masthead-theme')") is None
    assert page.evaluate("document.documentElement.dataset.theme") == "system"
    assert _bg(page) == (DARK_BG if system == "dark" else LIGHT_BG)
    page.emulate_media(color_scheme=other)
    assert _bg(page) == (DARK_BG if other == "dark" else LIGHT_BG)
    page.wait_for_function(  # the state follows the system's change (a media query event)
        "v => document.querySelector('.theme-switch').getAttribute('aria-pressed') === v",
        arg="true" if other == "dark" else "false",
    )
    _clean(page, context)
    context.close()


# Recorded by the page itself: the theme when <body> is first inserted (nothing can be painted
# before), and the background at DOMContentLoaded.
WATCH_FIRST_PAINT = """
window.__first = {};
new MutationObserver(function (records, observer) {
  if (!document.body) return;
  window.__first.atBody = document.documentElement.getAttribute("data-theme");
  observer.disconnect();
}).observe(document, { childList: true, subtree: true });
document.addEventListener("DOMContentLoaded", function () {
  window.__first.atReady = getComputedStyle(document.body).backgroundColor;
});
window.__shifts = 0;
new PerformanceObserver(function (list) {
  list.getEntries().forEach(function (e) { window.__shifts += e.value; });
}).observe({ type: "layout-shift", buffered: true });
"""


def test_the_chosen_theme_is_there_before_the_first_paint_and_nothing_shifts(browser, base):
    context = _context(browser, base, color_scheme="light")
    context.add_init_script("localStorage.setItem('masthead-theme', 'dark');")
    context.add_init_script(WATCH_FIRST_PAINT)
    page = context.new_page()
    page.goto(base + "/posts/kubelet-basics/")
    first = page.evaluate("window.__first")
    assert first == {"atBody": "dark", "atReady": DARK_BG}
    # a plain, blocking script file in <head>, before the style sheets (the CSP allows no
    # inline script; defer or async would run it after the first paint)
    head = page.evaluate(
        "[...document.head.children].map(e => e.tagName + ' ' + (e.getAttribute('src') ||"
        " e.getAttribute('href') || '') + (e.defer || e.async ? ' deferred' : ''))"
    )
    theme = [i for i, e in enumerate(head) if "/static/js/theme.js" in e]
    sheets = [i for i, e in enumerate(head) if e.startswith("LINK /static/css/")]
    assert theme and "deferred" not in head[theme[0]] and theme[0] < min(sheets), head
    for url in ("/", "/zh/posts/kubelet-basics/"):  # pages without images (their own shifts)
        page.goto(base + url)
        assert page.evaluate("window.__first") == {"atBody": "dark", "atReady": DARK_BG}
        quiet(page)
        assert page.evaluate("window.__shifts") == 0, "the switch appears without moving a thing"
    _clean(page, context)
    context.close()


def test_without_script_the_switch_is_hidden_and_the_system_rules(browser, base):
    page = browser.new_context(java_script_enabled=False).new_page()
    for system, background in (("dark", DARK_BG), ("light", LIGHT_BG)):
        page.emulate_media(color_scheme=system)  # the system's setting, then a page loaded
        page.goto(base + "/")
        assert page.locator(".theme-switch").count() == 1
        assert not page.locator(".theme-switch").is_visible()
        assert page.evaluate("document.documentElement.hasAttribute('data-theme')") is False
        assert _bg(page) == background
    page.context.close()


# the reader's choice, stored (or forgotten) before the next page loads
STORE = """c => c ? localStorage.setItem('masthead-theme', c)
  : localStorage.removeItem('masthead-theme')"""


def test_code_colours_follow_the_choice(browser, base):
    """The Pygments colours switch with the page: the reader's dark choice on a light system
    gets the dark token colours, a light choice on a dark system the light ones."""
    colours = {}
    # one page, each case a page loaded afresh (a new page each cost a renderer process)
    context = _context(browser, base)
    page = context.new_page()
    page.goto(base + "/healthz")  # the site's origin: its localStorage
    for system, choice in (("light", None), ("dark", None), ("light", "dark"), ("dark", "light")):
        page.emulate_media(color_scheme=system)
        page.evaluate(STORE, choice)
        page.goto(base + "/posts/kubelet-basics/")
        assert page.evaluate("document.documentElement.dataset.theme") == (choice or "system")
        colours[(system, choice)] = page.evaluate(COMMENT_COLOUR)
    context.close()
    assert colours[("light", None)] != colours[("dark", None)]
    assert colours[("light", "dark")] == colours[("dark", None)]
    assert colours[("dark", "light")] == colours[("light", None)]


# --- print --------------------------------------------------------------------------------


COMMENT_COLOUR = "getComputedStyle(document.querySelector('.highlight .c1')).color"


def test_print_shows_the_text_black_on_white_with_link_addresses(browser, base):
    context = _context(browser, base, color_scheme="dark")
    context.add_init_script("localStorage.setItem('masthead-theme', 'dark');")
    page = context.new_page()
    page.goto(base + "/posts/kubelet-basics/")
    page.emulate_media(media="print")
    for selector in (".site-nav", ".search-form", ".lang-switch", ".theme-switch"):
        assert page.locator(selector).count() >= 1, selector
        assert not page.locator(selector).first.is_visible(), f"{selector} is printed"
    assert page.locator(".post-title").is_visible()
    style = page.evaluate(
        "(() => { const b = getComputedStyle(document.body);"
        " return [b.color, b.backgroundColor]; })()"
    )
    assert style[0] == "rgb(0, 0, 0)" and style[1] in ("rgb(255, 255, 255)", "rgba(0, 0, 0, 0)")
    after = page.evaluate(
        "[...document.querySelectorAll('.post-body a')].map(a =>"
        " [a.getAttribute('href'), getComputedStyle(a, '::after').content])"
    )
    by_href = dict(after)
    assert by_href["https://kubernetes.io/docs/"] == '" (https://kubernetes.io/docs/)"'
    assert by_href["#details"] == "none", "no address for a link within the page"
    # a site link prints its absolute URL (the site's base_url before the path), without script
    assert by_href["/posts/kube-proxy/"] == '" (https://example.com/posts/kube-proxy/)"'
    pre = page.evaluate(
        "(() => { const s = getComputedStyle(document.querySelector('.post-body pre'));"
        " return [s.whiteSpace, s.breakInside]; })()"
    )
    assert pre == ["pre-wrap", "avoid"]
    figure = "getComputedStyle(document.querySelector('.post-body figure')).breakInside"
    assert page.evaluate(figure) == "avoid"
    # the code on paper is the light theme's, whatever the screen showed
    on_paper = page.evaluate(COMMENT_COLOUR)
    pdf = page.pdf()  # Chromium lays the page out for paper without complaint
    assert pdf.startswith(b"%PDF")
    page.emulate_media(media="screen")
    on_screen = page.evaluate(COMMENT_COLOUR)
    context.close()
    context = _context(browser, base, color_scheme="light")
    page = context.new_page()
    page.goto(base + "/posts/kubelet-basics/")
    assert on_paper == page.evaluate(COMMENT_COLOUR) != on_screen
    context.close()


# --- search suggestions ---------------------------------------------------------------------


def _log(app: Any) -> list[str]:
    service = app.state.search
    service.log.flush(everything=True)
    with sqlite3.connect(service.log.path) as conn:
        return [r[0] for r in conn.execute("SELECT query FROM search_log ORDER BY id")]


def _combobox(page: Page, selector: str) -> dict[str, Any]:
    return page.evaluate(
        "s => { const i = document.querySelector(s);"
        " const l = document.getElementById(i.getAttribute('aria-controls') || 'none');"
        " return { role: i.getAttribute('role'), expanded: i.getAttribute('aria-expanded'),"
        " active: i.getAttribute('aria-activedescendant'),"
        " listRole: l && l.getAttribute('role'), listHidden: l ? l.hidden : null,"
        " options: l ? [...l.querySelectorAll('[role=option]')].map(o =>"
        " [o.id, o.textContent, o.getAttribute('aria-selected')]) : [] }; }",
        selector,
    )


# --- typing against suggest.js's debounce ----------------------------------------------------
#
# The page runs on Playwright's fake clock, paused after loading: suggest.js's timer fires only
# when the test moves the clock, so "faster" and "slower than the debounce" do not depend on how
# quickly a loaded machine delivers keystrokes.

DELAY = 200  # suggest.js: ms of quiet typing before it asks


def _goto_paused(page: Page, url: str) -> None:
    page.clock.install()
    page.goto(url)
    page.clock.pause_at(page.evaluate("Date.now()") + 1000)


def _typed(page: Page, text: str, *, each: bool) -> None:
    """Type `text`, with more than DELAY of the page's time after each key (`each`: a request
    per prefix long enough to ask for) or only after the last (one request), and wait for the
    request that the last pause makes."""
    for key in text[:-1]:
        page.keyboard.type(key)
        if each:
            page.clock.run_for(DELAY + 50)
    page.keyboard.type(text[-1])
    with page.expect_request(lambda r: "suggest=1" in r.url):
        page.clock.run_for(DELAY + 50)


def test_suggestions_appear_are_keyboard_navigable_and_only_the_final_query_is_logged(
    browser, site_app
):
    base, app = site_app
    before = _log(app)
    context = _context(browser, base)
    page = context.new_page()
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/api/search" in r.url else None)
    _goto_paused(page, base + "/")
    box = page.locator("#mh-search")
    box.click()
    _typed(page, "kube", each=True)  # slower than the debounce: one request per prefix
    page.wait_for_selector("#mh-search-suggestions [role=option]")
    state = _combobox(page, "#mh-search")
    assert state["role"] == "combobox" and state["listRole"] == "listbox"
    assert state["expanded"] == "true" and state["listHidden"] is False
    titles = [o[1] for o in state["options"]]
    assert "Kubelet basics" in titles and "Sourdough" not in titles
    assert len([u for u in asked if "suggest=1" in u]) >= 2, asked
    # a Chinese title on an English page is marked as Chinese: a CJK font first
    zh = page.locator("#mh-search-suggestions [role=option][lang=zh]")
    assert zh.inner_text() == "Kubelet 入门"
    family = page.evaluate("e => getComputedStyle(e).fontFamily", zh.element_handle())
    assert CJK.search(family.split(",")[0]), family

    # Down selects the first, Down the second, Up back to the first (aria-activedescendant)
    page.keyboard.press("ArrowDown")
    state = _combobox(page, "#mh-search")
    first_id = state["options"][0][0]
    assert state["active"] == first_id and state["options"][0][2] == "true"
    page.keyboard.press("ArrowDown")
    assert _combobox(page, "#mh-search")["active"] == state["options"][1][0]
    page.keyboard.press("ArrowUp")
    assert _combobox(page, "#mh-search")["active"] == first_id
    # Escape closes the list and keeps the text; Down opens it again
    page.keyboard.press("Escape")
    state = _combobox(page, "#mh-search")
    assert state["expanded"] == "false" and state["listHidden"] and state["active"] is None
    assert box.input_value() == "kube"
    page.keyboard.press("ArrowDown")
    state = _combobox(page, "#mh-search")
    assert state["expanded"] == "true" and state["active"] == first_id
    # Enter opens the selected post
    target = state["options"][0][1]
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.locator(".post-title").inner_text() == target
    assert _log(app)[len(before) :] == ["kube"], "one row: the final query, no prefix"
    _clean(page, context)
    context.close()


def test_a_click_opens_the_post_and_a_submitted_query_is_logged_once(browser, site_app):
    base, app = site_app
    before = _log(app)
    context = _context(browser, base)
    page = context.new_page()
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "suggest=1" in r.url else None)
    _goto_paused(page, base + "/posts/sourdough/")
    page.locator("#mh-search").click()
    _typed(page, "networking", each=False)  # faster than the debounce: one request
    page.wait_for_selector("#mh-search-suggestions [role=option]")
    assert len(asked) == 1 and "q=networking" in asked[0], asked
    with page.expect_navigation():
        page.locator("#mh-search-suggestions [role=option]").first.click()
    assert page.url == base + "/posts/kubernetes-networking/"

    # the search page's own box suggests too; Enter with nothing selected submits the form
    _goto_paused(page, base + "/search")
    page.locator("#mh-q").click()
    _typed(page, "kubelet", each=True)
    page.wait_for_selector("#mh-q-suggestions [role=option]")
    assert _combobox(page, "#mh-q")["expanded"] == "true"
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "/search?q=kubelet" in page.url
    assert _log(app)[len(before) :] == ["networking", "kubelet"]
    _clean(page, context)
    context.close()


def test_a_last_word_too_short_for_a_prefix_is_left_out_of_suggestions(browser, site_app):
    """`networking k`: the server reads `k*` as the plain word k (search/query.py MIN_PREFIX),
    which no post has, so the box asks for `networking` until the word has three letters."""
    from urllib.parse import parse_qs, urlsplit

    base, _ = site_app
    context = _context(browser, base)
    page = context.new_page()
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "suggest=1" in r.url else None)
    _goto_paused(page, base + "/")
    page.locator("#mh-search").click()
    for text, expected in (("networking k", "networking"), ("ub", "networking kub*")):
        _typed(page, text, each=False)  # faster than the debounce: one request
        page.wait_for_selector("#mh-search-suggestions [role=option]")
        assert parse_qs(urlsplit(asked[-1]).query)["q"] == [expected], asked
    _clean(page, context)
    context.close()


def test_suggestions_on_a_chinese_page_on_a_phone_and_nothing_found(browser, site_app):
    base, _ = site_app
    context = _context(browser, base)
    page = context.new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(base + "/zh/")
    page.locator("#mh-search").click()
    page.keyboard.type("入门", delay=250)
    page.wait_for_selector("#mh-search-suggestions [role=option]")
    state = _combobox(page, "#mh-search")
    assert [o[1] for o in state["options"]] == ["Kubelet 入门"]
    assert page.get_attribute("#mh-search-suggestions", "aria-label") == "搜索建议"
    box = page.locator("#mh-search-suggestions").bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, "inside the screen"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.keyboard.press("Control+a")
    page.keyboard.type("zzzzqqq", delay=20)
    page.wait_for_function(  # the answer to the last query, with nothing in it, has come
        "() => document.querySelector('#mh-search').getAttribute('aria-expanded') === 'false'"
    )
    state = _combobox(page, "#mh-search")
    assert state["expanded"] == "false" and state["options"] == []
    _clean(page, context)
    context.close()


# --- font stacks per language -----------------------------------------------------------------


def _families(page: Page, selector: str) -> list[str]:
    value = page.evaluate("s => getComputedStyle(document.querySelector(s)).fontFamily", selector)
    return [f.strip().strip('"') for f in value.split(",")]


UI = ("body", ".site-header", ".site-title", ".site-nav a", "#mh-search", ".theme-switch",
      ".post-meta", ".post-title")  # fmt: skip


def test_latin_text_gets_a_latin_font_first_and_chinese_a_cjk_one(browser, base):
    context = _context(browser, base)
    page = context.new_page()
    page.goto(base + "/posts/kubelet-basics/")
    for selector in UI:
        families = _families(page, selector)
        assert not CJK.search(families[0]) and families[0] != "system-ui", (selector, families)
        # Latin fonts and the generic family (a Latin font for Latin text), then CJK ones
        cjk = [i for i, f in enumerate(families) if CJK.search(f)]
        assert cjk and max(i for i, f in enumerate(families) if not CJK.search(f)) < min(cjk), (
            selector,
            families,
        )
    # the language switcher's 中文 is Chinese on an English page
    assert CJK.search(_families(page, ".lang-switch [lang^=zh]")[0])

    page.goto(base + "/zh/posts/kubelet-basics/")
    for selector in UI:
        families = _families(page, selector)
        assert CJK.search(families[0]), (selector, families)
    assert not CJK.search(_families(page, ".lang-switch [lang=en]")[0])
    context.close()


def test_chinese_text_is_set_in_a_font_its_stack_names_not_by_fallback(browser, base):
    """Issue 13 item 3: when no font of a stack was installed, every Han character went through
    the system's per-character fallback, the most of Lighthouse's long first layout on the
    Chinese post (the old BENCHMARKS.md). The stacks end with Linux's usual CJK font, so the fonts
    that draw the text (DevTools' platform fonts) are ones the element's font-family names."""
    context = _context(browser, base)
    page = context.new_page()
    page.goto(base + "/zh/posts/kubelet-basics/")
    cdp = context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument")["root"]["nodeId"]
    for selector in (".post-body p", ".post-title", ".site-nav a", ".post-meta"):
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        used = {
            f["familyName"]
            for f in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
        }
        # a local() face of site.css (@font-face) draws the installed font it names
        named = {LOCAL_FACES.get(f, f).casefold() for f in _families(page, selector)}
        assert used and {f.casefold() for f in used} <= named, (
            f"{selector}: drawn in {sorted(used)}, which its font-family does not name (per-"
            "character fallback); with no CJK font of the stacks installed, install one: "
            "apt-get install fonts-wqy-zenhei"
        )
    context.close()


def test_an_exported_page_suggests_from_the_masthead_at_api_url(browser, tmp_path):
    """`masthead build` with `api_url`: the exported page's box asks that masthead (CORS, the
    CSP's connect-src) and a suggestion opens the exported copy of the post."""
    from masthead.config import load_site
    from masthead.export.build import build

    from support.servers import static_host

    root = tmp_path / "site"
    write_site(root, FILES)
    out = tmp_path / "out"
    out.mkdir()
    with uvicorn_server(static_host(out)) as static:
        toml = (root / "masthead.toml").read_text()
        (root / "masthead.toml").write_text(f'allowed_origins = ["{static}"]\n' + toml)
        with uvicorn_server(create_app(load_site(root))) as api:
            # build() runs its own event loop: in a thread, beside Playwright's
            worker = threading.Thread(target=build, args=(load_site(root, {"api_url": api}), out))
            worker.start()
            worker.join(120)
            assert (out / "posts/kubernetes-networking/index.html").exists()
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            context.add_init_script(WATCH_CSP)
            page = context.new_page()
            asked: list[str] = []
            page.on("request", lambda r: asked.append(r.url))
            page.goto(static + "/posts/sourdough/")
            assert page.locator(".theme-switch").is_visible()
            page.locator("#mh-search").click()
            page.keyboard.type("netw", delay=60)
            page.wait_for_selector("#mh-search-suggestions [role=option]")
            assert any(u.startswith(api + "/api/search?") and "suggest=1" in u for u in asked)
            page.keyboard.press("ArrowDown")
            with page.expect_navigation():
                page.keyboard.press("Enter")
            assert page.url == static + "/posts/kubernetes-networking/"  # the exported copy
            assert page.evaluate("window.__violations") == []
            context.close()
