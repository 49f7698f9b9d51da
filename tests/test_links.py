"""Issue 9 items 1, 8 (links) and case C26: the allowlist is the last step of every body, URLs are
rewritten on parsed attributes (never by patterns over the HTML), relative links between posts
reach their permalinks, `srcset` survives, and feeds, covers, og:image and JSON-LD images are
absolute. Real sites in tmp folders, indexed into real SQLite files and served by the real app."""

from __future__ import annotations

import json
from pathlib import Path

import feedparser
import pytest
from bs4 import BeautifulSoup

from masthead.content.post import parse_post
from masthead.indexing.check import check_site

from support.sites import post

CASES = Path(__file__).parent / "data" / "cases"
URL_ATTRS = ("href", "src", "srcset", "cite", "poster", "action", "formaction", "data")
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 32


def soup(text: str) -> BeautifulSoup:
    return BeautifulSoup(text, "html.parser")


def assert_inert(html: str, where: str) -> None:
    """No event-handler attribute and no script URL anywhere in `html`, as a parser reads it."""
    for tag in soup(html).find_all(True):
        assert tag.name not in ("script", "iframe", "object", "embed", "svg"), (where, str(tag))
        for attr, value in tag.attrs.items():
            assert not attr.lower().startswith("on"), (where, str(tag))
            if attr in URL_ATTRS:
                text = "".join(str(value).split()).lower()
                assert not text.startswith(("javascript:", "vbscript:", "data:")), (where, str(tag))


def feed_bodies(client, post_url: str) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """The HTML content of the item `post_url` in the RSS and the Atom feed (links as sent)."""
    out = {}
    for url in ("/feed.xml", "/atom.xml"):
        r = client.get(url)
        assert r.status_code == 200, url
        data = feedparser.parse(r.content, resolve_relative_uris=False, sanitize_html=False)
        entry = next(e for e in data.entries if e.link == "https://example.com" + post_url)
        out[url] = entry.content[0].value
    return out


# --- item 1: URL rewriting never reads text inside attribute values --------------------------

# Each of these ran script on the page (or in a feed) before: a regex that rewrote href/src found
# ` src='y'` inside another attribute's value and closed that value early.
VECTORS = {
    "markdown image alt": "![ src='y' onerror=alert(1) ](x)",
    "raw img alt": '<img alt="x src=\'y\' onerror=alert(1) " src="z.png">',
    "figure shortcode alt": '{{< figure src="z.png" alt="x src=\'y\' onerror=alert(1) " >}}',
    "a title, autofocus": '<a title="x href=\'y\' onfocus=alert(1) autofocus " href="#n">t</a>',
    "markdown link title": "[link](/a \"x src='y' onmouseover=alert(1) \")",
    "span title": "<span title=\"x href='y' onmouseover=alert(1) \">s</span>",
    "feed: poster in a title": "<span title=\"x poster='y' onmouseover=alert(1) \">s</span>",
    "feed: srcset in a title": "<span title=\"x srcset='y' onmouseover=alert(1) \">s</span>",
    "cite with a script URL": '<blockquote cite="javascript:alert(1)">q</blockquote>',
    "q cite data URL": '<q cite="data:text/html,<script>alert(1)</script>">q</q>',
    "srcset script URL": '<img src="a.png" srcset="javascript:alert(1) 1x" alt="">',
}


@pytest.mark.parametrize("body", VECTORS.values(), ids=VECTORS.keys())
def test_no_vector_runs_in_pages_or_feeds(make_site, serve, body):
    site = make_site({"posts/v/index.md": post("Vector", body=f"Before.\n\n{body}\n\nAfter.\n")})
    client = serve(site)
    r = client.get("/posts/v/")
    assert r.status_code == 200
    assert_inert(str(soup(r.text).select_one(".post-body")), "page")
    for url, html in feed_bodies(client, "/posts/v/").items():
        assert_inert(html, url)
    assert "After." in r.text  # the body was not cut short


def test_attribute_text_that_looks_like_a_url_stays_text(make_site):
    site = make_site({})
    body = "![ src='y' alt ](x.png) <span title=\"see href='../a.md'\">s</span>\n"
    html = parse_post(site, "posts/t/index.md", post("T", body=body).encode()).html
    page = soup(html)
    assert page.img["alt"] == " src='y' alt " and page.img["src"] == "/media/posts/t/x.png"
    assert page.span["title"] == "see href='../a.md'"
    assert set(page.img.attrs) == {"alt", "src"}


