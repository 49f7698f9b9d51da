"""Full-text search over HTTP: Chinese and English, the query language, ranking, snippets,
facets, suggestions, the query log; cases C19, C20 and C21 on their inputs."""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from masthead.store.db import Database

from support.sites import K8S_CORPUS, K8S_GROUP, post
from support.sql import trace_statements

CASES = Path(__file__).parent / "data" / "cases"
CORPUS = K8S_CORPUS


def api(client, q: str = "", **params):  # type: ignore[no-untyped-def]
    r = client.get("/api/search", params={"q": q, **params})
    assert r.status_code == 200, (q, r.text)
    return r.json()


def logged(client) -> None:  # type: ignore[no-untyped-def]
    """Write the search log now (it is written in the background, a typing session when it
    ends)."""
    client.app.state.search.log.flush(everything=True)


def urls(result) -> list[str]:  # type: ignore[no-untyped-def]
    return [h["url"] for h in result["hits"]]


@pytest.fixture
def case_site(make_site, serve):  # type: ignore[no-untyped-def]
    files = {
        f"posts/{name}": (CASES / name).read_bytes()
        for name in ("C19-search-corpus.md", "C20-cjk-post.md", "C21-snippet-post.md")
    }
    files["posts/other.md"] = post("Unrelated", "2024-02-01", body="Nothing to see.\n")
    site = make_site(files)
    return site, serve(site)


# --- cases --------------------------------------------------------------------------------


def test_c19_no_query_fails_and_ordinary_ones_find_the_post(case_site):
    _site, client = case_site
    queries = json.loads((CASES / "C19-queries.json").read_text())["queries"]
    assert len(queries) == 25
    for entry in queries:
        q = entry["q"]
        assert client.get("/search", params={"q": q}).status_code == 200, q
        result = api(client, q)
        if not q.strip():
            assert result["ran"] is False and result["total"] == 0, "a prompt, no query"
    for q in ("ORD-20240301", "e-mail", "C++", "std::vector", "harbour.", "don't", "harb*", "1.5"):
        assert "/posts/c19-harbour/" in urls(api(client, q)), q
    # no column filter the reader never asked for: title:harbour is a plain word
    assert api(client, "title:harbour")["total"] == 0
    assert "/posts/c19-harbour/" not in urls(api(client, "-harbour"))


def test_c19_empty_query_is_a_prompt_not_a_search(case_site):
    site, client = case_site
    page = BeautifulSoup(client.get("/search", params={"q": "   "}).text, "html.parser")
    assert "Type a word" in page.select_one(".empty").get_text()
    count = Database(site.database_path).read().execute("SELECT COUNT(*) FROM search_log")
    assert count.fetchone()[0] == 0


def test_c20_chinese_words_are_found(case_site):
    _site, client = case_site
    queries = json.loads((CASES / "C20-queries.json").read_text())["queries"]
    for q in queries:
        assert urls(api(client, q)) == ["/zh/posts/c20-cjk/"], q
    assert urls(api(client, "部署", lang="zh")) == ["/zh/posts/c20-cjk/"]
    assert api(client, "部署", lang="en")["total"] == 0
    assert urls(api(client, "部署 lang:zh")) == ["/zh/posts/c20-cjk/"]
    assert "/posts/c19-harbour/" in urls(api(client, "harbour")), "English unaffected"


def test_c21_snippets_are_escaped_and_balanced(case_site):
    _site, client = case_site
    for q in ("script", "tag", "Jerry", "cheese", "marker", "mark", "span", "class"):
        for hit in api(client, q)["hits"]:
            for field in ("snippet_html", "title_html"):
                html = hit[field]
                assert "<script" not in html and "<em>" not in html and "<strong>" not in html
                tags = re.findall(r"</?[a-z]+[^>]*>", html)
                assert set(tags) <= {"<mark>", "</mark>"}, (q, html)
                assert tags.count("<mark>") == tags.count("</mark>"), (q, html)
                assert not re.search(r"&[a-z]*$", html), "no entity cut in half"
    hit = api(client, "script")["hits"][0]
    assert "&lt;<mark>script</mark>&gt;" in hit["snippet_html"]
    assert "Tom &amp; <mark>Jerry</mark>" in api(client, "Jerry")["hits"][0]["snippet_html"]
    assert "<mark>marker</mark>" in api(client, "marker")["hits"][0]["snippet_html"]
    page = client.get("/search", params={"q": "<b>cheese</b>"}).text
    assert "<b>cheese</b>" not in page and "&lt;b&gt;cheese&lt;/b&gt;" in page


# --- the query language -------------------------------------------------------------------


@pytest.fixture
def lang_site(make_site, serve):  # type: ignore[no-untyped-def]
    files = {
        "posts/a.md": post(
            "Container basics",
            "2023-06-01T23:30:00+08:00",
            body="A container runs one café process.\n",
            tags="[docker, runtime]",
            category="ops",
            author="Alice Liddell",
        ),
        "posts/b.md": post(
            "Scheduling notes",
            "2024-01-01T00:30:00+08:00",
            body="The kubelet watches pods and the container runtime. Pod lifecycle events.\n",
            tags="[kubernetes]",
            category="ops",
            author="Bob",
        ),
        "posts/c.md": post(
            "Kubernetes at home",
            "2024-05-01",
            body="Running kubernetes on a Raspberry Pi.\n",
            tags="[kubernetes, docker]",
            category="home",
        ),
        "posts/d.md": post(
            "工作节点",
            "2024-05-02",
            lang="zh",
            body="每个工作节点都运行 kubelet，它负责管理容器的生命周期。\n",
            tags="[kubernetes]",
        ),
    }
    return serve(make_site(files))


