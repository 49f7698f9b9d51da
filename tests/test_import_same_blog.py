"""One small blog written three ways (tests/data/imports/same-blog: a WordPress export, a Ghost
export and a Hugo site): the three imports (`masthead import wordpress`, `ghost` and `hugo`) give
sites that serve the same posts, with the bodies the Hugo site has."""

from __future__ import annotations

import re
from pathlib import Path

from bs4 import BeautifulSoup

from masthead.config import Site, load_site
from masthead.importing.ghost import import_ghost
from masthead.importing.hugo import import_hugo
from masthead.importing.wordpress import import_wordpress
from masthead.store.db import Database

from support.imports import IMPORTS, empty_site

BLOG = IMPORTS / "same-blog"
SLUGS = ("first-light", "second-wind", "third-time")
_TERM = re.compile("^/(tags|categories)/")


def _wordpress(root: Path) -> Site:
    site = empty_site(root)
    db = Database(site.database_path)
    try:
        import_wordpress(site, db, BLOG / "wordpress.xml")
    finally:
        db.close()
    return site


def _ghost(root: Path) -> Site:
    site = empty_site(root)
    import_ghost(site, BLOG / "ghost.json")
    return site


def _hugo(root: Path) -> Site:
    import_hugo(BLOG / "hugo", root)
    return load_site(root)


def _body(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    return re.split(r"^(?:---|\+\+\+|\})\s*$", text, flags=re.MULTILINE)[-1].strip()


def test_the_bodies_are_the_hugo_sites(tmp_path: Path) -> None:
    wordpress, ghost = _wordpress(tmp_path / "wp"), _ghost(tmp_path / "ghost")
    for slug in SLUGS:
        hugo = _body(BLOG / "hugo" / "content" / "posts" / f"{slug}.md")
        assert _body(wordpress.content_dir / "posts" / slug / "index.md") == hugo, slug
        assert _body(ghost.content_dir / "posts" / slug / "index.md") == hugo, slug


def _url(client, slug: str) -> str:  # type: ignore[no-untyped-def]
    """Where the site serves the post `slug`, as its archive links it."""
    archive = BeautifulSoup(client.get("/archive/").text, "html.parser")
    found = [a["href"] for a in archive.find_all("a", href=re.compile(f"/{slug}/$"))]
    assert len(found) == 1, (slug, found)
    return str(found[0])


def _served(client, slug: str) -> dict[str, object]:  # type: ignore[no-untyped-def]
    page = client.get(_url(client, slug))
    assert page.status_code == 200, slug
    soup = BeautifulSoup(page.text, "html.parser")
    article = soup.find("article") or soup
    return {
        "title": soup.title.get_text().split(" · ")[0] if soup.title else "",  # not the site's
        "time": [t.get("datetime") for t in article.find_all("time")][:1],
        "terms": sorted(
            a["href"] for a in article.find_all("a", href=re.compile("^/(tags|categories)/"))
        ),
        "text": " ".join(article.find("div", class_="prose").get_text(" ").split()),
    }


def test_the_three_sites_serve_the_same_posts(tmp_path: Path, serve) -> None:  # type: ignore[no-untyped-def]
    wp = serve(_wordpress(tmp_path / "wp"))
    ghost = serve(_ghost(tmp_path / "ghost"))
    hugo = serve(_hugo(tmp_path / "hugo"))
    for slug in SLUGS:
        seen = _served(wp, slug)
        assert seen == _served(ghost, slug), slug
        assert seen == _served(hugo, slug), slug
        assert seen["time"] and seen["terms"] and seen["text"], seen
    for client in (wp, ghost):
        assert all(_url(client, slug) == f"/posts/{slug}/" for slug in SLUGS)
    # Hugo's own permalink pattern came across: the old URL is the post's URL, not an alias
    assert _url(hugo, "second-wind") == "/2022/02/second-wind/"
    for old, client in (("/2022/02/second-wind/", wp), ("/?p=2", wp), ("/second-wind/", ghost)):
        r = client.get(old)
        assert (r.status_code, r.headers["location"]) == (301, "/posts/second-wind/"), old