def test_serve_time_ref_resolution_leaves_text_alone(make_site, serve):
    # the old serve-time pass rewrote `href="/_ref/…"` anywhere in the HTML, text included
    site = make_site(
        {
            "posts/a.md": post("A", body='Write `x` as href="/_ref/posts/b.md" [b](b.md).\n'),
            "posts/b.md": post("B"),
        }
    )
    client = serve(site)
    body = soup(client.get("/posts/a/").text).select_one(".post-body")
    assert 'href="/_ref/posts/b.md"' in body.get_text()
    assert [a["href"] for a in body.select("a")] == ["/posts/b/"]


def test_script_urls_never_reach_a_cover(make_site, serve):
    hostile = post("C", cover='"javascript:alert(1)"')
    site = make_site({"posts/c.md": hostile, "posts/d.md": post("D", cover='" data:image/png,x"')})
    for rel in ("posts/c.md", "posts/d.md"):
        parsed = parse_post(site, rel, (site.content_dir / rel).read_bytes())
        assert parsed.cover == ""
        assert any("cover" in w.reason for w in parsed.warnings)
    client = serve(site)
    for url in ("/posts/c/", "/posts/d/"):
        r = client.get(url)
        assert "javascript:" not in r.text and "data:image" not in r.text
    for html in feed_bodies(client, "/posts/c/").values():
        assert "javascript:" not in html


def test_author_links_are_read_from_parsed_attributes(make_site, serve):
    front = (
        "---\ntitle: A\ndate: 2024-03-01\n"
        'author: "Ann <span title=\'href=\\"https://evil.example/\\"\'>x</span>"\n---\n\nBody.\n'
    )
    client = serve(make_site({"posts/a.md": front}))
    page = soup(client.get("/posts/a/").text)
    nodes = [json.loads(s.string) for s in page.find_all("script", type="application/ld+json")]
    graph = [n for d in nodes for n in d.get("@graph", [d])]
    posting = next(n for n in graph if n["@type"] == "BlogPosting")
    assert posting["author"][0]["name"] == "Ann x"
    assert posting["author"][0]["url"] == "https://example.com/authors/ann-x/"  # its own page
    assert "sameAs" not in posting["author"][0]
    assert "evil.example" not in json.dumps(posting)


def test_search_snippets_are_text_and_mark_only(make_site, serve):
    # a guard, not a regression: snippets were escaped before this change too
    body = "Lanterns &lt;img src=x onerror=alert(1)&gt; and <b>bold lanterns</b>.\n"
    client = serve(make_site({"posts/s.md": post("Lanterns <i>", body=body)}))
    hits = client.get("/api/search", params={"q": "lanterns"}).json()["hits"]
    page = soup(client.get("/search", params={"q": "lanterns"}).text)
    fragments = [h["snippet_html"] for h in hits] + [h["title_html"] for h in hits]
    fragments += [str(p) for p in page.select(".hit__snippet, .hit__title a")]
    assert hits and len(fragments) >= 4
    for html in fragments:
        inner = soup(html)
        tags = {t.name for t in inner.find_all(True)} - {"p", "a"}
        assert tags <= {"mark"}, html
        assert all(not t.attrs for t in inner.find_all("mark")), html


# --- table alignment: classes, not style attributes ------------------------------------------


def test_table_alignment_is_classes_styled_by_site_css(make_site, serve):
    body = "| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 | 3 |\n"
    client = serve(make_site({"posts/t.md": post("T", body=body)}))
    table = soup(client.get("/posts/t/").text).select_one(".post-body table")
    assert [td.get("class") for td in table.select("td")] == [
        ["align-left"],
        ["align-center"],
        ["align-right"],
    ]
    assert not table.select("[style]")
    css = client.get("/static/css/site.css").text
    for side in ("left", "center", "right"):
        assert f"td.align-{side} {{ text-align: {side}; }}" in css


# --- item 8: relative links between posts, files beside a post, srcset -----------------------


