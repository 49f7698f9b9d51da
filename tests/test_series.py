"""Issue 32 item 5: series. Front matter `series` (one name or several) and `series_weight`;
"Part 2 of 5" with the other parts in order at the top and bottom of each part; a series page
per language (`/series/KEY/`, `/zh/series/KEY/`), a feed per series, JSON-LD `isPartOf`;
translations of the parts form the translated series. Real site folders, the real app."""

from __future__ import annotations

import json

import feedparser
import pytest
from bs4 import BeautifulSoup

from masthead.indexing.check import check_site

from support.sites import post


def soup(response) -> BeautifulSoup:  # type: ignore[no-untyped-def]
    assert response.status_code == 200, (response.status_code, response.text[:300])
    return BeautifulSoup(response.text, "html.parser")


def graph(page: BeautifulSoup) -> list[dict]:
    data = json.loads(page.find("script", type="application/ld+json").string)
    return data.get("@graph", [data])


def boxes(page: BeautifulSoup) -> list[tuple[str, str, list[str]]]:
    """(where, "Part n of m", the parts' titles) of each series box."""
    out = []
    for box in page.select(".series-box"):
        where = "top" if "series-box--top" in box["class"] else "bottom"
        label = box.select_one(".series-box__part").get_text(strip=True)
        titles = [li.find(["a", "span"]).get_text(strip=True) for li in box.select("li")]
        out.append((where, label, titles))
    return out


@pytest.fixture
def series_site(make_site):  # type: ignore[no-untyped-def]
    # weights put part 1 first though it is the newest; "Extra" has no weight: it comes last
    return make_site(
        {
            "posts/k1.md": post("K8s 1: Pods", "2024-03-05", series="Kubernetes basics",
                                series_weight="1", body="One.\n" * 400),
            "posts/k2.md": post("K8s 2: Services", "2024-03-01", series="Kubernetes basics",
                                series_weight="2"),
            "posts/k3.md": post("K8s 3: Ingress", "2024-03-02",
                                series="[Kubernetes basics, Networking]", series_weight="3"),
            "posts/extra.md": post("K8s extra", "2024-02-01", series="Kubernetes basics"),
            "posts/other.md": post("Unrelated", "2024-03-03"),
            # translations name no series: they form the translated series, in the same order
            "posts/k1.zh.md": post("K8s 一：Pod", "2024-03-06"),
            "posts/k3.zh.md": post("K8s 三：Ingress", "2024-03-07"),
        }
    )  # fmt: skip


def test_each_part_says_which_part_it_is_with_every_part_in_order_top_and_bottom(
    series_site, serve
):
    client = serve(series_site)
    page = soup(client.get("/posts/k2/"))
    order = ["K8s 1: Pods", "K8s 2: Services", "K8s 3: Ingress", "K8s extra"]
    assert boxes(page) == [("top", "Part 2 of 4", order), ("bottom", "Part 2 of 4", order)]
    # the current part is no link, the others are, and each shows its post's reading time
    box = page.select_one(".series-box--bottom")
    assert box.select_one("[aria-current=page]").get_text() == "K8s 2: Services"
    assert [a["href"] for a in box.select("li a")] == ["/posts/k1/", "/posts/k3/", "/posts/extra/"]
    readings = [s.get_text() for s in box.select(".series-box__reading")]
    assert readings[0] == soup(client.get("/posts/k1/")).select_one(".post-reading").get_text()
    assert readings[0] != readings[1]  # 400 words against 2
    # a post in two series has a box for each; a post in none has none
    k3 = soup(client.get("/posts/k3/"))
    assert [b[1] for b in boxes(k3)] == ["Part 3 of 4", "Part 1 of 1", "Part 3 of 4", "Part 1 of 1"]
    assert boxes(soup(client.get("/posts/other/"))) == []


def test_json_ld_says_which_series_a_part_is_part_of(series_site, serve):
    client = serve(series_site)
    (posting,) = [n for n in graph(soup(client.get("/posts/k2/"))) if n["@type"] == "BlogPosting"]
    assert posting["isPartOf"] == {
        "@type": "CreativeWorkSeries",
        "@id": "https://example.com/series/kubernetes-basics/#series",
        "url": "https://example.com/series/kubernetes-basics/",
        "name": "Kubernetes basics",
        "inLanguage": "en",
    }
    (other,) = [n for n in graph(soup(client.get("/posts/other/"))) if n["@type"] == "BlogPosting"]
    assert "isPartOf" not in other


