"""Comments in real headless Chromium (Playwright) against a real uvicorn server, with JavaScript
on and off, under the site's Content-Security-Policy: the issue's acceptance test (post a
top-level comment and a reply on the English post, see them pending, approve them with the store
function the dashboard uses, see both on the Chinese page with their language labels), C37 (one
comment however the form is sent twice), C40 (a deep thread and long strings at 320 px) and the
"only my language" filter."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from masthead.config import Site
from masthead.store import comments as store
from masthead.web.app import create_app

from support.browser import WATCH_CSP
from support.servers import uvicorn_server
from support.sites import DATA, post, write_site
from support.wait import until

EN = "/posts/harbour-lights/"
ZH = "/zh/posts/harbour-lights/"
TOML = """
title = "Test site"
default_language = "en"
timezone = "Asia/Shanghai"
comments_flood_seconds = 0
comments_per_minute = 0
comments_min_seconds = 1

[languages.en]
name = "English"

[languages.zh]
name = "中文"
prefix = "zh"
hreflang = "zh-Hans"
"""
FILES = {
    "posts/harbour-lights.md": post(
        "Harbour lights", "2024-03-01", "English version.", translationKey="harbour"
    ),
    "posts/harbour-lights.zh.md": post(
        "港口灯火", "2024-03-01", "中文版。", translationKey="harbour"
    ),
}


class Served:
    def __init__(self, site: Site, app, url: str) -> None:
        self.site, self.app, self.url = site, app, url

    @property
    def db(self):
        return self.app.state.masthead.db

    def thread(self) -> str:
        row = self.db.read().execute("SELECT translation_key FROM posts WHERE url = ?", (EN,))
        return row.fetchone()[0]

    def seed(self, name: str, body: str, *, parent=None, lang="en", created=1714606200.0) -> int:
        html = "<p>" + body.replace("&", "&amp;").replace("<", "&lt;") + "</p>"
        new = store.NewComment(
            thread=self.thread(),
            post_url=EN if lang == "en" else ZH,
            parent_id=parent,
            lang=lang,
            status="approved",
            author_name=name,
            author_email="x@example.org",
            author_url="",
            body=body,
            body_html=html,
            created=created,
        )
        return store.add(self.db, new, "import")

    def pending(self) -> list[int]:
        rows = self.db.read().execute(
            "SELECT id FROM comments WHERE status = 'pending' ORDER BY id"
        )
        return [r[0] for r in rows]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    site = write_site(tmp_path / "site", FILES, TOML)
    app = create_app(site)
    with uvicorn_server(app) as url:
        yield Served(site, app, url)


def _page(browser: Browser, *, js: bool = True, width: int = 1024) -> Page:
    context = browser.new_context(java_script_enabled=js, viewport={"width": width, "height": 900})
    page = context.new_page()
    complaints: list[str] = []
    page.on(
        "console",
        lambda m: complaints.append(m.text) if "Content Security Policy" in m.text else None,
    )
    page.complaints = complaints  # type: ignore[attr-defined]
    if js:
        page.add_init_script(WATCH_CSP)
    return page


def _no_violation(page: Page) -> None:
    assert page.complaints == []  # type: ignore[attr-defined]
    if page.context.pages and page.evaluate("typeof window.__violations") != "undefined":
        assert page.evaluate("window.__violations") == []


def _fill(page: Page, body: str, name: str = "Ann") -> None:
    form = page.locator("form.comment-form")
    form.locator("[name=body]").fill(body)
    form.locator("[name=name]").fill(name)
    form.locator("[name=email]").fill("ann@example.org")
    page.wait_for_timeout(1100)  # longer than comments_min_seconds, as a person types


@pytest.mark.parametrize("js", [True, False], ids=["javascript", "no-javascript"])
def test_acceptance_post_reply_pending_approve_and_read_in_chinese(browser, served, js):
    parent = served.seed("Alice", "The first word.")
    page = _page(browser, js=js)
    page.goto(served.url + EN)

    # a top-level comment
    _fill(page, "A top-level comment.")
    page.locator(".comment-form__submit").click()
    if js:
        notice = page.locator("#mh-comment-notice")
        notice.wait_for(state="visible")
        assert "awaiting moderation" in notice.inner_text()
        assert page.url == served.url + EN, "shown in place, no page load"
    else:
        page.wait_for_url(re.compile(r"/posts/harbour-lights/\?c=pending-\d+#c-form$"))
        assert (
            "awaiting moderation" in page.locator("#c-form .comment-notice--pending").inner_text()
        )

    # a reply to Alice
    page.locator(f"#c-{parent} .comment__reply").click()
    if js:
        assert page.locator(f"#c-{parent} #c-form").count() == 1, "the form moved under Alice"
    else:
        page.wait_for_url(re.compile(rf"/comments/{parent}/reply\?post="))
    _fill(page, "A reply to Alice.")
    page.locator(".comment-form__submit").click()
    if not js:
        page.wait_for_url(re.compile(r"/posts/harbour-lights/\?c=pending-\d+#c-form$"))
    until(lambda: len(served.pending()) >= 2, what="both comments stored")
    ids = served.pending()
    assert len(ids) == 2, "both comments stored, held for moderation"

    # seen as pending by their author
    if js:
        page.reload()
        for cid in ids:
            own = page.locator(f"#c-{cid}")
            own.wait_for()
            assert own.locator(".comment__pending").is_visible()
        assert page.locator(f"#c-{parent} #c-{ids[1]}").count() == 1, "the reply under Alice"
        assert "?c=" not in page.url
    else:
        page.locator("a[href^='/comments/mine']").click()
        for cid in ids:
            assert page.locator(f"#c-{cid} .comment__pending").is_visible()
    _no_violation(page)

    # approved by the dashboard's store function; the Chinese page shows both, labelled
    changed = store.set_status(served.db, ids, "approved", "editor:test", expect={"pending"})
    assert changed.changed == ids
    page.goto(served.url + ZH)
    page.reload()
    for cid in ids:
        item = page.locator(f"#c-{cid}")
        assert item.is_visible()
        assert item.get_attribute("lang") == "en"
        assert item.locator(".comment__lang").first.inner_text() == "English"
        assert item.locator(".comment__pending").count() == 0
    assert page.locator(f"#c-{parent} #c-{ids[1]}").count() == 1
    assert page.locator("#mh-comments-title").inner_text().startswith("评论")
    _no_violation(page)
    page.context.close()


def test_c37_click_and_ctrl_enter_send_once(browser, served):
    page = _page(browser)
    posts: list[dict] = []
    page.on(
        "request",
        lambda r: (
            posts.append(json.loads(r.post_data or "{}"))
            if r.method == "POST" and r.url.endswith("/api/comments")
            else None
        ),
    )
    page.goto(served.url + EN)
    _fill(page, "Sent once.")
    # Ctrl+Enter, a click and Cmd+Enter in one task: the first request is still in flight
    page.evaluate(
        """() => {
        const body = document.querySelector("form.comment-form [name=body]");
        const key = (mod) => body.dispatchEvent(new KeyboardEvent("keydown",
            {key: "Enter", bubbles: true, cancelable: true, [mod]: true}));
        key("ctrlKey");
        document.querySelector(".comment-form__submit").click();
        key("metaKey");
        }"""
    )
    page.locator("#mh-comment-notice").wait_for(state="visible")
    assert len(posts) == 1, posts
    assert posts[0]["elapsed"] >= 1, "the fill time measured by the page's script"
    assert len(served.pending()) == 1
    assert not page.locator(".comment-form__submit").is_disabled(), "ready for the next one"
    # the server agrees when two identical requests do arrive (no script, 200 ms apart)
    page.context.close()


def test_c40_deep_thread_and_long_strings_fit_a_phone(browser, served):
    case = json.loads((DATA / "cases" / "C40-deep-and-long.json").read_text())
    ids: dict[str, int] = {}
    for i, c in enumerate(case["deep_chain"]):
        ids[c["id"]] = served.seed(c["author"], c["body"], parent=ids.get(c["parent"]),
                                   created=1714606200.0 + i)  # fmt: skip
    long = case["long_inputs"]
    served.seed(long["long_author_name"], long["unbroken_word"], created=1714607000.0)
    served.seed("Url", long["long_url"], parent=ids["R11"], created=1714607100.0)
    for js in (True, False):
        page = _page(browser, js=js, width=320)
        page.goto(served.url + EN)
        assert page.evaluate("document.documentElement.scrollWidth") <= 320
        boxes = page.locator(".comment__main").evaluate_all(
            "els => els.map(e => [e.getBoundingClientRect().left, e.getBoundingClientRect().right])"
        )
        assert len(boxes) == 14
        assert all(left >= 0 and right <= 320 for left, right in boxes), boxes
        widths = [right - left for left, right in boxes]
        assert min(widths) >= 200, "deep replies keep a readable width"
        _no_violation(page)
        page.context.close()


def test_only_my_language(browser, served):
    top = served.seed("Alice", "In English.")
    zh = served.seed("王小明", "中文评论。", parent=top, lang="zh", created=1714606300.0)
    under = served.seed("Bob", "English under Chinese.", parent=zh, created=1714606400.0)
    for js in (True, False):
        page = _page(browser, js=js)
        page.goto(served.url + EN)
        assert page.locator(f"#c-{zh} > .comment__main").is_visible()
        page.locator("#mh-lang-only").check()
        assert not page.locator(f"#c-{zh} > .comment__main").is_visible()
        assert page.locator(f"#c-{under} > .comment__main").is_visible(), "replies stay"
        assert page.locator(f"#c-{top} > .comment__main").is_visible()
        if js:  # remembered on the next page
            page.reload()
            assert page.locator("#mh-lang-only").is_checked()
        page.context.close()


def test_own_comment_edited_deleted_and_author_remembered(browser, served):
    page = _page(browser)
    page.goto(served.url + EN)
    _fill(page, "First *draft*.")
    page.locator("#mh-c-remember").check()  # "remember me": the next form comes filled in
    page.locator(".comment-form__submit").click()
    cid = int(page.locator(".comment--mine").get_attribute("data-id") or 0)
    mine = page.locator(f"#c-{cid}")
    mine.locator(".comment__edit").click()
    mine.locator(".comment__editor textarea").fill("Second **draft**.")
    mine.locator(".comment__editor button").first.click()
    mine.locator(".comment__body strong").wait_for()
    assert mine.locator(".comment__body").inner_text() == "Second draft."
    assert store.get(served.db.read(), cid).body == "Second **draft**."
    page.once("dialog", lambda d: d.accept())
    mine.locator(".comment__delete").click()
    mine.wait_for(state="detached")
    assert store.get(served.db.read(), cid).status == "trash"
    page.goto(served.url + ZH)
    assert page.locator("[name=name]").input_value() == "Ann"
    assert page.locator("[name=email]").input_value() == "ann@example.org"
    assert page.locator("#mh-c-remember").is_checked()
    _no_violation(page)
    page.context.close()
