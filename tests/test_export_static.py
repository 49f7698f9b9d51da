"""An export with no masthead behind it (`masthead build` without `api_url`, issue 31): search in
its own files (export/search_index.py), the comments as they stood at the build, and no
form that could not post.

The demo site, with approved, pending and spam comments on its sample post, is exported once per
module at a fixed instant (6 December 2026) and served as a new user serves it,
`python3 -m http.server`, or as Netlify does (its `_headers`: the CSP).
"""

from __future__ import annotations

import json
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
from masthead.export.build import MANIFEST, build
from masthead.indexing.indexer import index_site
from masthead.store import comments as comment_store
from masthead.store import posts as post_store
from masthead.store.db import Database
from masthead.web.app import create_app

from support.browser import outside_playwright
from support.servers import static_host, uvicorn_server
from support.sites import new_comment
from support.wait import CEILING, until

DEMO = Path(__file__).parent.parent / "src" / "masthead" / "demo"
BASE = "https://demo.example"
BUILT_AT = datetime(2026, 12, 6, 4, 0, tzinfo=UTC).timestamp()  # noon in Shanghai, the demo's zone
POST = "/posts/typography-for-long-reads/"
POST_ZH = "/zh/posts/typography-for-long-reads/"
NEEDS_JS = "Search on this copy of the site needs JavaScript."


# the tests reading `demo_export` run on one xdist worker, which exports the demo once
DEMO_EXPORT = pytest.mark.xdist_group("demo-export")


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
            lambda: httpx.get(base + "/", timeout=CEILING).status_code == 200,
            what="http.server to answer",
            retry=httpx.TransportError,
        )
        yield base
    finally:
        proc.terminate()
        proc.wait()


def hits(page) -> list[str]:  # type: ignore[no-untyped-def]
    page.wait_for_selector(".search-hits .hit")
    return page.eval_on_selector_all(
        ".search-hits .hit__title a", "links => links.map(a => a.getAttribute('href'))"
    )


# --- in Chromium ------------------------------------------------------------------------------


@DEMO_EXPORT
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
        for q in ("lang:zh 排版", "lang:zh-Hans 排版"):
            page.goto(base + "/search/?q=" + quote(q))
            assert hits(page) == [POST_ZH], q
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


@DEMO_EXPORT
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


@DEMO_EXPORT
def test_the_export_searches_under_the_served_csp(demo_export, browser):
    """The search is plain script over JSON files: no WebAssembly, nothing the live site's
    policy does not allow."""
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
        assert "script-src 'self';" in csp + ";"
        page.close()


@DEMO_EXPORT
def test_a_missing_index_says_search_could_not_load_it(demo_export, tmp_path, browser):
    copy = tmp_path / "public"
    shutil.copytree(demo_export, copy)
    (copy / "search-index/index.json").unlink()
    with http_server(copy) as base:
        page = browser.new_page()
        page.goto(base + "/search/?q=typography")
        page.wait_for_selector(".search-results:not([hidden])")
        assert page.locator(".list__count").inner_text() == "Search could not load its index."
        assert page.locator(".search-hits .hit").count() == 0
        page.close()


# --- the files --------------------------------------------------------------------------------


def policy(value: str) -> dict[str, str]:
    return dict(d.split(" ", 1) for d in value.split("; "))


@DEMO_EXPORT
def test_the_export_csp_is_the_served_one(demo_export):
    lines = (demo_export / "_headers").read_text().split("\n/")[0].splitlines()
    pairs = [line.strip().partition(": ") for line in lines]
    exported = policy(next(v for k, _, v in pairs if k == "Content-Security-Policy"))
    site = load_site(demo_export.parent / "site", {"base_url": BASE})
    with TestClient(create_app(site), base_url=BASE) as client:
        served = policy(client.get("/").headers["content-security-policy"])
    assert served["script-src"] == "'self'"
    assert exported == served


def index_files(out: Path) -> set[str]:
    folder = out / search_index.FOLDER
    return {p.relative_to(out).as_posix() for p in folder.rglob("*") if p.is_file()}


