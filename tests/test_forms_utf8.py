"""Form bodies are read as UTF-8 (web/http/forms.py): raw UTF-8 sent without percent-encoding is
kept as sent, bytes that are not UTF-8 are a 400 with the text sent back, on every form that takes a
reader's or an editor's text (the comment form and API, /guanli sign-in, replies and edits).
A fresh-user trial stored `curl -d 'name=李&body=很好的文章'` as `æ` / `å¾å¥½çæç« `."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.testclient import TestClient

from masthead.accounts import service as accounts
from masthead.store import comments as cs
from masthead.store.db import Database
from masthead.web.app import create_app
from masthead.web.http.forms import FormNotUTF8, parse_urlencoded

from support.sites import post

EN = "/posts/harbour-lights/"
TOML = """
title = "Test site"
base_url = "https://example.com"
comments_flood_seconds = 0
comments_per_minute = 0
comments_previously_approved = false
"""
FORM = {"Content-Type": "application/x-www-form-urlencoded", "Origin": "https://testserver"}
PASSWORD = "密码 a long password"  # pragma: allowlist secret


def raw(**fields: str) -> bytes:
    """A form body with each value as raw UTF-8 bytes (what `curl -d` sends), only `&`, `=`
    and `%` escaped."""
    escape = {"&": "%26", "=": "%3D", "%": "%25", "+": "%2B"}
    return "&".join(
        k + "=" + "".join(escape.get(ch, ch) for ch in v) for k, v in fields.items()
    ).encode("utf-8")


# --- the parser (WHATWG URL Standard §5.1) ---------------------------------------------------


def test_the_urlencoded_parser_follows_the_whatwg_steps():
    assert parse_urlencoded("name=李&body=很好的文章".encode()) == [
        ("name", "李"),
        ("body", "很好的文章"),
    ]
    assert parse_urlencoded(b"a=%E6%9D%8E+x&&b&c=%zz&=v&d=1=2") == [
        ("a", "李 x"),
        ("b", ""),
        ("c", "%zz"),
        ("", "v"),
        ("d", "1=2"),
    ]
    # raw and percent-encoded bytes of one character are decoded together
    assert parse_urlencoded(b"a=%E6\x9d%8E") == [("a", "李")]


def test_bytes_that_are_not_utf8_are_refused_and_the_rest_kept():
    with pytest.raises(FormNotUTF8) as caught:
        parse_urlencoded(b"name=Ann&body=good %FF and \xe6\x9d\x8e")
    assert caught.value.status == 400 and caught.value.field == "body"
    assert dict(caught.value.kept) == {"name": "Ann", "body": "good \ufffd and 李"}


TEXT = st.text(st.characters(exclude_categories=("Cs",)))  # any encodable text


@given(st.lists(st.tuples(TEXT, TEXT), max_size=5))
def test_any_text_percent_encoded_or_raw_comes_back_as_sent(pairs):
    encoded = "&".join(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in pairs)
    assert parse_urlencoded(encoded.encode()) == pairs
    assert parse_urlencoded(b"&".join(raw(**{"f": v}) for _, v in pairs)) == [
        ("f", v) for _, v in pairs
    ]


# --- the comment form and API ----------------------------------------------------------------


@pytest.fixture
def client(make_site, serve):
    site = make_site({"posts/harbour-lights.md": post("Harbour lights", "2024-03-01", "Hi.")}, TOML)
    app = serve(site)
    app.base_url = "https://testserver"
    return app


def stored(client) -> list[cs.Comment]:
    return list(cs.all_comments(client.app.state.masthead.db.read()))


def test_raw_utf8_in_the_comment_form_is_stored_as_sent(client):
    body = raw(post=EN, name="李", email="li@example.org", body="很好的文章")
    answer = client.post("/comments", content=body, headers=FORM)
    assert answer.status_code == 303
    (comment,) = stored(client)
    assert (comment.author_name, comment.body) == ("李", "很好的文章")


def test_a_comment_form_that_is_not_utf8_is_a_400_keeping_the_text(client):
    body = raw(post=EN, name="Ann", email="ann@example.org") + b"&body=good words \xff here"
    answer = client.post("/comments", content=body, headers=FORM)
    assert answer.status_code == 400
    assert "not valid UTF-8" in answer.text
    assert "good words \ufffd here" in answer.text and 'value="Ann"' in answer.text
    assert stored(client) == []


def test_a_multipart_comment_that_is_not_utf8_is_a_400(client):
    fields = {"post": EN, "name": "Ann", "email": "ann@example.org"}
    answer = client.post(
        "/comments",
        data=fields,
        files={"body": (None, b"caf\xe9 latin-1")},
        headers={"Origin": "https://testserver"},
    )
    assert answer.status_code == 400 and "not valid UTF-8" in answer.text
    assert "caf\ufffd latin-1" in answer.text
    assert stored(client) == []
    good = client.post(
        "/comments",
        data=fields,
        files={"body": (None, "café 很好".encode())},
        headers={"Origin": "https://testserver"},
    )
    assert good.status_code == 303 and stored(client)[0].body == "café 很好"


def test_the_api_reads_a_raw_utf8_form_and_names_the_field_it_cannot(client):
    client.cookies.set("masthead_csrf", "abc")
    headers = {**FORM, "X-CSRF-Token": "abc"}
    ok = client.post(
        "/api/comments",
        content=raw(post=EN, name="李", email="li@example.org", body="好"),
        headers=headers,
    )
    assert ok.status_code == 201 and stored(client)[0].author_name == "李"
    bad = client.post(
        "/api/comments", content=raw(post=EN, body="x") + b"&name=\xc3", headers=headers
    )
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "name"


# --- /guanli ---------------------------------------------------------------------------------


@pytest.fixture
def guanli(make_site):
    site = make_site({"posts/harbour-lights.md": post("Harbour lights")})
    db = Database(site.database_path)
    accounts.add_user(db, "mei", PASSWORD)
    db.close()
    with TestClient(create_app(site), base_url="https://testserver", follow_redirects=False) as c:
        yield c


def csrf(page) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)


def test_a_raw_utf8_sign_in_form_signs_in_and_a_bad_one_is_a_400(guanli):
    token = csrf(guanli.get("/guanli/login"))
    bad = guanli.post(
        "/guanli/login", content=raw(csrf=token) + b"&username=\xe6&password=x", headers=FORM
    )
    assert bad.status_code == 400 and "not valid UTF-8" in bad.text
    done = guanli.post(
        "/guanli/login", content=raw(csrf=token, username="mei", password=PASSWORD), headers=FORM
    )
    assert done.status_code == 303


def test_an_editors_raw_utf8_reply_and_edit_are_stored_as_sent(guanli):
    token = csrf(guanli.get("/guanli/login"))
    guanli.post(
        "/guanli/login", content=raw(csrf=token, username="mei", password=PASSWORD), headers=FORM
    )
    state = guanli.app.state.masthead
    thread = state.db.read().execute("SELECT translation_key FROM posts").fetchone()[0]
    new = cs.NewComment(
        thread=thread, post_url=EN, parent_id=None, lang="en", status="approved",
        author_name="Ann", author_email="ann@example.org", author_url="", body="Hi",
        body_html="<p>Hi</p>", created=1_700_000_000.0,
    )  # fmt: skip
    cid = cs.add(state.db, new, "import")
    token = csrf(guanli.get("/guanli/comments"))
    reply = guanli.post(
        "/guanli/comments/reply", content=raw(csrf=token, id=str(cid), body="谢谢！"), headers=FORM
    )
    assert reply.status_code == 303
    assert [c.body for c in list(cs.all_comments(state.db.read())) if c.parent_id == cid] == [
        "谢谢！"
    ]
    edit = guanli.post(
        "/guanli/comments/edit",
        content=raw(csrf=token, id=str(cid), body="改好了", name="安"),
        headers=FORM,
    )
    assert edit.status_code == 303
    assert (cs.get(state.db.read(), cid).body, cs.get(state.db.read(), cid).author_name) == (
        "改好了",
        "安",
    )
    bad = guanli.post(
        "/guanli/comments/edit", content=raw(csrf=token, id=str(cid)) + b"&body=\xff", headers=FORM
    )
    assert bad.status_code == 400 and "not valid UTF-8" in bad.text
    assert cs.get(state.db.read(), cid).body == "改好了"
