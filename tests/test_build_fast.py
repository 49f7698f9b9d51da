"""A cold build's costs (issue 31, item 3): what each page reads, how files are fetched, and
the processes that render.

The statements every page of a build runs read an index, not every post. Without
`sqlite_stat1` SQLite picks an index by the number of terms it matches: `posts_due` (draft,
date_ts) matched the `draft = 0 AND date_ts <= :now` of every published-post query, and a
post's lookup by URL, its hreflang set and each list page then read every post row (9 ms a call
at 5,000 posts, three calls a post: its page and its two comment feeds). The plans are read here
with `EXPLAIN QUERY PLAN` on the SQL the store functions run, values bound.

A build reads the files of the app's file mounts (static and media files, share cards,
thumbnails) by the mount's own lookup, not through the ASGI app. (`masthead build` renders in one
process per core unless `--jobs` says otherwise, and writes what one process writes:
tests/test_export.py.)
"""

from __future__ import annotations

import asyncio
import os
import time

from starlette.testclient import TestClient

from masthead.config import load_site
from masthead.export.build import _Fixed, _open, build
from masthead.store import posts as posts_store
from masthead.store import seo as seo_store
from masthead.store.db import Database
from masthead.web.app import create_app

from support.sites import post, write_site

TOML = """
title = "Plans"
base_url = "https://plans.example"
posts_per_page = 2

[languages.en]
name = "English"

[languages.zh]
name = "中文"
prefix = "zh"
"""


def _plans(tmp_path):
    files = {
        f"posts/n{i:02d}.md": post(f"N {i}", f"2024-02-{i % 28 + 1:02d}", tags="[a, b]")
        for i in range(30)
    }
    files["posts/n00.zh.md"] = post("中", "2024-02-01", tags="[a]")
    site = write_site(tmp_path / "site", files, TOML)
    from masthead.indexing.indexer import index_site

    db = Database(site.database_path)
    index_site(site, db)
    return db


def _traced(conn, call):
    """The result of `call()` and the plan (steps joined by " | ") of each statement it ran."""
    seen: list[str] = []
    conn.set_trace_callback(seen.append)  # the SQL with its values bound
    try:
        result = call()
    finally:
        conn.set_trace_callback(None)
    plans = [" | ".join(r[3] for r in conn.execute("EXPLAIN QUERY PLAN " + sql)) for sql in seen]
    return result, plans


def test_a_post_by_url_and_its_hreflang_set_read_their_own_indexes(tmp_path):
    db = _plans(tmp_path)
    try:
        conn, now = db.read(), time.time()
        row, plans = _traced(conn, lambda: posts_store.post_by_url(conn, "/posts/n00/", now))
        assert row is not None and row.title == "N 0"
        assert plans == ["SEARCH posts USING INDEX posts_url (url=?)"], plans
        preview, plans = _traced(conn, lambda: posts_store.preview_by_url(conn, "/posts/n00/"))
        assert preview is not None and preview.id == row.id
        assert plans[0].startswith("SEARCH posts USING INDEX posts_url (url=?)"), plans
        versions, plans = _traced(
            conn, lambda: seo_store.hreflang_versions(conn, row.translation_key, "post", now)
        )
        assert versions == {"en": "/posts/n00/", "zh": "/zh/posts/n00/"}
        assert plans[0].startswith("SEARCH posts USING INDEX posts_translation"), plans
    finally:
        db.close()


def test_a_list_page_reads_only_the_rows_it_shows(tmp_path):
    """A deep page of a listing finds its posts' ids in an index (a term's from the covering
    `posts_facts`), then reads those rows by id: not every row the OFFSET skips."""
    db = _plans(tmp_path)
    try:
        conn, now = db.read(), time.time()
        whole, _ = _traced(conn, lambda: posts_store.list_posts(conn, lang="en", now=now, limit=99))
        rows, total = whole
        assert total == 30 and len(rows) == 30
        order = [r.url for r in rows]
        assert order == sorted(order, key=lambda u: -next(r.date_ts for r in rows if r.url == u))
        for taxonomy, key in ((None, None), ("tags", "a")):
            pages = []
            for n in range(15):
                (got, count), plans = _traced(
                    conn,
                    lambda n=n, taxonomy=taxonomy, key=key: posts_store.list_posts(
                        conn, lang="en", now=now, limit=2, offset=2 * n, taxonomy=taxonomy, key=key
                    ),
                )
                assert count == 30
                pages += [r.url for r in got]
                steps = plans[-1].split(" | ")
                assert steps[0] == "SEARCH posts USING INTEGER PRIMARY KEY (rowid=?)", plans
                inner = "posts_facts" if taxonomy else "posts_list"
                assert any(inner in s for s in steps), plans
                if taxonomy:
                    assert any(
                        s.startswith(f"SEARCH posts USING COVERING INDEX {inner}") for s in steps
                    )
            assert pages == order  # the pages, one after another, are the whole list in order
    finally:
        db.close()


