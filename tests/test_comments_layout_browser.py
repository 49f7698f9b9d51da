"""Public page layout and the comment script in real headless Chromium against a real uvicorn
server (boxes measured, not guessed): the search button keeps its word on one line in every
language and width; on a phone the floating "Contents" button never sits on a heading or a form
control of the comments (nor at the page's end); the JS form shows a 413 (a body over 1 MiB) in
the page's language and keeps the text in the textarea."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from masthead.web.app import create_app

from support.browser import quiet
from support.servers import uvicorn_server
from support.sites import post, write_site

EN = "/posts/harbour-lights/"
ZH = "/zh/posts/harbour-lights/"
TOML = """
title = "Test site"
default_language = "en"
comments_flood_seconds = 0
comments_per_minute = 0
comments_min_seconds = 0

[languages.en]
name = "English"

[languages.zh]
name = "中文"
prefix = "zh"
hreflang = "zh-Hans"
"""
SECTIONS = "\n\n".join(
    f"## Section {n}: the harbour at night\n\n" + "The lights come on one by one. " * 30
    for n in range(1, 6)
)
ZH_SECTIONS = "\n\n".join(
    f"## 第{n}节：夜里的港口\n\n" + "灯一盏一盏亮起来。" * 40 for n in range(1, 6)
)


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Iterator[str]:
    files = {
        "posts/harbour-lights.md": post(
            "Harbour lights", "2024-03-01", SECTIONS, translationKey="harbour"
        ),
        "posts/harbour-lights.zh.md": post(
            "港口灯火", "2024-03-01", ZH_SECTIONS, translationKey="harbour"
        ),
    }
    site = write_site(tmp_path_factory.mktemp("publayout") / "site", files, TOML)
    with uvicorn_server(create_app(site)) as url:
        yield url


def _page(browser: Browser, width: int, height: int = 844) -> Page:
    page = browser.new_page(viewport={"width": width, "height": height})
    return page


@pytest.fixture(scope="module")
def reader(chromium) -> Iterator[Page]:
    """One page for the tests that only read and scroll (`at`): a context costs Chromium about
    a fifth of a second, and these tests leave nothing in it (no cookie, no storage)."""
    context = chromium.new_context()
    yield context.new_page()
    context.close()


def at(page: Page, url: str, width: int, height: int = 844) -> Page:
    """Load `url` in the shared page at this viewport (set first: a fresh document at that
    size, as a new context's page would be)."""
    page.goto("about:blank")  # a new document, even of the URL shown now (no scroll restored)
    page.set_viewport_size({"width": width, "height": height})
    page.goto(url)
    return page


LINES = """(sel) => [...document.querySelectorAll(sel)].filter(b => b.offsetParent).map(b => {
  const r = document.createRange(); r.selectNodeContents(b);
  const tops = new Set([...r.getClientRects()].filter(x => x.width > 0)
                                               .map(x => Math.round(x.top)));
  return [b.textContent.trim() || b.getAttribute('aria-label'), tops.size,
          b.scrollWidth - b.clientWidth];
})"""


@pytest.mark.parametrize("width", [320, 390, 768, 1280])
@pytest.mark.parametrize("path", ["/search/?q=harbour", "/zh/search/?q=港口", ZH, EN])
def test_search_buttons_never_wrap(reader, base, path, width):
    page = at(reader, base + path, width)
    found = page.evaluate(LINES, ".search-form button")
    assert found, f"no search button on {path}"
    for label, lines, overflow in found:
        assert lines <= 1 and overflow <= 0, (path, width, label, lines, overflow)


SHOWN_OVER = """() => {
  const b = document.querySelector('.toc-button');
  const s = getComputedStyle(b);
  const box = b.getBoundingClientRect();
  if (s.display === 'none' || parseFloat(s.opacity) < 0.1) return [];
  if (box.bottom <= 0 || box.top >= innerHeight) return [];
  const hit = (r) => r.width > 0 && r.height > 0 && r.left < box.right && r.right > box.left
                       && r.top < box.bottom && r.bottom > box.top;
  const out = [];
  const text = (el) => { const r = document.createRange(); r.selectNodeContents(el);
                         return [...r.getClientRects()]; };
  document.querySelectorAll('#mh-comments h1, #mh-comments h2, #mh-comments h3, .site-footer h2')
    .forEach(h => { if (text(h).some(hit)) out.push('heading ' + h.textContent.trim()); });
  document.querySelectorAll('input, textarea, button, select, label, .site-footer a')
    .forEach(c => { if (c === b || c.closest('dialog') || !c.offsetParent) return;
                    const name = (c.id || c.tagName) + ' ' + c.textContent.trim().slice(0, 30);
                    if (hit(c.getBoundingClientRect())) out.push(name); });
  return out;
}"""


@pytest.mark.parametrize("path", [EN, ZH])
def test_the_contents_button_covers_no_heading_or_form_control(reader, base, path):
    page = at(reader, base + path, 390)
    assert page.locator(".toc-button").is_visible()
    covered: dict[str, int] = {}
    height = page.evaluate("document.documentElement.scrollHeight")
    # from the end upwards, where scrolling up brings the button back at each stop
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    quiet(page)
    for _ in range(int(height / 120) + 2):
        page.mouse.wheel(0, -120)
        quiet(page)
        for what in page.evaluate(SHOWN_OVER):
            covered[what] = covered.get(what, 0) + 1
        if page.evaluate("window.scrollY") == 0:
            break
    # landing on the form (the no-JS form's redirect goes to #c-form), and the very end
    for target in ("#c-form", "#mh-comments-title"):
        page.goto(base + path + target)
        quiet(page)
        for what in page.evaluate(SHOWN_OVER):
            covered[what + " at " + target] = 1
    assert not covered, covered


@pytest.mark.parametrize(("path", "words"), [(EN, "1 MiB"), (ZH, "1 MiB 的上限")])
def test_the_script_shows_a_413_and_keeps_the_text(browser, base, path, words):
    page = _page(browser, 1000, 900)
    page.goto(base + path)
    page.wait_for_function("document.querySelector('#mh-comments.is-scripted') !== null")
    page.fill("#mh-c-name", "Ann")
    page.fill("#mh-c-email", "ann@example.org")
    # past the form's maxlength, as a script or a pasted-in DOM could; the server refuses it
    big = page.evaluate(
        """() => { const t = document.querySelector('#mh-c-body');
                   t.removeAttribute('maxlength'); t.value = 'Long words. '.repeat(100000);
                   return t.value.length; }"""
    )
    page.click(".comment-form__submit")
    status = page.locator(".comment-form__status")
    status.wait_for(state="visible")
    page.wait_for_function("document.querySelector('.comment-form__status').textContent.length > 0")
    text = status.text_content() or ""
    assert words in text, text
    assert page.evaluate("document.querySelector('#mh-c-body').value.length") == big
    assert page.locator(".comment-form__submit").is_enabled()
    assert (
        page.evaluate(
            "fetch('/api/comments?post=' + encodeURIComponent(location.pathname))"
            ".then(r => r.json()).then(d => d.total)"
        )
        == 0
    )
    page.close()
