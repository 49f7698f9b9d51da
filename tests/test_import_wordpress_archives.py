"""Old WordPress archive and feed URLs after `masthead import wordpress`: the category, tag,
author and date archives, their `/page/N/` forms and the feeds answer 301 to masthead's page,
which answers 200 (the real app over HTTP, the import's own `[wordpress]` settings)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from masthead.config import Site, load_site
from masthead.importing.wordpress import import_wordpress
from masthead.indexing.indexer import index_site
from masthead.store.db import Database

from support.imports import IMPORTS, SITE_TOML, empty_site, wordpress_uploads

EXPORT = IMPORTS / "wordpress.xml"


def _import(root: Path, toml: str = SITE_TOML) -> tuple[Site, Any]:
    site = empty_site(root, toml)
    db = Database(site.database_path)
    try:
        report = import_wordpress(site, db, EXPORT, uploads=wordpress_uploads(root.parent / "up"))
    finally:
        db.close()
    return load_site(root), report


@pytest.fixture
def site(tmp_path: Path) -> Site:
    one_per_page = SITE_TOML.replace("[languages.en]", "posts_per_page = 1\n\n[languages.en]")
    imported, _ = _import(tmp_path / "site", one_per_page)
    return imported


def test_the_import_writes_the_wordpress_table(site: Site) -> None:
    table = tomllib.loads((site.root / "masthead.toml").read_text(encoding="utf-8"))["wordpress"]
    # slugs that are not the key of the term's name: `local` is "Local & Harbour"'s
    assert table["archives"] is True
    assert table["slugs"]["categories"] == {"local": "Local & Harbour"}
    assert table["slugs"]["authors"] == {"mara": "Mara Quinn"}
    assert site.settings.wordpress.archives


def test_archive_and_feed_urls_answer_301_to_pages_that_answer_200(site: Site, serve) -> None:  # type: ignore[no-untyped-def]
    client = serve(site)
    old = {
        "/category/news/": "/categories/news/",
        "/category/news/local/": "/categories/local-and-harbour/",  # nested: the last slug
        "/category/local/": "/categories/local-and-harbour/",
        "/category/news/page/1/": "/categories/news/",
        "/category/news/feed/": "/categories/news/feed.xml",
        "/category/news/feed/atom/": "/categories/news/atom.xml",
        "/tag/boats/": "/tags/boats/",
        "/tag/boats/feed/": "/tags/boats/feed.xml",
        "/author/mara/": "/authors/mara-quinn/",
        "/author/mara/page/2/": "/authors/mara-quinn/page/2/",
        "/2021/": "/archive/",
        "/2021/03/": "/archive/",
        "/2021/03/15/": "/archive/",
        "/2021/page/2/": "/archive/",
        "/feed/": "/feed.xml",
        "/feed/atom/": "/atom.xml",
        "/comments/feed/": "/comments/feed.xml",
        "/zh/2021/05/": "/zh/archive/",  # Polylang's language prefix
    }
    for path, new in old.items():
        r = client.get(path)
        assert (r.status_code, r.headers.get("location")) == (301, new), path
        assert client.get(new).status_code == 200, new
    # without its trailing slash: first the slash, then the archive
    r = client.get("/tag/boats")
    assert (r.status_code, r.headers["location"]) == (301, "/tag/boats/")


def test_unknown_terms_and_other_paths_stay_404(site: Site, serve) -> None:  # type: ignore[no-untyped-def]
    client = serve(site)
    for path in (
        "/category/nothing-here/",
        "/author/nobody/",
        "/1066/",  # not a year of a blog
        "/2021/13x/",
        "/category/",
        "/comments/",
        "/category/news/page/0/",
    ):
        r = client.get(path)
        assert r.status_code == 404, path


def test_redirects_stay_on_the_sites_origin(site: Site, serve) -> None:  # type: ignore[no-untyped-def]
    client = serve(site)
    hostile = ("//evil.example/feed/", "/\\evil.example/feed/", "/tag/%2F%2Fevil.example/")
    for path in (*hostile, "/feed/?next=//evil.example", "/category/news/feed/?x=//evil"):
        r = client.get(path)
        location = r.headers.get("location", "")
        assert r.status_code in (301, 404), path
        assert location.startswith("/") and not location.startswith("//"), (path, location)


def test_a_page_of_the_site_wins_over_an_old_archive_url(tmp_path: Path, serve) -> None:  # type: ignore[no-untyped-def]
    site, _ = _import(tmp_path / "site")
    page = site.content_dir / "pages" / "2021.md"
    page.write_text(
        "---\ntitle: The year\ndate: 2021-06-01\nslug: '2021'\n---\n\nOur year.\n", encoding="utf-8"
    )
    db = Database(site.database_path)
    try:
        index_site(site, db)
    finally:
        db.close()
    client = serve(site)
    r = client.get("/2021/")
    assert r.status_code == 200 and "Our year." in r.text
    assert client.get("/2021/03/").headers["location"] == "/archive/"


def test_without_the_setting_old_archive_urls_are_404(tmp_path: Path, serve) -> None:  # type: ignore[no-untyped-def]
    site, _ = _import(tmp_path / "site")
    toml = site.root / "masthead.toml"
    toml.write_text(
        toml.read_text(encoding="utf-8").replace("archives = true", "archives = false"),
        encoding="utf-8",
    )
    client = serve(load_site(site.root))
    assert client.get("/category/news/").status_code == 404
    assert client.get("/feed/").status_code == 404


def test_a_rerun_keeps_the_table_as_the_user_left_it(tmp_path: Path) -> None:
    site, _ = _import(tmp_path / "site")
    toml = site.root / "masthead.toml"
    edited = toml.read_text(encoding="utf-8").replace(
        "archives = true", 'archives = true\ntag_base = "topics"'
    )
    toml.write_text(edited, encoding="utf-8")
    report = import_wordpress(load_site(site.root), None, EXPORT)
    assert toml.read_text(encoding="utf-8") == edited
    assert not any("[wordpress]" in note for note in report.notes)
    assert load_site(site.root).settings.wordpress.tag_base == "topics"


def test_dry_run_leaves_the_settings_alone(tmp_path: Path) -> None:
    site = empty_site(tmp_path / "site")
    import_wordpress(site, None, EXPORT, dry_run=True)
    assert "[wordpress]" not in (site.root / "masthead.toml").read_text(encoding="utf-8")


def test_a_blog_under_a_folder_keeps_its_root(tmp_path: Path, serve) -> None:  # type: ignore[no-untyped-def]
    export = tmp_path / "blog.xml"
    text = EXPORT.read_text(encoding="utf-8")
    blog = "<wp:base_blog_url>https://old.example/blog</wp:base_blog_url>"
    export.write_text(
        text.replace("<wp:base_blog_url>https://old.example</wp:base_blog_url>", blog)
    )
    site = empty_site(tmp_path / "site")
    db = Database(site.database_path)
    try:
        import_wordpress(site, db, export)
    finally:
        db.close()
    site = load_site(site.root)
    assert site.settings.wordpress.root == "/blog"
    client = serve(site)
    r = client.get("/blog/tag/boats/")
    assert (r.status_code, r.headers["location"]) == (301, "/tags/boats/")
    assert client.get("/blog/feed/").headers["location"] == "/feed.xml"
    assert client.get("/tag/boats/").status_code == 404  # not under the blog's root
