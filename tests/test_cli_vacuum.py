"""`masthead vacuum`: the database gives back the space of deleted posts (a fresh-user trial saw
38 MB stay for a 17-file site after a 9 MB post was removed, and every backup copy it), while the
site serves: the real CLI on a real SQLite file, the real app over HTTP before and after."""

from __future__ import annotations

from typer.testing import CliRunner

from masthead.cli import app
from masthead.indexing.indexer import index_site
from masthead.store.db import Database

from support.sites import post

runner = CliRunner()


def _size(path) -> int:  # type: ignore[no-untyped-def]
    wal = path.with_name(path.name + "-wal")
    return path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


def test_vacuum_gives_back_the_space_of_a_deleted_post_while_serving(make_site, serve):
    words = " ".join(f"word{i} zeta{i * 7}" for i in range(40_000))
    site = make_site(
        {
            "posts/small.md": post("Small", "2024-01-01", body="Small words.\n"),
            "posts/big.md": post("Big", "2024-01-02", body=words + "\n"),
        }
    )
    db = Database(site.database_path)
    try:
        index_site(site, db)
        (site.content_dir / "posts/big.md").unlink()
        index_site(site, db)
    finally:
        db.close()
    client = serve(site)  # serving, with its readers open, as a site is
    assert client.get("/posts/small/").status_code == 200
    before = _size(site.database_path)

    result = runner.invoke(app, ["vacuum", str(site.root)])
    assert result.exit_code == 0, result.output
    after = _size(site.database_path)
    assert after < before / 3, (before, after)
    assert f"{before:,} bytes" in result.output and f"{after:,} bytes" in result.output

    assert "Small words" in client.get("/posts/small/").text
    assert client.get("/posts/big/").status_code == 404
    hits = client.get("/api/search", params={"q": "small"}).json()["hits"]
    assert [h["url"] for h in hits] == ["/posts/small/"]
    (site.content_dir / "posts/new.md").write_text(post("Newer", "2024-01-03"), encoding="utf-8")
    db = Database(site.database_path)  # the index is written as before
    try:
        assert index_site(site, db).parsed == 1
    finally:
        db.close()
    assert client.get("/posts/new/").status_code == 200


def test_vacuum_without_a_database_is_one_line(make_site):
    site = make_site({"posts/a.md": post("A")})
    result = runner.invoke(app, ["vacuum", str(site.root)])
    assert result.exit_code == 2
    assert "no database yet" in result.output
    assert not site.database_path.exists()