def test_words_phrases_exclusion_or_prefix(lang_site):
    c = lang_site
    assert set(urls(api(c, "containers"))) == {"/posts/a/", "/posts/b/"}, "stemmed"
    assert urls(api(c, "CAFE")) == ["/posts/a/"], "case and accents do not matter"
    assert urls(api(c, "kubelet pods")) == ["/posts/b/"], "all words must match"
    assert urls(api(c, '"pod lifecycle"')) == ["/posts/b/"]
    assert api(c, '"lifecycle pod"')["total"] == 0
    assert urls(api(c, "container -kubelet")) == ["/posts/a/"]
    assert set(urls(api(c, "raspberry OR café"))) == {"/posts/a/", "/posts/c/"}
    assert set(urls(api(c, "kube*"))) == {"/posts/b/", "/posts/c/", "/zh/posts/d/"}
    assert urls(api(c, "AND")) == ["/posts/b/"], "AND is a plain word ('pods and the')"
    assert api(c, "NEAR(")["total"] == 0


def test_chinese_inside_longer_text_and_mixed_queries(lang_site):
    c = lang_site
    assert urls(api(c, "节点")) == ["/zh/posts/d/"], "a word inside 每个工作节点都运行"
    assert urls(api(c, "kubelet 节点")) == ["/zh/posts/d/"]
    assert urls(api(c, "生命周期")) == ["/zh/posts/d/"]
    hit = api(c, "节点")["hits"][0]
    assert "<mark>节点</mark>" in hit["snippet_html"] + hit["title_html"]
    assert "\u200b" not in json.dumps(api(c, "节点"), ensure_ascii=False)


def test_filters_in_the_query_and_as_parameters(lang_site):
    c = lang_site
    assert urls(api(c, "tag:docker")) == ["/posts/c/", "/posts/a/"], "newest first"
    assert urls(api(c, "", tag="Docker")) == ["/posts/c/", "/posts/a/"]
    assert urls(api(c, "category:home")) == ["/posts/c/"]
    assert urls(api(c, "author:alice")) == ["/posts/a/"]
    assert urls(api(c, "lang:zh-CN")) == ["/zh/posts/d/"]
    assert urls(api(c, "year:2023")) == ["/posts/a/"]
    # inclusive whole days in the site's zone (Asia/Shanghai), not UTC
    assert urls(api(c, "before:2023-06-01")) == ["/posts/a/"]
    assert urls(api(c, "after:2024-01-01 before:2024-01-01")) == ["/posts/b/"]
    assert urls(api(c, "", after="2024-05-02")) == ["/zh/posts/d/"]
    assert urls(api(c, "kubernetes tag:docker")) == ["/posts/c/"]
    assert api(c, "after:notadate")["total"] == 0, "an invalid filter is a plain word"
    assert c.get("/api/search", params={"after": "2024-13-01"}).status_code == 422
    bad = c.get("/api/search", params={"page": 0})
    assert bad.status_code == 422 and "page" in bad.json()["error"]["message"]
    assert c.get("/search", params={"year": "soon"}).status_code == 400


def test_ranking_title_above_body_newest_on_ties(make_site, serve):
    files = {
        "posts/body.md": post("Something else", "2024-03-03", body="About lighthouses.\n"),
        "posts/title.md": post("Lighthouses", "2024-03-01", body="Stone towers.\n"),
        "posts/old.md": post("Ties old", "2024-01-01", body="Beacon.\n"),
        "posts/new.md": post("Ties new", "2024-02-01", body="Beacon.\n"),
    }
    c = serve(make_site(files))
    assert urls(api(c, "lighthouses")) == ["/posts/title/", "/posts/body/"]
    assert urls(api(c, "beacon")) == ["/posts/new/", "/posts/old/"]


def test_facets_narrow_the_search(lang_site):
    c = lang_site
    result = api(c, "kubernetes")
    tags = {f["key"]: f["count"] for f in result["facets"]["tags"]}
    assert tags == {"kubernetes": 3, "docker": 1}
    langs = {f["key"]: f["count"] for f in result["facets"]["lang"]}
    assert langs == {"en": 2, "zh": 1}
    page = BeautifulSoup(c.get("/search", params={"q": "kubernetes"}).text, "html.parser")
    link = next(a for a in page.select(".facet a") if a.get_text() == "docker")
    narrowed = BeautifulSoup(c.get(link["href"]).text, "html.parser")
    assert [a["href"] for a in narrowed.select(".hit__title a")] == ["/posts/c/"]
    assert narrowed.select_one(".list__count").get_text() == "1 result"


def test_empty_state_suggests_terms_and_the_query_without_filters(lang_site):
    c = lang_site
    result = api(c, "kubelte")
    assert result["total"] == 0 and result["suggestions"] == ["kubelet"]
    result = api(c, "raspberry tag:docker year:2023")
    assert result["total"] == 0 and result["without_filters"] == "raspberry"
    page = BeautifulSoup(c.get("/search", params={"q": "kubelte"}).text, "html.parser")
    assert page.select_one('.empty a[href="/search?q=kubelet"]') is not None


