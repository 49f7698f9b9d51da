"""The SQLite index: migrations, incremental indexing, last good versions, restarts."""

from __future__ import annotations

import os
import sqlite3

import pytest

from masthead.indexing.indexer import index_site
from masthead.store import posts as store
from masthead.store.db import Database, migrate
from masthead.store.migrations import MIGRATIONS

from support.sites import BILINGUAL_TOML, post


def test_migrations_from_an_empty_file(tmp_path):
    conn = sqlite3.connect(tmp_path / "x.db", isolation_level=None)
    assert migrate(conn) == len(MIGRATIONS)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    assert migrate(conn) == len(MIGRATIONS)  # idempotent
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"posts", "post_terms", "aliases", "sources", "content_issues"} <= tables


def test_a_posts_aliases_are_found_by_its_id(make_site):
    """Writing a post again deletes its aliases, and deleting a post cascades to them: both by
    an index on the post id, never by reading every alias of the site (migration 17)."""
    site = make_site(
        {
            "posts/a.md": "---\ntitle: A\ndate: 2024-03-01\naliases: [/old/a/, /?p=1]\n---\n\nA.\n",
            "posts/b.md": "---\ntitle: B\ndate: 2024-03-02\naliases: [/old/b/]\n---\n\nB.\n",
        }
    )
    db = Database(site.database_path)
    try:
        index_site(site, db)
        conn = db.read()
        assert conn.execute("SELECT count(*) FROM aliases").fetchone()[0] == 3
        sql = "EXPLAIN QUERY PLAN DELETE FROM aliases WHERE post_id = 1"
        plan = " | ".join(r[3] for r in conn.execute(sql))
        assert "aliases_post" in plan and "SCAN aliases" not in plan, plan
        (site.content_dir / "posts/a.md").unlink()
        index_site(site, db)
        rows = db.read().execute("SELECT path FROM aliases ORDER BY path").fetchall()
        assert [r[0] for r in rows] == ["/old/b/"]
    finally:
        db.close()


def test_wal_and_foreign_keys(tmp_path, make_site):
    db = Database(tmp_path / "db" / "site.db")
    assert db.read().execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.read().execute("PRAGMA foreign_keys").fetchone()[0] == 1
    db.close()


def test_restart_reuses_the_index(make_site):
    site = make_site({f"posts/p{i}.md": post(f"P{i}", "2024-03-01") for i in range(4)})
    db = Database(site.database_path)
    assert index_site(site, db).parsed == 4
    gen = store.generation(db.read())
    db.close()
    db = Database(site.database_path)
    again = index_site(site, db)
    assert (again.parsed, again.unchanged) == (0, 4)
    assert store.generation(db.read()) == gen, "no change, no new generation"
    # a touched but unchanged file is recognised by its hash, not parsed again
    path = site.content_dir / "posts/p0.md"
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    touched = index_site(site, db)
    assert (touched.parsed, touched.unchanged) == (0, 4)
    db.close()


def test_last_good_version_stays_across_full_rebuilds(make_site):
    site = make_site({"posts/a.md": post("Good title", "2024-03-01", body="Old text.\n")})
    db = Database(site.database_path)
    index_site(site, db)
    path = site.content_dir / "posts/a.md"
    path.write_text("---\ntitle: [Draft] broken\ndate: 2024-03-01\n---\nNew text.\n")
    report = index_site(site, db)
    assert len(report.errors) == 1 and report.errors[0].line == 2
    rows, total = store.list_posts(db.read(), lang="en", now=2e9, limit=10)
    assert total == 1 and rows[0].title == "Good title"
    index_site(site, db, full=True)
    rows, _ = store.list_posts(db.read(), lang="en", now=2e9, limit=10)
    assert rows[0].title == "Good title"
    assert [i.severity for i in store.issues(db.read())] == ["error"]
    path.write_text(post("Fixed title", "2024-03-01"))
    index_site(site, db)
    rows, _ = store.list_posts(db.read(), lang="en", now=2e9, limit=10)
    assert rows[0].title == "Fixed title" and store.issues(db.read()) == []
    path.unlink()
    index_site(site, db)
    assert store.list_posts(db.read(), lang="en", now=2e9, limit=10)[1] == 0
    db.close()


def test_translations_by_suffix_folder_and_key(make_site):
    toml_folders = """
default_language = "en"
[languages.en]
name = "English"
folder = "en"
[languages.zh]
name = "中文"
prefix = "zh"
folder = "zh-cn"
"""
    site = make_site(
        {
            "en/a.md": post("A", "2024-03-01"),
            "zh-cn/a.md": post("甲", "2024-03-01"),
            "en/b.md": post("B", "2024-03-01", translationKey="shared"),
            "zh-cn/other-name.md": post("乙", "2024-03-01", translationKey="shared"),
            "en/c.md": post("C", "2024-03-01", lang="zh-CN"),
        },
        toml_folders,
    )
    db = Database(site.database_path)
    index_site(site, db)
    conn = db.read()
    a = store.post_by_url(conn, "/posts/a/", 2e9)
    assert [t.url for t in store.translations(conn, a, 2e9)] == ["/zh/posts/a/"]
    b = store.post_by_url(conn, "/posts/b/", 2e9)
    assert [t.url for t in store.translations(conn, b, 2e9)] == ["/zh/posts/other-name/"]
    assert store.post_by_url(conn, "/zh/posts/c/", 2e9) is not None, "front matter lang wins"
    db.close()


