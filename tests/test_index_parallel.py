"""The parallel full index (issue 14, item 1): a process pool parses, the one writer commits.

A pool gives the same database as parsing in this process, a broken file parsed in a worker is
reported as it always was (file, line, reason) without stopping the others, the text comes from
the Markdown tokens with one line per block, and search snippets keep a visible separator between
a heading and the next paragraph (issue 13).
"""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess  # nosec B404: a fresh Python process, a fixed argument list
import sys
import threading
from pathlib import Path

import pytest

from masthead.config import load_site
from masthead.content import markdown
from masthead.content.post import parse_post
from masthead.content.text import prose_and_code
from masthead.indexing.indexer import _pool_context, index_site
from masthead.store.db import Database

from support.sites import BILINGUAL_TOML, post, write_site
from support.wait import CEILING

CASES = Path(__file__).parent / "data" / "cases"

BODY = """
## Architectural Overview {{#overview}}

At the heart of post {n} sits a scheduler
that wakes up every minute[^1].

- first item
- second *item*

| a | b |
|---|---|
| c{n} | d |

```python
print({n})
```

[^1]: A footnote.
"""

ZH_BODY = "## 调度器\n\n调度器会优先处理第{n}个节点上的任务。\n"

# every table a full index writes, in a stable order (ids included: the same order of writes)
TABLES = {
    "posts": "SELECT * FROM posts ORDER BY id",
    "post_terms": "SELECT * FROM post_terms ORDER BY post_id, taxonomy, position",
    "aliases": "SELECT * FROM aliases ORDER BY path",
    "sources": "SELECT path, size, mtime_ns, sha256, status FROM sources ORDER BY path",
    "content_issues": "SELECT path, line, severity, code, reason FROM content_issues "
    "ORDER BY path, line, code",
    "search_docs": "SELECT * FROM search_docs ORDER BY post_id",
    "search_vocab": "SELECT * FROM search_vocab ORDER BY term",
    "url_history": "SELECT * FROM url_history ORDER BY url",
}


def corpus() -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {}
    for n in range(40):
        meta = {"tags": f"[harbor, tag{n % 5}]", "categories": "[Ops]"}
        files[f"posts/p{n:02d}.md"] = post(f"Post {n}", f"2024-03-{n % 28 + 1:02d}",
                                           body=BODY.format(n=n), **meta)  # fmt: skip
        if n % 4 == 0:
            files[f"posts/p{n:02d}.zh.md"] = post(f"文章 {n}", body=ZH_BODY.format(n=n))
    files["posts/raw.md"] = post("Raw", body="Before <kbd>Ctrl</kbd>.\n\n<div>Hidden text.</div>\n")
    files["posts/same-slug.md"] = post("Same", "2024-05-01", slug="p01")  # a duplicate URL
    for name in ("a-tab-indent.md", "b-colon-in-title.md", "e-gbk-encoded.md"):
        files[f"posts/{name}"] = (CASES / "C10-broken-files" / name).read_bytes()
    return files


def dump(path: Path) -> dict[str, list[tuple]]:
    conn = sqlite3.connect(path)
    try:
        return {name: conn.execute(sql).fetchall() for name, sql in TABLES.items()}
    finally:
        conn.close()


def test_parallel_full_index_equals_serial(tmp_path: Path) -> None:
    root = tmp_path / "site"
    write_site(root, corpus(), BILINGUAL_TOML)
    reports, dumps = {}, {}
    for workers in (1, 2):
        site = load_site(root, {"database": str(tmp_path / f"db{workers}" / "site.db")})
        db = Database(site.database_path)
        reports[workers] = index_site(site, db, full=True, workers=workers)
        db.close()
        dumps[workers] = dump(site.database_path)
    assert reports[2].workers == 2 and reports[1].workers == 1
    assert reports[2].parsed == reports[1].parsed == 55
    assert len(dumps[1]["posts"]) == 52 and dumps[1]["search_vocab"]
    for table in TABLES:
        assert dumps[2][table] == dumps[1][table], table


