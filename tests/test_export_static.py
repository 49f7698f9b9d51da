"""An export with no masthead behind it (`masthead build` without `api_url`, issue 31): search in
its own files (Pagefind, export/search_index.py), the comments as they stood at the build, and no
form that could not post.

The demo site, with approved, pending and spam comments on its sample post, is exported once per
module at a fixed instant (6 December 2026) and served as a new user serves it,
`python3 -m http.server`, or as Netlify does (its `_headers`: the CSP).
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
from bs4 import BeautifulSoup
from starlette.testclient import TestClient

from masthead.config import load_site
from masthead.export import search_index
from masthead.export.build import build
from masthead.indexing.indexer import index_site
from masthead.store import comments as comment_store
from masthead.store import posts as post_store
from masthead.store.db import Database
from masthead.web.app import create_app

from support.browser import outside_playwright
from support.servers import static_host, uvicorn_server
from support.sites import new_comment
from support.wait import until

DEMO = Path(__file__).parent.parent / "src" / "masthead" / "demo"
BASE = "https://demo.example"
BUILT_AT = datetime(2026, 12, 6, 4, 0, tzinfo=UTC).timestamp()  # noon in Shanghai, the demo's zone
POST = "/posts/typography-for-long-reads/"
POST_ZH = "/zh/posts/typography-for-long-reads/"
NEEDS_JS = "Search on this copy of the site needs JavaScript."


@pytest.fixture(scope="module")
def demo_export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo with comments on its sample post (two approved, one pending, one spam),
    exported at BUILT_AT; OUT."""
    root = tmp_path_factory.mktemp("demo") / "site"
    shutil.copytree(DEMO, root, ignore=shutil.ignore_patterns(".masthead"))
    site = load_site(root, {"base_url": BASE})
    db = Database(site.database_path)
    index_site(site, db)
    row = post_store.post_by_url(db.read(), POST, BUILT_AT)
    assert row is not None
    thread = row.translation_key
    for body, status, lang in (
        ("Measure and leading, zygomorphic at last.", "approved", "en"),
        ("行长讲得很清楚。", "approved", "zh"),
        ("Awaiting moderation words.", "pending", "en"),
        ("Buy cheap pills.", "spam", "en"),
    ):
        fields = {"post_url": POST, "lang": lang, "status": status, "created": BUILT_AT - 86400}
        comment_store.add(db, new_comment(thread, body, **fields), actor="test")
    db.close()
    out = root.parent / "public"
    with outside_playwright():  # the build runs an event loop of its own
        build(site, out, clock=lambda: BUILT_AT)
    return out


