"""What a refused comment tells the reader, and imported pings, over real HTTP on a real SQLite
file: a body over the 1 MiB limit is refused unread, so its page (no-JS form) says that nothing
was kept or stored, in the page's language, and links back to the post the request names (its
URL's `post`, or a same-origin Referer), and the JSON API answers a JSON 413; a field error is
told before the flood limit (README, rule 2 before rule 3); an imported pingback or trackback is
drawn as one (label, the linking site, no Reply link) in the thread, the feeds and JSON-LD."""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs, urlsplit

import pytest
from bs4 import BeautifulSoup

from masthead.store import comments as store

from support.sites import post

EN = "/posts/harbour-lights/"
ZH = "/zh/posts/harbour-lights/"
TOML = """
title = "Test site"
base_url = "https://example.com"
default_language = "en"
comments_flood_seconds = {flood}
comments_per_minute = 0
comments_previously_approved = false

[languages.en]
name = "English"

[languages.zh]
name = "中文"
prefix = "zh"
hreflang = "zh-Hans"
"""
FILES = {
    "posts/harbour-lights.md": post(
        "Harbour lights", "2024-03-01", "English version.", translationKey="harbour"
    ),
    "posts/harbour-lights.zh.md": post(
        "港口灯火", "2024-03-01", "中文版。", translationKey="harbour"
    ),
}
SAME_ORIGIN = {"Origin": "https://testserver"}
BIG = "x" * (1024 * 1024 + 10)


@pytest.fixture
def client(make_site, serve):
    app = serve(make_site(FILES, TOML.format(flood=0)))
    app.base_url = "https://testserver"
    return app


@pytest.fixture
def flooded(make_site, serve):
    app = serve(make_site(FILES, TOML.format(flood=15)))
    app.base_url = "https://testserver"
    return app


def count(client) -> int:
    db = client.app.state.masthead.db
    return db.read().execute("SELECT count(*) FROM comments").fetchone()[0]


def fields(**values):
    base = {"post": EN, "parent": "", "name": "Ann", "email": "ann@example.org", "url": ""}
    return {**base, "body": "Lovely piece.", **values}


def soup(response) -> BeautifulSoup:
    return BeautifulSoup(response.text, "lxml")


# --- 1. a body over the limit -----------------------------------------------------------------


def test_the_form_names_its_post_in_its_action(client):
    for path in (EN, ZH):
        form = soup(client.get(path)).select_one("form.comment-form")
        action = urlsplit(form["action"])
        assert action.path == "/comments" and parse_qs(action.query) == {"post": [path]}


@pytest.mark.parametrize(
    ("path", "extra", "title", "words"),
    [
        ("/comments?post=" + EN, {}, "Harbour lights", "Back button"),
        ("/comments?post=" + ZH, {}, "港口灯火", "后退"),
        ("/comments", {"Referer": "https://testserver" + ZH}, "港口灯火", "后退"),
        (
            "/comments",
            {"Referer": "https://testserver/comments/1/reply?post=%2Fposts%2Fharbour-lights%2F"},
            "Harbour lights",
            "Back button",
        ),
    ],
)
def test_a_form_post_over_the_limit_says_nothing_was_kept_and_links_back(
    client, path, extra, title, words
):
    headers = {**SAME_ORIGIN, **extra}
    answer = client.post(path, data=fields(body=BIG), headers=headers)
    assert answer.status_code == 413
    assert answer.headers["cache-control"] == "no-store"
    page = soup(answer)
    text = page.get_text(" ")
    assert "kept below" not in text and "保留在下面" not in text  # the old lie
    assert words in text  # use the browser's Back button, in the page's language
    assert "1 MiB" in text
    lang = page.html["lang"]
    assert lang == ("zh-Hans" if title == "港口灯火" else "en")
    back = [a for a in page.select("a[href]") if title in a.get_text()]
    assert back and back[0]["href"].split("#")[0] == (ZH if title == "港口灯火" else EN)
    # no empty form that looks as though it held the text
    assert page.select_one("textarea") is None
    assert count(client) == 0


def test_a_form_post_over_the_limit_trusts_no_other_sites_referer(client):
    headers = {**SAME_ORIGIN, "Referer": "https://evil.example" + EN}
    answer = client.post("/comments", data=fields(body=BIG), headers=headers)
    assert answer.status_code == 413
    page = soup(answer)
    assert not [a for a in page.select("a[href]") if "Harbour lights" in a.get_text()]
    assert "Back button" in page.get_text(" ")


