"""`[permalinks]`: Hugo's URL patterns, served over HTTP, used by every page, feed and sitemap;
a changed pattern moves every post and the old URLs answer 301 (issue 9, item 8)."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from bs4 import BeautifulSoup

from masthead.config import load_site
from masthead.errors import ConfigError

from support.sites import BILINGUAL_TOML, HUGO_TOML, post

# Thursday 2 May 2024: day 123 of the year (31 + 29 + 31 + 30 + 2)
LIGHTHOUSE = post("The Lighthouse, Revisited", "2024-05-02", body="Keeper's log.\n")
FILES = {
    "en/blog/_posts/2024-05-02-lighthouse.md": LIGHTHOUSE,
    "zh/blog/_posts/2024-05-02-lighthouse.md": post("灯塔 再访", "2024-05-02", body="日志。\n"),
    "en/blog/_index.md": post("Blog", "2024-01-01"),
    "en/pages/about.md": post("About us", "2024-01-01"),
}


def with_permalinks(toml: str, **patterns: str) -> str:
    return toml + "\n[permalinks]\n" + "".join(f'{k} = "{v}"\n' for k, v in patterns.items())


def soup(response) -> BeautifulSoup:  # type: ignore[no-untyped-def]
    return BeautifulSoup(response.text, "html.parser")


@pytest.mark.parametrize(
    ("pattern", "en", "zh"),
    [
        ("/blog/:year/:month/:day/:slug/", "/blog/2024/05/02/the-lighthouse-revisited/", None),
        ("/:section/:slugorcontentbasename/", "/blog/lighthouse/", "/zh/blog/lighthouse/"),
        ("/:title/", "/the-lighthouse-revisited/", "/zh/" + quote("灯塔-再访") + "/"),
        ("/:monthname/:weekday/:weekdayname/:yearday/:contentbasename/",
         "/May/4/Thursday/123/lighthouse/", "/zh/May/4/Thursday/123/lighthouse/"),
        ("/archive/:year/:filename/", "/archive/2024/lighthouse/", "/zh/archive/2024/lighthouse/"),
    ],
)  # fmt: skip
def test_each_token_gives_hugos_url_and_the_post_is_served_there(make_site, serve, pattern, en, zh):
    site = make_site(FILES, with_permalinks(HUGO_TOML, posts=pattern))
    client = serve(site)
    r = client.get(en)
    assert r.status_code == 200, (en, r.status_code)
    assert "Keeper" in r.text
    assert soup(r).select_one('link[rel="canonical"]')["href"] == "https://example.com" + en
    if zh:
        assert "日志" in client.get(zh).text
        alternates = {a["hreflang"]: a["href"] for a in soup(r).select("link[hreflang]")}
        assert alternates["zh"] == "https://example.com" + zh
    listing = soup(client.get("/"))
    assert en in [a["href"] for a in listing.select("a")], "the home page links the permalink"
    assert client.get("/posts/lighthouse/").status_code == 404, "the default URL is not served"


def test_slug_and_title_tokens_follow_hugo(make_site, serve):
    # Hugo: `:slug` is front matter's slug, else the title slugified; `:title` is always the title
    files = {
        "posts/a.md": post("Hello, World: C++ & Ünïcode!", "2024-05-02"),
        "posts/b.md": post("Ignored For The Slug", "2024-05-02", slug="chosen"),
    }
    site = make_site(files, with_permalinks(BILINGUAL_TOML, posts="/n/:slug/t/:title/"))
    client = serve(site)
    a = "/n/hello-world-c++-ünïcode/t/hello-world-c++-ünïcode/"
    assert client.get(quote(a)).status_code == 200
    assert client.get(a).status_code == 200, "an unencoded request path finds it too"
    assert client.get("/n/chosen/t/ignored-for-the-slug/").status_code == 200


def test_pages_pattern_and_the_defaults_stay_designs(make_site, serve):
    site = make_site(
        {"posts/a.md": post("A", "2024-05-02"), "pages/about.md": post("About", "2024-01-01")},
        with_permalinks(BILINGUAL_TOML, pages="/info/:slug/"),
    )
    client = serve(site)
    assert client.get("/posts/a/").status_code == 200, "posts keep /posts/:slug/ by default"
    assert client.get("/info/about/").status_code == 200
    assert client.get("/about/").status_code == 404
    assert load_site(site.root, {"permalinks": {}}).settings.permalinks.posts == (
        "/posts/:slugorcontentbasename/"
    )


@pytest.mark.parametrize(
    ("patterns", "message"),
    [
        ({"posts": "/blog/:yr/:slug/"}, "permalinks.posts: Value error, '/blog/:yr/:slug/': "
         "unknown token :yr"),
        ({"posts": "/blog/:year/"}, "permalinks.posts: Value error, '/blog/:year/': "
         "needs :slug or :title"),
        ({"pages": "/p/:slug"}, "permalinks.pages: Value error, '/p/:slug': "
         "a permalink starts and ends with '/'"),
        ({"posts": "blog/:slug/"}, "permalinks.posts: Value error, 'blog/:slug/': a permalink"),
        ({"posts": "/a/../:slug/"}, "permalinks.posts: Value error, '/a/../:slug/': no '?'"),
        ({"posts": "/a?b/:slug/"}, "permalinks.posts: Value error"),
        ({"post": "/a/:slug/"}, "permalinks.post: Extra inputs are not permitted"),
    ],
)  # fmt: skip
def test_bad_patterns_stop_start_up_naming_the_key(make_site, patterns, message):
    site = make_site({})
    (site.root / "masthead.toml").write_text(with_permalinks(BILINGUAL_TOML, **patterns))
    with pytest.raises(ConfigError) as err:
        load_site(site.root)
    assert message in str(err.value)
    assert str(site.root / "masthead.toml") in str(err.value)


def test_a_new_pattern_moves_every_url_and_old_urls_answer_301(make_site, serve):
    files = {
        **FILES,
        "en/blog/_posts/2024-06-01-keeper.md": post(
            "Keeper", "2024-06-01", body="See [the lighthouse](2024-05-02-lighthouse.md).\n"
        ),
        "en/blog/_posts/renamed.md": post("Renamed", "2024-06-02", translationKey="stays"),
    }
    site = make_site(files, HUGO_TOML)
    client = serve(site)
    assert client.get("/posts/lighthouse/").status_code == 200
    assert client.get("/posts/renamed/").status_code == 200

    # the pattern changes: the next start re-parses every file (no --full needed)
    (site.root / "masthead.toml").write_text(
        with_permalinks(HUGO_TOML, posts="/:section/:year/:month/:day/:slugorcontentbasename/")
    )
    content = site.content_dir / "en/blog/_posts"
    (content / "renamed.md").rename(content / "new-name.md")  # same translationKey
    client = serve(load_site(site.root))
    new = "/blog/2024/05/02/lighthouse/"
    r = client.get("/posts/lighthouse/", params={"utm_source": "x", "q": "a b"})
    assert r.status_code == 301
    assert r.headers["location"] == new + "?utm_source=x&q=a+b", "the query string is kept"
    assert r.headers["location"].startswith("/") and not r.headers["location"].startswith("//")
    assert client.get("/zh/posts/lighthouse/").headers["location"] == "/zh" + new
    assert client.get("/posts/renamed/").headers["location"] == "/blog/2024/06/02/new-name/"
    assert client.get(new).status_code == 200
    assert client.get("/posts/nothing-was-here/").status_code == 404

    # every place that names a post uses the new permalink, and never an old one
    base = "https://example.com"
    keeper = soup(client.get("/blog/2024/06/01/keeper/"))
    assert keeper.find("a", string="the lighthouse")["href"] == new, "a link to the source file"
    assert client.get("/_ref/en/blog/_posts/2024-05-02-lighthouse.md").headers["location"] == new
    for path in ("/feed.xml", "/atom.xml", "/sitemap.xml", "/archive/", "/"):
        text = client.get(path).text
        assert new in text, path
        assert "/posts/lighthouse/" not in text, path
    found = client.get("/api/search", params={"q": "keeper"}).text
    assert new in found and "/posts/lighthouse/" not in found, "search results"
    sitemap = client.get("/sitemap.xml").text
    assert base + "/zh" + new in sitemap, "hreflang alternates in the sitemap"

    # a second change: URLs from both earlier patterns lead to the newest one
    (site.root / "masthead.toml").write_text(
        with_permalinks(HUGO_TOML, posts="/b/:year/:slugorcontentbasename/")
    )
    client = serve(load_site(site.root))
    for old in ("/posts/lighthouse/", new):
        assert client.get(old).headers["location"] == "/b/2024/lighthouse/", old
    assert client.get("/b/2024/lighthouse/").status_code == 200
    # back to the first pattern: the URL is a post's again, not a redirect
    (site.root / "masthead.toml").write_text(HUGO_TOML)
    client = serve(load_site(site.root))
    assert client.get("/posts/lighthouse/").status_code == 200
    assert client.get("/b/2024/lighthouse/").headers["location"] == "/posts/lighthouse/"


def test_a_new_slug_redirects_from_the_old_url_while_serving(make_site, serve):
    from masthead.indexing.indexer import index_site

    site = make_site({"posts/a.md": post("A", "2024-05-02", slug="first")})
    client = serve(site)
    assert client.get("/posts/first/").status_code == 200
    (site.content_dir / "posts/a.md").write_text(post("A", "2024-05-02", slug="second"))
    index_site(site, client.app.state.masthead.db)  # as the watcher does after a save
    r = client.get("/posts/first/")
    assert (r.status_code, r.headers["location"]) == (301, "/posts/second/")


def test_a_title_with_nothing_to_slugify_falls_back_to_the_file_name(make_site, serve):
    site = make_site(
        {"posts/q.md": post("???", "2024-05-02"), "posts/dot.md": post(".", "2024-05-02")},
        with_permalinks(BILINGUAL_TOML, posts="/t/:title/"),
    )
    client = serve(site)
    assert client.get("/t/q/").status_code == 200
    assert client.get("/t/dot/").status_code == 200


def test_no_permalink_redirects_away_from_itself(make_site, serve):
    """Slugs, file names, folders and tags holding `/`, `\\`, tabs or control characters are made
    one clean path segment: the site 301s paths holding those (browsers read `\\` as `/` and drop
    control characters), so a permalink keeping them would redirect away from its own page."""
    files = {
        "posts/a.md": post("A", slug='"a/b\\\\c"'),
        "posts/b.md": post("B", slug='"tab\\there\\x01x"', tags='["x\\x01y", "p/q"]'),
        "posts/c.md": post("C", slug='".."'),
        "posts/back\\slash\x02name.md": post("D"),
        "Sec\\tion/e.md": post("E"),
    }
    toml = with_permalinks(BILINGUAL_TOML, posts="/:section/:slugorcontentbasename/")
    client = serve(make_site(files, toml))
    archive = BeautifulSoup(client.get("/archive/").text, "html.parser")
    links = {a["href"] for a in archive.select("a[href^='/']")}
    urls = client.app.state.masthead.db.read().execute("SELECT url FROM posts").fetchall()
    assert len(urls) == 5
    for (url,) in urls:
        assert "%5C" not in url and "%01" not in url and "%09" not in url, url
        assert client.get(url).status_code == 200, url
        assert url in links, url
    for href in links:
        assert client.get(href).status_code == 200, href
    tags = BeautifulSoup(client.get("/tags/").text, "html.parser")
    terms = {a["href"] for a in tags.select("a[href^='/tags/']")}
    assert {"/posts/a-b-c/", "/sec-tion/e/"} <= links, links
    assert {"/tags/xy/", "/tags/pq/"} <= terms, terms
    for href in terms:
        assert client.get(href).status_code == 200, href