@contextmanager
def http_server(folder: Path) -> Iterator[str]:
    """`python3 -m http.server` serving `folder` on a free 127.0.0.1 port; its base URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"]
    proc = subprocess.Popen(
        [*cmd, "--directory", str(folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    base = f"http://127.0.0.1:{port}"
    try:
        until(
            lambda: httpx.get(base + "/").status_code == 200,
            what="http.server to answer",
            retry=httpx.TransportError,
        )
        yield base
    finally:
        proc.terminate()
        proc.wait()


def hits(page) -> list[str]:  # type: ignore[no-untyped-def]
    page.wait_for_selector(".search-hits .hit", timeout=30_000)
    return page.eval_on_selector_all(
        ".search-hits .hit__title a", "links => links.map(a => a.getAttribute('href'))"
    )


# --- in Chromium ------------------------------------------------------------------------------


def test_an_export_served_by_http_server_finds_both_sample_posts_and_shows_its_comments(
    demo_export, browser
):
    with http_server(demo_export) as base:
        context = browser.new_context()
        page = context.new_page()
        errors: list[str] = []
        asked: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: asked.append(r.url))

        # English, from the header's search box (typing it: no suggestions asked of no API)
        page.goto(base + "/")
        page.locator("#mh-search").press_sequentially("typography")
        page.press("#mh-search", "Enter")
        page.wait_for_url(base + "/search/?q=typography")
        assert POST in hits(page)
        first = page.locator(".search-hits .hit").first
        assert first.locator("mark").count() >= 1  # the words marked in the snippet
        assert first.locator(".hit__meta time").inner_text().strip()  # its date
        assert "English" in first.locator(".hit__meta").inner_text()

        # Chinese: a word, and a string across two words ("阅读的排版": 阅读|的|排版)
        for word in ("排版", "读的排"):
            page.goto(base + "/zh/")
            page.fill("#mh-search", word)
            page.press("#mh-search", "Enter")
            page.wait_for_url(f"{base}/zh/search/?q={quote(word)}")
            assert POST_ZH in hits(page), word
            hit = page.locator(".search-hits .hit", has=page.locator(f'a[href="{POST_ZH}"]'))
            assert "中文" in hit.locator(".hit__meta").inner_text()
            assert hit.locator(".hit__snippet mark").count() >= 1
            assert hit.locator(".hit__title").inner_text() == "长文阅读的排版"  # as written
            assert hit.locator(".hit__meta time").inner_text() == "2025年2月18日"

        # the language and tag filters: in the query, and as the form's lists
        page.goto(base + "/search/?q=" + quote("lang:zh 排版"))
        assert hits(page) == [POST_ZH]
        page.goto(base + "/search/?q=typography&lang=en")
        assert POST_ZH not in hits(page) and POST in hits(page)
        assert page.locator("#mh-q-lang").is_visible() and page.locator("#mh-q-tag").is_visible()
        tags = page.eval_on_selector_all("#mh-q-tag option", "o => o.map(x => x.value)")
        assert len(tags) > 2
        # a comment is no part of what is indexed, as in the live search (EXCLUDED)
        for q in ("tag:nothing-has-this typography", "zygomorphic"):
            page.goto(base + "/search/?q=" + quote(q))
            page.wait_for_selector(".search-results:not([hidden])")
            assert page.locator(".search-hits .hit").count() == 0, q
            assert page.locator(".list__count").inner_text() == "No post matches this search."

        # the comments as they stood: approved ones only, dated, and no form
        page.goto(base + POST)
        as_of = page.locator(".comments__as-of").text_content()
        assert as_of == "Comments as of December 6, 2026."
        text = page.locator("#mh-comments").text_content() or ""
        assert "Measure and leading" in text and "行长讲得很清楚" in text
        assert "Awaiting moderation" not in text and "pills" not in text
        assert page.locator("#mh-comments form, #mh-comments textarea").count() == 0
        assert page.locator(".comment__reply").count() == 0
        page.goto(base + POST_ZH)
        assert page.locator(".comments__as-of").text_content() == "评论截至 2026年12月6日。"

        assert errors == []
        assert all(url.startswith(base + "/") for url in asked), asked
        assert not any("/comments.js" in url or "/api/" in url for url in asked), asked
        context.close()


def test_without_javascript_the_search_form_says_search_needs_it(demo_export, browser):
    with http_server(demo_export) as base:
        context = browser.new_context(java_script_enabled=False)
        page = context.new_page()
        page.goto(base + "/posts/moving-from-hugo/")
        page.fill("#mh-search", "typography")
        with page.expect_navigation() as went:
            page.press("#mh-search", "Enter")
        response = went.value
        assert response is not None and response.status == 200  # never the 404 page
        assert page.url == base + "/search/?q=typography"
        assert NEEDS_JS in page.locator("main").inner_text()
        page.goto(base + "/zh/search/")
        assert "需要 JavaScript" in page.locator("main").inner_text()
        context.close()


def test_the_export_searches_under_its_own_csp_which_adds_only_wasm(demo_export, browser):
    from support.browser import WATCH_CSP

    with uvicorn_server(static_host(demo_export)) as base:
        page = browser.new_page()
        page.add_init_script(WATCH_CSP)
        page.goto(base + "/search/?q=" + quote("排版"))
        assert POST_ZH in hits(page)
        assert page.evaluate("window.__violations") == []
        csp = page.evaluate(
            "fetch(location.href).then(r => r.headers.get('content-security-policy'))"
        )
        assert "script-src 'self' 'wasm-unsafe-eval';" in csp + ";"
        page.close()


def test_without_wasm_unsafe_eval_the_export_cannot_search(demo_export, browser):
    """'wasm-unsafe-eval' is what Pagefind strictly needs: under the same policy without it the
    search page cannot search, and says so."""
    inner = static_host(demo_export)

    async def without_wasm(scope, receive, send):  # type: ignore[no-untyped-def]
        async def strip(message):  # type: ignore[no-untyped-def]
            if message["type"] == "http.response.start":
                headers = [
                    (k, v.replace(b" 'wasm-unsafe-eval'", b"")) for k, v in message["headers"]
                ]
                message = {**message, "headers": headers}
            await send(message)

        await inner(scope, receive, strip)

    with uvicorn_server(without_wasm) as base:
        page = browser.new_page()
        page.goto(base + "/search/?q=typography")
        csp = page.evaluate(
            "fetch(location.href).then(r => r.headers.get('content-security-policy'))"
        )
        assert "script-src 'self';" in csp
        page.wait_for_selector(".search-results:not([hidden])", timeout=60_000)
        assert page.locator(".list__count").inner_text() == "Search could not load its index."
        assert page.locator(".search-hits .hit").count() == 0
        page.close()


# --- the files --------------------------------------------------------------------------------


def policy(value: str) -> dict[str, str]:
    return dict(d.split(" ", 1) for d in value.split("; "))


def test_the_export_csp_is_the_served_one_with_wasm_only(demo_export):
    lines = (demo_export / "_headers").read_text().split("\n/")[0].splitlines()
    pairs = [line.strip().partition(": ") for line in lines]
    exported = policy(next(v for k, _, v in pairs if k == "Content-Security-Policy"))
    site = load_site(demo_export.parent / "site", {"base_url": BASE})
    with TestClient(create_app(site), base_url=BASE) as client:
        served = policy(client.get("/").headers["content-security-policy"])
    assert served["script-src"] == "'self'"  # the live site runs no WebAssembly
    assert exported == {**served, "script-src": "'self' 'wasm-unsafe-eval'"}


def test_the_index_and_its_pages_are_in_the_export(demo_export):
    assert (demo_export / "pagefind/pagefind.js").is_file()
    assert (demo_export / "pagefind/pagefind-entry.json").is_file()
    assert not list((demo_export / "pagefind").glob("pagefind-ui*"))  # Pagefind's own UI: unused
    for path, lang in (("search/index.html", "en"), ("zh/search/index.html", "zh-Hans")):
        page = BeautifulSoup((demo_export / path).read_text(), "html.parser")
        assert page.html["lang"] == lang
        assert page.select_one("#mh-static-search")["data-bundle"] == "/pagefind/"
        assert page.select_one("noscript") is not None
    home = BeautifulSoup((demo_export / "index.html").read_text(), "html.parser")
    form = home.select_one("form.search-form")
    assert form["action"] == "/search/" and form.has_attr("data-static")
    assert '"urlTemplate":"https://demo.example/search/?q={search_term_string}"' in str(home)
    # only posts are indexed, without what the live search leaves out too
    post = BeautifulSoup((demo_export / POST.strip("/") / "index.html").read_text(), "html.parser")
    body = post.select_one("[data-pagefind-body]")
    assert body is not None and body.select_one("#mh-comments") is not None
    about = (demo_export / "about/index.html").read_text()
    assert "data-pagefind-body" not in about


def test_han_characters_are_words_of_their_own_in_what_pagefind_reads():
    html = "<p>补丁来解决。但是，由于 dnsmasq是Kubernetes日</p><h1>排版</h1>"
    assert search_index.indexed_html(html) == (
        "<p> 补 丁 来 解 决 。 但 是 ， 由 于 dnsmasq 是 Kubernetes 日 </p><h1> 排 版 </h1>"
    )
    assert search_index.indexed_html("no Chinese here") == "no Chinese here"


def test_with_api_url_the_export_has_no_index_and_the_live_form(tmp_path):
    root = tmp_path / "site"
    shutil.copytree(DEMO, root, ignore=shutil.ignore_patterns(".masthead"))
    site = load_site(root, {"base_url": BASE, "api_url": "https://api.demo.example"})
    out = tmp_path / "out"
    build(site, out)
    assert not (out / "pagefind").exists() and not (out / "search").exists()
    page = BeautifulSoup((out / POST.strip("/") / "index.html").read_text(), "html.parser")
    form = page.select_one("form.comment-form")
    assert form is not None and form["action"].startswith("https://api.demo.example/comments?")
    assert page.select_one(".comments__as-of") is None
    assert "wasm-unsafe-eval" not in (out / "_headers").read_text()
    assert page.select_one("form.search-form")["action"] == "https://api.demo.example/search"


def test_tags_are_words_and_a_filter_of_the_index(tmp_path):
    """The live search finds a post by its tags; Pagefind leaves a <footer> out, so the post page
    of an export gives them to the index apart (post.html)."""
    import gzip
    import json

    from support.sites import post, write_site

    toml = 'title = "T"\nbase_url = "https://t.example"\n'
    site = write_site(
        tmp_path / "site", {"posts/a.md": post("A", tags='[zebrawood, "two, words"]')}, toml
    )
    build(site, tmp_path / "out")
    (fragment,) = (tmp_path / "out/pagefind/fragment").glob("*.pf_fragment")
    data = json.loads(gzip.decompress(fragment.read_bytes()).removeprefix(b"pagefind_dcd"))
    assert data["filters"]["tag"] == ["zebrawood", "two, words"]
    assert "zebrawood" in data["content"] and "two, words" in data["content"]
