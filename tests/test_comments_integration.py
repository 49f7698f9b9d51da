"""Where the comment areas meet: an author's edit is checked again, a signed-in editor's
comment is not held, and the dashboard's sign-in throttle keys on the one client-IP resolver."""

from __future__ import annotations

import re

import pytest

from masthead.accounts import service as accounts
from masthead.store import comments as store

from support.sites import post

EN = "/posts/harbour-lights/"
TOML = """
title = "Test site"
base_url = "https://example.com"
comments_flood_seconds = 0
comments_per_minute = 0
comments_previously_approved = false
moderation_keys = ["casino"]
"""
WHO = {"name": "Ann", "email": "ann@example.org", "body": "Hello there."}
PASSWORD = "a long password"  # pragma: allowlist secret


@pytest.fixture
def client(make_site, serve):
    site = make_site({"posts/harbour-lights.md": post("Harbour lights", "2024-03-01", "Hi.")}, TOML)
    app = serve(site)
    app.base_url = "https://testserver"
    return app


def db_of(client):
    return client.app.state.masthead.db


def test_an_edit_that_adds_links_or_a_held_word_goes_back_to_moderation(client):
    first = client.post("/api/comments", json={"post": EN, **WHO}).json()
    assert first["status"] == "approved"
    bearer = {"Authorization": f"Bearer {first['token']}"}
    url = f"/api/comments/{first['id']}"
    links = "See [a](https://a.example) and [b](https://b.example)."
    edited = client.patch(url, json={"body": links}, headers=bearer)
    assert edited.status_code == 200
    found = store.get(db_of(client).read(), first["id"])
    assert found.status == "pending" and found.reason.startswith("edited: 2 links")
    assert f'id="c-{first["id"]}"' not in client.get(EN).text
    second = client.post("/api/comments", json={"post": EN, **WHO, "body": "Nice."}).json()
    client.patch(
        f"/api/comments/{second['id']}",
        json={"body": "Visit my CASINO"},
        headers={"Authorization": f"Bearer {second['token']}"},
    )
    assert store.get(db_of(client).read(), second["id"]).status == "pending"


def test_a_signed_in_editor_is_not_held_as_claiming_a_staff_address(client):
    db = db_of(client)
    accounts.add_user(db, "mei", PASSWORD, email="mei@example.com")
    stranger = client.post(
        "/api/comments", json={"post": EN, "name": "Mei", "email": "MEI@example.com", "body": "x"}
    ).json()
    assert store.get(db.read(), stranger["id"]).reason == (
        "uses a staff name; claims a staff address"
    )
    form = client.get("/guanli/login")
    token = re.search(r'name="csrf" value="([^"]+)"', form.text).group(1)
    client.post("/guanli/login", data={"username": "mei", "password": PASSWORD, "csrf": token})
    mine = client.post(
        "/api/comments", json={"post": EN, "name": "Mei", "email": "mei@example.com", "body": "y"}
    ).json()
    assert mine["status"] == "approved"
    assert store.get(db.read(), mine["id"]).reason == "signed-in staff"


def test_the_edited_text_sent_again_is_a_duplicate_of_the_edited_comment(client):
    first = client.post("/api/comments", json={"post": EN, **WHO}).json()
    bearer = {"Authorization": f"Bearer {first['token']}"}
    client.patch(f"/api/comments/{first['id']}", json={"body": "Better words."}, headers=bearer)
    again = client.post("/api/comments", json={"post": EN, **WHO, "body": "Better words."})
    assert again.status_code == 200 and again.json()["id"] == first["id"]
    fresh = client.post("/api/comments", json={"post": EN, **WHO})  # the old text is new again
    assert fresh.status_code == 201 and fresh.json()["id"] != first["id"]


def sign_in(client, name: str) -> None:
    form = client.get("/guanli/login")
    token = re.search(r'name="csrf" value="([^"]+)"', form.text).group(1)
    client.post("/guanli/login", data={"username": name, "password": PASSWORD, "csrf": token})


def test_a_signed_in_editors_comment_carries_the_staff_badge_everywhere(client):
    """Issue 29 item 2: who speaks for the site is visible on the page, in the API and in the
    feeds; a reader's comment has no badge."""
    db = db_of(client)
    accounts.add_user(db, "mei", PASSWORD, email="mei@example.com")
    reader = client.post("/api/comments", json={"post": EN, **WHO}).json()
    sign_in(client, "mei")
    staff = client.post(
        "/api/comments",
        json={"post": EN, "name": "mei", "email": "mei@example.com", "body": "From the desk.",
              "parent": reader["id"]},
    ).json()  # fmt: skip
    assert staff["comment"]["staff"] is True
    assert store.get(db.read(), staff["id"]).author_user == "mei"
    client.cookies.clear()  # what any reader sees
    page = client.get(EN).text
    badges = re.findall(r'id="c-(\d+)-by".*?</span>\s*(<span class="comment__staff"[^>]*>[^<]*)?',
                        page, re.S)  # fmt: skip
    assert dict(badges) == {
        str(reader["id"]): "",
        str(staff["id"]): '<span class="comment__staff" lang="en">Staff',
    }
    api = client.get("/api/comments", params={"post": EN}).json()["comments"]
    (top,) = api
    assert top["staff"] is False and top["replies"][0]["staff"] is True
    for feed in (EN + "comments.xml", EN + "comments-atom.xml", "/comments/feed.xml"):
        text = client.get(feed).text
        assert "mei (staff)" in text, feed
        assert "Ann (staff)" not in text and "Ann" in text
