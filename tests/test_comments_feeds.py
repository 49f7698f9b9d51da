"""Issue 11 items 9 and 1 (counts, JSON-LD): what readers and machines get of the comments
outside the thread itself.

Comment feeds, site-wide (`/comments/feed.xml`, `/comments/atom.xml`) and per thread
(`{permalink}comments.xml`, `{permalink}comments-atom.xml`): approved comments only, newest
first, names escaped and read back exactly, dates in the site's zone with their offset (C54),
never an email address, never the text of a held, trashed or deleted comment (C39); advertised
in the post's head. JSON-LD `commentCount` and `Comment` items on posts; the counts on list
cards in the page's language.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from starlette.testclient import TestClient

from masthead.config import Site
from masthead.store import comment_removal as removal
from masthead.store import comments as comments_store
from masthead.store import posts as posts_store
from masthead.store.comments import NewComment
from masthead.store.db import Database

from support.feeds import parse_feed, soup, structured
from support.sites import BILINGUAL_TOML, post

A, A_ZH, B, CLOSED = "/posts/a/", "/zh/posts/a/", "/posts/b/", "/posts/closed/"
HOSTILE = '<script>alert(1)</script> & "Bob" </title>]]>'
EMAIL = "bob@evil.example"
T0 = 1_714_600_000.0  # 2024-05-01 21:46:40 UTC = 2024-05-02 05:46:40 +08:00 (Asia/Shanghai)
FILES = {
    "posts/a.md": post("Harbour lights", "2024-03-01", tags="[harbour]"),
    "posts/a.zh.md": post("港口灯火", "2024-03-01"),
    "posts/b.md": post("Tide tables", "2024-03-02"),
    "posts/closed.md": post("No comments here", "2024-03-03", comments="false"),
    "pages/about.md": post("About", "2024-01-01"),
}


class Thread:
    """Comments written through the store on the site's database (as the submission service,
    the dashboard and imports do)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.ids: dict[str, int] = {}

    def write(
        self,
        label: str,
        url: str,
        text: str,
        *,
        at: float,
        status: str = "approved",
        lang: str = "en",
        name: str = "Ann",
        parent: str | None = None,
    ) -> int:
        row = posts_store.post_by_url(self.db.read(), url, time.time())
        assert row is not None
        new = NewComment(
            thread=row.translation_key,
            post_url=url,
            parent_id=self.ids[parent] if parent else None,
            lang=lang,
            status=status,
            author_name=name,
            author_email=EMAIL,
            author_url="https://bob.example/",
            body=text,
            body_html=f"<p>{text} <code>&lt;b&gt;</code></p>",
            created=at,
            fingerprint=label,
        )
        self.ids[label] = comments_store.add(self.db, new, "reader")
        return self.ids[label]


@pytest.fixture
def site(make_site: Callable[..., Site], serve: Callable[..., TestClient]):  # type: ignore[no-untyped-def]
    built = make_site(FILES, BILINGUAL_TOML)
    client = serve(built)
    db = Database(built.database_path)
    thread = Thread(db)
    thread.write("hostile", A, "First!", at=T0, name=HOSTILE)
    thread.write("zh", A_ZH, "写得真好 🌊", at=T0 + 60, lang="zh", name="读者")
    thread.write("other", B, "On another post", at=T0 + 120)
    thread.write("held", A, "HELD TEXT", at=T0 + 180, status="pending")
    thread.write("trashed", A, "TRASHED TEXT", at=T0 + 240)
    comments_store.set_status(db, [thread.ids["trashed"]], "trash", "editor:test")
    thread.write("parent", A, "DELETED TEXT", at=T0 + 300, name="Gone")
    thread.write("reply", A, "A reply that stays", at=T0 + 360, parent="parent")
    removal.delete_permanently(db, [thread.ids["parent"]], "editor:test")
    yield client, thread
    db.close()


