"""`masthead import ghost`: Ghost 4 (`db[0].data`, HTML with cards) and Ghost 5 (top-level
`data`, lexical only) exports written for these tests, into a real site served over HTTP."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from masthead.config import Site
from masthead.importing.ghost import import_ghost
from masthead.indexing.check import check_site
from masthead.indexing.indexer import index_site
from masthead.store.db import Database

from support.cli import invoke
from support.imports import IMPORTS, empty_site, ghost_content


def front(site: Site, rel: str) -> tuple[dict[str, Any], str]:
    text = (site.content_dir / rel).read_text(encoding="utf-8")
    _, meta, body = text.split("---\n", 2)
    return yaml.safe_load(meta), body


@pytest.fixture
def ghost4(tmp_path: Path) -> tuple[Site, Any]:
    site = empty_site(tmp_path / "site")
    report = import_ghost(
        site,
        IMPORTS / "ghost4.json",
        content=ghost_content(tmp_path / "content"),
        routes=IMPORTS / "routes.yaml",
    )
    return site, report


def test_ghost4_posts_by_status_and_what_is_only_counted(ghost4: tuple[Site, Any]) -> None:
    site, report = ghost4
    assert report.counts["posts"] == 2 and report.counts["drafts"] == 1
    assert report.counts["scheduled posts"] == 1 and report.counts["pages"] == 1
    assert report.not_imported == {
        "members": 2, "newsletters": 1, "tiers": 2, "posts for members or paid tiers": 1
    }  # fmt: skip
    assert not (site.content_dir / "posts/members-only").exists()
    meta, _ = front(site, "posts/cards-on-the-pier/index.md")
    assert meta["date"] == "2022-04-02T08:00:00Z" and meta["updated"] == "2022-04-03T08:00:00Z"
    assert meta["categories"] == ["Harbour"]  # the primary tag; #hidden skipped
    assert meta["tags"] == ["Photos"] and meta["featured"] is True
    assert meta["excerpt"] == "Cards, all of them."
    assert (meta["meta_title"], meta["meta_description"]) == ("Cards | Pier", "All the cards.")
    assert meta["author"] == "Ines Harbour" and meta["cover"] == "pier.jpg"
    assert front(site, "posts/half-written/index.md")[0]["draft"] is True
    assert front(site, "posts/next-spring/index.md")[0]["date"] == "2099-03-01T08:00:00Z"
    news, _ = front(site, "posts/news-flash/index.md")
    assert news["canonical"] == "https://elsewhere.example/news-flash/"
    warning = "codeinjection_head dropped (no scripts from imported posts)"
    assert ("post p1 (cards-on-the-pier)", warning) in report.warnings


def test_ghost4_cards_become_markdown(ghost4: tuple[Site, Any]) -> None:
    site, report = ghost4
    _, body = front(site, "posts/cards-on-the-pier/index.md")
    assert '{{< figure src="pier.jpg" alt="The pier" caption="The pier at noon" >}}' in body
    assert '{{< figure src="one.png" >}}\n\n{{< figure src="two.png" >}}' in body  # gallery
    assert "[The Guide](https://docs.example/guide/)\n\nEverything about tides." in body
    assert "{{< note >}}\nCheck the **tide table** first.\n{{< /note >}}" in body
    assert '{{< details summary="Is it safe?" >}}\nOnly at low tide.\n{{< /details >}}' in body
    assert "[Buy the map](https://shop.example/maps)" in body
    assert "```javascript\nconst tide = () => 6;\n```" in body
    assert "[Waves](https://www.youtube.com/embed/abc123?feature=oembed)" in body  # no frame
    assert "> The sea is patient." in body
    assert "alert(1)" not in body and "<script" not in body
    assert report.missing == {}  # the resized two.png found as its original


def test_ghost5_lexical_only(tmp_path: Path) -> None:
    site = empty_site(tmp_path / "site")
    report = import_ghost(site, IMPORTS / "ghost5.json", content=ghost_content(tmp_path / "c"))
    meta, body = front(site, "posts/lexical-only/index.md")
    assert meta["author"] == "Sam Dune" and meta["cover"] == "dune.jpg"
    assert "Plain, **bold** and [a link](https://ghost.example/)" in body
    assert "## Lexical heading" in body
    assert '{{< figure src="dune.jpg" alt="Dune" caption="Sand dune" >}}' in body
    assert "```python\nprint('hi')\n```" in body and "- one\n- two" in body
    assert "{{< note >}}\nMind the gap.\n{{< /note >}}" in body
    assert "A *markdown* card." in body and "> Quoted." in body
    assert "kept text" in body
    node = "editor node 'mystery-card': its text kept, its form lost"
    assert ("post 64a (lexical-only)", node) in report.warnings
    assert report.not_imported == {"newsletters": 1}


def test_a_body_the_converter_fails_on_is_kept_as_html_in_a_draft(tmp_path: Path) -> None:
    """As for WordPress: HTML nested deeper than the converter can follow is that post's
    warning, the post a draft with its HTML in a code block; the next post comes across."""
    site = empty_site(tmp_path / "site")
    deep = "<p>x</p>" + "<div>" * 3000 + "deep" + "</div>" * 3000
    posts = [
        {"id": "a1", "slug": "deep", "title": "Deep", "status": "published", "html": deep,
         "published_at": "2023-01-02T03:04:05.000Z"},
        {"id": "a2", "slug": "fine", "title": "Fine", "status": "published",
         "html": "<p>Just <em>fine</em>.</p>", "published_at": "2023-01-03T03:04:05.000Z"},
    ]  # fmt: skip
    export = tmp_path / "deep.json"
    export.write_text(json.dumps({"data": {"posts": posts}}), encoding="utf-8")
    report = import_ghost(site, export)
    not_converted = "body not converted (nested too deep): kept as HTML in a draft"
    assert report.warnings == [("post a1 (deep)", not_converted)]
    meta, body = front(site, "posts/deep/index.md")
    assert meta["draft"] is True and meta["title"] == "Deep"
    assert body.startswith("\n```html\n<p>x</p><div><div>") and body.count("<div>") == 3000
    meta, body = front(site, "posts/fine/index.md")
    assert "draft" not in meta and body == "\nJust *fine*.\n"
    assert report.counts["drafts"] == 1 and report.counts["posts"] == 1


def test_authors_become_author_pages(ghost4: tuple[Site, Any], serve) -> None:  # type: ignore[no-untyped-def]
    site, _ = ghost4
    meta, bio = front(site, "authors/ines-harbour.md")
    assert meta == {
        "name": "Ines Harbour",
        "avatar": "ines.png",
        "links": ["https://ines.example", "https://x.com/ines"],
    }
    assert bio.strip() == "Writes about the sea."
    page = serve(site).get("/authors/ines-harbour/")
    assert page.status_code == 200 and "Writes about the sea." in page.text


def test_ghost_old_urls_answer_301_to_a_200(ghost4: tuple[Site, Any], serve) -> None:  # type: ignore[no-untyped-def]
    """Without routes.yaml Ghost's posts live at /{slug}/; with it, at their collection's."""
    site, _ = ghost4
    client = serve(site)
    old = {
        "/harbour/cards-on-the-pier/": "/posts/cards-on-the-pier/",  # collection /: primary tag
        "/news/2022/news-flash/": "/posts/news-flash/",  # collection /news/: filter tag:news
    }
    for path, new in old.items():
        r = client.get(path)
        assert (r.status_code, r.headers.get("location")) == (301, new), path
        assert client.get(new).status_code == 200, new
    assert client.get("/contact/").status_code == 200  # a page keeps Ghost's own URL
    plain = empty_site(site.root.parent / "plain")
    import_ghost(plain, IMPORTS / "ghost5.json")
    r = serve(plain).get("/lexical-only/")
    assert (r.status_code, r.headers.get("location")) == (301, "/posts/lexical-only/")


def test_check_strict_passes_after_a_ghost_import(ghost4: tuple[Site, Any]) -> None:
    site, _ = ghost4
    db = Database(site.database_path)
    try:
        index_site(site, db)
    finally:
        db.close()
    assert [str(i) for i in check_site(site) if i.level != "info"] == []


def test_the_ghost_command_and_a_file_that_is_no_export(tmp_path: Path) -> None:
    site = empty_site(tmp_path / "site")
    code, out = invoke("import", "ghost", site.root, IMPORTS / "ghost5.json")
    assert code == 1 and "1 posts, 1 authors" in out  # dune.jpg missing: no --content
    assert "missing file images/2023/02/dune.jpg, needed by post 64a (lexical-only)" in out
    code, out = invoke("import", "ghost", site.root, IMPORTS / "wordpress.xml")
    assert code == 2 and "not JSON" in out
    bad = tmp_path / "other.json"
    bad.write_text('{"hello": 1}', encoding="utf-8")
    code, out = invoke("import", "ghost", site.root, bad)
    assert code == 2 and "not a Ghost export" in out


def test_a_missing_routes_file_is_named(tmp_path: Path) -> None:
    site = empty_site(tmp_path / "site")
    code, out = invoke(
        "import", "ghost", site.root, IMPORTS / "ghost5.json", "--routes", "nope.yaml"
    )
    assert code == 2 and "nope.yaml: --routes is not a file" in out
    assert list(site.content_dir.iterdir()) == []
