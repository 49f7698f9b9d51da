"""Issue 13 item 3 (READER): the footer and the `menu` setting, author pages and bios, authors
linked from posts and cards, previous/next and related posts. Real site folders, real SQLite
files, the real app over HTTP."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from masthead.config import load_site
from masthead.errors import ConfigError
from masthead.indexing.check import check_site
from masthead.indexing.indexer import index_site
from masthead.store.db import Database

from support.sites import BILINGUAL_TOML, drop_later_columns, post

MENU_TOML = (
    BILINGUAL_TOML
    + """
[[menu.en]]
title = "Projects"
url = "https://example.org/projects/"
weight = 5

[[menu.en]]
name = "Colophon"
url = "/colophon/"

[[menu.zh]]
title = "关于本站"
url = "/zh/about/"
"""
)


def soup(response) -> BeautifulSoup:  # type: ignore[no-untyped-def]
    assert response.status_code == 200, (response.status_code, response.text[:300])
    return BeautifulSoup(response.text, "html.parser")


def jsonld(page: BeautifulSoup) -> list[dict]:
    data = json.loads(page.find("script", type="application/ld+json").string)
    return data.get("@graph", [data])


def footer_links(page: BeautifulSoup) -> dict[str, str]:
    return {a.get_text(" ", strip=True): a["href"] for a in page.find("footer").find_all("a")}


# --- footer and menu ------------------------------------------------------------------------


def test_footer_has_visible_feeds_about_and_the_menu_of_each_language(make_site, serve):
    site = make_site(
        {
            "posts/a.md": post("A post"),
            "posts/a.zh.md": post("一篇文章"),
            "pages/about.md": post("About", excerpt="About us."),
            "pages/about.zh.md": post("关于", excerpt="关于我们。"),
            "pages/colophon.md": post("Colophon"),
        },
        MENU_TOML,
    )
    client = serve(site)
    for path in ("/", "/posts/a/", "/tags/", "/archive/", "/search?q=post", "/about/"):
        links = footer_links(soup(client.get(path)))
        assert links["RSS"] == "/feed.xml" and links["Atom"] == "/atom.xml", path
        assert links["About"] == "/about/", path  # the page with slug about
        # the menu, lower weight first, Hugo's `name` accepted for `title`
        assert list(links)[2:4] == ["Colophon", "Projects"], path
        assert links["Projects"] == "https://example.org/projects/"
    zh = soup(client.get("/zh/posts/a/"))
    links = footer_links(zh)
    assert links["RSS"] == "/zh/feed.xml" and links["Atom"] == "/zh/atom.xml"
    assert links["关于本站"] == "/zh/about/"
    assert "关于" not in links  # the menu links the About page already: once only
    assert "Projects" not in links and "Colophon" not in links  # another language's menu
    about = soup(client.get("/about/")).find("footer").find("a", string="About")
    assert about["aria-current"] == "page"
    for page in (zh, soup(client.get("/"))):
        nav = page.find("footer").find("nav")
        assert nav.get("aria-label")  # a named landmark, distinct from the header's


def test_a_site_without_an_about_page_or_menu_has_feeds_in_the_footer(make_site, serve):
    client = serve(make_site({"posts/a.md": post("A post")}))
    links = footer_links(soup(client.get("/")))
    assert "About" not in links
    assert links["RSS"] == "/feed.xml"


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ('title = "x"\nurl = "javascript:alert(1)"', r"menu\.en\.0\.url: .*a site path"),
        ('title = "x"\nurl = "//evil.example/"', r"menu\.en\.0\.url: .*a site path"),
        ('title = ""\nurl = "/a/"', r"menu\.en\.0\.title: .*at least 1 character"),
        ('title = "x"\nurl = "/a/"\ncolour = "red"', r"menu\.en\.0\.colour: Extra inputs"),
    ],
)
def test_bad_menu_entries_stop_start_up_naming_the_key(tmp_path, entry, reason):
    (tmp_path / "masthead.toml").write_text(BILINGUAL_TOML + f"\n[[menu.en]]\n{entry}\n")
    with pytest.raises(ConfigError, match=reason):
        load_site(tmp_path)
    good = BILINGUAL_TOML + '\n[[menu.en]]\ntitle = "x"\nurl = "/a/"\n'
    (tmp_path / "masthead.toml").write_text(good)
    assert load_site(tmp_path).settings.menu["en"][0].url == "/a/"


def test_a_menu_for_a_language_the_site_lacks_stops_start_up(tmp_path):
    (tmp_path / "masthead.toml").write_text(BILINGUAL_TOML + '\n[[menu.fr]]\ntitle="x"\nurl="/"\n')
    with pytest.raises(ConfigError, match=r"menu\.fr"):
        load_site(tmp_path)


# --- authors --------------------------------------------------------------------------------

BIO = """---
name: Ann Lee
avatar: ann.png
links:
  - https://social.example/@ann
  - {name: "Notes", url: "https://ann.example/notes/"}
