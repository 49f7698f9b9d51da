"""Issue 34 item 3: what a saved post costs does not grow with the site. The watcher's batch
for one saved file and the re-render of its page read that post and its neighbours through
indexes, never every post: at 50,000 posts one pass over the posts table (whose rows hold the
bodies) took longer than everything else between a save and the page showing it. Checked on
the plans SQLite makes for every statement run, on a real site, database, watcher and app."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from masthead.config import Site
from masthead.content import translations
from masthead.indexing.watcher import Watcher
from masthead.store import translations as translation_store
from masthead.store.db import Database
from masthead.web.app import create_app

from support.sites import post
from support.sql import trace_statements

ORIGINAL = "First paragraph.\n\nSecond paragraph.\n"
# a plan step that walks the posts table (`posts`, or `p` as the queries alias it), or one of
# its indexes from end to end (SQLite says SEARCH, with no constraint, for a MIN over one); but
# for the index of content file paths alone, which a link to a file by its name
# (`../posts/p02`) is looked up in, once per index generation; or a range over every post
# published by now (`date_ts<?`), which is every post
WALK = re.compile(
    r"^SCAN (posts|p)\b(?! USING COVERING INDEX sqlite_autoindex_posts_1$)"
    r"|^SEARCH (posts|p) USING (COVERING )?INDEX \w+$"
    r"|^SEARCH (posts|p) USING (COVERING )?INDEX \w+ \((draft=\? AND )?date_ts<\?\)$"
)


@pytest.fixture
def statements(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every SQL statement run on any connection the Database opens from now on."""
    return trace_statements(monkeypatch)


def walks(db_path: Path, run: list[str]) -> list[str]:
    """The statements of `run` whose plan walks every post, each with its plan."""
    conn = sqlite3.connect(db_path)
    found = []
    try:
        for sql in run:
            if not re.match(r"\s*(SELECT|INSERT|UPDATE|DELETE|WITH|REPLACE)\b", sql, re.I):
                continue
            plan = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql)]
            if any(WALK.match(step) for step in plan):
                found.append(f"{sql}\n  {plan}")
    finally:
        conn.close()
    return found


@pytest.fixture
def site(make_site: Callable[..., Site]) -> Site:
    """Posts linking to each other by file (resolved when a page renders), and an original
    with a translation that names its body (kept by the index when the original changes)."""
    files = {
        f"posts/p{i:02d}.md": post(f"P {i}", f"2024-02-{i + 1:02d}", tags="[harbour, ships]")
        for i in range(20)
    }
    files["posts/harbour.md"] = post(
        "Harbour",
        "2024-03-01",
        tags="[harbour]",
        body=ORIGINAL + "\nSee [a file](p01.md), [a folder](../posts/p02) and [far](p03.md).\n",
    )
    digest = translations.body_hash(ORIGINAL)
    files["posts/lighthouse.md"] = post("Lighthouse", "2024-03-02", body=ORIGINAL)
    files["posts/lighthouse.zh.md"] = post(
        "灯塔", "2024-03-03", body="第一段。\n", translation_of=digest
    )
    return make_site(files)


def test_a_saved_post_and_its_page_read_no_other_post(site: Site, statements: list[str]) -> None:
    app = create_app(site)
    with TestClient(app) as client:
        first = client.get("/posts/harbour/")
        assert first.status_code == 200 and 'href="/posts/p01/"' in first.text
        db = Database(site.database_path)
        try:
            watcher = Watcher(site, db)
            for rel, text in (
                ("posts/harbour.md", "Harbour, saved again."),
                ("posts/lighthouse.md", "The original, edited."),
            ):
                path = site.content_dir / rel
                path.write_text(path.read_text(encoding="utf-8") + f"\n{text}\n", "utf-8")
                del statements[:]
                assert watcher.apply({(2, str(path))}) == {"content"}
                batch = list(statements)
                assert not walks(site.database_path, batch), walks(site.database_path, batch)
            del statements[:]
            page = client.get("/posts/harbour/")
            render = list(statements)
        finally:
            db.close()
    assert "Harbour, saved again." in page.text
    # the links to files still lead to their posts' permalinks
    for target in ('href="/posts/p01/"', 'href="/posts/p02/"', 'href="/posts/p03/"'):
        assert target in page.text, target
    assert render, "the page was rendered again"
    assert not walks(site.database_path, render), walks(site.database_path, render)
    # the original's edit kept the body its translation names (and its new body)
    check = Database(site.database_path)
    try:
        conn = check.read()
        assert translation_store.body(conn, translations.body_hash(ORIGINAL)) is not None
        edited = translations.body_hash(ORIGINAL + "\nThe original, edited.\n")
        assert translation_store.body(conn, edited) is not None
    finally:
        check.close()


# a plan step that reads rows of the posts table (with their bodies), not an index alone
ROWS = re.compile(r"^(SCAN|SEARCH) (posts|p)\b(?!.* USING COVERING INDEX )")


def test_the_search_catalog_reads_indexes_only_and_shares_its_values(
    site: Site, statements: list[str]
) -> None:
    """Each worker builds the search catalog of every searchable post once per index
    generation: its statements read `posts_facts` (migration 18), never a posts row (at 50,000
    posts 1 GB of bodies for 2 MB of values), and what many posts have alike (the author text,
    the facet numbers) is one object, not one per post (about 120 MiB a worker at 50,000)."""
    app = create_app(site)
    del statements[:]
    catalog = app.state.search.catalog()
    run = list(statements)
    conn = sqlite3.connect(site.database_path)
    try:
        plans = {sql: [r[3] for r in conn.execute("EXPLAIN QUERY PLAN " + sql)] for sql in run
                 if re.match(r"\s*SELECT\b", sql, re.I)}  # fmt: skip
    finally:
        conn.close()
    assert any("post_terms" in sql for sql in plans), "the terms were read"
    rows = {sql: plan for sql, plan in plans.items() if any(ROWS.match(s) for s in plan)}
    assert not rows, rows
    ids = sorted(catalog.authors)
    assert len(ids) == 23  # the 20 posts, the harbour, the lighthouse and its translation
    assert len({id(catalog.authors[i]) for i in ids}) == 1  # no author: one text for all
    # the 20 posts tagged alike (English, harbour, ships): one tuple of facet numbers
    alike = [catalog.facet_keys[i] for i in ids if len(catalog.facet_keys[i]) == 3]
    assert len(alike) == 20 and len(set(alike)) == 1 and len({id(k) for k in alike}) == 1