def test_search_pages_box_noindex_and_openapi(lang_site):
    c = lang_site
    for path in ("/", "/posts/a/", "/zh/", "/archive/"):
        form = BeautifulSoup(c.get(path).text, "html.parser").select_one("header form[role=search]")
        assert form is not None, path
    assert (
        BeautifulSoup(c.get("/zh/").text, "html.parser").select_one("header form[role=search]")[
            "action"
        ]
        == "/zh/search"
    )
    page = BeautifulSoup(c.get("/zh/search", params={"q": "节点"}).text, "html.parser")
    assert page.select_one('meta[name="robots"]')["content"] == "noindex"
    assert page.html["lang"] == "zh-Hans" and "1 条结果" in page.get_text()
    assert "/api/search" in c.get("/api/openapi.json").json()["paths"]
    assert "/search" not in c.get("/api/openapi.json").json()["paths"]


# --- the index stays in step ---------------------------------------------------------------


def test_index_follows_edits_additions_deletions_and_renames(make_site):
    from starlette.testclient import TestClient

    from masthead.indexing.indexer import index_site
    from masthead.web.app import create_app

    site = make_site({"posts/a.md": post("First", "2024-01-01", body="Walrus.\n")})
    db = Database(site.database_path)
    index_site(site, db)
    with TestClient(create_app(site, index=False)) as c:
        assert urls(api(c, "walrus")) == ["/posts/a/"]
        path = site.content_dir / "posts/a.md"
        path.write_text(post("First", "2024-01-01", body="Narwhal.\n"))
        index_site(site, db)
        assert api(c, "walrus")["total"] == 0 and urls(api(c, "narwhal")) == ["/posts/a/"]
        (site.content_dir / "posts/b.md").write_text(post("Second", "2024-01-02", body="Walrus.\n"))
        index_site(site, db)
        assert urls(api(c, "walrus")) == ["/posts/b/"]
        path.rename(site.content_dir / "posts/renamed.md")
        index_site(site, db)
        assert urls(api(c, "narwhal")) == ["/posts/renamed/"]
        (site.content_dir / "posts/b.md").unlink()
        index_site(site, db)
        assert api(c, "walrus")["total"] == 0
        index_site(site, db, full=True)
        assert urls(api(c, "narwhal")) == ["/posts/renamed/"]
    with db.write() as conn:  # raises when the index is out of step with its content table
        conn.execute("INSERT INTO search_fts (search_fts, rank) VALUES ('integrity-check', 1)")


def test_drafts_and_future_posts_are_not_found(make_site, serve):
    later = (datetime.now(UTC) + timedelta(days=3)).isoformat()
    files = {
        "posts/d.md": post("Draft", "2024-01-01", body="Okapi.\n", draft="true"),
        "posts/f.md": post("Future", later, body="Okapi.\n"),
    }
    assert api(serve(make_site(files)), "okapi")["total"] == 0


@K8S_GROUP
def test_kubernetes_corpus_in_both_languages(k8s_client):
    c = k8s_client
    zh = api(c, "节点", lang="zh", per_page=50)
    assert zh["total"] >= 5 and all(u.startswith("/zh/posts/") for u in urls(zh))
    text = (CORPUS / "content/zh-cn/non-graceful-node-shutdown-to-beta.md").read_text()
    assert "节点" in text and "\n节点\n" not in text
    assert "/zh/posts/kubernetes-1-26-non-graceful-node-shutdown-beta/" in urls(zh)
    mixed = api(c, "kubelet 节点", per_page=50)
    assert mixed["total"] >= 1 and set(urls(mixed)) <= set(urls(zh))
    en = api(c, "kubelet", lang="en")
    assert en["total"] >= 5
    assert all(h["url"].startswith("/posts/") for h in en["hits"])


# --- no input can make it fail ---------------------------------------------------------------


@pytest.fixture(scope="module")
def fuzz_client(tmp_path_factory):  # type: ignore[no-untyped-def]
    from starlette.testclient import TestClient

    from masthead.config import load_site
    from masthead.web.app import create_app

    root = tmp_path_factory.mktemp("fuzz") / "site"
    (root / "content/posts").mkdir(parents=True)
    (root / "masthead.toml").write_text('[languages.en]\nname = "English"\n')
    for name in ("C19-search-corpus.md", "C21-snippet-post.md"):
        shutil.copy(CASES / name, root / "content/posts" / name)
    with TestClient(create_app(load_site(root))) as client:
        yield client