ALONE = """
import threading
from masthead.indexing.indexer import _pool_context
print(threading.active_count(), _pool_context().get_start_method())
"""


@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_pool_beside_other_threads_starts_by_forkserver(tmp_path: Path) -> None:
    """A server or the watcher runs threads: the pool must not fork them (a lock held by
    another thread at fork time would stay held in the child), and gives the same index."""
    root = tmp_path / "site"
    write_site(root, corpus(), BILINGUAL_TOML)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)
    other.start()
    try:
        assert _pool_context().get_start_method() == "forkserver"
        site = load_site(root, {"database": str(tmp_path / "pool" / "site.db")})
        db = Database(site.database_path)
        report = index_site(site, db, full=True, workers=2)
        db.close()
    finally:
        stop.set()
        other.join()
    # with no other thread, fork: asked of a fresh process, since this one may run the threads of
    # an earlier test's fixture that lives for the module or the session (a server, a client)
    alone = subprocess.run(
        [sys.executable, "-c", ALONE], capture_output=True, text=True, check=True, timeout=CEILING
    )
    assert alone.stdout.split() == ["1", "fork"]
    serial = load_site(root, {"database": str(tmp_path / "serial" / "site.db")})
    db = Database(serial.database_path)
    index_site(serial, db, full=True, workers=1)
    db.close()
    assert report.workers == 2 and len(report.errors) == 3
    assert dump(site.database_path) == dump(serial.database_path)


def test_broken_file_in_a_worker_is_reported_like_today(tmp_path: Path) -> None:
    root = tmp_path / "site"
    site = write_site(root, corpus(), BILINGUAL_TOML)
    db = Database(site.database_path)
    report = index_site(site, db, workers=2)
    # what parsing the file alone says (file, line, reason): the same through the pool
    broken = CASES / "C10-broken-files" / "a-tab-indent.md"
    try:
        parse_post(site, "posts/a-tab-indent.md", broken.read_bytes())
    except Exception as exc:  # ContentError
        alone = exc.issue  # type: ignore[attr-defined]
    found = {i.path: i for i in report.errors}
    assert set(found) == {
        "content/posts/a-tab-indent.md",
        "content/posts/b-colon-in-title.md",
        "content/posts/e-gbk-encoded.md",
    }
    issue = found["content/posts/a-tab-indent.md"]
    assert (issue.path, issue.line, issue.reason) == (alone.path, alone.line, alone.reason)
    assert issue.line > 1 and "tabs" in issue.reason
    stored = (
        db.read()
        .execute(
            "SELECT line, reason FROM content_issues WHERE path = 'content/posts/a-tab-indent.md'"
        )
        .fetchall()
    )
    assert [tuple(r) for r in stored] == [(issue.line, issue.reason)]
    # the neighbours of the broken files in their chunks are indexed
    count = db.read().execute("SELECT COUNT(*) FROM posts WHERE title LIKE 'Post %'").fetchone()
    assert count[0] == 40
    db.close()


@pytest.mark.parametrize("workers", [1, 2])
def test_each_file_is_read_when_it_is_parsed(tmp_path: Path, workers: int) -> None:
    """The list of files to parse holds paths, not bytes (memory flat as the site grows): a
    file saved after that list is made is indexed as it is when parsed, with the hash of what
    was parsed, and one deleted by then is not indexed at all (the next pass sees it)."""
    root = tmp_path / "site"
    site = write_site(root, corpus(), BILINGUAL_TOML)
    edited, deleted = root / "content/posts/p07.md", root / "content/posts/p09.md"
    new = post("Saved during the pass", "2024-03-08", body="New body.\n").encode()
    seen: list[tuple[int, int]] = []

    def progress(done: int, total: int) -> None:
        if not seen:  # the files to parse are known, none is parsed yet
            edited.write_bytes(new)
            deleted.unlink()
        seen.append((done, total))

    db = Database(site.database_path)
    report = index_site(site, db, full=True, progress=progress, workers=workers)
    conn = db.read()
    title = conn.execute("SELECT title FROM posts WHERE source = 'content/posts/p07.md'")
    source = conn.execute(
        "SELECT size, sha256 FROM sources WHERE path = 'content/posts/p07.md'"
    ).fetchone()
    gone = conn.execute("SELECT COUNT(*) FROM sources WHERE path = 'content/posts/p09.md'")
    stale = conn.execute("SELECT COUNT(*) FROM posts WHERE source = 'content/posts/p09.md'")
    assert title.fetchone()[0] == "Saved during the pass"
    assert tuple(source) == (len(new), hashlib.sha256(new).hexdigest())
    assert gone.fetchone()[0] == 0 and stale.fetchone()[0] == 0
    assert report.workers == workers and report.parsed == 54 and seen[-1] == (55, 55)
    again = index_site(site, db)  # the next pass: nothing left to parse or remove
    db.close()
    assert (again.parsed, again.deleted, again.unchanged) == (0, 0, 54)