def linked_site(make_site):  # type: ignore[no-untyped-def]
    body = (
        "[a](../lighthouse/) [b](../lighthouse/index.md) [c](../lighthouse) "
        "[d](../lighthouse/#beam) [e](../nowhere/) [f](notes.txt)\n\n"
        '<img src="map.png" srcset="map.png 1x, big/map-2x.png 2x, javascript:x 3x" alt="">\n'
    )
    return make_site(
        {
            "posts/harbour/index.md": post("Harbour", body=body),
            "posts/harbour/index.zh.md": post("港口", body="[灯塔](../lighthouse/)\n"),
            "posts/harbour/map.png": PNG,
            "posts/harbour/big/map-2x.png": PNG,
            "posts/harbour/notes.txt": "notes",
            "posts/lighthouse/index.md": post("Lighthouse"),
            "posts/lighthouse/index.zh.md": post("灯塔"),
            "posts/leaf.md": post("Leaf", body="[l](../lighthouse/) [m](lighthouse/)\n"),
        }
    )


def test_relative_links_between_posts_reach_permalinks(make_site, serve):
    client = serve(linked_site(make_site))
    body = soup(client.get("/posts/harbour/").text).select_one(".post-body")
    hrefs = [a["href"] for a in body.select("a")]
    assert hrefs == [
        "/posts/lighthouse/",
        "/posts/lighthouse/",
        "/posts/lighthouse/",
        "/posts/lighthouse/#beam",
        "/media/posts/nowhere",  # a folder that holds no post is a file path
        "/media/posts/harbour/notes.txt",
    ]
    assert client.get("/media/posts/harbour/notes.txt").status_code == 200
    zh = soup(client.get("/zh/posts/harbour/").text).select_one(".post-body a")
    assert zh["href"] == "/zh/posts/lighthouse/"  # the linking post's language first
    leaf = [a["href"] for a in soup(client.get("/posts/leaf/").text).select(".post-body a")]
    assert leaf == ["/posts/lighthouse/", "/posts/lighthouse/"]


def test_srcset_is_kept_with_each_candidate_rewritten(make_site, serve):
    client = serve(linked_site(make_site))
    img = soup(client.get("/posts/harbour/").text).select_one(".post-body img")
    assert img["src"] == "/media/posts/harbour/map.png"
    assert img["srcset"] == (
        "/media/posts/harbour/map.png 1x, /media/posts/harbour/big/map-2x.png 2x"
    )
    for candidate in img["srcset"].split(", "):
        assert client.get(candidate.split()[0]).status_code == 200
    for html in feed_bodies(client, "/posts/harbour/").values():
        srcset = soup(html).img["srcset"]
        assert srcset == (
            "https://example.com/media/posts/harbour/map.png 1x, "
            "https://example.com/media/posts/harbour/big/map-2x.png 2x"
        )


def test_check_resolves_folder_links_and_names_broken_ones(make_site):
    issues = check_site(linked_site(make_site))
    reasons = [(i.path, i.reason) for i in issues]
    assert not [r for r in reasons if "lighthouse" in r[1]], reasons
    assert any("nowhere" in r for _p, r in reasons), reasons


def test_check_survives_names_no_file_system_can_hold(make_site):
    long = "n" * 300  # longer than a file name may be (255 bytes on Linux)
    body = f"[a]({long}.png) [b](../{long}/)\n"
    site = make_site({"posts/l.md": post("L", body=body, cover=f"{long}.jpg")})
    reasons = [i.reason for i in check_site(site)]
    assert sum("file not found" in r for r in reasons) == 3, reasons


# --- C26 · relative URLs inside feed content ---------------------------------------------------


def c26_site(make_site):  # type: ignore[no-untyped-def]
    return make_site(
        {
            "posts/harbour-lights/index.md": (CASES / "C26-relative-urls.md").read_bytes(),
            "posts/harbour-lights/map.png": PNG,
            "posts/harbour-lights/photos/boat.jpg": PNG,
            "posts/harbour-lights/photos/boat-2x.jpg": PNG,
            "posts/lighthouse/index.md": post("Lighthouse", lang="en"),
            "posts/covered/index.md": post("Covered", date="2024-02-01", cover="cover.jpg"),
            "posts/cdn-cover.md": post("CDN", date="2024-01-01", cover="//cdn.example/c.jpg"),
            "posts/covered/cover.jpg": PNG,
        }
    )


