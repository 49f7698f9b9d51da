"""`masthead import wordpress`: tests/data/imports/wordpress.xml (pages, drafts, shortcodes,
blocks, attachments, Polylang, comments) into a real site, then served over HTTP."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from masthead.config import Site
from masthead.export.build import build
from masthead.importing.files import MANIFEST
from masthead.importing.wordpress import import_wordpress
from masthead.indexing.check import check_site
from masthead.store.db import Database

from support.cli import invoke
from support.imports import IMPORTS, empty_site, wordpress_uploads
from support.servers import cli_server
from support.wait import CEILING

EXPORT = IMPORTS / "wordpress.xml"


def front(site: Site, rel: str) -> tuple[dict[str, Any], str]:
    text = (site.content_dir / rel).read_text(encoding="utf-8")
    _, meta, body = text.split("---\n", 2)
    return yaml.safe_load(meta), body


@pytest.fixture
def imported(tmp_path: Path) -> tuple[Site, Any]:
    site = empty_site(tmp_path / "site")
    db = Database(site.database_path)
    try:
        report = import_wordpress(site, db, EXPORT, uploads=wordpress_uploads(tmp_path / "up"))
    finally:
        db.close()
    return site, report


def test_posts_pages_and_drafts_by_status(imported: tuple[Site, Any]) -> None:
    site, report = imported
    assert report.counts["posts"] == 3  # hello-blocks, low-tide, 低潮
    assert report.counts["drafts"] == 2 and report.counts["pages"] == 2
    assert report.counts["scheduled posts"] == 1
    assert report.skipped == {
        "private": 1, "in the trash": 1, "auto-drafts": 1, "nav_menu_item items": 1
    }  # fmt: skip
    meta, _ = front(site, "posts/hello-blocks/index.md")
    assert meta["date"] == "2021-03-15T09:30:00Z" and meta["updated"] == "2021-04-01T02:00:00Z"
    assert meta["author"] == "Mara Quinn"
    assert meta["categories"] == ["News", "Local & Harbour"]  # the parent first
    assert meta["tags"] == ["boats", "tides"] and meta["sticky"] is True
    assert meta["excerpt"] == "Boats, tides and code."
    assert "draft" not in meta
    draft, _ = front(site, "posts/classic-shortcodes/index.md")  # no post_name: from the title
    assert draft["draft"] is True and draft["date"] == "2021-03-16T17:30:00"
    assert front(site, "posts/pending-review/index.md")[0]["draft"] is True
    assert front(site, "posts/from-the-future/index.md")[0]["date"] == "2099-01-01T00:00:00Z"
    assert not (site.content_dir / "posts/private-thoughts").exists()
    assert front(site, "pages/team/index.md")[0]["title"] == "The team"


def test_polylang_language_and_translation(imported: tuple[Site, Any]) -> None:
    site, _ = imported
    en, _ = front(site, "posts/low-tide/index.md")
    zh, body = front(site, "posts/低潮/index.md")
    assert (en["lang"], zh["lang"]) == ("en", "zh")
    assert en["translationKey"] == zh["translationKey"] == "pll_60a1b2c3d4"
    assert zh["slug"] == "低潮" and body.strip() == "水退了。"


def test_blocks_and_shortcodes_become_markdown(imported: tuple[Site, Any]) -> None:
    site, report = imported
    _, blocks = front(site, "posts/hello-blocks/index.md")
    assert "wp:" not in blocks and "<!--more-->" in blocks
    assert '{{< figure src="boats.jpg" alt="Boats at dawn" caption="Boats at dawn" >}}' in blocks
    assert "```python\ndef tide(hour):\n    return hour % 12\n```" in blocks
    assert "## After the storm" in blocks
    assert "[The tide, filmed](https://www.youtube.com/watch?v=tide42)" in blocks  # embed block
    _, classic = front(site, "posts/classic-shortcodes/index.md")
    assert "A classic post, first line  \nsecond line." in classic  # wpautop's line break
    assert '{{< figure src="net.png" alt="A net" caption="Mending the net" >}}' in classic
    assert '```bash\necho "a < b" | tr a-z A-Z\n```' in classic  # [code], entities decoded
    assert '{{< figure src="boats.jpg" >}}\n\n{{< figure src="net.png" >}}' in classic  # gallery
    assert "[https://video.example/watch/42](https://video.example/watch/42)" in classic
    assert "[waves.mp3](waves.mp3)" in classic  # [audio], the file copied
    assert "(https://video.example/clip.mp4)" in classic  # [video]
    assert '[contact-form-7 id="9" title="Contact"]' in classic  # unknown: shown as text...
    assert report.unknown_shortcodes == {"[contact-form-7]": 1}  # ...and listed
    assert ("post 102", "shortcode [contact-form-7] shown as text") in report.warnings
    assert "[brackets]" in classic and "[brackets]" not in str(report.unknown_shortcodes)


def test_images_copied_into_bundles_and_missing_listed(imported: tuple[Site, Any]) -> None:
    site, report = imported
    bundle = site.content_dir / "posts/hello-blocks"
    assert {p.name for p in bundle.iterdir()} == {"index.md", "boats.jpg", "gull.png"}
    meta, body = front(site, "posts/hello-blocks/index.md")
    assert meta["cover"] == "boats.jpg"  # the featured image
    assert "![Gull](gull.png)" in body  # an image of the old site, copied
    assert "![Far](https://cdn.elsewhere.example/pic.jpg)" in body  # another site's: a link
    assert report.missing == {"2021/03/lost.jpg": ["post 102"]}
    assert "  missing file 2021/03/lost.jpg, needed by post 102" in report.lines()
    assert report.exit_code == 1


def test_old_urls_answer_301_to_pages_that_answer_200(imported: tuple[Site, Any], serve) -> None:  # type: ignore[no-untyped-def]
    site, _ = imported
    client = serve(site)
    old = {
        "/2021/03/hello-blocks/": "/posts/hello-blocks/",  # the item's link (its permalink)
        "/?p=101": "/posts/hello-blocks/",
        "/?page_id=2": "/about/",
        "/?page_id=3": "/team/",
        "/about/team/": "/team/",
        "/?p=121": "/zh/posts/%E4%BD%8E%E6%BD%AE/",
        "/zh/2021/05/%e4%bd%8e%e6%bd%ae/": "/zh/posts/%E4%BD%8E%E6%BD%AE/",
        "/2021/05/low-tide/": "/posts/low-tide/",
    }
    for path, new in old.items():
        r = client.get(path)
        assert (r.status_code, r.headers.get("location")) == (301, new), path
        assert client.get(new).status_code == 200, new
    assert client.get("/?p=102").status_code == 200  # a draft's: the home page, no redirect
    assert client.get("/?p=999").status_code == 200
    home = client.get("/?utm_source=x")
    assert home.status_code == 200  # other queries: the page itself


def test_comments_land_on_their_posts(imported: tuple[Site, Any], serve) -> None:  # type: ignore[no-untyped-def]
    site, report = imported
    assert report.comments[1:3] == ["3 new, 0 already present", "  onto 2 posts"]
    client = serve(site)
    page = client.get("/posts/hello-blocks/").text
    assert "Lovely boats." in page and "Thank you, Ann." in page
    assert "好文章。" in client.get("/zh/posts/%E4%BD%8E%E6%BD%AE/").text


def test_check_strict_passes_after_the_import(imported: tuple[Site, Any]) -> None:
    site, _ = imported
    assert [str(i) for i in check_site(site) if i.level != "info"] == []


def test_a_rerun_rewrites_nothing_and_never_an_edit(tmp_path: Path) -> None:
    site = empty_site(tmp_path / "site")
    uploads = wordpress_uploads(tmp_path / "up")
    import_wordpress(site, None, EXPORT, uploads=uploads)
    post = site.content_dir / "posts/low-tide/index.md"
    untouched = site.content_dir / "posts/hello-blocks/index.md"
    before = untouched.stat().st_mtime_ns
    edited = post.read_text(encoding="utf-8").replace("The water is out.", "My own words.")
    post.write_text(edited, encoding="utf-8")
    again = import_wordpress(site, None, EXPORT, uploads=uploads)
    assert post.read_text(encoding="utf-8") == edited  # the user's edit is kept...
    assert again.kept == ["posts/low-tide/index.md"]  # ...and listed
    assert untouched.stat().st_mtime_ns == before  # an unchanged file is not rewritten
    assert again.files["new"] == again.files["updated"] == 0
    assert (site.root / MANIFEST).is_file()


def test_a_file_the_import_wrote_is_updated_when_the_export_changes(tmp_path: Path) -> None:
    site = empty_site(tmp_path / "site")
    import_wordpress(site, None, EXPORT)
    changed = tmp_path / "changed.xml"
    changed.write_text(
        EXPORT.read_text(encoding="utf-8").replace("The water is out.", "The water is back."),
        encoding="utf-8",
    )
    report = import_wordpress(site, None, changed)
    body = (site.content_dir / "posts/low-tide/index.md").read_text(encoding="utf-8")
    assert "The water is back." in body and report.files["updated"] == 1


def test_dry_run_writes_nothing(tmp_path: Path) -> None:
    site = empty_site(tmp_path / "site")
    code, out = invoke("import", "wordpress", site.root, EXPORT, "--dry-run")
    assert "dry run" in out and "3 posts" in out
    assert code == 1  # the images are missing (no --uploads): listed
    assert list(site.content_dir.iterdir()) == [] and not (site.root / MANIFEST).exists()


def test_the_command_imports_and_reports(tmp_path: Path) -> None:
    site = empty_site(tmp_path / "site")
    uploads = wordpress_uploads(tmp_path / "up")
    code, out = invoke("import", "wordpress", site.root, EXPORT, "--uploads", uploads)
    assert "3 posts, 1 scheduled posts, 2 drafts, 2 pages, 5 images" in out, out
    assert "3 comments read" in out and code == 1  # lost.jpg
    conn = sqlite3.connect(site.database_path)
    assert conn.execute("SELECT count(*) FROM comments").fetchone()[0] == 3
    conn.close()


def test_a_broken_export_is_refused_with_its_line(tmp_path: Path) -> None:
    site = empty_site(tmp_path / "site")
    bad = tmp_path / "bad.xml"
    bad.write_text("<rss><channel><item><title>x</item></channel></rss>", encoding="utf-8")
    code, out = invoke("import", "wordpress", site.root, bad)
    assert code == 2 and "not well-formed XML at line 1" in out
    assert list(site.content_dir.iterdir()) == []


@pytest.mark.server
def test_old_urls_over_a_real_server(imported: tuple[Site, Any]) -> None:
    """The same promise from `masthead serve` (granian's or uvicorn's HTTP, not a test client):
    every old URL of the export answers 301, and where it points answers 200."""
    site, _ = imported
    with (
        cli_server(str(site.root), "--no-watch") as url,
        httpx.Client(base_url=url, timeout=CEILING) as http,
    ):
        for old in ("/?p=101", "/2021/03/hello-blocks/", "/?page_id=3", "/about/team/"):
            r = http.get(old)
            assert r.status_code == 301, old
            assert http.get(r.headers["location"]).status_code == 200, old


def test_a_static_build_leaves_query_aliases_out(
    imported: tuple[Site, Any], tmp_path: Path
) -> None:
    """A static host cannot tell `/?p=101` from `/`: `build` writes the path aliases only."""
    site, _ = imported
    out = tmp_path / "public"
    build(site, out)
    redirects = (out / "_redirects").read_text(encoding="utf-8")
    assert "/2021/03/hello-blocks/ /posts/hello-blocks/ 301" in redirects
    assert "?p=" not in redirects and "?page_id=" not in redirects
    assert not [p for p in out.rglob("*") if "?" in p.name or "%3F" in p.name]


def test_worker_processes_write_the_same_files(tmp_path: Path) -> None:
    """A large export's bodies are converted in a pool: the same bytes as in one process."""
    uploads = wordpress_uploads(tmp_path / "up")
    sites = [empty_site(tmp_path / f"site{n}") for n in (1, 2)]
    reports = [
        import_wordpress(site, None, EXPORT, uploads=uploads, workers=n)
        for n, site in zip((1, 2), sites, strict=True)
    ]

    def files(site: Site) -> dict[str, bytes]:
        root = site.content_dir
        return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}

    assert files(sites[0]) == files(sites[1]) and len(files(sites[0])) == 13
    assert reports[0].lines() == reports[1].lines()