def test_text_from_tokens_has_one_line_per_block(make_site) -> None:  # type: ignore[no-untyped-def]
    site = make_site({})
    p = parse_post(site, "posts/x.md", post("X", body=BODY.format(n=7)).encode())
    assert p.text.split("\n") == [
        "Architectural Overview",
        "At the heart of post 7 sits a scheduler that wakes up every minute.",  # no [1]
        "first item",
        "second item",
        "a: c7; b: d",  # a table row, each cell named by its column's header
        "A footnote.",
    ]
    assert p.code == "print(7)"
    assert p.excerpt == "At the heart of post 7 sits a scheduler that wakes up every minute."
    prose, code = prose_and_code(p.html)  # the HTML says the same, line breaks aside
    assert " ".join(prose.split()) == " ".join(p.text.split()) and code == p.code


def test_snippets_separate_a_heading_from_the_next_paragraph(make_site, serve) -> None:  # type: ignore[no-untyped-def]
    site = make_site({"posts/a.md": post("A post", body=BODY.format(n=1))})
    client = serve(site)
    for q in ("heart", "architectural"):
        hits = client.get("/api/search", params={"q": q}).json()["hits"]
        snippet = hits[0]["snippet_html"]
        assert "Overview · At" in snippet, snippet
        assert "\n" not in snippet and "Overview At" not in snippet