def test_a_form_post_over_the_limit_without_content_length_says_the_same(client):
    def chunks():
        yield b"post=%2Fposts%2Fharbour-lights%2F&name=Ann&email=ann%40example.org&body="
        for _ in range(17):
            yield b"y" * 65536

    answer = client.post(
        "/comments?post=" + EN,
        content=chunks(),
        headers={**SAME_ORIGIN, "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert answer.status_code == 413
    assert "Back button" in answer.text and "kept below" not in answer.text
    assert count(client) == 0


def test_a_body_that_cannot_be_parsed_does_not_claim_to_be_kept(client):
    answer = client.post(
        "/comments?post=" + EN,
        content=b"--nope\r\nbroken",
        headers={**SAME_ORIGIN, "Content-Type": "multipart/form-data; boundary=zzz"},
    )
    assert answer.status_code == 400
    text = soup(answer).get_text(" ")
    assert "kept below" not in text and "Back button" in text


def test_a_refused_form_with_text_still_keeps_it(client):
    answer = client.post("/comments", data=fields(name=""), headers=SAME_ORIGIN)
    assert answer.status_code == 400
    page = soup(answer)
    assert page.select_one("textarea").get_text() == "Lovely piece."
    assert "kept below" in page.get_text(" ")


@pytest.mark.parametrize("method", ["POST", "PATCH"])
def test_the_api_answers_a_json_413_saying_nothing_was_stored(client, method):
    url = "/api/comments" if method == "POST" else "/api/comments/1"
    body = json.dumps({**fields(), "body": BIG})
    answer = client.request(
        method, url, content=body, headers={**SAME_ORIGIN, "Content-Type": "application/json"}
    )
    assert answer.status_code == 413
    assert answer.headers["content-type"].startswith("application/json")
    error = answer.json()["error"]
    assert error["status"] == 413 and error["field"] is None
    assert "1 MiB" in error["message"] and "nothing was stored" in error["message"]
    assert count(client) == 0


# --- 2. fields before the flood limit ---------------------------------------------------------


def test_a_missing_name_is_told_before_the_flood_wait(flooded):
    first = flooded.post("/comments", data=fields(), headers=SAME_ORIGIN)
    assert first.status_code == 303
    nameless = flooded.post("/comments", data=fields(name="", body="Second."), headers=SAME_ORIGIN)
    assert nameless.status_code == 400, nameless.text[:300]
    page = soup(nameless)
    assert "Name is required" in page.get_text(" ")
    assert page.select_one("textarea").get_text() == "Second."
    assert page.select_one("#mh-c-name")["aria-invalid"] == "true"
    # with every field right, the flood limit still holds, the text still kept
    again = flooded.post("/comments", data=fields(body="Second."), headers=SAME_ORIGIN)
    assert again.status_code == 429 and "retry-after" in again.headers
    assert soup(again).select_one("textarea").get_text() == "Second."
    api = flooded.post("/api/comments", json={**fields(), "email": "bad"}, headers=SAME_ORIGIN)
    assert api.status_code == 400 and api.json()["error"]["field"] == "email"
    assert count(flooded) == 1


# --- 3. imported pings --------------------------------------------------------------------------


def _seed(client, kind: str, name: str, url: str, body: str) -> int:
    db = client.app.state.masthead.db
    thread = db.read().execute("SELECT translation_key FROM posts WHERE url = ?", (EN,))
    new = store.NewComment(
        thread=thread.fetchone()[0],
        post_url=EN,
        parent_id=None,
        lang="en",
        status="approved",
        author_name=name,
        author_email="",
        author_url=url,
        body=body,
        body_html=f"<p>{body}</p>",
        created=1714606200.0,
        kind=kind,
        source="wxr",
        source_id=kind,
    )
    return store.add(db, new, "import")


def test_imported_pings_are_drawn_as_pings(client):
    hostile = 'Other <b>blog</b> "quoted" & more'
    ping = _seed(client, "pingback", hostile, "https://other.example/a-post/", "[…] a link […]")
    track = _seed(client, "trackback", "", "https://third.example/t/", "Excerpt.")
    plain = _seed(client, "comment", "Ann", "", "A reader's words.")
    for path, label in ((EN, ("Pingback", "Trackback")), (ZH, ("引用通告", "引用"))):
        html = client.get(path).text
        page = BeautifulSoup(html, "lxml")
        li = page.select_one(f"#c-{ping}")
        assert li.select_one(".comment__kind").get_text() == label[0]
        link = li.select_one(".comment__author a")
        assert link.get_text() == hostile and link["href"] == "https://other.example/a-post/"
        assert set(link["rel"]) >= {"nofollow", "ugc"}
        assert "<b>blog</b>" not in html  # escaped
        assert li.select_one(".comment__reply") is None
        assert "Anonymous" not in li.get_text() and "匿名" not in li.get_text()
        tb = page.select_one(f"#c-{track}")
        assert tb.select_one(".comment__kind").get_text() == label[1]
        assert tb.select_one(".comment__author a").get_text() == "https://third.example/t/"
        assert tb.select_one(".comment__reply") is None
        # a reader's comment keeps its Reply link and has no kind label
        assert page.select_one(f"#c-{plain} .comment__reply") is not None
        assert page.select_one(f"#c-{plain} .comment__kind") is None
        graph = json.loads(page.select_one('script[type="application/ld+json"]').string)
        nodes = graph.get("@graph", [graph])
        article = next(n for n in nodes if "comment" in n or "commentCount" in n)
        names = [c["author"]["name"] for c in article.get("comment", [])]
        assert names == ["Ann"] and article["commentCount"] == 1
    for feed in ("/comments/feed.xml", f"{EN}comments.xml", "/comments/atom.xml"):
        xml = client.get(feed).text
        assert "Pingback from Other &lt;b&gt;blog&lt;/b&gt;" in xml, feed
        assert "Trackback from https://third.example/t/" in xml, feed
        assert "Anonymous" not in xml, feed
        assert not re.search(r"<b>blog", xml), feed