QUERY_TEXT = st.one_of(
    st.text(max_size=200),
    st.lists(
        st.sampled_from(
            [
                '"',
                "(",
                ")",
                "*",
                ":",
                "-",
                "AND",
                "OR",
                "NOT",
                "NEAR",
                "^",
                "+",
                "title:",
                "tag:",
                "after:",
                "year:",
                "harbour",
                "节点",
                "😀",
                "\x00",
                "\u200b",
                "{",
                "}",
            ]
        ),
        max_size=12,
    ).map(" ".join),
    st.text(alphabet=st.characters(codec="utf-8"), min_size=5000, max_size=10_000),
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(q=QUERY_TEXT)
@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_any_text_is_a_valid_search(fuzz_client, q):
    r = fuzz_client.get("/api/search", params={"q": q})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["total"] >= 0
    for hit in body["hits"]:
        assert set(re.findall(r"</?[a-z]+", hit["snippet_html"])) <= {"<mark", "</mark"}
    page = fuzz_client.get("/search", params={"q": q})
    assert page.status_code == 200


@settings(max_examples=60, deadline=None)
@given(
    params=st.dictionaries(
        st.sampled_from(["lang", "tag", "category", "author", "after", "before", "year", "page"]),
        st.text(max_size=30),
        max_size=4,
    )
)
def test_any_parameters_give_200_or_a_4xx(fuzz_client, params):
    for path in ("/api/search", "/search"):
        r = fuzz_client.get(path, params=params)
        assert r.status_code in (200, 400, 422), (path, params, r.status_code)
        if path == "/api/search" and r.status_code == 422:
            assert r.json()["error"]["message"]


# --- the query log --------------------------------------------------------------------------


def test_every_search_is_logged_without_the_address(lang_site):
    c = lang_site
    api(c, "kubelet tag:kubernetes")
    api(c, "nothingmatches")
    logged(c)
    db = Database(c.app.state.masthead.site.database_path)
    rows = db.read().execute("SELECT * FROM search_log ORDER BY id").fetchall()
    assert [r["query"] for r in rows] == ["kubelet tag:kubernetes", "nothingmatches"]
    first = rows[0]
    assert first["terms"] == "kubelet" and json.loads(first["filters"]) == {"tags": ["kubernetes"]}
    assert first["results"] == 2 and first["latency_ms"] > 0 and first["at"] > time.time() - 60
    assert rows[1]["results"] == 0
    assert first["client"] and "testclient" not in first["client"]
    assert first["client"] == rows[1]["client"], "one visitor within a day"
    service = c.app.state.search
    tomorrow = service.clock
    service.clock = lambda: tomorrow() + 86400
    try:
        assert service.client_hash("testclient") != first["client"], "the salt changes daily"
    finally:
        service.clock = tomorrow


def test_log_retention_and_the_search_log_command(make_site, serve):
    site = make_site({"posts/a.md": post("Walrus facts", "2024-01-01")})
    clock = {"now": time.time() - 100 * 86400}
    c = serve(site, clock=lambda: clock["now"])
    api(c, "ancient query")
    clock["now"] = time.time()
    for q in ("walrus", "walrus", "Walrus", "missing words", "missing words"):
        api(c, q)
    logged(c)
    db = Database(site.database_path)
    queries = [r[0] for r in db.read().execute("SELECT query FROM search_log")]
    assert "ancient query" not in queries, "older than 90 days: pruned"
    out = subprocess.run(
        [sys.executable, "-m", "masthead", "search-log", str(site.root), "--days", "7"],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "120"},
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    top, _, empty = out.stdout.partition("no results")
    assert re.search(r"(?i)walrus\s*│\s*│\s*3", top) and "missing words" in top
    assert "missing words" in empty and "walrus" not in empty


def test_search_pagination(make_site, serve):
    files = {
        f"posts/p{i:02d}.md": post(f"Beacon {i}", f"2024-01-{i + 1:02d}", body="Beacon.\n")
        for i in range(23)
    }
    c = serve(make_site(files))
    first = api(c, "beacon", per_page=10)
    assert (first["total"], first["pages"], len(first["hits"])) == (23, 3, 10)
    third = api(c, "beacon", per_page=10, page=3)
    assert len(third["hits"]) == 3
    seen = {u for n in (1, 2, 3) for u in urls(api(c, "beacon", per_page=10, page=n))}
    assert len(seen) == 23, "pages do not overlap"
    page = BeautifulSoup(c.get("/search", params={"q": "beacon"}).text, "html.parser")
    nxt = page.select_one('.pagination a[rel="next"]')["href"]
    assert nxt == "/search?q=beacon&page=2"
    second = BeautifulSoup(c.get(nxt).text, "html.parser")
    assert len(second.select(".hit")) == 10
    assert second.select_one('.pagination a[rel="prev"]')["href"] == "/search?q=beacon"
    assert api(c, "beacon", page=99)["page"] == 3, "a page past the end shows the last one"


def test_search_log_output_is_inert_and_keeps_searches_apart(make_site, serve):
    site = make_site({"posts/a.md": post("Walrus facts", "2024-01-01", body="cri containerd\n")})
    c = serve(site)
    for q in (
        "[bold]x",
        ":smile: walrus",
        "esc \x1b[31mRED",
        "cri OR containerd",
        "cri or containerd",
    ):
        api(c, q)
    api(c, "walrus", tag="nothing")
    logged(c)
    out = subprocess.run(
        [sys.executable, "-m", "masthead", "search-log", str(site.root)],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "160"},
        timeout=60,
    ).stdout
    assert "[bold]x" in out and ":smile: walrus" in out, "no markup, no emoji codes"
    assert "\x1b" not in out and "\\x1b[31mRED" in out, "escape codes shown, not run"
    assert "cri OR containerd" in out and "cri or containerd" in out
    assert "tags=['nothing']" in out