@pytest.mark.skipif(
    markdown.block_parser() is None,
    reason="markdown-it-pyrs has no wheel for this Python (3.13+): no parser here can crash",
)
@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_a_file_that_crashes_its_worker_is_reported_and_the_rest_indexed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A segfault in a compiled parser kills the worker, not the index: the pool breaks, the
    rest is parsed one file a time, the crashing file is its own error. The crash is real:
    markdown-it.rs overflows its stack on 100,000 nested quotes, once the guard that sends such
    bodies to markdown-it-py is turned off (the forked workers inherit the patch)."""
    files = corpus()
    files["posts/crash.md"] = post("Crash", body=">" * 100_000 + " deep\n")
    root = tmp_path / "site"
    site = write_site(root, files, BILINGUAL_TOML)
    monkeypatch.setattr(markdown, "_needs_fallback", lambda _body: False)
    assert _pool_context().get_start_method() == "fork"
    db = Database(site.database_path)
    report = index_site(site, db, full=True, workers=2)
    db.close()
    crashed = [e for e in report.errors if e.path.endswith("crash.md")]
    assert len(crashed) == 1 and "crashed" in crashed[0].reason
    assert len(report.errors) == 4  # the three broken files, and this one
    assert len(dump(site.database_path)["posts"]) == 52  # every other post is indexed


def _segments(conn: sqlite3.Connection, table: str) -> int:
    """How many segments an FTS5 index has: its structure record (rowid 10 of `%_data`, laid
    out in SQLite's fts5_index.c: a 4-byte cookie, then varints nLevel, nSegment)."""
    block = conn.execute(f"SELECT block FROM {table}_data WHERE id = 10").fetchone()[0]
    pos = 8 if block[4:8] == b"\xff\x00\x00\x01" else 4  # the v2 layout's marker
    values = []
    for _ in range(2):
        value = 0
        while True:
            byte = block[pos]
            pos += 1
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        values.append(value)
    return values[1]


def test_a_large_index_is_bulk_loaded_and_merged_into_one_segment(tmp_path, monkeypatch):
    """From `BULK` files on, automerge is off while the rows go in and each FTS5 index is
    merged once at the end (one segment: a search's row lookups cost a seventh); automerge is
    back on after, and a run after one that died half-way puts it back on too."""
    from masthead.indexing import indexer
    from masthead.search.results import Options
    from masthead.search.service import SearchService
    from masthead.store import search as search_store

    root = tmp_path / "site"
    write_site(root, corpus(), BILINGUAL_TOML)
    results = {}
    monkeypatch.setattr(indexer, "BATCH", 2)  # several transactions, each flushed to a segment
    for bulk in (10_000, 5):
        monkeypatch.setattr(indexer, "BULK", bulk)
        site = load_site(root, {"database": str(tmp_path / f"b{bulk}" / "site.db")})
        db = Database(site.database_path)
        index_site(site, db, full=True, workers=1)
        conn = db.read()
        segments = {t: _segments(conn, t) for t in search_store.FTS_TABLES}
        assert not search_store.automerge_off(conn)
        if bulk == 5:
            assert segments == {"search_fts": 1, "search_words": 1}, segments
        else:
            assert segments["search_fts"] > 1, "without the merge, one segment per batch"
        service = SearchService(site, db, result_cache=0, frequent=False)
        results[bulk] = [
            service.search(q, Options(per_page=50), record=False).as_dict()["hits"]
            for q in ("harbor", "scheduler", "调度器", "print", "footnote")
        ]
        service.close()
        with db.write() as w:  # as a run that died while bulk-loading leaves it
            search_store.bulk_load(w, True)
        assert search_store.automerge_off(db.read())
        monkeypatch.setattr(indexer, "BULK", 10_000)
        index_site(site, db, workers=1)  # nothing changed: no bulk load, automerge back on
        assert not search_store.automerge_off(db.read())
        db.close()
    assert results[5] == results[10_000] and all(results[5])


def test_a_batch_of_posts_is_flushed_to_one_fts5_segment(tmp_path, monkeypatch):
    """The search rows of a batch are written after every other row of its transaction, so
    FTS5 flushes them once, at COMMIT: one segment a batch, not one a post (a statement
    savepoint after a post's search rows flushed them; `store.write_post`)."""
    from masthead.indexing import indexer
    from masthead.store import search as search_store

    monkeypatch.setattr(indexer, "BULK", 10_000)  # no bulk load: no merge at the end
    root = tmp_path / "site"
    write_site(root, corpus(), BILINGUAL_TOML)
    site = load_site(root, {"database": str(tmp_path / "db" / "site.db")})
    db = Database(site.database_path)
    report = index_site(site, db, full=True, workers=1)
    assert report.parsed > 40  # one transaction (BATCH is larger) of all these posts
    conn = db.read()
    assert {t: _segments(conn, t) for t in search_store.FTS_TABLES} == {
        "search_fts": 1,
        "search_words": 1,
    }
    db.close()


def test_a_new_parser_parses_unchanged_files_again(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """An upgraded masthead that parses the same bytes differently (its `PARSER` moved) parses
    every file again on its first index, with no `--full`: what a reader sees does not depend
    on when a file was last saved."""
    from masthead.indexing import indexer

    root = tmp_path / "site"
    write_site(root, {f"posts/p{i}.md": post(f"Post {i}", "2024-03-01") for i in range(3)})
    site = load_site(root)
    db = Database(site.database_path)
    try:
        assert index_site(site, db).parsed == 3
        assert index_site(site, db).parsed == 0  # unchanged files are not parsed again
        monkeypatch.setattr(indexer, "PARSER", indexer.PARSER + 1)
        again = index_site(site, db)
        assert (again.parsed, again.unchanged) == (3, 0)
        assert index_site(site, db).parsed == 0
    finally:
        db.close()