# --- migration 3: URL history (issue 9, item 8) -------------------------------------------


def _database_at(path, version: int) -> sqlite3.Connection:  # type: ignore[no-untyped-def]
    """A database file at schema `version`, as that release left it."""
    conn = sqlite3.connect(path, isolation_level=None)
    for statements in MIGRATIONS[:version]:
        for sql in statements:
            conn.execute(sql)
    conn.execute(f"PRAGMA user_version = {version}")
    return conn


def _old_post(conn: sqlite3.Connection, source: str, url: str, shadowed: int = 0) -> None:
    """A posts row as releases 1 and 2 wrote it."""
    conn.execute(
        "INSERT INTO posts (source, kind, lang, slug, url, title, date, date_ts, authors, "
        "excerpt, cover, draft, noindex, comments, show_toc, canonical, translation_key, html, "
        "toc_html, body_text, word_count, reading_minutes, extra, shadowed) VALUES "
        "(:s, 'post', 'en', 'x', :u, 'T', '2024-05-02T00:00:00+00:00', 1714608000, '[]', '', "
        "'', 0, 0, 1, 1, '', :k, '', '', '', 1, 1, '{}', :sh)",
        {"s": source, "u": url, "k": "p:" + source, "sh": shadowed},
    )


def test_migration_3_from_every_earlier_version_keeps_the_urls_posts_had(tmp_path):
    for version in range(3):  # the versions before migration 3
        path = tmp_path / f"v{version}.db"
        conn = _database_at(path, version)
        if version >= 1:
            _old_post(conn, "content/posts/a.md", "/posts/a/")
            _old_post(conn, "content/posts/b.md", "/posts/a/", shadowed=1)
        assert migrate(conn) == len(MIGRATIONS)
        rows = conn.execute("SELECT url, source FROM url_history").fetchall()
        assert rows == ([("/posts/a/", "content/posts/a.md")] if version >= 1 else []), version
        conn.close()


def test_a_site_indexed_by_release_2_redirects_its_old_urls_after_a_new_pattern(make_site, serve):
    site = make_site({"posts/2024-05-02-a.md": post("A", "2024-05-02")})
    site.database_path.parent.mkdir(parents=True)
    conn = _database_at(site.database_path, 2)
    _old_post(conn, "content/posts/2024-05-02-a.md", "/posts/a/")
    conn.close()
    (site.root / "masthead.toml").write_text(
        BILINGUAL_TOML + '\n[permalinks]\nposts = "/:year/:month/:slugorcontentbasename/"\n'
    )
    from masthead.config import load_site

    client = serve(load_site(site.root))
    r = client.get("/posts/a/")
    assert (r.status_code, r.headers["location"]) == (301, "/2024/05/a/")
    assert client.get("/2024/05/a/").status_code == 200


def test_a_full_disk_raises_sqlite_full_and_the_writer_recovers(tmp_path):
    db = Database(tmp_path / "site.db")
    # SQLite's page limit on the writer connection gives the real SQLITE_FULL ("database or
    # disk is full") a full disk gives; SQLite has then already rolled the transaction back
    with db.write() as conn:
        conn.execute("CREATE TABLE filler(x)")
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(sqlite3.OperationalError) as caught, db.write() as conn:
        conn.execute("INSERT INTO filler VALUES (randomblob(200000))")
    assert caught.value.sqlite_errorname == "SQLITE_FULL", caught.value  # not "cannot rollback"
    with db.write() as conn:  # space is back: the same connection writes again
        conn.execute("PRAGMA max_page_count = 1073741823")
        conn.execute("INSERT INTO filler VALUES (randomblob(200000))")
    assert db.read().execute("SELECT COUNT(*) FROM filler").fetchone()[0] == 1
    db.close()


def test_an_error_in_the_block_rolls_back_and_is_the_one_raised(tmp_path):
    db = Database(tmp_path / "site.db")
    with pytest.raises(ZeroDivisionError), db.write() as conn:
        conn.execute("CREATE TABLE t(x)")
        1 / 0  # noqa: B018
    assert db.read().execute("SELECT name FROM sqlite_master WHERE name = 't'").fetchone() is None
    db.close()


def test_a_failed_commit_is_rolled_back_and_the_writer_stays_usable(tmp_path):
    db = Database(tmp_path / "site.db")
    with db.write() as conn:
        conn.execute("CREATE TABLE parent(id INTEGER PRIMARY KEY)")
        conn.execute("CREATE TABLE child(parent INTEGER REFERENCES parent(id))")
    # a deferred foreign-key check fails the COMMIT itself, leaving the transaction open
    with pytest.raises(sqlite3.IntegrityError), db.write() as conn:
        conn.execute("PRAGMA defer_foreign_keys = ON")
        conn.execute("INSERT INTO child VALUES (42)")
    with db.write() as conn:  # not "cannot start a transaction within a transaction"
        conn.execute("INSERT INTO parent VALUES (1)")
    assert db.read().execute("SELECT COUNT(*) FROM child").fetchone()[0] == 0
    db.close()