def test_suggestions_keep_operators_phrases_and_filters(lang_site):
    c = lang_site
    assert api(c, "kubelte -docker")["suggestions"] == ["kubelet -docker"]
    assert api(c, "contaner OR kubelte")["suggestions"] == ["container OR kubelet"]
    assert api(c, '"kubelte watches"')["suggestions"] == ['"kubelet watches"']
    page = BeautifulSoup(
        c.get("/search", params={"q": "kubelte", "lang": "en"}).text, "html.parser"
    )
    link = page.select_one(".empty a")["href"]
    assert "q=kubelet" in link and "lang=en" in link


def test_han_runs_match_side_by_side(make_site, serve):
    files = {
        "posts/yes.md": post("调度", "2024-01-01", lang="zh", body="调度器负责放置 Pod。\n"),
        "posts/no.md": post("分开", "2024-01-02", lang="zh", body="调度很重要。这个容器很大。\n"),
    }
    c = serve(make_site(files))
    assert urls(api(c, "调度器")) == ["/zh/posts/yes/"]
    assert set(urls(api(c, "调度"))) == {"/zh/posts/yes/", "/zh/posts/no/"}


def test_api_parameters_are_typed_and_checked(lang_site):
    c = lang_site
    bad = c.get("/api/search", params={"q": "kubelet", "lang": "fr"})
    assert bad.status_code == 422 and "unknown language 'fr'" in bad.json()["error"]["message"]
    assert urls(api(c, "", after="2024")) == ["/zh/posts/d/", "/posts/c/", "/posts/b/"]
    assert urls(api(c, "", before="2023-06")) == ["/posts/a/"]
    assert c.get("/api/search", params={"after": "2024-13"}).status_code == 422
    assert urls(api(c, "", tag=["kubernetes", "docker"])) == ["/posts/c/"], "all tags apply"
    assert urls(api(c, "ｋｕｂｅｌｅｔ")) == urls(api(c, "kubelet")), "full-width Latin"
    for number in ("0", "-1", "-99999999999", "+2"):  # before the first page: the first
        page = c.get("/search", params={"q": "kubelet", "page": number})
        assert page.status_code == 200, f"page {number}: the nearest page, not an error"
    assert c.get("/search", params={"q": "kubelet", "page": "two"}).status_code == 400
    assert "cdn" not in c.get("/api/openapi.json").text.lower()
    docs = c.get("/api/docs", follow_redirects=True)
    assert docs.status_code == 404, "no Swagger UI from a CDN"


def test_redirects_keep_the_query_string(lang_site):
    r = lang_site.get("/zh/search/", params={"q": "节点"})
    assert r.status_code == 301 and r.headers["location"].endswith(
        "/zh/search?q=%E8%8A%82%E7%82%B9"
    )


def test_the_search_form_keeps_active_filters(lang_site):
    page = BeautifulSoup(
        lang_site.get("/search", params={"q": "kubelet", "lang": "zh"}).text, "html.parser"
    )
    hidden = {
        i["name"]: i["value"] for i in page.select("form.search-form--page input[type=hidden]")
    }
    assert hidden == {"lang": "zh"}


# --- numbers and dates: in range they work, out of range or contradictory they are a message ------


def test_every_date_in_range_works_and_out_of_range_is_a_message(lang_site):
    c = lang_site
    for params in (
        {"year": 9999},
        {"before": "9999"},
        {"before": "9999-12-31"},
        {"after": "0001"},
        {"after": "0001-01-01", "before": "9999-12-31"},
        {"year": 1000},
    ):
        assert api(c, "kubelet", **params)["total"] in (0, 2), params
    assert api(c, "kubelet before:9999-12-31")["total"] == 2
    assert api(c, "kubelet after:0001-01-01")["total"] == 2
    for q, params in (
        ("before:9999-12-31", {}),
        ("kubelet year:9999", {}),
        ("kubelet", {"year": "9999"}),
        ("kubelet", {"before": "9999-12"}),
        ("kubelet", {"page": "99999999999999999999999"}),  # past the end: the last page
    ):
        assert c.get("/search", params={"q": q, **params}).status_code == 200, (q, params)
    for params, name in (
        ({"year": "99999"}, "year"),
        ({"year": "999"}, "year"),
        ({"after": "0000"}, "after"),
        ({"before": "2024-02-30"}, "before"),
        ({"page": "0"}, "page"),
        ({"page": "99999999999999999999"}, "page"),
        ({"per_page": "51"}, "per_page"),
        ({"tag": ["t"] * 21}, "tag"),
        ({"author": "a" * 201}, "author"),
    ):
        r = c.get("/api/search", params={"q": "kubelet", **params})
        assert r.status_code == 422, (params, r.text)
        assert r.json()["error"]["message"].startswith(f"query.{name}:"), r.text
    for params, name in (
        ({"year": "99999"}, "year"),
        ({"year": "２０２４"}, "year"),
        ({"after": "0000"}, "after"),
        ({"page": "abc"}, "page"),
        ({"tag": ["t"] * 21}, "tag"),
        ({"lang": "fr"}, "lang"),
    ):
        r = c.get("/search", params={"q": "kubelet", **params})
        assert r.status_code == 400, (params, r.status_code)
        page = BeautifulSoup(r.text, "html.parser")
        notice = page.select_one('.search-page [role="alert"]').get_text()
        assert notice.startswith(f"{name}:"), notice
        assert page.select_one("#mh-q")["value"] == "kubelet", "the form keeps the query"