HOSTILE = """<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"
 xmlns:wp="http://wordpress.org/export/1.2/"><channel><link>https://old.example</link>
<item><title><![CDATA[title: "quoted" --- {{< x >}}]]></title>
<link>https://old.example/evil/</link>
<content:encoded><![CDATA[<p>Hi<script>alert("s")</script>
<a href="javascript:alert('a')">click</a> <img src=x onerror="alert('i')"></p>
[caption]<img src="https://old.example/wp-content/uploads/p.png"> a >}} <b onclick=x>b</b>[/caption]
<iframe src="javascript:alert('f')"></iframe>]]></content:encoded>
<wp:post_id>7</wp:post_id><wp:post_date_gmt>2020-01-01 00:00:00</wp:post_date_gmt>
<wp:post_name>evil</wp:post_name><wp:status>publish</wp:status><wp:post_type>post</wp:post_type>
</item><item><title>Out</title><wp:post_id>8</wp:post_id><wp:post_name>../../../out</wp:post_name>
<wp:post_date_gmt>2020-01-01 00:00:00</wp:post_date_gmt><wp:status>publish</wp:status>
</item></channel></rss>"""


def test_a_hostile_export_serves_no_script(tmp_path: Path, serve) -> None:  # type: ignore[no-untyped-def]
    """An export is someone else's HTML: its scripts, event handlers and `javascript:` links
    never reach the page, and a title or caption cannot break the front matter or a figure."""
    site = empty_site(tmp_path / "site")
    export = tmp_path / "evil.xml"
    export.write_text(HOSTILE, encoding="utf-8")
    import_wordpress(site, None, export)
    meta, _ = front(site, "posts/evil/index.md")
    assert meta["title"] == 'title: "quoted" --- {{< x >}}'
    assert (site.content_dir / "posts/out/index.md").is_file()  # a slug cannot climb out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["evil.xml", "site"]
    page = serve(site).get("/posts/evil/")
    assert page.status_code == 200
    article = page.text.split("<article", 1)[1].split("</article>", 1)[0]
    for bad in ("<script", "javascript:", "onerror", "onclick", "alert("):
        assert bad not in article, bad
    assert "<figcaption>a &gt; }} b</figcaption>" in article  # the caption, as text
    assert "click" in article