---

Ann writes about **tides**.<script>alert(1)</script><img src=x onerror=alert(2)>
"""


def author_site(make_site):  # type: ignore[no-untyped-def]
    files: dict[str, str | bytes] = {
        f"posts/p{i}.md": post(f"Ann post {i}", f"2024-03-0{i}", author="Ann Lee", tags="[sea]")
        for i in range(1, 5)
    }
    files["posts/p1.zh.md"] = post("安的文章", "2024-03-01", author="Ann Lee")
    files["posts/other.md"] = post(
        "Bo post", "2024-03-09", author="'[Bo Chen](https://bo.example)'"
    )
    files["posts/both.md"] = post("Joint", "2024-02-01", authors="[Ann Lee, Bo Chen]")
    files["authors/ann-lee.md"] = BIO
    files["authors/ann-lee.zh.md"] = BIO.replace("Ann writes about **tides**.", "安写潮汐。")
    files["authors/ann.png"] = b"\x89PNG not really"
    return make_site(files)


def test_author_page_lists_the_authors_posts_per_language_paginated_with_the_bio(make_site, serve):
    client = serve(author_site(make_site))
    page = soup(client.get("/authors/ann-lee/"))
    assert page.find("h1").get_text(strip=True) == "Ann Lee"
    titles = [a.get_text(strip=True) for a in page.select(".card__title a")]
    assert titles == ["Ann post 4", "Ann post 3", "Ann post 2"]  # posts_per_page = 3
    assert page.find("a", rel="next")["href"] == "/authors/ann-lee/page/2/"
    second = soup(client.get("/authors/ann-lee/page/2/"))
    assert [a.get_text(strip=True) for a in second.select(".card__title a")] == [
        "Ann post 1",
        "Joint",
    ]
    assert client.get("/authors/ann-lee/page/1/").status_code == 301
    assert client.get("/authors/ann-lee/page/3/").status_code == 404
    bio = page.select_one(".author__bio")
    assert bio.find("strong").get_text() == "tides"
    assert "alert" not in str(bio) and not bio.find("script")  # sanitized like a post
    assert page.select_one(".author__avatar")["src"] == "/media/authors/ann.png"
    assert [a["href"] for a in page.select(".author__links a")] == [
        "https://social.example/@ann",
        "https://ann.example/notes/",
    ]
    alternates = {
        link["hreflang"]: link["href"]
        for link in page.find_all("link", rel="alternate")
        if link.get("hreflang")
    }
    assert alternates["zh-Hans"] == "https://example.com/zh/authors/ann-lee/"
    assert alternates["x-default"] == "https://example.com/authors/ann-lee/"
    profile = next(n for n in jsonld(page) if n["@type"] == "ProfilePage")
    assert profile["mainEntity"]["sameAs"][0] == "https://social.example/@ann"
    zh = soup(client.get("/zh/authors/ann-lee/"))
    assert [a.get_text(strip=True) for a in zh.select(".card__title a")] == ["安的文章"]
    assert "安写潮汐" in zh.select_one(".author__bio").get_text()
    assert client.get("/zh/authors/bo-chen/").status_code == 404  # no Chinese post by Bo
    assert client.get("/authors/nobody/").status_code == 404
    feed = client.get("/authors/ann-lee/feed.xml")
    assert feed.status_code == 200 and "Ann post 4" in feed.text
    index = soup(client.get("/authors/"))
    assert {a["href"] for a in index.select("main a")} >= {
        "/authors/ann-lee/",
        "/authors/bo-chen/",
    }


def test_a_bio_is_no_post_and_authors_are_linked_from_posts_cards_and_json_ld(make_site, serve):
    client = serve(author_site(make_site))
    home = soup(client.get("/"))
    assert "Ann Lee" not in [a.get_text(strip=True) for a in home.select(".card__title a")]
    card = home.select(".card")[0]  # Bo post: his name links to his page, not the profile
    assert [(a.get_text(), a["href"]) for a in card.select("a[rel=author]")] == [
        ("Bo Chen", "/authors/bo-chen/")
    ]
    joint = soup(client.get("/posts/both/"))
    assert [a["href"] for a in joint.select(".post-meta a[rel=author]")] == [
        "/authors/ann-lee/",
        "/authors/bo-chen/",
    ]
    bo = soup(client.get("/posts/other/"))
    person = next(n for n in jsonld(bo) if n["@type"] == "BlogPosting")["author"]
    person = person[0] if isinstance(person, list) else person
    assert person["url"] == "https://example.com/authors/bo-chen/"
    assert person["sameAs"] == "https://bo.example"
    assert client.get("/authors/ann-lee/feed.xml").text.count("<item>") == 5
    found = client.get("/api/search", params={"q": "tides"}).json()
    assert found["total"] == 0  # a bio is not searched as a post
    sitemap = client.get("/sitemap.xml").text
    assert sitemap.count("<loc>https://example.com/authors/ann-lee/</loc>") == 1
    assert "<loc>https://example.com/zh/authors/ann-lee/</loc>" in sitemap
    assert "<loc>https://example.com/authors/bo-chen/</loc>" in sitemap


def test_a_bio_without_a_name_is_a_check_error_and_kept_out(make_site):
    site = make_site(
        {"posts/a.md": post("A", author="Ann"), "authors/ann.md": "---\navatar: a.png\n---\nHi.\n"}
    )
    issues = [i for i in check_site(site) if i.path == "content/authors/ann.md"]
    assert issues and issues[0].severity == "error" and "name" in issues[0].reason


def test_bios_written_before_a_database_migrated_become_author_pages(make_site, serve):
    """A database indexed before authors were a taxonomy (files unchanged since) is parsed
    again after migration 7: author pages exist without `masthead index --full`."""
    site = make_site({"posts/a.md": post("A", author="Ann Lee")})
    db = Database(site.database_path)
    index_site(site, db)
    with db.write() as conn:  # as an older masthead left it: no author terms, version 6
        conn.execute("DELETE FROM post_terms WHERE taxonomy = 'authors'")
        conn.execute("PRAGMA user_version = 6")
        drop_later_columns(conn, 6)
    db.close()
    client = serve(load_site(site.root))
    assert client.get("/authors/ann-lee/").status_code == 200


# --- previous/next and related posts ----------------------------------------------------------


def links_site(make_site):  # type: ignore[no-untyped-def]
    return make_site(
        {
            "posts/a.md": post("Alpha", "2024-01-01", tags="[x, y]"),
            "posts/b.md": post("Bravo", "2024-02-01", tags="[x]"),
            "posts/c.md": post("Charlie", "2024-03-01", tags="[x, y, z]"),
            "posts/d.md": post("Delta", "2024-04-01", tags="[q]"),
            "posts/e.md": post("Echo", "2024-05-01", tags="[x, y]"),
            "posts/f.md": post("Foxtrot", "2024-06-01", tags="[z]"),
            "posts/g.md": post("Golf draft", "2024-07-01", tags="[x, y]", draft="true"),
            "posts/c.zh.md": post("查理", "2024-03-01", tags="[x, y, z]"),
            "posts/h.zh.md": post("中文", "2024-03-02", tags="[x, y, z]"),
            "pages/about.md": post("About", "2024-03-05", tags="[x]"),
        }
    )


def neighbours(page: BeautifulSoup) -> tuple[str | None, str | None]:
    nav = page.select_one("nav.post-nav")
    if nav is None:
        return None, None
    prev, nxt = nav.find("a", rel="prev"), nav.find("a", rel="next")
    return (prev["href"] if prev else None), (nxt["href"] if nxt else None)


def related(page: BeautifulSoup) -> list[str]:
    return [a["href"] for a in page.select(".related a")]


def test_previous_next_and_related_posts_of_the_same_language(make_site, serve):
    client = serve(links_site(make_site))
    charlie = soup(client.get("/posts/c/"))
    assert neighbours(charlie) == ("/posts/b/", "/posts/d/")
    # most shared tags first (a: x y, e: x y; f: z; b: x), newest first on ties; 3 at most;
    # never the draft, a page, or a post of another language
    assert related(charlie) == ["/posts/e/", "/posts/a/", "/posts/f/"]
    assert neighbours(soup(client.get("/posts/a/"))) == (None, "/posts/b/")
    assert neighbours(soup(client.get("/posts/f/"))) == ("/posts/e/", None)  # not the draft
    assert related(soup(client.get("/posts/d/"))) == []
    zh = soup(client.get("/zh/posts/c/"))
    assert neighbours(zh) == (None, "/zh/posts/h/")
    assert related(zh) == ["/zh/posts/h/"]
    assert zh.select_one("nav.post-nav")["aria-label"] == "更多文章"
    about = soup(client.get("/about/"))
    assert neighbours(about) == (None, None) and related(about) == []


def test_a_new_post_moves_the_neighbours_of_cached_post_pages(make_site, serve):
    site = links_site(make_site)
    client = serve(site)
    assert neighbours(soup(client.get("/posts/f/"))) == ("/posts/e/", None)
    assert client.get("/posts/f/").status_code == 200  # cached now
    (site.content_dir / "posts" / "n.md").write_text(post("November", "2024-08-01", tags="[z]"))
    os.utime(site.content_dir / "posts" / "n.md")
    db = Database(site.database_path)
    index_site(site, db)  # another process indexes: the generation moves
    db.close()
    page = soup(client.get("/posts/f/"))
    assert neighbours(page) == ("/posts/e/", "/posts/n/")
    assert related(page)[0] == "/posts/n/"


def test_demo_site_has_a_menu_an_about_page_and_a_bio(demo_site, serve):
    client = serve(demo_site)
    for path in ("/", "/zh/"):
        page = soup(client.get(path))
        about = [a for a in page.find("footer").find_all("a") if "about" in a["href"]]
        assert about, path
    assert soup(client.get("/authors/elena-marsh/")).select_one(".author__bio")
    assert soup(client.get("/zh/authors/elena-marsh/")).select_one(".author__bio")
    assert Path(demo_site.content_dir / "authors" / "elena-marsh.md").is_file()


def test_an_edited_bio_shows_on_the_cached_author_page_after_indexing(make_site, serve):
    site = author_site(make_site)
    client = serve(site)
    assert "tides" in soup(client.get("/authors/ann-lee/")).select_one(".author__bio").get_text()
    bio = site.content_dir / "authors" / "ann-lee.md"
    bio.write_text(BIO.replace("Ann writes about **tides**.", "Ann now writes about *harbours*."))
    os.utime(bio, ns=(1, 2))  # a new mtime however fast the test runs
    db = Database(site.database_path)
    index_site(site, db)
    db.close()
    text = soup(client.get("/authors/ann-lee/")).select_one(".author__bio").get_text()
    assert "harbours" in text and "tides" not in text
