"""No script runs from a comment (issue 11, item 6; C33): every vector of the XSS corpus
(tests/data/xss/vectors.json) is posted as the name, the website and the text of a comment, all
approved, then the post's pages in both languages, the reply pages, the comments API, the comment
feeds and the /guanli comments screen are checked on the bytes served (the static rules of
test_xss.py) and in headless Chromium with the dialog, console and page-error hooks, the CSP
removed, so the sanitizer and the escaping alone are tested."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import BrowserContext

from masthead.accounts import service as accounts
from masthead.comments.rules import FIELD_LIMITS
from masthead.store.db import Database
from masthead.web.app import create_app

from support.servers import uvicorn_server
from support.sites import post, write_site
from support.xss import HOOKS, VECTORS, Checker, WithoutCSP, html_problems, report, xml_problems

EN = "/posts/harbour/"
ZH = "/zh/posts/harbour/"
TOML = """
title = "XSS"
default_language = "en"
comments_flood_seconds = 0
comments_per_minute = 0
comments_previously_approved = false
comments_max_links = 0
comments_per_page = 100

[languages.en]
name = "English"

[languages.zh]
name = "中文"
prefix = "zh"
"""
PASSWORD = "a long password"  # pragma: allowlist secret


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[tuple[str, httpx.Client, list[int]]]:
    files = {
        "posts/harbour.md": post("Harbour", "2024-03-01", "Text.", translationKey="h"),
        "posts/harbour.zh.md": post("港口", "2024-03-01", "文本。", translationKey="h"),
    }
    site = write_site(tmp_path_factory.mktemp("cxss") / "site", files, TOML)
    with (
        uvicorn_server(WithoutCSP(create_app(site))) as base,
        httpx.Client(base_url=base, timeout=30) as http,
    ):
        ids = []
        for n, v in enumerate(VECTORS):
            body = {
                "post": EN if n % 2 else ZH,
                "name": v.text[: FIELD_LIMITS["name"]],
                "email": f"v{v.id}@example.org",
                "url": v.text[: FIELD_LIMITS["url"]],
                "body": v.text,
                "lang": "en" if n % 2 else "zh",
            }
            answer = http.post("/api/comments", json=body)
            if answer.status_code == 400 and answer.json()["error"]["field"] == "name":
                answer = http.post("/api/comments", json={**body, "name": f"vector {v.id}"})
            assert answer.status_code == 201, (v.id, answer.text)
            assert answer.json()["status"] == "approved", (v.id, answer.text)
            ids.append(answer.json()["id"])
            if n % 2 == 0 and ids[:-1]:  # every other one a reply, so replies carry them too
                http.post(
                    "/api/comments",
                    json={**body, "parent": ids[-2], "body": v.text + " (reply)"},
                )
        db = Database(site.database_path)
        accounts.add_user(db, "mei", PASSWORD)
        db.close()
        yield base, http, ids


def _pages(http: httpx.Client) -> list[str]:
    paths = []
    for start in (EN, ZH):
        n = 1
        while True:
            path = start if n == 1 else f"{start}?cpage={n}"
            text = http.get(path).text
            paths.append(path)
            if f"cpage={n + 1}" not in text:
                break
            n += 1
    return paths


@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_comments_are_statically_clean_everywhere(served):
    _base, http, ids = served
    problems: dict[str, list[str]] = {}
    for path in _pages(http) + [f"/comments/{i}/reply" for i in ids[:40]]:
        answer = http.get(path)
        assert answer.status_code == 200, path
        if found := html_problems(answer.text):
            problems[path] = found
    for path in ("/comments/feed.xml", "/comments/atom.xml", f"{EN}comments.xml"):
        answer = http.get(path)
        assert answer.status_code == 200, path
        bad, _ = xml_problems(answer.content)
        if bad:
            problems[path] = bad
    thread = http.get("/api/comments", params={"post": EN}).json()
    assert thread["total"] >= len(VECTORS)
    assert not problems, report(problems)


def _run(browser, base: str, load) -> dict[str, list[str]]:
    """A fresh context with the hooks, `load(checker)`, and what ran or the DOM rules found.
    One page kind per test (the old single test loaded every page, the API snippets and the
    dashboard in one go and met Playwright's 30 s timeout on two loaded cores): each test's
    frames load one post page at a time (`set_content` waits for `load` of that one page
    only), and nothing waits for network idle."""
    context: BrowserContext = browser.new_context(viewport={"width": 1000, "height": 800})
    context.add_init_script(HOOKS)
    checker = Checker(context, base)
    load(checker, context)
    result = checker.result()
    context.close()
    return result


def _assert_nothing_ran(result: dict[str, list[str]], dom_too: bool = True) -> None:
    ran = result.pop("ran", [])
    assert not ran, "\n".join(ran)
    if dom_too:
        assert not result, report(result)


@pytest.mark.parametrize("start", [EN, ZH])
def test_no_comment_vector_runs_in_post_pages(served, browser, start):
    base, http, _ = served
    pages = [p for p in _pages(http) if p.startswith(start)]

    def load(checker: Checker, _context: BrowserContext) -> None:
        checker.top(pages[0])  # hovered and tabbed through; the rest in frames
        for path in pages[1:]:  # one heavy page per harness load
            checker.frames([path])
        assert set(pages) <= checker.seen, set(pages) - checker.seen

    _assert_nothing_ran(_run(browser, base, load))


def test_no_comment_vector_runs_from_the_api(served, browser):
    base, http, _ = served
    bodies: list[str] = []

    def walk(nodes: list[dict]) -> None:
        for node in nodes:
            if node.get("html"):  # `name` is plain text: a client escapes it, as we do here
                bodies.append(f"<p>{html.escape(node.get('name', ''))}</p>{node['html']}")
            walk(node.get("replies", []))

    thread = http.get("/api/comments", params={"post": EN}).json()  # one thread, both languages
    for n in range(1, thread["pages"] + 1):
        walk(http.get("/api/comments", params={"post": EN, "page": n}).json()["comments"])
    assert len(bodies) >= len(VECTORS)
    _assert_nothing_ran(_run(browser, base, lambda c, _x: c.snippets("api", bodies)))


SCREEN_ROWS = 200  # the dashboard's largest page
SCREENS = 3  # screens of SCREEN_ROWS rows that hold every comment `served` posts (the last
# part checks that no screen follows it); one test each, so that the workers share them


@pytest.mark.parametrize("screen", range(1, SCREENS + 1))
def test_no_comment_vector_runs_in_the_dashboard(served, browser, screen):
    base, http, _ = served
    posted = http.get("/api/comments", params={"post": EN}).json()["total"]
    path = f"/guanli/comments?per_page={SCREEN_ROWS}&page={screen}"
    shown: dict[str, Any] = {}

    def load(checker: Checker, context: BrowserContext) -> None:
        # the moderation screen, signed in, shows names, emails, websites and text of every row
        page = context.new_page()
        page.goto(f"{base}/guanli/login")
        page.fill("#g-user", "mei")
        page.fill("#g-pass", PASSWORD)
        page.click("form[action='/guanli/login'] button[type=submit]")
        assert page.url == f"{base}/guanli/"
        # the dashboard's own forms and inputs are not content: the DOM rules would flag
        # every one of them, so only what runs is looked for there
        checker.frames([path], rules=False)
        assert path in checker.seen
        shown.update(checker.page.evaluate(SCREEN))

    result = _run(browser, base, load)
    # this screen's share of the comments posted, and after the last one no other screen
    assert shown["rows"] == min(SCREEN_ROWS, posted - SCREEN_ROWS * (screen - 1)) > 0, shown
    assert (shown["next"] is None) == (screen == SCREENS), (shown, posted)
    _assert_nothing_ran({k: v for k, v in result.items() if not k.startswith("/guanli/")})
    assert not result.get("ran"), result.get("ran")
    assert re.search(r"\d", base)


# the rows of the screen in the harness's frame, and its rel=next link (null on the last one)
SCREEN = """() => {
  const doc = document.querySelector("iframe").contentDocument;
  const next = doc.querySelector("a[rel=next]");
  return { rows: doc.querySelectorAll(".g-row").length, next: next && next.getAttribute("href") };
}"""
