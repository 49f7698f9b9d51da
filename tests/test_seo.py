"""The SEO suite through real clients: feeds read by feedparser and a strict XML parser, sitemaps
validated against the sitemaps.org schemas (tests/data/seo-schemas) with lxml, robots.txt read by
`urllib.robotparser`, JSON-LD extracted from the served HTML and parsed, head tags compared with
the sitemap; golden files for one small fixture site (tests/data/seo-golden); cases C27 and C28
on their inputs (tests/data/cases); hreflang reciprocity over the Kubernetes corpus.

Regenerate the golden files after an intended change with
`MASTHEAD_UPDATE_GOLDEN=1 pytest tests/test_seo.py -k golden`, and review the diff.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import urllib.robotparser
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime, parsedate_to_datetime
from pathlib import Path
from urllib.parse import unquote, urlsplit

import feedparser
import lxml.html
import pytest
from bs4 import BeautifulSoup
from lxml import etree
from starlette.testclient import TestClient

from masthead.config import load_site
from masthead.content.meta import term_key
from masthead.errors import ConfigError
from masthead.indexing.indexer import index_site
from masthead.seo import feeds, jsonld, robots, sitemap, xmltext
from masthead.store.db import Database
from masthead.web.app import create_app

from support.feeds import STRICT, parse_feed, soup, structured, xml
from support.sites import K8S_GROUP, demo_copy, post

DATA = Path(__file__).parent / "data"
GOLDEN = DATA / "seo-golden"
CASES = DATA / "cases"
SCHEMAS = DATA / "seo-schemas"
CLOCK = datetime(2024, 6, 1, tzinfo=UTC).timestamp()
BASE = "https://example.com"
SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
XHTML = "{http://www.w3.org/1999/xhtml}"
HREFLANG = re.compile(r"^(x-default|[a-z]{2,3}(-[A-Z][a-z]{3})?(-[A-Z]{2})?)$")
URLSET_XSD = etree.XMLSchema(etree.parse(str(SCHEMAS / "sitemap-with-hreflang.xsd")))
INDEX_XSD = etree.XMLSchema(etree.parse(str(SCHEMAS / "siteindex.xsd")))


# --- helpers -----------------------------------------------------------------------------------


def node(page: BeautifulSoup, kind: str) -> dict:
    found = [n for n in structured(page) if n["@type"] == kind]
    assert len(found) == 1, (kind, [n["@type"] for n in structured(page)])
    return found[0]


def head_hreflang(page: BeautifulSoup) -> list[tuple[str, str]]:
    return [(a["hreflang"], a["href"]) for a in page.select('head link[rel="alternate"][hreflang]')]


def meta(page: BeautifulSoup, key: str) -> str | None:
    tag = page.select_one(f'meta[property="{key}"]') or page.select_one(f'meta[name="{key}"]')
    return tag["content"] if tag else None


def sitemap_entries(client) -> dict[str, tuple[str | None, list[tuple[str, str]]]]:  # type: ignore[no-untyped-def]
    """loc → (lastmod, hreflang alternates) over the sitemap (following an index), each file
    validated against the sitemaps.org schema."""
    root = xml(client.get("/sitemap.xml"))
    files = [root]
    if root.tag == f"{SM}sitemapindex":
        INDEX_XSD.assertValid(root)
        files = [xml(client.get(urlsplit(loc.text).path)) for loc in root.iter(f"{SM}loc")]
    out: dict[str, tuple[str | None, list[tuple[str, str]]]] = {}
    for doc in files:
        URLSET_XSD.assertValid(doc)
        for url in doc.iter(f"{SM}url"):
            loc = url.findtext(f"{SM}loc")
            assert loc not in out, f"{loc} listed twice"
            links = [(x.get("hreflang"), x.get("href")) for x in url.iter(f"{XHTML}link")]
            out[loc] = (url.findtext(f"{SM}lastmod"), links)
    return out


def golden_site(tmp_path: Path, extra: str = ""):  # type: ignore[no-untyped-def]
    root = tmp_path / "golden"
    shutil.copytree(GOLDEN / "site", root)
    if extra:  # top-level settings put first, replacing the fixture's own value of a key
        toml = root / "masthead.toml"
        keys = {line.split("=")[0].strip() for line in extra.splitlines()}
        lines = toml.read_text(encoding="utf-8").splitlines()
        kept = [line for line in lines if line.split("=")[0].strip() not in keys]
        toml.write_text("\n".join([extra, *kept]) + "\n", encoding="utf-8")
    return load_site(root)


def seo_head(page: BeautifulSoup) -> str:
    """The SEO part of a page's head as text: lang, title, meta and link tags, pretty JSON-LD."""
    lines = [f"html lang={page.html['lang']}", f"title: {page.title.get_text()}"]
    for tag in page.head.find_all(["meta", "link"]):
        if tag.name == "meta" and (
            tag.get("charset") or tag.get("name") in ("viewport", "color-scheme")
        ):
            continue
        if tag.name == "link" and tag.get("rel") in (["icon"], ["stylesheet"]):
            continue
        lines.append(str(tag))
    for script in page.head.find_all("script", type="application/ld+json"):
        lines.append(json.dumps(json.loads(script.string), indent=2, ensure_ascii=False))
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def golden(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The real app on the fixture site at CLOCK, shared by the tests of this module that only
    read it (GET and HEAD): copied and indexed once, not once a test. A test that changes the
    site or its settings serves a copy of its own (`golden_site` and `serve`)."""
    site = golden_site(tmp_path_factory.mktemp("golden"))
    with TestClient(create_app(site, clock=lambda: CLOCK), follow_redirects=False) as client:
        yield client


# --- golden files ------------------------------------------------------------------------------

GOLDEN_DOCS = [
    "/feed.xml",
    "/atom.xml",
    "/zh/feed.xml",
    "/zh/atom.xml",
    "/all/feed.xml",
    "/tags/harbour/feed.xml",
    "/tags/night-walks/atom.xml",
    "/zh/categories/旅行/feed.xml",
    "/sitemap.xml",
    "/robots.txt",
]
GOLDEN_PAGES = [
    "/",
    "/zh/",
    "/posts/harbour-lights/",
    "/zh/posts/harbour-lights/",
    "/posts/tide-tables/",
    "/posts/syndicated/",
    "/tags/harbour/",
    "/categories/",
    "/archive/",
    "/about/",
]


def test_golden_outputs(golden):
    """STYLE.md rule 13: feeds, sitemap, robots.txt and the head tags and JSON-LD of each kind of
    page of the fixture site, byte for byte."""
    client = golden
    update = os.environ.get("MASTHEAD_UPDATE_GOLDEN") == "1"
    outputs = {path.strip("/"): client.get(path).text for path in GOLDEN_DOCS}
    for path in GOLDEN_PAGES:
        r = client.get(path)
        assert r.status_code == 200, path
        name = path.strip("/").replace("/", "__") or "home"
        outputs[f"pages/{name}.txt"] = seo_head(soup(r))
    mismatched = []
    for name, text in outputs.items():
        file = GOLDEN / "expected" / name
        if update:
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text(text, encoding="utf-8")
        if not file.exists() or file.read_text(encoding="utf-8") != text:
            mismatched.append(name)
    assert not mismatched, f"differs from tests/data/seo-golden/expected: {mismatched}"


# --- feeds -------------------------------------------------------------------------------------


def all_feed_urls(client) -> list[str]:  # type: ignore[no-untyped-def]
    """Every feed of posts of a site: per language, all languages, and each term page's (from
    the head links of every page in the sitemap, so none is forgotten). A post's comment feeds
    are left out: tests/test_comments_feeds.py has them."""
    found: set[str] = set()
    for loc in sitemap_entries(client):
        for link in soup(client.get(urlsplit(loc).path)).select('head link[rel="alternate"][type]'):
            found.add(unquote(urlsplit(link["href"]).path))
    return sorted(url for url in found if not url.endswith(("/comments.xml", "-atom.xml")))


def test_every_feed_parses_with_absolute_links(golden):
    client = golden
    urls = all_feed_urls(client)
    assert {"/feed.xml", "/atom.xml", "/zh/feed.xml", "/all/atom.xml"} <= set(urls)
    assert "/tags/harbour/feed.xml" in urls and "/zh/tags/港口/atom.xml" in urls
    assert "/categories/travel/atom.xml" in urls
    for url in urls:
        data = parse_feed(client, url)
        assert data.version == ("rss20" if url.endswith("feed.xml") else "atom10"), url
        assert data.entries, url
        assert data.feed.link.startswith(BASE + "/")
        for entry in data.entries:
            assert entry.link.startswith(BASE + "/"), (url, entry.link)
            body = BeautifulSoup(entry.content[0].value, "html.parser")
            targets = [t.get("href") or t.get("src") for t in body.find_all(["a", "img"])]
            for target in targets:
                assert urlsplit(target).scheme in ("https", "mailto"), (url, target)
                assert "/_ref/" not in target and not target.endswith(".md"), (url, target)
            for target in (t for t in targets if t.startswith(BASE)):
                assert client.get(urlsplit(target).path).status_code == 200, target


def test_feed_items_dates_and_full_text(golden):
    client = golden
    rss = parse_feed(client, "/feed.xml")
    titles = [e.title for e in rss.entries]
    # newest first; drafts and posts not yet due are left out; noindex and canonical-elsewhere
    # posts are published posts, so feed readers get them
    assert titles == [
        "First published elsewhere",
        "A quiet corner",
        'Harbour Lights: <night> & "day"',
        "Reading the tide tables",
    ]
    lights = rss.entries[2]
    raw = client.get("/feed.xml").text
    assert "<pubDate>Fri, 01 Mar 2024 20:00:00 +0800</pubDate>" in raw  # RFC 822, own offset
    assert parsedate_to_datetime(lights.published) == datetime.fromisoformat(
        "2024-03-01T20:00:00+08:00"
    )
    assert "<lastBuildDate>Tue, 02 Apr 2024 09:30:00 +0800</lastBuildDate>" in raw  # newest change
    assert (
        lights.author == "Ann Lee" and lights.id == lights.link == BASE + "/posts/harbour-lights/"
    )
    assert {t.term for t in lights.tags} == {"Travel", "Harbour", "Night Walks"}
    body = BeautifulSoup(lights.content[0].value, "html.parser")
    assert body.select_one("pre code").get_text() == "<br> and ]]> in a code block\n"
    links = {a.get_text(): a["href"] for a in body.find_all("a") if a.get_text()}
    assert links["tide tables"] == BASE + "/posts/tide-tables/"
    assert links["the about page"] == BASE + "/about/"
    assert links["lamp picture"] == BASE + "/media/posts/images/quay.svg"
    assert body.img["src"] == BASE + "/media/posts/images/quay.svg"  # the cover first
    footnote = body.select_one("sup.footnote-ref a")["href"]
    assert footnote == BASE + "/posts/harbour-lights/#fn:1"

    atom = parse_feed(client, "/atom.xml")
    entry = atom.entries[2]
    assert entry.title == 'Harbour Lights: <night> & "day"'
    assert entry.published == "2024-03-01T20:00:00+08:00"  # RFC 3339
    assert entry.updated == "2024-04-02T09:30:00+08:00"
    # type="html", the text escaped as in RSS (issue 9: a lax reader shows text too)
    assert entry.summary_detail.type == "text/html"
    summary = BeautifulSoup(entry.summary, "html.parser").get_text()
    assert summary == "Lamps, ropes & the tide: a walk along the quay after dark."
    assert atom.feed.updated == "2024-04-02T09:30:00+08:00"  # the newest change
    assert (
        atom.feed.language == "en" and parse_feed(client, "/zh/atom.xml").feed.language == "zh-Hans"
    )
    everything = parse_feed(client, "/all/atom.xml")
    # the mixed feed has no xml:lang of its own; each entry carries its language
    assert {e.title_detail.language for e in everything.entries} == {"en", "zh-Hans"}
    assert len(everything.entries) == 5


def test_excerpt_setting_and_item_limit(tmp_path, serve):
    site = golden_site(tmp_path, "feed_full_text = false\nfeed_items = 2")
    client = serve(site, clock=lambda: CLOCK)
    for url in ("/feed.xml", "/atom.xml"):
        data = parse_feed(client, url)
        assert len(data.entries) == 2, url
        assert all("content" not in e for e in data.entries), url
        assert (
            data.entries[1].summary
            == "Published (in feeds and lists) but noindex: not in the sitemap."
        )


def test_feed_conditional_requests(tmp_path, serve):
    site = golden_site(tmp_path)
    client = serve(site, clock=lambda: CLOCK)
    for url in ("/feed.xml", "/zh/atom.xml", "/tags/harbour/feed.xml", "/sitemap.xml"):
        r = client.get(url)
        etag, modified = r.headers["etag"], r.headers["last-modified"]
        assert "must-revalidate" in r.headers["cache-control"]
        assert client.get(url, headers={"If-None-Match": etag}).status_code == 304
        assert client.get(url, headers={"If-None-Match": f'"x", W/{etag}'}).status_code == 304
        assert client.get(url, headers={"If-Modified-Since": modified}).status_code == 304
        before = format_datetime(parsedate_to_datetime(modified) - timedelta(days=1), usegmt=True)
        assert client.get(url, headers={"If-Modified-Since": before}).status_code == 200
        # the entity tag wins over the date (RFC 9110 §13.2.2)
        both = {"If-None-Match": '"other"', "If-Modified-Since": modified}
        assert client.get(url, headers=both).status_code == 200
        head = client.head(url)
        assert head.status_code == 200 and head.headers["etag"] == etag
    newest = client.get("/feed.xml").headers["last-modified"]
    assert newest == "Tue, 02 Apr 2024 01:30:00 GMT"  # harbour-lights.md's `updated`
    etag = client.get("/feed.xml").headers["etag"]
    changed = site.content_dir / "posts" / "tide-tables" / "index.md"
    changed.write_text(changed.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    index_site(site, Database(site.database_path))
    r = client.get("/feed.xml", headers={"If-None-Match": etag})
    assert r.status_code == 200 and "One more line." in r.text


def test_unknown_feeds_are_404(golden):
    client = golden
    for url in ("/tags/no-such-tag/feed.xml", "/zh/tags/harbour/atom.xml", "/tags/draft/feed.xml"):
        assert client.get(url).status_code == 404, url
    assert client.get("/zh/tags/night-walks/atom.xml").status_code == 200


# --- sitemap -----------------------------------------------------------------------------------


def test_sitemap_is_valid_and_lists_only_indexable_pages(golden):
    client = golden
    r = client.get("/sitemap.xml")
    assert r.headers["content-type"] == "application/xml; charset=utf-8"
    entries = sitemap_entries(client)
    paths = {urlsplit(loc).path for loc in entries}
    assert {"/posts/harbour-lights/", "/zh/posts/harbour-lights/", "/posts/tide-tables/"} <= paths
    assert {"/about/", "/zh/about/", "/", "/zh/", "/archive/", "/tags/harbour/"} <= paths
    for gone in ("draft-idea", "quiet-corner", "syndicated", "next-season"):
        assert f"/posts/{gone}/" not in paths, gone
    assert "/categories/essays/" in paths  # a term page lists published posts, indexable or not
    # lastmod: `updated`, else `date`, with the author's offset; never a file time
    assert entries[BASE + "/posts/harbour-lights/"][0] == "2024-04-02T09:30:00+08:00"
    assert entries[BASE + "/zh/posts/harbour-lights/"][0] == "2024-03-01T20:00:00+08:00"
    assert entries[BASE + "/posts/tide-tables/"][0] == "2024-02-10T00:00:00+08:00"
    assert entries[BASE + "/zh/about/"][0] == "2024-01-20T00:00:00+08:00"
    assert entries[BASE + "/"][0] == "2024-04-02T09:30:00+08:00"  # the newest post shown there
    for loc, (_lastmod, links) in entries.items():
        assert all(HREFLANG.match(h) for h, _ in links), loc
        if links:
            assert (dict(links)["x-default"], loc in dict(links).values()) == (links[-1][1], True)


def test_head_tags_match_the_sitemap(golden):
    """C28's rule for every page: one absolute canonical that is the sitemap's loc, and the head's
    hreflang links are the sitemap's alternates, in the same order."""
    client = golden
    for loc, (_lastmod, links) in sitemap_entries(client).items():
        page = soup(client.get(urlsplit(loc).path))
        canonicals = page.select('link[rel="canonical"]')
        assert [c["href"] for c in canonicals] == [loc], loc
        assert loc.endswith("/")
        assert head_hreflang(page) == links, loc
        assert page.select_one('meta[name="robots"]') is None, loc
        assert meta(page, "og:url") == loc and meta(page, "description"), loc
        lang = "zh-Hans" if urlsplit(loc).path.startswith("/zh/") else "en"
        assert page.html["lang"] == lang, loc


