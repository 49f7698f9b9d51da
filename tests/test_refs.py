"""Hugo's `ref` and `relref` outside links (`See {{< ref "b.md" >}}.`): the page, its feeds and
its search text show the target's permalink (absolute for `ref`, site-relative for `relref`),
resolved when the page is served, never the `/_ref/…` placeholder; a target that names no post
is its path as written, as text, and `masthead check` names its line. Real sites in tmp folders,
real SQLite files, the real app over HTTP and `masthead check` as a real process."""

from __future__ import annotations

import os
import subprocess
import sys

import feedparser
from bs4 import BeautifulSoup

from masthead.content.post import parse_post
from masthead.export.build import build
from masthead.indexing.indexer import index_site
from masthead.store.db import Database

from support.sites import BILINGUAL_TOML, post

SITE = "https://example.com"


def soup(text: str) -> BeautifulSoup:
    return BeautifulSoup(text, "html.parser")


def page_body(client, url: str) -> BeautifulSoup:  # type: ignore[no-untyped-def]
    r = client.get(url)
    assert r.status_code == 200, url
    return soup(r.text).select_one(".post-body")


def links(body: BeautifulSoup) -> list[tuple[str, str]]:
    return [(a.get_text(), a["href"]) for a in body.select("a")]


def feed_entries(client, post_url: str) -> dict[str, feedparser.FeedParserDict]:  # type: ignore[no-untyped-def]
    """The entry of `post_url` in the RSS and the Atom feed, as sent."""
    out = {}
    for url in ("/feed.xml", "/atom.xml"):
        data = feedparser.parse(client.get(url).content, resolve_relative_uris=False)
        out[url] = next(e for e in data.entries if e.link == SITE + post_url)
    return out


def masthead_check(site) -> tuple[int, list[str]]:  # type: ignore[no-untyped-def]
    result = subprocess.run(
        [sys.executable, "-m", "masthead", "check", str(site.root)],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        timeout=120,
    )
    return result.returncode, result.stdout.splitlines()


BODY = (
    'See {{< ref "b.md" >}}, {{< relref "b.md#part" >}} and {{< ref "/posts/b.md" >}}; '
    '[a link]({{< ref "b.md" >}}).\n'
)


def test_a_standalone_ref_shows_the_permalink_absolute_and_relref_site_relative(make_site, serve):
    client = serve(make_site({"posts/a.md": post("A", body=BODY), "posts/b.md": post("B")}))
    body = page_body(client, "/posts/a/")
    assert links(body) == [
        (SITE + "/posts/b/", "/posts/b/"),  # ref: the absolute URL, as Hugo prints it
        ("/posts/b/#part", "/posts/b/#part"),  # relref: site-relative, fragment kept
        (SITE + "/posts/b/", "/posts/b/"),  # a leading `/` is the content folder
        ("a link", "/posts/b/"),  # inside a link: the link's target, as before
    ]
    assert "/_ref/" not in str(body) and "b.md" not in body.get_text()


def test_raw_html_sites_resolve_them_the_same_way(make_site, serve):
    files = {"posts/a.md": post("A", body=BODY), "posts/b.md": post("B")}
    client = serve(make_site(files, "raw_html = true\n" + BILINGUAL_TOML))
    assert links(page_body(client, "/posts/a/"))[:2] == [
        (SITE + "/posts/b/", "/posts/b/"),
        ("/posts/b/#part", "/posts/b/#part"),
    ]


def test_feeds_and_search_never_show_the_placeholder(make_site, serve):
    client = serve(make_site({"posts/a.md": post("A", body=BODY), "posts/b.md": post("B")}))
    for url, entry in feed_entries(client, "/posts/a/").items():
        content = soup(entry.content[0].value)
        assert [a.get_text() for a in content.select("a")][:2] == [
            SITE + "/posts/b/",
            "/posts/b/#part",
        ], url
        assert "/_ref/" not in entry.content[0].value + entry.summary, url
    hits = client.get("/api/search", params={"q": "see"}).json()["hits"]
    assert hits and all("/_ref/" not in h["snippet_html"] for h in hits)
    assert "/_ref/" not in client.get("/").text  # the excerpt on the home page's card


def test_the_static_export_shows_the_permalink_too(make_site, tmp_path):
    site = make_site({"posts/a.md": post("A", body=BODY), "posts/b.md": post("B")})
    out = tmp_path / "public"
    build(site, out)
    body = soup((out / "posts/a/index.html").read_text(encoding="utf-8")).select_one(".post-body")
    assert links(body)[:2] == [
        (SITE + "/posts/b/", "/posts/b/"),
        ("/posts/b/#part", "/posts/b/#part"),
    ]
    feeds = (out / "feed.xml").read_text(encoding="utf-8") + (out / "atom.xml").read_text("utf-8")
    assert "/_ref/" not in str(body) + feeds


def test_a_broken_standalone_ref_is_its_target_as_text_and_check_names_its_line(make_site, serve):
    body = 'First paragraph.\n\nSee {{< relref "gone.md" >}} and {{< ref "gone.md#x" >}}.\n'
    site = make_site({"posts/a.md": post("A", body=body)})
    client = serve(site)
    shown = page_body(client, "/posts/a/")
    assert shown.select("a") == []  # no link to nowhere
    assert "See gone.md and gone.md#x." in shown.get_text()
    assert "/_ref/" not in client.get("/posts/a/").text
    for entry in feed_entries(client, "/posts/a/").values():
        assert "/_ref/" not in entry.content[0].value + entry.summary
    code, lines = masthead_check(site)
    assert code == 0, lines  # a warning: exit 0 without --strict
    assert any(
        line.startswith("content/posts/a.md:8: warning: broken link to posts/gone.md")
        for line in lines
    ), lines