ODD = """<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"
 xmlns:wp="http://wordpress.org/export/1.2/"><channel><link>https://old.example</link>
<item><title>Locked</title><content:encoded>Secret.</content:encoded><wp:post_id>1</wp:post_id>
<wp:post_date_gmt>2020-01-01 00:00:00</wp:post_date_gmt><wp:post_name>locked</wp:post_name>
<wp:status>publish</wp:status><wp:post_type>post</wp:post_type>
<wp:post_password>hunter2</wp:post_password></item>
<item><title>Odd</title><content:encoded>Odd.</content:encoded><wp:post_id>2</wp:post_id>
<wp:post_date_gmt>2020-01-02 00:00:00</wp:post_date_gmt><wp:post_name>odd</wp:post_name>
<wp:status>archived</wp:status><wp:post_type>post</wp:post_type>
<category domain="language" nicename="fr">Français</category></item>
</channel></rss>"""


def test_protected_odd_and_foreign_items_are_drafts_with_a_warning(tmp_path: Path) -> None:
    site = empty_site(tmp_path / "site")
    export = tmp_path / "odd.xml"
    export.write_text(ODD, encoding="utf-8")
    report = import_wordpress(site, None, export)
    assert front(site, "posts/locked/index.md")[0]["draft"] is True
    assert front(site, "posts/odd/index.md")[0]["draft"] is True
    assert report.warnings == [
        ("post 1", "password-protected: imported as a draft"),
        ("post 2", "status 'archived': imported as a draft"),
        ("language fr", "not in masthead.toml: add [languages.fr]"),
    ]


