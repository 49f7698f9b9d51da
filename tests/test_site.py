"""The editorial site over HTTP: pages, languages, links, caching, drafts, schedule, errors."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

from bs4 import BeautifulSoup

from support.sites import post


def soup(response) -> BeautifulSoup:  # type: ignore[no-untyped-def]
    return BeautifulSoup(response.text, "html.parser")


def test_seed_post_toc_code_footnote_and_translation(demo_client):
    client = demo_client
    r = client.get("/posts/kubelet-syncloop-pleg/")
    assert r.status_code == 200
    page = soup(r)
    assert page.h1.get_text() == "Kubelet Source Code Deep Dive: SyncLoop and PLEG"
    toc = [a.get_text() for a in page.select("#mh-toc a")]
    assert toc == [
        "Architectural Overview",
        "The SyncLoop Implementation",
        "Pod Lifecycle Event Generator (PLEG)",
        "Conclusion",
    ]
    for a in page.select("#mh-toc a"):
        assert page.find(id=a["href"][1:]) is not None
    go = page.select_one('pre.highlight[data-lang="go"]')
    assert go is not None and go.select("span.kd"), "Go code is highlighted by Pygments"
    note = page.select_one("section.footnotes li")
    assert "kubernetes.io/docs/concepts/architecture" in note.get_text()
    ref = page.select_one("sup.footnote-ref a")
    assert page.find(id=ref["href"][1:]) is note
    assert note.select_one("a.footnote-backref")["href"] == "#" + ref["id"]
    link = page.select_one('.post-translations a[hreflang="zh-Hans"]')
    assert link["href"] == "/zh/posts/kubelet-syncloop-pleg/"
    assert client.get(link["href"]).status_code == 200
    alternates = {a["hreflang"]: a["href"] for a in page.select('link[rel="alternate"][hreflang]')}
    assert alternates == {
        "en": "http://127.0.0.1:8000/posts/kubelet-syncloop-pleg/",
        "zh-Hans": "http://127.0.0.1:8000/zh/posts/kubelet-syncloop-pleg/",
        "x-default": "http://127.0.0.1:8000/posts/kubelet-syncloop-pleg/",
    }
    cover = page.select_one(".post-cover img")["src"]
    assert client.get(cover).status_code == 200


def test_chinese_page_speaks_chinese(demo_client):
    client = demo_client
    page = soup(client.get("/zh/posts/kubelet-syncloop-pleg/"))
    assert page.html["lang"] == "zh-Hans"
    assert page.select_one("#mh-toc-title").get_text() == "目录"
    assert page.select_one(".post-meta time").get_text() == "2025年7月15日"
    assert page.select_one("#mh-toc a").get_text() == "架构概览"
    back = page.select_one('.post-translations a[hreflang="en"]')
    assert back["href"] == "/posts/kubelet-syncloop-pleg/"
    home = soup(client.get("/zh/"))
    assert "Kubelet 源码深度解析：SyncLoop 与 PLEG" in home.get_text()
    assert "Typography for Long Reads" not in home.get_text()


def test_links_to_source_files_become_permalinks(demo_client):
    client = demo_client
    page = soup(client.get("/posts/moving-from-hugo/"))
    hrefs = {a["href"] for a in page.select(".post-body a")}
    assert "/posts/typography-for-long-reads/" in hrefs
    assert "/posts/kubelet-syncloop-pleg/" in hrefs
    assert not any("/_ref/" in h or h.endswith(".md") for h in hrefs)
    assert "{{" not in page.select_one(".post-body").get_text()
    assert page.select_one("figure.diagram-mermaid pre code.language-mermaid") is not None
    assert page.select_one('a.video-link[href^="https://www.youtube.com/watch?v="]')


def test_shortcodes_bundle_image_and_admonitions(demo_client):
    client = demo_client
    r = client.get("/posts/field-notes-harbour/")
    page = soup(r)
    body = page.select_one(".post-body")
    assert "{{" not in body.get_text() and "{{" not in r.text
    fig = body.select_one("figure img")
    assert fig["src"] == "/media/posts/field-notes-harbour/harbour.svg"
    assert client.get(fig["src"]).headers["content-type"].startswith("image/svg")
    kinds = {d["class"][1] for d in body.select("div.admonition")}
    assert {"admonition-note", "admonition-warning"} <= kinds
    assert body.select_one("div.admonition-warning strong") is not None, "inner Markdown rendered"


def test_drafts_are_not_published_but_shown_in_dev(demo_site, serve):
    client = serve(demo_site)
    assert client.get("/posts/unfinished-thoughts/").status_code == 404
    assert "Unfinished" not in client.get("/").text
    assert "Unfinished" not in client.get("/archive/").text
    dev = serve(demo_site, dev=True)
    r = dev.get("/posts/unfinished-thoughts/")
    assert r.status_code == 200
    page = soup(r)
    assert page.select_one('meta[name="robots"]')["content"] == "noindex"
    assert page.select_one(".draft-note") is not None
    archive = soup(dev.get("/archive/"))  # as on the home page: listed, marked
    link = archive.select_one('a[href="/posts/unfinished-thoughts/"]')
    assert link is not None and link.find_next_sibling("span", class_="badge") is not None
    # search finds it in dev only, marked as on the archive
    assert "unfinished-thoughts" not in client.get("/search", params={"q": "unfinished"}).text
    api = client.get("/api/search", params={"q": "unfinished"}).json()
    assert all("unfinished-thoughts" not in h["url"] for h in api["hits"])
    found = dev.get("/api/search", params={"q": "unfinished"}).json()["hits"]
    assert [h["draft"] for h in found if "unfinished-thoughts" in h["url"]] == [True]
    hit = soup(dev.get("/search", params={"q": "unfinished"})).select_one(
        'h2 a[href="/posts/unfinished-thoughts/"]'
    )
    assert hit is not None and hit.find_next_sibling("span", class_="badge") is not None


def test_alias_redirects_and_trailing_slash(demo_client):
    client = demo_client
    r = client.get("/2025/03/moving-from-hugo/")
    assert r.status_code == 301 and r.headers["location"] == "/posts/moving-from-hugo/"
    r = client.get("/2025/03/moving-from-hugo")
    assert r.status_code == 301
    r = client.get("/posts/moving-from-hugo")
    assert r.status_code == 301 and r.headers["location"].endswith("/posts/moving-from-hugo/")


def test_real_404_page_in_the_right_language(demo_client):
    client = demo_client
    r = client.get("/no/such/page/")
    assert r.status_code == 404 and r.headers["content-type"].startswith("text/html")
    assert soup(r).h1.get_text() == "Page not found"
    r = client.get("/zh/posts/nothing-here/")
    assert r.status_code == 404 and soup(r).h1.get_text() == "页面不存在"
    assert client.get("/page/99/").status_code == 404
    assert client.get("/page/abc/").status_code == 404
    assert client.get("/tags/no-such-tag/").status_code == 404


def test_etag_and_cache_control(demo_client):
    client = demo_client
    r = client.get("/posts/kubelet-syncloop-pleg/")
    etag = r.headers["etag"]
    assert "must-revalidate" in r.headers["cache-control"]
    again = client.get("/posts/kubelet-syncloop-pleg/", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    other = client.get("/posts/kubelet-syncloop-pleg/", headers={"If-None-Match": '"x"'})
    assert other.status_code == 200
    for header in (f"W/{etag}", f'"zzz", {etag}', "*"):
        r = client.get("/posts/kubelet-syncloop-pleg/", headers={"If-None-Match": header})
        assert r.status_code == 304, header
    css = client.get("/static/css/site.css")
    assert "max-age" in css.headers["cache-control"]
    assert (
        client.get(
            "/static/css/site.css", headers={"If-None-Match": css.headers["etag"]}
        ).status_code
        == 304
    )


def test_pages_tags_categories_archive(demo_client):
    client = demo_client
    assert soup(client.get("/about/")).h1.get_text() == "About"
    assert client.get("/zh/about/").status_code == 200
    tags = soup(client.get("/tags/"))
    assert tags.select_one('a[href="/tags/kubernetes/"]') is not None
    listing = soup(client.get("/tags/kubernetes/"))
    assert listing.select_one(".list__count").get_text() == "2 posts"  # the series' two parts
    assert [a.get_text() for a in listing.select(".card__title a")] == [
        "Kubelet Source Code Deep Dive: Pod Workers",
        "Kubelet Source Code Deep Dive: SyncLoop and PLEG",
    ]
    zh_tag = client.get("/zh/tags/源码/")
    assert zh_tag.status_code == 200 and "Kubelet 源码" in zh_tag.text
    archive = soup(client.get("/archive/"))
    assert archive.select_one(".archive-year h2").get_text() == "2025"
    assert client.get("/categories/").status_code == 200


def test_pagination(make_site, serve):
    files = {f"posts/p{i}.md": post(f"Post {i}", f"2024-03-{i + 1:02d}") for i in range(7)}
    client = serve(make_site(files))
    first = soup(client.get("/"))
    assert [a.get_text() for a in first.select(".card__title a")] == ["Post 6", "Post 5", "Post 4"]
    assert first.select_one('a[rel="next"]')["href"] == "/page/2/"
    third = soup(client.get("/page/3/"))
    assert [a.get_text() for a in third.select(".card__title a")] == ["Post 0"]
    assert client.get("/page/4/").status_code == 404
    first_page = client.get("/page/1/")
    assert first_page.status_code == 301 and first_page.headers["location"] == "/"
    icon = first.select_one('link[rel="icon"]')["href"]
    assert client.get(icon).headers["content-type"].startswith("image/svg")


def test_future_post_appears_when_due_without_restart(make_site, serve):
    now = datetime(2024, 5, 1, 12, tzinfo=UTC)
    later = now + timedelta(hours=2)
    files = {
        "posts/old.md": post("Already out", "2024-04-01"),
        "posts/soon.md": post("Coming soon", later.isoformat()),
    }
    clock = {"now": now.timestamp()}
    client = serve(make_site(files), clock=lambda: clock["now"])
    assert "Coming soon" not in client.get("/").text
    assert client.get("/posts/soon/").status_code == 404
    first = client.get("/")
    clock["now"] = (later + timedelta(seconds=1)).timestamp()
    assert client.get("/posts/soon/").status_code == 200
    second = client.get("/", headers={"If-None-Match": first.headers["etag"]})
    assert second.status_code == 200 and "Coming soon" in second.text


def test_c03_naive_dates_read_in_site_zone(make_site, serve):
    files = {
        "posts/a.md": post("A", "2024-05-02", slug="c03-a"),
        "posts/b.md": post("B", "2024-05-02T06:30:00", slug="c03-b"),
        "posts/c.md": post("C", "2024-05-02T06:30:00+08:00", slug="c03-c"),
    }
    frozen = datetime(2024, 5, 2, 7, tzinfo=timezone(timedelta(hours=8))).timestamp()
    client = serve(make_site(files), clock=lambda: frozen)
    for slug in ("c03-a", "c03-b", "c03-c"):
        r = client.get(f"/posts/{slug}/")
        assert r.status_code == 200, slug
        assert soup(r).select_one(".post-meta time").get_text() == "May 2, 2024"


def test_duplicate_slug_older_keeps_url(make_site, serve):
    files = {
        "posts/first.md": post("The original", "2024-01-01", slug="same"),
        "posts/second.md": post("The copy", "2024-02-01", slug="same"),
    }
    site = make_site(files)
    client = serve(site)
    assert soup(client.get("/posts/same/")).h1.get_text() == "The original"
    assert "The copy" not in client.get("/").text
    from masthead.store import posts as store
    from masthead.store.db import Database

    issues = store.issues(Database(site.database_path).read())
    assert [(i.path, i.severity) for i in issues] == [("content/posts/second.md", "error")]
    assert "duplicate slug" in issues[0].reason


def test_broken_file_does_not_take_the_site_down(make_site, serve):
    files = {
        "posts/good.md": post("Good neighbour", "2024-03-01"),
        "posts/bad.md": "---\ntitle: Release notes: spring edition\ndate: 2024-03-01\n---\nx\n",
        "posts/gbk.md": "---\ntitle: 港口\ndate: 2024-03-01\n---\n正文\n".encode("gbk"),
    }
    client = serve(make_site(files))
    home = client.get("/")
    assert home.status_code == 200 and "Good neighbour" in home.text
    assert client.get("/posts/good/").status_code == 200
    assert client.get("/healthz").json()["posts"] == 1


def test_c07_tag_variants_share_one_page(make_site, serve):
    files = {
        "posts/a.md": post("A", "2024-03-01", tags='[Python, " python "]'),
        "posts/b.md": post("B", "2024-03-02", tags="python, yaml"),
        "posts/c.md": post("C", "2024-03-03", tags="机器学习，深度学习、自然语言处理", lang="zh"),
    }
    client = serve(make_site(files))
    page = soup(client.get("/tags/python/"))
    assert sorted(a.get_text() for a in page.select(".card__title a")) == ["A", "B"]
    tags = [a["href"] for a in soup(client.get("/tags/")).select(".term-cloud a")]
    assert tags.count("/tags/python/") == 1
    zh = client.get("/zh/tags/深度学习/")
    assert zh.status_code == 200 and ">C<" in zh.text


def test_healthz_reports_generation(demo_client):
    # 11 since the demo's series got its part 2 and that part's translation
    data = demo_client.get("/healthz").json()
    assert data["status"] == "ok" and data["generation"] >= 1 and data["posts"] == 11


def test_html_has_no_inline_script(demo_client):
    client = demo_client
    for url in ("/", "/posts/typography-for-long-reads/", "/zh/", "/archive/"):
        for script in soup(client.get(url)).find_all("script"):
            if script.get("type") == "application/ld+json":
                continue  # a data block (JSON-LD): never executed, so no script for CSP to allow
            assert script.get("src", "").startswith("/static/"), url
            assert not script.string
        assert not re.search(
            r"https?://(?!127\.0\.0\.1|example)",
            "".join(
                tag.get("src", "")
                for tag in soup(client.get(url)).find_all(["script", "link", "img"])
            ),
        )


def test_c31_every_variant_of_a_url_has_one_canonical_form(make_site, serve):
    """Case C31 on its input (tests/data/cases/C31-harbour-lights.md; `/en/` is the root here)."""
    import json
    from pathlib import Path

    import feedparser

    text = (Path(__file__).parent / "data" / "cases" / "C31-harbour-lights.md").read_bytes()
    client = serve(make_site({"posts/harbour-lights.md": text, "pages/about.md": post("About")}))
    path = "/posts/harbour-lights/"
    canonical = "https://example.com" + path
    for variant in (
        "/posts/harbour-lights",
        "/posts/harbour-lights/index.html",
        "/posts/harbour-lights/index",
        "http://testserver//posts/harbour-lights/",
        "http://testserver//posts//harbour-lights//",
    ):
        r = client.get(variant)
        assert (r.status_code, r.headers.get("location")) == (301, path), variant
    r = client.get("http://testserver//posts/harbour-lights/?utm_source=x")
    assert (r.status_code, r.headers["location"]) == (301, path + "?utm_source=x")
    # the tracking query: the same page (200), whose canonical URL drops it
    plain, tracked = client.get(path), client.get(path + "?utm_source=x")
    assert plain.status_code == tracked.status_code == 200
    assert plain.headers["etag"] == tracked.headers["etag"]
    seen = []
    for r in (plain, tracked):
        page = soup(r)
        seen += [c["href"] for c in page.select('link[rel="canonical"]')]
        seen.append(page.select_one('meta[property="og:url"]')["content"])
        for script in page.find_all("script", type="application/ld+json"):
            data = json.loads(script.string)
            for node in data.get("@graph", [data]):
                if node["@type"] == "BlogPosting":
                    seen += [node["url"], node["mainEntityOfPage"]["@id"]]
    sitemap = client.get("/sitemap.xml").text
    assert f"<loc>{canonical}</loc>" in sitemap
    for feed in ("/feed.xml", "/atom.xml"):
        entry = feedparser.parse(client.get(feed).content).entries[0]
        seen += [entry.link, entry.id]
    assert seen and set(seen) == {canonical}, seen
    home = soup(client.get("/"))
    assert [a["href"] for a in home.select(".card__title a")] == [path]
    assert not re.search(r"(?<!:)//", sitemap.replace("http://www.", "")), "no double slashes"
    # a post moved from Hugo keeps its old /index.html links working, on this site only
    assert client.get(path + "index.html?ref=x").headers["location"] == path + "?ref=x"


def test_out_of_range_page_numbers_are_404(make_site, serve):
    files = {f"posts/p{i}.md": post(f"Post {i}", tags="[t]", category="c") for i in range(4)}
    client = serve(make_site(files))
    for n in ("9223372036854775807", "9223372036854775808", "99999999999999999999", "1" * 400):
        for base in ("", "/zh", "/tags/t", "/categories/c", "/zh/tags/t", "/zh/categories/c"):
            r = client.get(f"{base}/page/{n}/")
            assert r.status_code == 404, (base, n)
            assert r.headers["content-type"].startswith("text/html"), (base, n)
    for n in ("0", "02", "-1", "1e3"):
        assert client.get(f"/page/{n}/").status_code == 404, n
    assert client.get("/page/2/").status_code == 200
    assert client.get("/tags/t/page/2/").status_code == 200


def test_aliases_with_non_ascii_and_spaces_redirect(make_site, serve):
    """Aliases are stored percent-encoded and looked up by the encoded request path, so one in
    Chinese, with a space or with punctuation answers 301 like a plain one (not a 404)."""
    site = make_site(
        {"posts/x.md": post("X", aliases='["/旧文章/", "/old post/", "/2019/a+b(c)/", "/plain/"]')}
    )
    client = serve(site)
    for old in ("/旧文章/", "/old post/", "/2019/a+b(c)/", "/plain/", "/旧文章"):
        r = client.get(old)
        assert (r.status_code, r.headers.get("location")) == (301, "/posts/x/"), old


def test_head_answers_like_get_on_health_and_the_search_api(make_site, serve):
    """Load balancers check health with HEAD: it must not fall through to a redirect."""
    client = serve(make_site({"posts/a.md": post("A")}))
    for path in ("/healthz", "/api/search?q=body"):
        get, head = client.get(path), client.head(path)
        assert (get.status_code, head.status_code) == (200, 200), path
        assert head.content == b"", path