def referenced(out: Path) -> set[str]:
    """The files the index in OUT is made of, as its index.json describes it."""
    meta = json.loads((out / search_index.FOLDER / "index.json").read_text())
    return search_index.files(meta)


@DEMO_EXPORT
def test_the_index_and_its_pages_are_in_the_export(demo_export):
    assert index_files(demo_export) == referenced(demo_export)
    meta = json.loads((demo_export / "search-index/index.json").read_text())
    assert meta["posts"] == len(list((demo_export / "search-index/d").glob("*.json"))) > 2
    for path, lang in (("search/index.html", "en"), ("zh/search/index.html", "zh-Hans")):
        page = BeautifulSoup((demo_export / path).read_text(), "html.parser")
        assert page.html["lang"] == lang
        assert page.select_one("#mh-static-search")["data-index"] == "/search-index/"
        assert page.select_one("noscript") is not None
    home = BeautifulSoup((demo_export / "index.html").read_text(), "html.parser")
    form = home.select_one("form.search-form")
    assert form["action"] == "/search/" and form.has_attr("data-static")
    assert '"urlTemplate":"https://demo.example/search/?q={search_term_string}"' in str(home)
    # the post pages are as the server sends them: the index is made from the database
    assert "pagefind" not in (demo_export / POST.strip("/") / "index.html").read_text()
    # only posts are indexed (not the about page), each once
    urls = [json.loads(p.read_text())["url"] for p in (demo_export / "search-index/d").iterdir()]
    assert POST in urls and POST_ZH in urls and "/about/" not in urls
    assert len(urls) == len(set(urls))


def test_posting_lists_and_the_shard_hash():
    for ids in ([], [0], [0, 1, 2], [5, 31, 32, 33, 1000, 1_000_000], list(range(0, 5000, 7))):
        assert search_index.decode(search_index.encode(ids)) == ids
    assert len(search_index.encode(list(range(1000)))) == 1000  # one character a gap under 32
    assert search_index.fnv1a("a") == 0xE40C292C  # the published FNV-1a test vectors
    assert search_index.fnv1a("foobar") == 0xBF9CF968
    assert search_index.fnv1a("") == 0x811C9DC5


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


def shard_entry(out: Path, key: str):  # type: ignore[no-untyped-def]
    meta = json.loads((out / search_index.FOLDER / "index.json").read_text())
    n = search_index.fnv1a(key) % meta["shards"]
    return json.loads((out / search_index.FOLDER / f"s/{n}.json").read_text()).get(key)


def small(root: Path, n: int):  # type: ignore[no-untyped-def]
    from support.sites import post, write_site

    toml = 'title = "T"\nbase_url = "https://t.example"\n'
    files = {
        f"posts/p{i}.md": post(f"Post {i}", f"2024-01-{i + 1:02d}", body=f"Harbour words {i}.\n")
        for i in range(n)
    }
    return write_site(root, files, toml)


def test_tags_are_words_and_a_filter_of_the_index(tmp_path):
    """The live search finds a post by its tags: so does the export's, and tag: keeps only the
    posts with the tag."""
    from support.sites import post, write_site

    toml = 'title = "T"\nbase_url = "https://t.example"\n'
    site = write_site(
        tmp_path / "site", {"posts/a.md": post("A", tags='[zebrawood, "Two, Words"]')}, toml
    )
    out = tmp_path / "out"
    build(site, out)
    doc = json.loads((out / "search-index/d/0.json").read_text())
    assert doc["tags"] == ["zebrawood", "Two, Words"]
    assert search_index.decode(shard_entry(out, "zebrawood")) == [0]
    assert search_index.decode(shard_entry(out, "tag:two, words")) == [0]
    assert search_index.decode(shard_entry(out, "lang:en")) == [0]