def test_the_site_comment_feeds_list_approved_comments_newest_first(site):
    client, thread = site
    for url in ("/comments/feed.xml", "/comments/atom.xml"):
        data = parse_feed(client, url)
        assert data.version == ("rss20" if url.endswith("feed.xml") else "atom10")
        ids = [e.link.rsplit("#c-", 1)[1] for e in data.entries]
        order = ["reply", "other", "zh", "hostile"]
        assert ids == [str(thread.ids[k]) for k in order], url
        links = [e.link.split("#")[0] for e in data.entries]
        assert links == ["https://example.com" + p for p in (A, B, A_ZH, A)]
        assert data.entries[-1].author == HOSTILE  # escaped once, read back exactly
        assert data.entries[-1].title == f"{HOSTILE} on “Harbour lights”"
        assert data.entries[1].title == "Ann on “Tide tables”"
        assert data.entries[2].title == "读者 评论《港口灯火》"
        assert "写得真好 🌊" in data.entries[2].content[0].value
        assert "<code>&lt;b&gt;</code>" in data.entries[2].content[0].value  # C35's kind


def test_no_email_and_no_hidden_text_in_any_comment_feed(site):
    client, _thread = site
    for url in ("/comments/feed.xml", "/comments/atom.xml", *thread_feeds(A), *thread_feeds(A_ZH)):
        r = client.get(url)
        assert r.status_code == 200, url
        for secret in (EMAIL, "HELD TEXT", "TRASHED TEXT", "DELETED TEXT", "Gone"):
            assert secret not in r.text, (url, secret)
        assert "<script>" not in r.text


def thread_feeds(permalink: str) -> tuple[str, str]:
    return permalink + "comments.xml", permalink + "comments-atom.xml"


def test_a_thread_feed_lists_the_thread_in_every_language_and_nothing_else(site):
    client, thread = site
    expected = [str(thread.ids[k]) for k in ("reply", "zh", "hostile")]
    for permalink in (A, A_ZH):
        rss_url, atom_url = thread_feeds(permalink)
        rss, atom = parse_feed(client, rss_url), parse_feed(client, atom_url)
        for data in (rss, atom):
            assert [e.link.rsplit("#c-", 1)[1] for e in data.entries] == expected
        assert rss.version == "rss20" and atom.version == "atom10"
        assert atom.feed.links[0].href == "https://example.com" + atom_url  # rel="self"
        assert [e.title_detail.language for e in atom.entries] == ["en", "zh-Hans", "en"]
    assert parse_feed(client, thread_feeds(A_ZH)[0]).feed.title == "《港口灯火》的评论"
    assert parse_feed(client, thread_feeds(B)[1]).entries[0].title == "Ann on “Tide tables”"


def test_comment_feed_dates_carry_the_site_zone_offset(site):
    """C54: RFC 822 in RSS, RFC 3339 in Atom, in the site's zone (Asia/Shanghai: +08:00)."""
    client, _thread = site
    rss = client.get("/comments/feed.xml").text
    atom = client.get("/comments/atom.xml").text
    assert "<pubDate>Thu, 02 May 2024 05:46:40 +0800</pubDate>" in rss
    assert "<published>2024-05-02T05:46:40+08:00</published>" in atom
    assert "<updated>2024-05-02T05:52:40+08:00</updated>" in atom  # the feed: newest entry


@pytest.mark.parametrize(
    "path",
    [
        "/posts/closed/comments.xml",  # comments: false
        "/about/comments.xml",  # a page, not a post
        "/posts/nope/comments-atom.xml",
        "/posts/acomments.xml",  # not a permalink followed by the file
        "/zh/posts/b/comments.xml",  # no such translation
    ],
)
def test_no_comment_feed_without_a_post_taking_comments(site, path):
    client, _thread = site
    assert client.get("/posts/b/comments.xml").status_code == 200  # a post that takes them
    assert client.get(path).status_code == 404