DEEP = """<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"
 xmlns:wp="http://wordpress.org/export/1.2/"><channel><link>https://old.example</link>
<item><title>Deep</title><content:encoded><![CDATA[<p>```not a fence````</p>
{open}deep{close}]]></content:encoded><wp:post_id>1</wp:post_id>
<wp:post_date_gmt>2020-01-01 00:00:00</wp:post_date_gmt><wp:post_name>deep</wp:post_name>
<wp:status>publish</wp:status><wp:post_type>post</wp:post_type></item>
<item><title>Plain</title><content:encoded><![CDATA[<p>Just <em>fine</em>.</p>]]>
</content:encoded><wp:post_id>2</wp:post_id><wp:post_date_gmt>2020-01-02 00:00:00
</wp:post_date_gmt><wp:post_name>plain</wp:post_name><wp:status>publish</wp:status>
<wp:post_type>post</wp:post_type></item>
</channel></rss>""".format(open="<div>" * 3000, close="</div>" * 3000)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_body_the_converter_fails_on_is_kept_as_html_in_a_draft(
    tmp_path: Path, workers: int
) -> None:
    """HTML nested deeper than the converter can follow (it recurses) stops neither the import
    nor its worker pool: that post is a draft holding its HTML in a code block, with a
    warning naming it, and the next post is imported as usual."""
    site = empty_site(tmp_path / "site")
    export = tmp_path / "deep.xml"
    export.write_text(DEEP, encoding="utf-8")
    report = import_wordpress(site, None, export, workers=workers)
    assert report.warnings == [
        ("post 1", "body not converted (nested too deep): kept as HTML in a draft")
    ]
    meta, body = front(site, "posts/deep/index.md")
    assert meta["draft"] is True and meta["title"] == "Deep"
    assert body.startswith("\n`````html\n<p>```not a fence````</p>\n<div><div>")
    assert body.count("<div>") == 3000 and body.endswith("</div>\n`````\n")
    meta, body = front(site, "posts/plain/index.md")
    assert "draft" not in meta and body == "\nJust *fine*.\n"
    assert report.counts["drafts"] == 1 and report.counts["posts"] == 1