def test_contradictory_dates_are_a_422_and_a_notice_not_an_empty_result(lang_site):
    c = lang_site
    for q, params in (
        ("kubelet", {"after": "2024", "before": "2023"}),
        ("kubelet after:2024 before:2023", {}),
        ("kubelet year:2023 year:2024", {}),
        ("kubelet after:2024-06", {"year": "2023"}),
        ("kubelet before:2023", {"after": "2024-01-01"}),
    ):
        r = c.get("/api/search", params={"q": q, **params})
        assert r.status_code == 422, (q, params, r.text)
        message = r.json()["error"]["message"]
        assert "later than before" in message and "2023-12-31" in message, message
        page = c.get("/search", params={"q": q, **params})
        assert page.status_code == 400
        notice = BeautifulSoup(page.text, "html.parser").select_one('[role="alert"]')
        assert "later than before" in notice.get_text()
    zh = c.get("/zh/search", params={"q": "kubelet after:2024-05-01 before:2024-01-01"})
    notice = BeautifulSoup(zh.text, "html.parser").select_one('[role="alert"]')
    assert zh.status_code == 400 and "互相矛盾" in notice.get_text(), "in the page's language"
    assert api(c, "", after="2024-05-01", before="2024-05-01")["total"] == 1, "one day: inclusive"


# --- the search log never fails a search ----------------------------------------------------

HOLD_WRITE_LOCK = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")  # what `masthead index --full` holds while it writes
conn.execute("UPDATE site_state SET value = value")
print("locked", flush=True)
sys.stdin.readline()
conn.execute("COMMIT")
"""


@contextmanager
def write_lock_held(path: Path) -> Iterator[None]:
    """Another process holds the write lock of the SQLite file at `path` until the end."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_WRITE_LOCK, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        yield
    finally:
        if holder.stdin is not None:
            holder.stdin.write("\n")
            holder.stdin.close()
        holder.wait(timeout=30)


# A request that waited for a held lock would wait out a connection's busy timeout (10 s,
# store/db.py) and end in SQLITE_BUSY; half of it is a ceiling only such a wait reaches, however
# loaded the machine (a ceiling on waiting, not a speed budget).
WAITED = 5.0


def timed_get(client, path: str, **params):  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    r = client.get(path, params=params)
    return r, time.perf_counter() - started


def log_messages(caplog, level: int) -> list[str]:  # type: ignore[no-untyped-def]
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "masthead.search.log" and r.levelno == level
    ]


def test_a_search_answers_while_another_process_holds_the_write_lock(lang_site, caplog):
    caplog.set_level(logging.INFO, logger="masthead.search.log")
    c = lang_site
    service = c.app.state.search
    queries = ["kubelet", "container runtime", "nothing at all", "节点"]
    ceiling = WAITED
    with write_lock_held(service.db.path):
        for q in queries:
            for path in ("/api/search", "/search"):
                r, seconds = timed_get(c, path, q=q)
                assert r.status_code == 200 and seconds < ceiling, (path, q, r.status_code, seconds)
        assert api(c, "kubelet")["total"] == 2
        for _ in range(3):  # the writer keeps trying; it waits at most its busy timeout
            started = time.perf_counter()
            assert service.log.flush(everything=True) == 0
            assert time.perf_counter() - started < ceiling
        warnings = log_messages(caplog, logging.WARNING)
        assert len(warnings) == 1 and "database is locked" in warnings[0], warnings
    assert service.log.flush(everything=True) > 0, "queued, written once the lock is gone"
    assert any("writing again" in m for m in log_messages(caplog, logging.INFO))
    db = Database(service.db.path)
    logged_queries = [r[0] for r in db.read().execute("SELECT query FROM search_log ORDER BY id")]
    assert logged_queries == [q for q in queries for _ in (0, 1)] + ["kubelet"]


def test_a_search_answers_when_the_disk_is_full(lang_site, caplog):
    caplog.set_level(logging.INFO, logger="masthead.search.log")
    c = lang_site
    service = c.app.state.search
    # A real SQLITE_FULL ("database or disk is full") on the connection that writes the log:
    # max_page_count caps the file at its current size for that connection only. A small
    # tmpfs would need mount rights (CAP_SYS_ADMIN), which containers and CI runners often lack.
    writer = service.log.connection()
    pages = writer.execute("PRAGMA page_count").fetchone()[0]
    writer.execute(f"PRAGMA max_page_count = {pages}")
    queries = [f"{i} kubelet " + "filler " * 25 for i in range(60)]
    for q in queries:
        r, seconds = timed_get(c, "/api/search", q=q)
        assert r.status_code == 200 and seconds < WAITED, (r.status_code, seconds)
    assert c.get("/search", params={"q": "kubelet"}).status_code == 200
    assert service.log.flush(everything=True) == 0
    assert service.log.flush(everything=True) == 0
    warnings = log_messages(caplog, logging.WARNING)
    assert len(warnings) == 1 and "database or disk is full" in warnings[0], warnings
    writer.execute("PRAGMA max_page_count = 1073741823")  # space is back
    service.log.flush(everything=True)
    db = Database(service.db.path)
    count = db.read().execute("SELECT COUNT(*) FROM search_log").fetchone()[0]
    assert count == len(queries) + 1, "nothing was lost while the disk was full"