def test_the_post_head_advertises_its_comment_feeds(site):
    client, _thread = site
    for permalink in (A, A_ZH):
        links = soup(client.get(permalink)).select('head link[rel="alternate"][type]')
        found = {(link["type"], link["href"]) for link in links}
        rss_url, atom_url = thread_feeds(permalink)
        assert ("application/rss+xml", "https://example.com" + rss_url) in found
        assert ("application/atom+xml", "https://example.com" + atom_url) in found
        for kind, path in (("application/rss+xml", rss_url), ("application/atom+xml", atom_url)):
            assert client.get(path).headers["content-type"] == kind + "; charset=utf-8"
    closed = soup(client.get(CLOSED)).select('head link[rel="alternate"][type]')
    assert not [link for link in closed if "comments" in link["href"]]


def test_comment_feeds_follow_the_permalink_pattern(make_site, serve):
    toml = BILINGUAL_TOML + '\n[permalinks]\nposts = "/blog/:year/:slug/"\n'
    built = make_site({"posts/a.md": post("Harbour lights", "2024-03-01")}, toml)
    client = serve(built)
    db = Database(built.database_path)
    try:
        Thread(db).write("one", "/blog/2024/harbour-lights/", "Under a pattern", at=T0)
    finally:
        db.close()
    links = soup(client.get("/blog/2024/harbour-lights/")).select(
        'head link[type="application/rss+xml"]'
    )
    assert "https://example.com/blog/2024/harbour-lights/comments.xml" in [
        link["href"] for link in links
    ]
    data = parse_feed(client, "/blog/2024/harbour-lights/comments.xml")
    assert data.entries[0].link.startswith("https://example.com/blog/2024/harbour-lights/#c-")


# --- JSON-LD and list cards --------------------------------------------------------------------


def posting(client: TestClient, path: str) -> dict:
    page = client.get(path)
    assert page.status_code == 200
    assert EMAIL not in page.text
    return next(n for n in structured(soup(page)) if n["@type"] == "BlogPosting")


def test_jsonld_has_the_comment_count_and_the_visible_comments(site):
    client, thread = site
    for path in (A, A_ZH):  # one thread: the same comments under both languages
        node = posting(client, path)
        assert node["commentCount"] == 3
        comments = node["comment"]
        assert [c["text"] for c in comments] == [
            "First! <b>",
            "写得真好 🌊 <b>",
            "A reply that stays <b>",
        ]
        hostile = comments[0]
        assert hostile["author"] == {
            "@type": "Person",
            "name": HOSTILE,
            "url": "https://bob.example/",
        }
        assert hostile["@id"] == f"https://example.com{path}#c-{thread.ids['hostile']}"
        assert hostile["datePublished"] == "2024-05-02T05:46:40+08:00"
        assert [c["inLanguage"] for c in comments] == ["en", "zh-Hans", "en"]
        assert "parentItem" not in comments[2]  # its parent was deleted: no such item
    raw = client.get(A).text
    assert "<script>alert" not in raw and "\\u003cscript\\u003e" in raw
    assert posting(client, B)["commentCount"] == 1
    assert "commentCount" not in posting(client, CLOSED)


def test_a_reply_names_its_parent_item(make_site, serve):
    built = make_site(FILES, BILINGUAL_TOML)
    client = serve(built)
    db = Database(built.database_path)
    try:
        thread = Thread(db)
        thread.write("top", A, "Top", at=T0)
        thread.write("answer", A, "Answer", at=T0 + 1, parent="top")
    finally:
        db.close()
    top, answer = posting(client, A)["comment"]
    assert answer["parentItem"] == {"@id": top["@id"]}


def test_list_cards_count_comments_in_the_page_language(site):
    client, _thread = site
    home = soup(client.get("/"))
    counts = {a["href"]: a.get_text() for a in home.select("a.card__comments")}
    assert counts == {A + "#mh-comments": "3 comments", B + "#mh-comments": "1 comment"}
    zh = soup(client.get("/zh/"))
    assert [a.get_text() for a in zh.select("a.card__comments")] == ["3 条评论"]
    tag = soup(client.get("/tags/harbour/"))
    assert [a.get_text() for a in tag.select("a.card__comments")] == ["3 comments"]