def test_a_word_as_typed_leads_to_the_stem_the_live_search_indexed(tmp_path):
    from support.sites import post, write_site

    code = "```python\nrecords = text.splitlines()\n```\n"  # words only in code too
    code += "\nContainers, containerization.\n"  # the stem of the second is `container`
    toml = 'title = "T"\nbase_url = "https://t.example"\n'
    site = write_site(
        tmp_path / "site",
        {"posts/a.md": post("A", body="Running connections, café.\n\n" + code)},
        toml,
    )
    out = tmp_path / "out"
    build(site, out)
    assert shard_entry(out, "running") == ["run"]  # FTS5's Porter stem
    assert shard_entry(out, "connections") == ["connect"]
    assert search_index.decode(shard_entry(out, "run")) == [0]
    assert search_index.decode(shard_entry(out, "cafe")) == [0]  # remove_diacritics
    assert shard_entry(out, "records") == ["record"]
    assert shard_entry(out, "container") == ["contain"]  # as the live search stems the query
    assert shard_entry(out, "containerization") == ["=container"]
    assert search_index.decode(shard_entry(out, "=container")) == [0]


def test_a_rebuilt_index_leaves_no_file_it_does_not_reference(tmp_path):
    site = small(tmp_path / "site", 3)
    out = tmp_path / "out"
    build(site, out)
    assert index_files(out) == referenced(out)
    assert (out / "search-index/d/2.json").is_file()
    (site.content_dir / "posts/p0.md").unlink()
    (site.content_dir / "posts/p1.md").unlink()
    build(site, out)
    assert index_files(out) == referenced(out)
    assert not (out / "search-index/d/1.json").exists()
    assert json.loads((out / "search-index/d/0.json").read_text())["url"] == "/posts/p2/"


def test_a_comment_only_refresh_keeps_the_index_or_leaves_no_stale_file(tmp_path):
    """A build after a moderated comment only fetches the pages showing it again: the index,
    made from the posts, is kept as it is. When it must be made again then (here: an index of
    an older format, with a file this one has not), the files of the old one are removed."""
    site = small(tmp_path / "site", 3)
    out = tmp_path / "out"
    build(site, out)
    before = {rel: (out / rel).read_bytes() for rel in index_files(out)}

    def comment(body: str) -> None:
        db = Database(site.database_path)
        row = post_store.post_by_url(db.read(), "/posts/p1/", BUILT_AT)
        assert row is not None
        fields = {"post_url": "/posts/p1/", "lang": "en", "status": "approved"}
        comment_store.add(db, new_comment(row.translation_key, body, **fields), actor="test")
        db.close()

    comment("First.")
    report = build(site, out)
    assert report.fetched > 0 and not any(r.startswith("search-index/") for r in report.changed)
    assert {rel: (out / rel).read_bytes() for rel in index_files(out)} == before

    # an index of another format: a file more, listed in the manifest, and another stamp
    stray = "search-index/s/99.json"
    (out / stray).write_text("{}")
    manifest = json.loads((out / MANIFEST).read_text())
    manifest["files"].append(stray)
    (out / MANIFEST).write_text(json.dumps(manifest))
    (out / search_index.STAMP).write_text("an older index")
    comment("Second.")
    report = build(site, out)
    assert 0 < report.fetched < 20  # the refresh, not a full build
    assert (
        not (out / stray).exists()
        and stray not in json.loads((out / MANIFEST).read_text())["files"]
    )
    assert index_files(out) == referenced(out)


def test_a_scheduled_post_joins_the_index_when_it_comes_due(tmp_path):
    from support.sites import post, write_site

    toml = 'title = "T"\nbase_url = "https://t.example"\n'
    files = {
        "posts/old.md": post("Old", "2024-01-01", body="Harbour.\n"),
        "posts/due.md": post("Due", "2030-01-01", body="Harbour.\n"),
    }
    site = write_site(tmp_path / "site", files, toml)
    out = tmp_path / "out"
    build(site, out, clock=lambda: datetime(2029, 1, 1, tzinfo=UTC).timestamp())
    assert search_index.decode(shard_entry(out, "harbour")) == [0]
    build(site, out, clock=lambda: datetime(2031, 1, 1, tzinfo=UTC).timestamp())
    assert search_index.decode(shard_entry(out, "harbour")) == [0, 1]
    assert json.loads((out / "search-index/d/1.json").read_text())["url"] == "/posts/due/"
    assert index_files(out) == referenced(out)