def test_the_log_is_a_bounded_table_with_capped_text(lang_site):
    c = lang_site
    service = c.app.state.search
    service.log.max_rows = 5
    for i in range(8):
        api(c, f"{i} kubelet " + "y" * 500)
    logged(c)
    db = Database(service.db.path)
    rows = db.read().execute("SELECT query, terms FROM search_log ORDER BY id").fetchall()
    assert [r[0][:1] for r in rows] == ["3", "4", "5", "6", "7"], "the newest rows are kept"
    assert all(len(r[0]) == 200 and len(r[1]) == 200 for r in rows), "query text is capped"


def test_keystrokes_of_one_query_are_logged_once(make_site, serve):
    site = make_site({"posts/a.md": post("Kubelet", "2024-01-01", body="kubelet pods\n")})
    clock = {"now": time.time()}
    c = serve(site, clock=lambda: clock["now"])
    start = clock["now"]
    typed = [(0.0, "k"), (0.3, "ku"), (0.5, "kub"), (0.7, "kubx"), (0.9, "kub"), (1.2, "kubelet")]
    for at, q in typed:  # a typo, a backspace, then the word
        clock["now"] = start + at
        api(c, q)
    clock["now"] = start + 2.0
    api(c, "kubelet")  # the same query again: a second search, not a keystroke
    clock["now"] = start + 30
    api(c, "pods")  # later: another search
    api(c, "pods", lang="zh")  # other filters: another search
    clock["now"] = start + 60
    c.app.state.search.log.flush()  # every session is over by this clock: no `everything`
    rows = Database(site.database_path).read().execute("SELECT query FROM search_log ORDER BY id")
    assert [r[0] for r in rows] == ["kubelet", "kubelet", "pods", "pods"]


def test_the_catalog_is_rebuilt_once_per_index_generation(make_site, serve):
    from masthead.indexing.indexer import index_site

    files = {
        f"posts/p{i:03d}.md": post(f"Beacon {i}", "2024-01-01", body="Beacon.\n", tags=f"[t{i}]")
        for i in range(200)
    }
    site = make_site(files)
    c = serve(site)
    service = c.app.state.search
    assert api(c, "beacon")["total"] == 200
    builds = service.catalog_builds
    (site.content_dir / "posts/new.md").write_text(post("Beacon new", "2024-01-02"))
    index_site(site, Database(site.database_path))  # as `masthead index` would, beside the app
    barrier = threading.Barrier(16)

    def search(_: int) -> int:
        barrier.wait()
        return int(api(c, "beacon")["total"])

    with ThreadPoolExecutor(16) as pool:
        totals = list(pool.map(search, range(16)))
    assert service.catalog_builds == builds + 1, "one rebuild for one index change"
    assert set(totals) <= {200, 201}, "the new catalog, or the previous one while it is built"
    assert api(c, "beacon")["total"] == 201


# --- case C24 -------------------------------------------------------------------------------


def test_c24_query_log_sequence(make_site):
    from starlette.testclient import TestClient

    from masthead.web.app import create_app

    requests = json.loads((CASES / "C24-query-log-sequence.json").read_text())["requests"]
    site = make_site(
        {
            "posts/bread.md": post("Sourdough", "2024-01-05", body="A sourdough starter.\n"),
            "posts/lantern.md": post(
                "Lantern", "2024-02-10T20:00:00+08:00", body="A paper lantern.\n", category="notes"
            ),
        }
    )
    clock = {"now": time.time()}
    address = "203.0.113.7"
    app = create_app(site, clock=lambda: clock["now"])
    with TestClient(app, client=(address, 50123)) as c:
        service = c.app.state.search
        start = clock["now"]
        names = {"from": "after", "to": "before"}
        with write_lock_held(site.database_path):
            for request in requests:  # replayed on the service's clock, the database locked
                clock["now"] = start + request["t"] / 1000
                filters = {names.get(k, k): v for k, v in request.get("filters", {}).items()}
                r, seconds = timed_get(c, "/api/search", q=request["q"], **filters)
                assert r.status_code == 200 and seconds < WAITED, (request["q"][:20], seconds)
                found = r.json()["total"]
                assert found == (1 if request["q"] in ("sourdough", "lantern") else 0)
            clock["now"] = start + 60
            assert service.log.flush() == 0, "the lock is held: nothing written, nothing failed"
            assert service.log.written == 0
        # by this call or by the log's own writer thread, which may flush first
        service.log.flush()
        assert service.log.written == 5, "written once the lock is released"
    rows = Database(site.database_path).read().execute("SELECT * FROM search_log ORDER BY id")
    rows = [dict(r) for r in rows]
    assert [r["query"] for r in rows] == [
        "sourdough",
        "x" * 200,
        "reply from [e-mail] about the lighthouse",
        '"unbalanced',
        "lantern",
    ], "one query for the typing session; capped; no e-mail address"
    assert [r["results"] for r in rows] == [1, 0, 0, 0, 1], "zero-result queries are logged"
    assert json.loads(rows[-1]["filters"]) == {
        "lang": "en",
        "categories": ["notes"],
        "after": "2024-02-10",
        "before": "2024-02-11",
    }
    assert {r["client"] for r in rows} == {service.log.client_hash(address, start)}
    stored = b"".join(
        p.read_bytes() for p in site.database_path.parent.glob(site.database_path.name + "*")
    )
    assert address.encode() not in stored and b"alice@example.com" not in stored