def test_sitemap_index_past_the_limit(tmp_path, serve, golden):
    whole = sitemap_entries(golden)
    client = serve(golden_site(tmp_path, "sitemap_max_urls = 5"), clock=lambda: CLOCK)
    root = xml(client.get("/sitemap.xml"))
    assert root.tag == f"{SM}sitemapindex"
    INDEX_XSD.assertValid(root)
    children = [loc.text for loc in root.iter(f"{SM}loc")]
    assert children == [f"{BASE}/sitemap-{n}.xml" for n in range(1, len(children) + 1)]
    assert len(children) == -(-len(whole) // 5)
    for child in children:
        assert len(xml(client.get(urlsplit(child).path)).findall(f"{SM}url")) <= 5
    assert sitemap_entries(client) == whole
    assert client.get(f"/sitemap-{len(children) + 1}.xml").status_code == 404
    assert golden.get("/sitemap-1.xml").status_code == 404  # a single sitemap: no parts


# --- robots.txt --------------------------------------------------------------------------------


def test_robots_txt(golden):
    client = golden
    r = client.get("/robots.txt")
    assert r.headers["content-type"] == "text/plain; charset=utf-8"
    parser = urllib.robotparser.RobotFileParser()
    parser.parse(r.text.splitlines())
    for path in ("/", "/posts/harbour-lights/", "/search?q=harbour", "/zh/search?q=x", "/feed.xml"):
        assert parser.can_fetch("Googlebot", BASE + path), path
    for path in ("/guanli/", "/guanli/login", "/api/search?q=x", "/api/openapi.json"):
        assert not parser.can_fetch("Googlebot", BASE + path), path
    assert parser.site_maps() == [BASE + "/sitemap.xml"]
    assert (
        client.get("/robots.txt", headers={"If-None-Match": r.headers["etag"]}).status_code == 304
    )


def test_robots_txt_is_configurable(tmp_path, serve):
    extra = 'robots_disallow = ["/drafts/"]\nrobots_extra = "User-agent: GPTBot\\nDisallow: /"'
    client = serve(golden_site(tmp_path, extra), clock=lambda: CLOCK)
    parser = urllib.robotparser.RobotFileParser()
    parser.parse(client.get("/robots.txt").text.splitlines())
    assert not parser.can_fetch("Googlebot", BASE + "/drafts/x")
    assert parser.can_fetch("Googlebot", BASE + "/api/search")
    assert not parser.can_fetch("GPTBot", BASE + "/posts/harbour-lights/")
    with pytest.raises(ConfigError, match="robots_disallow"):
        golden_site(tmp_path / "bad", 'robots_disallow = ["guanli"]')


# --- JSON-LD and head meta ---------------------------------------------------------------------


def test_jsonld_on_every_kind_of_page(golden):
    client = golden
    home = soup(client.get("/"))
    website = node(home, "WebSite")
    assert website["url"] == BASE + "/" and website["inLanguage"] == "en"
    template = website["potentialAction"]["target"]["urlTemplate"]
    assert template == BASE + "/search?q={search_term_string}"
    assert website["potentialAction"]["query-input"] == "required name=search_term_string"
    filled = urlsplit(template.replace("{search_term_string}", "tide"))
    assert client.get(f"{filled.path}?{filled.query}").status_code == 200
    listed = node(home, "CollectionPage")["mainEntity"]["itemListElement"]
    assert listed[0] == {"@type": "ListItem", "position": 1, "url": BASE + "/posts/syndicated/"}
    assert node(soup(client.get("/zh/")), "WebSite")["url"] == BASE + "/zh/"

    page = soup(client.get("/posts/harbour-lights/"))
    article = node(page, "BlogPosting")
    assert article["headline"] == 'Harbour Lights: <night> & "day"'
    assert article["description"] == "Lamps, ropes & the tide: a walk along the quay after dark."
    assert article["datePublished"] == "2024-03-01T20:00:00+08:00"
    assert article["dateModified"] == "2024-04-02T09:30:00+08:00"
    assert article["author"] == [  # url: the author page; sameAs: the link in front matter
        {
            "@type": "Person",
            "name": "Ann Lee",
            "url": BASE + "/authors/ann-lee/",
            "sameAs": "https://example.org/ann",
        }
    ]
    assert article["image"] == BASE + "/media/posts/images/quay.svg"
    assert client.get("/media/posts/images/quay.svg").status_code == 200
    assert article["inLanguage"] == "en"
    assert article["mainEntityOfPage"] == {
        "@type": "WebPage",
        "@id": BASE + "/posts/harbour-lights/",
    }
    assert article["publisher"]["@type"] == "Organization"
    assert article["publisher"]["name"] == "Harbour Notes & Co"
    assert article["keywords"] == "Harbour, Night Walks"
    assert isinstance(article["wordCount"], int) and article["wordCount"] > 10
    crumbs = node(page, "BreadcrumbList")["itemListElement"]
    assert [(c["name"], c["item"]) for c in crumbs] == [
        ("Home", BASE + "/"),
        ("Travel", BASE + "/categories/travel/"),
        ('Harbour Lights: <night> & "day"', BASE + "/posts/harbour-lights/"),
    ]
    syndicated = node(soup(client.get("/posts/syndicated/")), "BlogPosting")
    assert syndicated["mainEntityOfPage"]["@id"] == "https://magazine.example.org/harbour-essay/"
    zh = node(soup(client.get("/zh/posts/harbour-lights/")), "BlogPosting")
    assert zh["inLanguage"] == "zh-Hans" and "image" in zh

    term = soup(client.get("/zh/tags/港口/"))
    assert node(term, "CollectionPage")["inLanguage"] == "zh-Hans"
    trail = [c["name"] for c in node(term, "BreadcrumbList")["itemListElement"]]
    assert trail == ["首页", "标签", "港口"]
    for path in ("/tags/", "/categories/", "/archive/", "/zh/archive/"):
        assert node(soup(client.get(path)), "CollectionPage")["url"] == BASE + path
    assert node(soup(client.get("/about/")), "WebPage")["name"] == "About"


def test_jsonld_and_meta_cannot_be_broken_out_of(make_site, serve):
    nasty = 'Ends </script><script>alert(1)</script> <!-- & "q" \u2028'
    files = {
        "posts/nasty.md": post(
            "x", "2024-03-01", slug="nasty", excerpt="\"'</SCRIPT x' <b>bold</b>\""
        ).replace('title: "x"', "title: '" + nasty.replace("'", "''") + "'")
    }
    client = serve(make_site(files))
    r = client.get("/posts/nasty/")
    assert r.status_code == 200
    for page in (soup(r), BeautifulSoup(r.text, "lxml")):
        scripts = page.find_all("script")
        # one data block; the rest are the theme's own files (site.js, comments.js), empty
        assert [s.get("type") for s in scripts] == ["application/ld+json"] + [None] * (
            len(scripts) - 1
        )
        assert all(s["src"].startswith("/static/js/") and not s.text for s in scripts[1:])
        assert node(page, "BlogPosting")["headline"] == " ".join(nasty.split())
        assert node(page, "BlogPosting")["description"] == "'</SCRIPT x' <b>bold</b>"
        assert meta(page, "og:title") == " ".join(nasty.split())
        assert page.title.get_text() == " ".join(nasty.split()) + " · Test site"
    # libxml2's HTML parser agrees: one data block, one script, no injected element
    tree = lxml.html.fromstring(r.content)
    assert len(tree.xpath("//script")) == len(scripts) and not tree.xpath("//b")


def test_noindex_and_canonical_rules(demo_site, serve):
    client = serve(demo_site)
    for url, status in (("/search?q=kubelet", 200), ("/zh/search", 200), ("/no/such/", 404)):
        r = client.get(url)
        page = soup(r)
        assert r.status_code == status, url
        assert meta(page, "robots") == "noindex", url
        assert page.select('link[rel="canonical"]') == [], url  # nothing to point a crawler at
    dev = serve(demo_site, dev=True)
    draft = soup(dev.get("/posts/unfinished-thoughts/"))
    assert meta(draft, "robots") == "noindex"
    assert head_hreflang(draft) == []
    for url in ("/", "/posts/moving-from-hugo/", "/tags/", "/zh/archive/", "/about/"):
        page = soup(client.get(url))
        assert meta(page, "robots") is None, url
        assert [c["href"] for c in page.select('link[rel="canonical"]')] == [
            "http://127.0.0.1:8000" + url
        ], url


def test_paginated_list_pages(make_site, serve):
    files = {f"posts/p{i}.md": post(f"Post {i}", f"2024-03-{i + 1:02d}") for i in range(4)}
    client = serve(make_site(files), clock=lambda: CLOCK)
    page = soup(client.get("/page/2/"))
    assert [c["href"] for c in page.select('link[rel="canonical"]')] == [BASE + "/page/2/"]
    assert head_hreflang(page) == []  # page 2 has no translation
    assert node(page, "CollectionPage")["url"] == BASE + "/page/2/"
    assert not [n for n in structured(page) if n["@type"] == "WebSite"]  # only on the home page
    assert BASE + "/page/2/" not in sitemap_entries(client)


def test_social_cards(golden):
    client = golden
    page = soup(client.get("/zh/posts/harbour-lights/"))
    assert meta(page, "og:type") == "article"
    assert meta(page, "og:title") == "港口灯火"
    assert meta(page, "og:description") == "夜里沿着码头散步：灯、缆绳和潮水。"
    assert meta(page, "og:url") == BASE + "/zh/posts/harbour-lights/"
    assert (
        meta(page, "og:image")
        == meta(page, "twitter:image")
        == BASE + "/media/posts/images/quay.svg"
    )
    assert meta(page, "og:locale") == "zh_CN" and meta(page, "og:locale:alternate") == "en_US"
    assert meta(page, "og:site_name") == "Harbour Notes & Co"
    assert meta(page, "twitter:card") == "summary_large_image"
    assert meta(page, "article:published_time") == "2024-03-01T20:00:00+08:00"
    assert [m["content"] for m in page.select('meta[property="article:tag"]')] == [
        "港口",
        "Night Walks",
    ]
    plain = soup(client.get("/posts/tide-tables/"))
    assert meta(plain, "twitter:card") == "summary" and meta(plain, "og:image") is None
    assert meta(plain, "og:locale:alternate") is None  # no translation
    home = soup(client.get("/"))
    assert meta(home, "og:type") == "website"
    assert meta(home, "description") == "Field notes from a harbour town, in English and Chinese."


def test_feed_links_in_heads(golden):
    client = golden

    def feeds_of(path: str) -> list[tuple[str, str]]:
        links = soup(client.get(path)).select('head link[rel="alternate"][type]')
        return [(link["type"], urlsplit(link["href"]).path) for link in links]

    rss, atom = "application/rss+xml", "application/atom+xml"
    assert feeds_of("/posts/tide-tables/") == [
        (rss, "/feed.xml"),
        (atom, "/atom.xml"),
        (rss, "/posts/tide-tables/comments.xml"),
        (atom, "/posts/tide-tables/comments-atom.xml"),
    ]
    assert feeds_of("/zh/about/") == [(rss, "/zh/feed.xml"), (atom, "/zh/atom.xml")]
    assert feeds_of("/") == [
        (rss, "/feed.xml"),
        (atom, "/atom.xml"),
        (rss, "/all/feed.xml"),
        (atom, "/all/atom.xml"),
    ]
    assert feeds_of("/tags/night-walks/")[2:] == [
        (rss, "/tags/night-walks/feed.xml"),
        (atom, "/tags/night-walks/atom.xml"),
    ]
    for kind, path in feeds_of("/") + feeds_of("/tags/night-walks/"):
        assert client.get(path).headers["content-type"] == kind + "; charset=utf-8"


# --- cases C27 and C28 -------------------------------------------------------------------------


def test_c27_xml_escaping(make_site, serve):
    title = 'Q&A: <video> tags & "quotes" — AT&T\'s take'
    excerpt = "Why 5 < 6 && 7 > 3 matters."
    site = make_site({"posts/c27.md": (CASES / "C27-xml-escaping.md").read_bytes()})
    client = serve(site, clock=lambda: CLOCK)
    feed_urls = ["/feed.xml", "/atom.xml", "/all/feed.xml", "/all/atom.xml"]
    for name in ("C++", "C#", "<html>"):
        feed_urls.append(f"/tags/{term_key(name)}/feed.xml")
    feed_urls.append(f"/categories/{term_key('Tips & Tricks')}/atom.xml")
    for url in feed_urls:
        data = parse_feed(client, url)  # strict XML and feedparser without a bozo flag
        entry = data.entries[0]
        assert entry.title == title, url
        assert entry.author == "Alice & Bob", url
        assert sorted(t.term for t in entry.tags) == sorted(
            ["Tips & Tricks", "C++", "C#", "<html>"]
        )
        assert BeautifulSoup(entry.summary, "html.parser").get_text() == excerpt, url
        body = BeautifulSoup(entry.content[0].value, "html.parser")
        assert body.code.get_text() == "<br>", url
        assert "an ampersand & a less-than sign <" in body.get_text(), url
        assert "&amp;" not in entry.title + body.get_text() + entry.author, url
    raw = client.get("/feed.xml").text
    assert '<title>Q&amp;A: &lt;video&gt; tags &amp; "quotes" — AT&amp;T\'s take</title>' in raw
    xml(client.get("/sitemap.xml"))
    assert BASE + "/posts/c27-escaping/" in sitemap_entries(client)
    page = soup(client.get("/posts/c27-escaping/"))
    assert page.title.get_text() == f"{title} · Test site"
    assert meta(page, "og:title") == meta(page, "twitter:title") == title
    assert meta(page, "description") == excerpt
    assert node(page, "BlogPosting")["headline"] == title
    assert node(page, "BlogPosting")["author"] == [
        {"@type": "Person", "name": "Alice & Bob", "url": BASE + "/authors/alice-and-bob/"}
    ]
    assert node(page, "BreadcrumbList")["itemListElement"][-1]["name"] == title
    assert page.h1.get_text() == title


def c28_site(make_site, change: str = "") -> object:
    """The C28 inputs as a site; `change` is a front-matter line added to the zh translation."""
    files: dict[str, str | bytes] = {}
    for file in sorted((CASES / "C28-bilingual").glob("*.md")):
        data = file.read_bytes()
        if change and file.name == "zh-harbour.md":
            data = data.replace(b"---\n", b"---\n" + change.encode() + b"\n", 1)
        files[f"posts/{file.name}"] = data
    return make_site(files)


def expected_c28() -> dict[str, tuple[str, list[tuple[str, str]]]]:
    """The case's expected sitemap fragment, read as XML, with its `/en/` URLs moved to the root
    (the default language has no prefix: cases/README.md)."""
    fragment = (CASES / "C28-bilingual" / "expected-sitemap-fragment.xml").read_text("utf-8")
    fragment = fragment.replace("https://example.com/en/", "https://example.com/")
    root = etree.fromstring(
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        f'xmlns:xhtml="http://www.w3.org/1999/xhtml">{fragment}</urlset>',
        STRICT,
    )
    URLSET_XSD.assertValid(root)
    return {
        url.findtext(f"{SM}loc"): (
            url.findtext(f"{SM}lastmod"),
            [(x.get("hreflang"), x.get("href")) for x in url.iter(f"{XHTML}link")],
        )
        for url in root.iter(f"{SM}url")
    }


def test_c28_bilingual_hreflang(make_site, serve):
    client = serve(c28_site(make_site), clock=lambda: CLOCK)
    entries = sitemap_entries(client)
    expected = expected_c28()
    assert len(expected) == 3
    for loc, want in expected.items():
        assert entries[loc] == want, loc
    teahouse = BASE + "/zh/posts/cha-guan/"
    assert entries[teahouse] == ("2024-03-06T20:00:00+08:00", [])
    for loc in [*expected, teahouse]:
        page = soup(client.get(urlsplit(loc).path))
        assert head_hreflang(page) == entries[loc][1], loc  # the head matches the sitemap exactly
        assert [c["href"] for c in page.select('link[rel="canonical"]')] == [loc]
    codes = {h for _loc, (_m, links) in entries.items() for h, _ in links}
    assert codes == {"en", "zh-Hans", "x-default"}


@pytest.mark.parametrize(
    "change", ["draft: true", "noindex: true", "canonical: https://elsewhere.example/gang-kou/"]
)
def test_c28_unadvertised_translation(make_site, serve, change):
    """A draft, noindex or canonical-elsewhere translation is never in an hreflang set: the
    English post then has no alternates, in its head or in the sitemap, also under --dev."""
    site = c28_site(make_site, change)
    client = serve(site, clock=lambda: CLOCK)
    entries = sitemap_entries(client)
    english = BASE + "/posts/harbour-lights/"
    assert entries[english] == ("2024-03-01T20:00:00+08:00", [])
    assert BASE + "/zh/posts/gang-kou-deng-huo/" not in entries
    assert head_hreflang(soup(client.get("/posts/harbour-lights/"))) == []
    dev = serve(site, dev=True, clock=lambda: CLOCK)
    assert head_hreflang(soup(dev.get("/posts/harbour-lights/"))) == []
    zh = dev.get("/zh/posts/gang-kou-deng-huo/")
    assert zh.status_code == 200 and head_hreflang(soup(zh)) == []


# --- the Kubernetes corpus ---------------------------------------------------------------------


@K8S_GROUP
def test_k8s_hreflang_is_reciprocal(k8s_client):
    client = k8s_client
    base = "https://k8s.example.org"
    entries = sitemap_entries(client)
    for loc, (_lastmod, links) in entries.items():  # every URL: posts, lists, term pages
        if not links:
            continue
        table = dict(links)
        assert list(table) == ["en", "zh-Hans", "x-default"], loc
        assert loc in (table["en"], table["zh-Hans"]), f"{loc} does not list itself"
        assert table["x-default"] == table["en"]
        for _hreflang, href in links:
            assert entries[href][1] == links, f"{href} does not return the link from {loc}"
    posts = {loc: v for loc, v in entries.items() if "/posts/" in loc}
    paired = {loc: links for loc, (_m, links) in posts.items() if links}
    assert len(paired) == 2 * 26  # 30 pairs; 4 English posts are canonical on other sites
    for slug in (
        "contextual-logging-in-kubernetes-1-29",
        "introducing-sig-etcd",
        "sig-docs-spotlight-2022",
        "steering-committee-results-2023",
    ):
        assert f"{base}/posts/{slug}/" not in entries, slug
        twin = f"{base}/zh/posts/{slug}/"
        if twin in entries:  # introducing-sig-etcd is canonical elsewhere in both languages
            assert entries[twin][1] == [], slug
    for loc, (lastmod, links) in posts.items():
        assert lastmod and datetime.fromisoformat(lastmod).tzinfo is not None
        page = soup(client.get(urlsplit(loc).path))
        assert head_hreflang(page) == links, loc
        assert [c["href"] for c in page.select('link[rel="canonical"]')] == [loc]


# --- the pure functions ------------------------------------------------------------------------


def test_absolutize():
    base = "https://example.com/posts/a/"
    html = (
        '<a href="/posts/b/">b</a> <a href="other/">o</a> <a href="#fn:1">1</a> '
        '<img src="/media/x.png" srcset="/media/x.png 1x, y.png 2x"> '
        "<a href='https://other.example/?a=1&amp;b=2'>x</a> <a href=\"mailto:a@b.c\">m</a> "
        '<video poster="//cdn.example/p.jpg"></video>'
    )
    out = feeds.absolutize(html, base)
    assert 'href="https://example.com/posts/b/"' in out
    assert 'href="https://example.com/posts/a/other/"' in out
    assert 'href="https://example.com/posts/a/#fn:1"' in out
    assert 'src="https://example.com/media/x.png"' in out
    assert (
        'srcset="https://example.com/media/x.png 1x, https://example.com/posts/a/y.png 2x"' in out
    )
    assert 'href="https://other.example/?a=1&amp;b=2"' in out
    assert 'href="mailto:a@b.c"' in out
    assert "<video" not in out  # the allowlist is the last step: no video outside raw_html
    trusted = feeds.absolutize(html, base, trusted=True)
    assert 'poster="https://cdn.example/p.jpg"' in trusted


def test_dates_and_escaping_helpers():
    shanghai = datetime.fromisoformat("2024-03-01T09:00:00.5+08:00")
    assert feeds.rfc822(shanghai) == "Fri, 01 Mar 2024 09:00:00 +0800"
    assert feeds.rfc3339(shanghai) == "2024-03-01T09:00:00+08:00"
    assert sitemap.w3c_datetime(shanghai) == "2024-03-01T09:00:00+08:00"
    for write in (feeds.rfc822, feeds.rfc3339, sitemap.w3c_datetime):
        with pytest.raises(ValueError):
            write(datetime(2024, 3, 1))  # naive: its offset would be a guess
    text = jsonld.dumps({"t": "</script><!-- & \u2028"})
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == {"t": "</script><!-- & \u2028"}
    assert xmltext.clean("a\x00b\x0bc\ud800d\ufffee\tf") == "abcde\tf"
    with pytest.raises(ValueError):
        robots.robots_txt(sitemap_url=BASE + "/sitemap.xml", disallow=["api/"])


def test_a_control_character_cannot_break_a_feed():
    item = feeds.FeedItem(
        title="Bell \x07 and form feed \x0c",
        url=BASE + "/posts/x/",
        published=datetime(2024, 3, 1, tzinfo=UTC),
        updated=None,
        authors=("A\x01",),
        categories=(),
        summary="s\x1b",
        html="<p>\x08</p>",
    )
    info = feeds.FeedInfo("T", "", BASE + "/", BASE + "/feed.xml", BASE + "/atom.xml", "en")
    for text in (feeds.rss(info, [item]), feeds.atom(info, [item])):
        etree.fromstring(text.encode(), STRICT)
        parsed = feedparser.parse(text)
        assert not parsed.bozo and parsed.entries[0].title.startswith("Bell  and form feed")


def test_hreflang_sets():
    hreflangs = {"en": "en", "zh": "zh-Hans", "fr": "fr"}
    both = {"zh": "https://e.com/zh/p/", "en": "https://e.com/p/"}
    assert sitemap.alternates(both, hreflangs, "en") == [
        ("en", "https://e.com/p/"),
        ("zh-Hans", "https://e.com/zh/p/"),
        ("x-default", "https://e.com/p/"),
    ]
    no_default = {"fr": "https://e.com/fr/p/", "zh": "https://e.com/zh/p/"}
    assert sitemap.alternates(no_default, hreflangs, "en")[-1] == (
        "x-default",
        "https://e.com/zh/p/",
    )
    assert sitemap.alternates({"en": "https://e.com/p/"}, hreflangs, "en") == []
    with pytest.raises(ValueError):
        sitemap.split([], 0)


def test_each_language_feed_says_its_languages_description(tmp_path, serve):
    """`/zh/feed.xml` described the site in its default language (a second trial): a feed of
    one language carries that language's `description` (`[languages.zh] description`), in RSS
    and Atom alike."""
    client = serve(demo_copy(tmp_path / "demo"))
    zh = parse_feed(client, "/zh/feed.xml")
    assert zh.feed.subtitle.startswith("关于排版"), zh.feed.subtitle
    atom = parse_feed(client, "/zh/atom.xml")
    assert atom.feed.subtitle.startswith("关于排版"), atom.feed.subtitle
    assert parse_feed(client, "/feed.xml").feed.subtitle.startswith("Long reads")