def test_a_ref_to_a_post_indexed_later_resolves_once_both_are(make_site, serve):
    site = make_site({"posts/a.md": post("A", body='See {{< ref "b.md" >}} now.\n')})
    client = serve(site)
    assert "See b.md now." in page_body(client, "/posts/a/").get_text()
    (site.content_dir / "posts/b.md").write_text(post("B", date="2024-03-02"), encoding="utf-8")
    db = Database(site.database_path)
    try:
        index_site(site, db)  # another process's index, as `masthead index` writes it
    finally:
        db.close()
    assert links(page_body(client, "/posts/a/")) == [(SITE + "/posts/b/", "/posts/b/")]
    for entry in feed_entries(client, "/posts/a/").values():
        assert SITE + "/posts/b/" in soup(entry.content[0].value).get_text()


HOSTILE = 'x"><img src=y onerror=alert(1)>&amp;<b>.md'


def test_a_ref_target_cannot_inject_markup(make_site, serve):
    target = HOSTILE.replace('"', '\\"')
    body = (
        f'Text {{{{< ref "{target}" >}}}} end.\n\n'
        f'<span title="{{{{< relref "{target}" >}}}}">t</span>\n\n'
        'Fine {{< ref "c&d.md" >}}.\n'
    )
    client = serve(make_site({"posts/a.md": post("A", body=body), "posts/c&d.md": post("C")}))
    shown = page_body(client, "/posts/a/")
    assert not shown.select("img, b, [onerror]")
    assert f"Text {HOSTILE} end." in shown.get_text()
    assert shown.select_one("span")["title"] == HOSTILE
    assert links(shown) == [(SITE + "/posts/c%26d/", "/posts/c%26d/")]
    for entry in feed_entries(client, "/posts/a/").values():
        assert not soup(entry.content[0].value).select("img, b, [onerror]")


def test_stored_text_toc_and_ids_hold_the_target_and_no_token(make_site):
    body = '## About {{< ref "b.md" >}}\n\nRead {{< relref "b.md" >}} `{{< ref "b.md" >}}`.\n'
    site = make_site({"posts/b.md": post("B")})
    p = parse_post(site, "posts/a.md", post("A", body=body, toc="true").encode())
    stored = p.html + p.toc_html + p.text + p.code + p.excerpt
    assert "\ue000" not in stored and "/_ref/" not in p.text + p.excerpt + p.toc_html
    html = soup(p.html)
    assert html.h2["id"] == "about"  # never the token's characters
    assert [a["class"] for a in html.select("a")] == [["mh-ref"], ["mh-relref"], ["mh-ref"]]
    assert {a["href"] for a in html.select("a")} == {"/_ref/posts/b.md"}
    assert "About b.md" in soup(p.toc_html).get_text()
    assert "Read b.md b.md." in p.excerpt


# --- a link or ref from a translation goes to the target's version in its language -----------

ZH_BODY = (
    '见 {{< ref "typo.md" >}}、[排版](typo.md)、[排版二]({{< ref "typo.md" >}})、'
    '[排版三]({{< relref "typo" >}})、[英文原文](typo.en.md)、[键](keyed.md)、[独](lonely.md)、'
    "[草](drafty.md)、[目录](bundle/index.md)、[目录二](../posts/bundle/)。\n"
)


def translated_site(make_site):  # type: ignore[no-untyped-def]
    return make_site(
        {
            "posts/a.zh.md": post("甲", body=ZH_BODY),
            "posts/a.md": post("A", body='[t](typo.md) [t2]({{< ref "typo.zh.md" >}})\n'),
            "posts/typo.md": post("Typography", slug="typography"),
            "posts/typo.zh.md": post("排版", slug="paiban"),
            "posts/typo.en.md": post("Typography (en)", slug="typo-en"),
            # a translation by translationKey, under another file name
            "posts/keyed.md": post("Keyed", translationKey="k1"),
            "posts/jian.zh.md": post("键", translationKey="k1"),
            "posts/lonely.md": post("Lonely"),  # no Chinese version
            "posts/drafty.md": post("Drafty"),
            "posts/drafty.zh.md": post("草稿", draft="true"),  # unpublished: not linked
            "posts/bundle/index.md": post("Bundle"),
            "posts/bundle/index.zh.md": post("目录"),
        }
    )


def test_a_ref_or_link_from_a_chinese_post_goes_to_the_chinese_translation(make_site, serve):
    client = serve(translated_site(make_site))
    got = links(page_body(client, "/zh/posts/a/"))
    assert got == [
        (SITE + "/zh/posts/paiban/", "/zh/posts/paiban/"),  # ref in running text
        ("排版", "/zh/posts/paiban/"),  # a plain Markdown link to the file
        ("排版二", "/zh/posts/paiban/"),  # ref inside a link
        ("排版三", "/zh/posts/paiban/"),  # relref without suffix, as before
        ("英文原文", "/posts/typo-en/"),  # a file named with its language suffix: as named
        ("键", "/zh/posts/jian/"),  # translationKey links them
        ("独", "/posts/lonely/"),  # no Chinese version: the file named
        ("草", "/posts/drafty/"),  # the Chinese one is a draft: the file named
        ("目录", "/zh/posts/bundle/"),
        ("目录二", "/zh/posts/bundle/"),
    ], got
    english = links(page_body(client, "/posts/a/"))
    assert english == [("t", "/posts/typography/"), ("t2", "/zh/posts/paiban/")], english
    assert client.get("/_ref/posts/typo.md").headers["location"] == "/posts/typography/"