def test_the_series_page_lists_its_parts_in_order_in_each_language(series_site, serve):
    client = serve(series_site)
    page = soup(client.get("/series/kubernetes-basics/"))
    assert page.h1.get_text() == "Series: Kubernetes basics"
    links = [(a.get_text(), a["href"]) for a in page.select(".series-list a")]
    assert links == [("K8s 1: Pods", "/posts/k1/"), ("K8s 2: Services", "/posts/k2/"),
                     ("K8s 3: Ingress", "/posts/k3/"), ("K8s extra", "/posts/extra/")]  # fmt: skip
    alternates = {a["hreflang"]: a["href"] for a in page.select("link[rel=alternate][hreflang]")}
    assert alternates["zh-Hans"] == "https://example.com/zh/series/kubernetes-basics/"
    # the translated series: the translations of the parts, in the original's order
    zh = soup(client.get("/zh/series/kubernetes-basics/"))
    assert [a["href"] for a in zh.select(".series-list a")] == ["/zh/posts/k1/", "/zh/posts/k3/"]
    assert zh.h1.get_text() == "系列：Kubernetes basics"
    assert boxes(soup(client.get("/zh/posts/k3/")))[0][1] == "第 2 篇，共 2 篇"
    assert client.get("/series/no-such-series/").status_code == 404
    # k3's translation is in both of k3's series
    networking = soup(client.get("/zh/series/networking/"))
    assert [a["href"] for a in networking.select(".series-list a")] == ["/zh/posts/k3/"]


def test_each_series_has_a_feed_per_language(series_site, serve):
    client = serve(series_site)
    rss = client.get("/series/kubernetes-basics/feed.xml")
    assert rss.status_code == 200 and rss.headers["content-type"].startswith("application/rss+xml")
    feed = feedparser.parse(rss.text)
    assert feed.feed.title == "Test site: Series: Kubernetes basics"
    assert [e.link for e in feed.entries] == [  # newest first, as feeds go
        "https://example.com/posts/k1/", "https://example.com/posts/k3/",
        "https://example.com/posts/k2/", "https://example.com/posts/extra/",
    ]  # fmt: skip
    atom = feedparser.parse(client.get("/zh/series/kubernetes-basics/atom.xml").text)
    assert [e.link for e in atom.entries] == [
        "https://example.com/zh/posts/k3/", "https://example.com/zh/posts/k1/",
    ]  # fmt: skip
    page = soup(client.get("/series/kubernetes-basics/"))
    feeds = [link["href"] for link in page.select("link[type='application/rss+xml']")]
    assert "https://example.com/series/kubernetes-basics/feed.xml" in feeds
    assert client.get("/series/no-such-series/feed.xml").status_code == 404


def test_a_series_weight_that_is_no_number_is_a_check_error(make_site):
    site = make_site({"posts/a.md": post("A", series="S", series_weight="first")})
    (issue,) = [i for i in check_site(site) if i.severity == "error"]
    assert issue.line == 5 and "series_weight" in issue.reason and "whole number" in issue.reason


def test_the_sitemap_lists_each_series_page_with_its_translations(series_site, serve):
    sitemap = serve(series_site).get("/sitemap.xml").text
    (entry,) = [u for u in sitemap.split("<url>") if "/series/kubernetes-basics/</loc>" in u
                and "<loc>https://example.com/series/" in u]  # fmt: skip
    assert 'hreflang="zh-Hans" href="https://example.com/zh/series/kubernetes-basics/"' in entry
    assert "<lastmod>2024-03-05" in entry  # its newest part
    assert "<loc>https://example.com/zh/series/networking/</loc>" in sitemap


def test_the_export_writes_each_series_page_and_feed(series_site, tmp_path):
    from masthead.export.build import build

    out = tmp_path / "public"
    build(series_site, out)
    for rel in (
        "series/kubernetes-basics/index.html",
        "series/kubernetes-basics/feed.xml",
        "series/kubernetes-basics/atom.xml",
        "zh/series/kubernetes-basics/index.html",
        "zh/series/networking/feed.xml",
    ):
        assert (out / rel).is_file(), rel
    page = (out / "series/kubernetes-basics/index.html").read_text(encoding="utf-8")
    assert page.index("/posts/k1/") < page.index("/posts/k2/") < page.index("/posts/extra/")