def test_a_build_reads_a_lists_ids_once_and_shows_each_page_as_the_server_does(tmp_path):
    """In a build every page of a listing is a slice of the list's ids, read once per version
    (`ListPages.listed`): the same rows, in the same order, with the same total, as the
    server's `list_posts` for each page of the home listing and of a term; the ids come from
    the index the pages use, and each page's rows by their ids."""
    db = _plans(tmp_path)
    try:
        conn, now = db.read(), time.time()
        for lang, taxonomy, key in (("en", None, None), ("en", "tags", "a"), ("zh", "tags", "a")):
            ids, plans = _traced(
                conn,
                lambda lang=lang, taxonomy=taxonomy, key=key: posts_store.listed_ids(
                    conn, lang=lang, now=now, taxonomy=taxonomy, key=key
                ),
            )
            inner = "posts_facts" if taxonomy else "posts_list"
            assert any(inner in step for step in plans[0].split(" | ")), plans
            assert len(ids) == (30 if lang == "en" else 1)
            for offset in range(0, len(ids) + 2, 2):
                rows, total = posts_store.list_posts(
                    conn, lang=lang, now=now, limit=2, offset=offset, taxonomy=taxonomy, key=key
                )
                assert posts_store.summaries(conn, ids[offset : offset + 2]) == rows
                assert total == len(ids)
    finally:
        db.close()
    site = load_site(tmp_path / "site")  # the site `_plans` indexed
    pages = ["/", "/page/2/", "/page/15/", "/tags/a/", "/tags/a/page/7/", "/zh/tags/a/"]
    now = time.time()
    fetcher = _open(site, now)
    try:
        assert fetcher.state.bulk
        built = [asyncio.run(fetcher.get(url)) for url in pages]
        read: list[str] = []
        conn = fetcher.state.db.read()
        conn.set_trace_callback(read.append)
        again = asyncio.run(fetcher.get("/page/3/"))  # its list's ids are read: no count
        conn.set_trace_callback(None)
        assert again.status == 200
        assert read and not [sql for sql in read if "COUNT(" in sql or "OFFSET" in sql], read
    finally:
        fetcher.app.state.search.close()
        fetcher.state.db.close()
    served = create_app(site, index=False, clock=_Fixed(now), send_mail=False, export=True)
    assert not served.state.masthead.bulk  # the server's pages: `list_posts`, page by page
    with TestClient(served, base_url="https://plans.example") as client:
        for url, answer in zip(pages, built, strict=True):
            sent = client.get(url, headers={"Accept-Encoding": "identity"})
            assert (answer.status, answer.body) == (sent.status_code, sent.content), url
        served.state.search.close()


def test_files_of_the_mounts_are_read_directly_as_the_app_sends_them(tmp_path):
    """Cards, thumbnails, package and site static files and media: `Direct` answers them
    itself, with the bytes the app sends; what a mount refuses (a type `/cards/` does not
    serve, a hidden file) is left to the app, which refuses it."""
    files = {
        "posts/n00.md": post("N 0", "2024-02-01", tags="[a]"),
        "posts/n00/map.svg": '<svg xmlns="http://www.w3.org/2000/svg"/>',
        "posts/n00/.env": "SECRET=1",
    }
    site = write_site(tmp_path / "site", files, TOML)
    (site.root / "static").mkdir()
    (site.root / "static" / "robots-extra.txt").write_text("mine\n")
    report = build(site, tmp_path / "out")
    assert not report.missing
    cards = sorted((tmp_path / "out" / "cards").glob("*.png"))
    assert cards  # the post's share card, copied from the card folder
    folder = site.database_path.parent / "cards"
    (folder / "note.txt").write_text("not a card")
    fetcher = _open(site, time.time())
    try:
        with TestClient(fetcher.app, base_url="https://plans.example") as client:
            direct = [
                f"/cards/{cards[0].name}",
                "/static/css/site.css",
                "/static/robots-extra.txt",
                "/media/posts/n00/map.svg",
            ]
            for url in direct:
                answer = fetcher._direct(url, url)
                assert answer is not None and answer.status == 200, url
                sent = client.get(url, headers={"Accept-Encoding": "identity"})
                assert sent.status_code == 200 and sent.content == answer.body, url
            for url in ("/cards/note.txt", "/media/posts/n00/.env"):
                assert fetcher._direct(url, url) is None, url  # the app answers it
                answer = asyncio.run(fetcher.get(url))
                assert answer.status == 404, url
    finally:
        fetcher.app.state.search.close()
        fetcher.state.db.close()


def test_a_full_build_over_the_same_site_counts_the_kept_search_index_as_unchanged(tmp_path):
    """A full build (a static file touched) over an export of the same site: every file is
    unchanged, the search index's kept files among them (they were once left out of the
    count: `masthead build` printed fewer files than it has)."""
    site = write_site(tmp_path / "site", {"posts/a.md": post("A", "2024-02-01")}, TOML)
    (site.root / "static").mkdir()
    extra = site.root / "static" / "note.txt"
    extra.write_text("note\n")
    first = build(site, tmp_path / "out")
    assert any(rel.startswith("search-index/") for rel in first.changed)
    os.utime(extra, ns=(1, 1))  # the same bytes, another mtime: the fingerprint moves
    again = build(site, tmp_path / "out")
    assert again.fetched > 0  # rendered again, not a build with nothing changed
    assert (again.files, again.written, again.unchanged) == (first.files, 0, first.files)
