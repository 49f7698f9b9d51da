"""Names in feeds stay text (issue 29, D9): a tag, category and author named with markup show
as those characters in every feed reader. RSS `description` elements are HTML to readers (the
channel's as well as each item's), so their text must parse as HTML to no element at all;
Atom's text constructs say `type="text"`, or are `type="html"` holding escaped text. Served
by the real app from a real SQLite file."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from bs4 import BeautifulSoup

from support.feeds import xml
from support.sites import post

NAME = "<img src=x onerror=alert(1)> & <b>bold</b>"
FILES = {
    "posts/a.md": post(
        "A", "2024-03-01", tags=f"['{NAME}']", categories=f"['{NAME}']", author=f"'{NAME}'"
    ),
}


@pytest.fixture
def client(make_site, serve):
    return serve(make_site(FILES))


def feed_paths(client) -> list[str]:
    conn = client.app.state.masthead.db.read()
    terms = conn.execute("SELECT DISTINCT taxonomy, key FROM post_terms").fetchall()
    assert {t for t, _ in terms} == {"tags", "categories", "authors"}, terms
    paths = ["/feed.xml", "/atom.xml", "/comments/feed.xml", "/comments/atom.xml"]
    for taxonomy, key in terms:
        paths += [f"/{taxonomy}/{quote(key)}/feed.xml", f"/{taxonomy}/{quote(key)}/atom.xml"]
    return paths


def test_names_in_every_feed_are_text(client):
    seen_name = 0
    for path in feed_paths(client):
        response = client.get(path)
        assert response.status_code == 200, path
        root = xml(response)
        for node in root.iter():
            tag = node.tag.split("}")[-1] if isinstance(node.tag, str) else ""
            text = node.text or ""
            atom_text = tag in ("title", "subtitle", "summary") and path.endswith("atom.xml")
            if tag == "description" or (atom_text and node.get("type") == "html"):
                # HTML to readers: must hold no element, only (escaped) text
                assert BeautifulSoup(text, "html.parser").find() is None, (path, text)
                seen_name += NAME in BeautifulSoup(text, "html.parser").get_text()
            elif atom_text:
                assert node.get("type", "text") == "text", (path, tag)
    assert seen_name >= 2  # the tag and category feeds name the term, as text (an author's
    # name loses its markup when the post is read: "& bold")