def test_c26_every_feed_url_is_absolute(make_site, serve):
    client = serve(c26_site(make_site))
    base = "https://example.com"
    for where, html in feed_bodies(client, "/posts/harbour-lights/").items():
        page = soup(html)
        srcs = [i["src"] for i in page.find_all("img")]
        hrefs = [a["href"] for a in page.find_all("a")]
        assert srcs == [
            f"{base}/images/harbour.jpg",
            f"{base}/media/posts/harbour-lights/map.png",
            f"{base}/media/posts/harbour-lights/photos/boat.jpg",
        ], where
        assert page.find_all("img")[2]["srcset"] == (
            f"{base}/media/posts/harbour-lights/photos/boat-2x.jpg 2x"
        )
        assert hrefs == [
            f"{base}/posts/lighthouse/",
            f"{base}/posts/harbour-lights/#notes",
            f"{base}/archive/",
        ], where
    # files beside the post answer where the feed sends readers
    for path in ("map.png", "photos/boat.jpg", "photos/boat-2x.jpg"):
        assert client.get(f"/media/posts/harbour-lights/{path}").status_code == 200
    assert client.get("/posts/lighthouse/").status_code == 200


def test_c26_cover_og_image_and_jsonld_image_are_absolute(make_site, serve):
    client = serve(c26_site(make_site))
    expected = {
        "/posts/covered/": "https://example.com/media/posts/covered/cover.jpg",
        "/posts/cdn-cover/": "https://cdn.example/c.jpg",
    }
    for url, image in expected.items():
        page = soup(client.get(url).text)
        assert page.select_one('meta[property="og:image"]')["content"] == image
        assert page.select_one('meta[name="twitter:image"]')["content"] == image
        nodes = [json.loads(s.string) for s in page.find_all("script", type="application/ld+json")]
        graph = [n for d in nodes for n in d.get("@graph", [d])]
        assert next(n for n in graph if n["@type"] == "BlogPosting")["image"] == image
        for html in feed_bodies(client, url).values():
            assert soup(html).img["src"] == image
    assert client.get("/media/posts/covered/cover.jpg").status_code == 200


# --- raw_html: trusted authors, the same parsed link rewriting ---------------------------------

RAW_TOML = "title = 'Raw'\nbase_url = 'https://example.com'\nraw_html = true\n"


def test_raw_html_keeps_the_authors_html_and_rewrites_links_on_parsed_attributes(make_site, serve):
    body = (
        '<img alt=" src=\'y\' title=x " src="map.png" data-x="1">\n\n'
        '<p><a href="../lighthouse/" onclick="track()">light</a></p>\n\n'
        '<script src="/static/js/widget.js"></script>\n'
    )
    files = {
        "posts/harbour/index.md": post("Harbour", body=body),
        "posts/harbour/map.png": PNG,
        "posts/lighthouse/index.md": post("Lighthouse"),
    }
    client = serve(make_site(files, toml=RAW_TOML))
    page = soup(client.get("/posts/harbour/").text).select_one(".post-body")
    img = page.img
    assert img.attrs == {
        "alt": " src='y' title=x ",
        "src": "/media/posts/harbour/map.png",
        "data-x": "1",
        "decoding": "async",  # a body's images (content/responsive.py)
        "fetchpriority": "high",
    }
    link = page.select_one("a")
    assert link["href"] == "/posts/lighthouse/" and link["onclick"] == "track()"
    assert page.select_one('script[src="/static/js/widget.js"]') is not None
    for html in feed_bodies(client, "/posts/harbour/").values():
        feed = soup(html)
        assert feed.img["alt"] == " src='y' title=x "
        assert feed.img["src"] == "https://example.com/media/posts/harbour/map.png"
        assert feed.a["href"] == "https://example.com/posts/lighthouse/"


def test_feed_summaries_are_text_even_to_a_reader_that_reads_html(make_site, serve):
    # Atom's type="text" is text by RFC 4287, but readers that ignore the type render it as HTML
    excerpt = "'<img src=x onerror=alert(1)> Tips & <b>tricks</b>'"
    client = serve(make_site({"posts/e.md": post("E", excerpt=excerpt)}))
    for url in ("/feed.xml", "/atom.xml"):
        data = feedparser.parse(client.get(url).content, sanitize_html=False)
        summary = data.entries[0].summary
        assert soup(summary).find_all(True) == [], (url, summary)
        assert soup(summary).get_text() == "<img src=x onerror=alert(1)> Tips & <b>tricks</b>"
