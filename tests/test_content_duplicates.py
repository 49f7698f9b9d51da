"""Two content files with one URL (a duplicate slug): the post that holds the URL keeps it across
edits, full re-indexes and restarts, whatever the dates; the older by date only on a site's first
index. The real indexer on a real SQLite file in tmp."""

from __future__ import annotations

from masthead.indexing.check import check_site
from masthead.indexing.indexer import index_site
from masthead.store.db import Database

from support.sites import post


def _holder(site, full: bool = False) -> tuple[str, list[str]]:  # type: ignore[no-untyped-def]
    """Index; return the file shown at /posts/x/ and the files with a duplicate-slug error."""
    db = Database(site.database_path)
    try:
        index_site(site, db, full=full)
        conn = db.read()
        row = conn.execute("SELECT source FROM posts WHERE url = '/posts/x/' AND shadowed = 0")
        blamed = conn.execute(
            "SELECT path FROM content_issues WHERE code = 'duplicate-slug' ORDER BY path"
        )
        return row.fetchone()[0], [r[0] for r in blamed]
    finally:
        db.close()


def test_the_post_that_holds_a_url_keeps_it_whatever_the_dates(make_site):
    site = make_site({"posts/a.md": post("A", "2024-06-01", slug="x")})
    assert _holder(site) == ("content/posts/a.md", [])
    b = site.content_dir / "posts/b.md"
    b.write_text(post("B", "2020-01-01", slug="x"), encoding="utf-8")  # older, added later
    assert _holder(site) == ("content/posts/a.md", ["content/posts/b.md"])
    b.write_text(post("B", "2019-01-01", body="Edited.", slug="x"), encoding="utf-8")
    assert _holder(site) == ("content/posts/a.md", ["content/posts/b.md"])
    assert _holder(site, full=True) == ("content/posts/a.md", ["content/posts/b.md"])
    blamed = [i for i in check_site(site) if "duplicate slug" in i.reason]
    assert [(i.path, i.severity) for i in blamed] == [("content/posts/b.md", "error")]
    assert "already belongs to content/posts/a.md" in blamed[0].reason

    a = site.content_dir / "posts/a.md"
    kept = a.read_bytes()
    a.unlink()  # the holder goes: the other post takes the URL, and then holds it
    assert _holder(site) == ("content/posts/b.md", [])
    a.write_bytes(kept)
    assert _holder(site) == ("content/posts/b.md", ["content/posts/a.md"])


def test_on_a_first_index_the_older_post_keeps_the_url(make_site):
    site = make_site(
        {
            "posts/a.md": post("A", "2024-06-01", slug="x"),
            "posts/b.md": post("B", "2020-01-01", slug="x"),
        }
    )
    blamed = [i.path for i in check_site(site) if "duplicate slug" in i.reason]
    assert blamed == ["content/posts/a.md"]  # no index yet: the date rule, as the index does
    assert _holder(site) == ("content/posts/b.md", ["content/posts/a.md"])
