"""The statements every page of a build runs read an index, not every post (issue 31, item 3).

Without `sqlite_stat1` SQLite picks an index by the number of terms it matches: `posts_due`
(draft, date_ts) matched the `draft = 0 AND date_ts <= :now` of every published-post query,
and a post's lookup by URL, its hreflang set and each list page then read every post row (9 ms
a call at 5,000 posts, three calls a post: its page and its two comment feeds). The plans are
read here with `EXPLAIN QUERY PLAN` on the SQL the store functions run, values bound.
"""

from __future__ import annotations

import time

from masthead.store import posts as posts_store
from masthead.store import seo as seo_store
from masthead.store.db import Database

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