@pytest.mark.parametrize(
    "fragments",
    [
        ["plain", "a <mark>b</mark> c", "", "&lt;br&gt; escaped"],
        ["x<br>y", "<mark>z</mark>"],  # a fragment's own <br>: each is sanitized alone
        ["<script>alert(1)</script>", "<mark onclick=x>m</mark>", "<img src=x onerror=y>"],
        ["<mark>open", "close</mark>", "<!-- c --><b>bold</b>"],
        ["<br/>", "<BR>", "</br>"],
        ["a &amp;lt; b &lt;script&gt;", "<mark>&lt;/mark&gt;</mark>", "&"],
    ],
)
def test_page_fragments_sanitized_in_one_pass_equal_each_alone(fragments):
    """A search page's titles and snippets go through the allowlist in one call
    (`marks_only_each`): the same HTML as one call per fragment, whatever a fragment holds."""
    from masthead.content.sanitize import marks_only, marks_only_each

    assert marks_only_each(fragments) == [marks_only(f) for f in fragments]


def test_a_post_with_a_word_thousands_of_times_cannot_hold_a_search(make_site, serve, monkeypatch):
    """FTS5's snippet() scores a fragment at each instance of the query's words against every
    other one (time in the square of their number): a 9 MB post held a search for minutes, and
    with it the worker's event loop (fresh-user trial). A hit with that many instances has its
    snippet cut around the first one instead, still marked; others keep FTS5's snippets."""
    words = ("harbor", "quiet", "river", "alpha", "beta", "gamma")
    body = "\n\n".join(" ".join(words[(i * 7 + j) % 6] for j in range(60)) for i in range(2000))
    site = make_site(
        {
            "posts/long.md": post("Long notes", "2024-01-01", body=body + "\n"),
            "posts/short.md": post("Short notes", "2024-01-02", body="A quiet harbor at dawn.\n"),
        }
    )
    statements = trace_statements(monkeypatch)
    client = serve(site)
    result = api(client, "harbor")  # 20,000 instances: about 9 s on the code before, 50 ms now
    assert sorted(urls(result)) == ["/posts/long/", "/posts/short/"]
    # not timed: FTS5's snippet() (the part whose time grows with the square of the instances)
    # never ran over the long post, and still ran over the short one
    with sqlite3.connect(f"file:{site.database_path}?mode=ro", uri=True) as db:
        ids = dict(db.execute("SELECT url, id FROM posts").fetchall())
    snippeted = [
        {int(i) for i in re.findall(r"\d+", ids_in)}
        for sql in statements
        if "snippet(search_fts" in sql
        for ids_in in re.findall(r"rowid IN \(([\d,]+)\)", sql)
    ]
    assert snippeted, statements
    assert not any(ids["/posts/long/"] in chosen for chosen in snippeted), snippeted
    assert any(ids["/posts/short/"] in chosen for chosen in snippeted), snippeted
    for hit in result["hits"]:
        assert "<mark>harbor</mark>" in hit["snippet_html"].lower(), hit


def test_a_lang_filter_that_names_no_language_of_the_site_is_a_word_and_said_so(lang_site):
    """`lang:xx` where xx is no language of the site is what `after:2023-13` is: searched as a
    plain word, listed in `not_filters`, named on the page (both interface languages) with the
    site's languages; no filter shown as applied, no "search without filters" link. The
    `lang=xx` parameter stays a 422."""
    c = lang_site
    result = api(c, "lang:xx kubelet")
    assert result["not_filters"] == ["lang:xx"] and result["filters"] == {}
    assert result["total"] == 0 and result["without_filters"] is None
    assert api(c, "lang:zh-CN kubelet")["not_filters"] == []  # an alias is a language
    assert urls(api(c, "lang:ZH kubelet")) == ["/zh/posts/d/"]
    assert api(c, "kubelet", lang="zh")["total"] == 1
    bad = c.get("/api/search", params={"q": "kubelet", "lang": "xx"})
    assert bad.status_code == 422 and "xx" in bad.json()["error"]["message"]
    english = (
        "Searched as plain words, not filters: lang:xx (not a language of this site; its "
        "languages are en, zh)."
    )
    chinese = "以下按普通词而非筛选条件搜索：lang:xx（本站没有这种语言；本站的语言为 en, zh）。"
    for path, said in (("/search", english), ("/zh/search", chinese)):
        r = c.get(path, params={"q": "lang:xx kubelet"})
        assert r.status_code == 200
        page = BeautifulSoup(r.text, "html.parser")
        notes = [p.get_text() for p in page.select(".search-note")]
        assert notes == [said], notes
        assert not page.select(".search-active") and "YYYY" not in " ".join(notes)
    r = c.get("/search", params={"q": "lang:<b>x</b> kubelet"})
    assert r.status_code == 200 and "<b>x</b>" not in r.text
    note = BeautifulSoup(r.text, "html.parser").select_one(".search-note")
    assert note is not None and "lang:<b>x</b> (not a language" in note.get_text()