def test_without_a_readable_manifest_no_changed_file_is_overwritten(tmp_path: Path) -> None:
    """A damaged manifest proves nothing: a file that differs is kept, as if edited."""
    site = empty_site(tmp_path / "site")
    import_wordpress(site, None, EXPORT)
    (site.root / MANIFEST).write_text("{not json", encoding="utf-8")
    changed = tmp_path / "changed.xml"
    changed.write_text(
        EXPORT.read_text(encoding="utf-8").replace("The water is out.", "The water is back."),
        encoding="utf-8",
    )
    report = import_wordpress(site, None, changed)
    assert report.kept == ["posts/low-tide/index.md"]
    assert "The water is out." in (site.content_dir / "posts/low-tide/index.md").read_text()


def test_threads_are_mapped_by_slug_through_an_index(imported: tuple[Site, Any]) -> None:
    """Each thread of an export is looked up by its slug: with 10,000 posts a full scan per
    thread took minutes (migration 12, `posts_slug`)."""
    site, _ = imported
    conn = sqlite3.connect(site.database_path)
    plan = conn.execute(
        "EXPLAIN QUERY PLAN SELECT id FROM posts p WHERE p.slug = 'x' AND p.shadowed = 0"
    ).fetchall()
    conn.close()
    assert any("USING INDEX posts_slug" in row[-1] for row in plan), plan
