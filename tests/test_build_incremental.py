"""`masthead build` renders only what may have changed (issue 31, item 3).

The manifest records what the pages were made from (the index generation, the next scheduled
post, the comments each page shows, a fingerprint of code, settings, templates and files): a
build with nothing changed renders nothing, a moderated comment fetches again only the pages
showing that thread, and anything else renders the site again, writing only changed bytes.
Pages are called directly (export/direct.py), never through the router, and are what the app
serves. Related posts come from memory in a build, in the store's order.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from starlette.testclient import TestClient

from masthead.config import Site, load_site
from masthead.export import search_index
from masthead.export.build import MANIFEST, BuildReport, build, page_urls
from masthead.export.client import Client
from masthead.export.direct import Direct
from masthead.export.watch import watch
from masthead.store import comments as comments_store
from masthead.store import posts as posts_store
from masthead.store.comments import NewComment
from masthead.store.db import Database
from masthead.web.app import create_app
from masthead.web.render.related import RelatedIndex

from support.sites import post, write_site
from support.wait import CEILING, until

TOML = """
title = "Small"
base_url = "https://small.example"
posts_per_page = 2

[languages.en]
name = "English"

[languages.zh]
name = "中文"
prefix = "zh"
"""
BASE = "https://small.example"


def small_site(root: Path):
    files: dict[str, str | bytes] = {
        f"posts/p{i}.md": post(f"Post {i}", f"2024-03-0{i}", body=f"Body {i}.\n", tags="[harbour]")
        for i in range(1, 6)
    }
    files["posts/p1.zh.md"] = post("帖子", "2024-03-01", tags="[港口]")
    files["pages/about.md"] = post("About", "2024-01-01")
    return write_site(root, files, TOML)


def snapshot(out: Path) -> dict[str, tuple[int, bytes]]:
    return {
        p.relative_to(out).as_posix(): (p.stat().st_mtime_ns, p.read_bytes())
        for p in out.rglob("*")
        if p.is_file()
    }


@pytest.fixture(scope="module")
def small_built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, BuildReport]:
    """`small_site` and its first (cold) build, made once a module: (the folder holding `site`
    and `out`, that build's report). A test that builds again starts from a copy
    (`copy_built`), which builds as the original would: the manifest names no folder."""
    root = tmp_path_factory.mktemp("small")
    report = build(small_site(root / "site"), root / "out")
    return root, report


def copy_built(template: Path, tmp_path: Path) -> tuple[Site, Path]:
    """A copy of a built site and its OUT in `tmp_path` (files' times kept): (site, OUT)."""
    shutil.copytree(template / "site", tmp_path / "site")
    shutil.copytree(template / "out", tmp_path / "out")
    return load_site(tmp_path / "site"), tmp_path / "out"


def approve_comment(site, url: str, text: str) -> None:
    """An approved comment on the post at `url`, stored as the comment service stores one (from
    another connection, as the dashboard's process would)."""
    db = Database(site.database_path)
    try:
        row = posts_store.post_by_url(db.read(), url, time.time())
        assert row is not None
        new = NewComment(
            thread=row.translation_key,
            post_url=url,
            parent_id=None,
            lang="en",
            status="approved",
            author_name="Ann",
            author_email="ann@example.com",
            author_url="",
            body=text,
            body_html=f"<p>{text}</p>",
            created=time.time(),
            fingerprint=text,
        )
        comments_store.add(db, new, "reader")
    finally:
        db.close()


def test_a_build_with_nothing_changed_renders_nothing(tmp_path, small_built):
    template, first = small_built
    site, out = copy_built(template, tmp_path)
    assert first.fetched > 30 and first.written == first.files
    before = snapshot(out)
    again = build(site, out)
    assert again.fetched == 0  # not one page asked of the app
    assert (again.written, again.removed, again.unchanged) == (0, 0, first.files)
    assert snapshot(out) == before  # nor a file touched, the manifest included


def test_a_site_folder_moved_with_its_export_still_renders_nothing(tmp_path, small_built):
    """What the pages were made from names no folder: a site and its OUT moved (a folder
    renamed, a CI runner's checkout at another path with OUT kept) build as incrementally."""
    template, _first = small_built
    _site, out = copy_built(template, tmp_path)
    (tmp_path / "site").rename(tmp_path / "moved")
    (tmp_path / "out").rename(tmp_path / "public")
    assert build(load_site(tmp_path / "moved"), tmp_path / "public").fetched == 0
    assert not out.exists()


def test_a_moderated_comment_rewrites_the_pages_showing_it_and_nothing_else(tmp_path, small_built):
    template, first = small_built
    site, out = copy_built(template, tmp_path)
    before = snapshot(out)
    # a list page is fetched again when a thread it counts comments of changes, not any thread
    marks = json.loads((out / MANIFEST).read_text())["made"]["marks"]
    home, oldest = marks["index.html"], marks["page/3/index.html"]  # p5 p4 | p3 p2 | p1
    assert home[:2] == ["/", "threads"] and len(home) == 5, home  # two threads, their versions
    assert oldest[:2] == ["/page/3/", "thread"], oldest  # p1's alone
    assert oldest[2] not in home, (home, oldest)
    approve_comment(site, "/posts/p1/", "Lovely harbour.")
    after = build(site, out)
    changed = {rel for rel, v in snapshot(out).items() if before.get(rel) != v} - {MANIFEST}
    assert set(after.changed) == changed
    # its post page in both languages (one thread), its comment feeds, the site's comment
    # feeds, and the list pages counting its comments
    for rel in (
        "posts/p1/index.html",
        "zh/posts/p1/index.html",
        "posts/p1/comments.xml",
        "posts/p1/comments-atom.xml",
        "comments/feed.xml",
        "comments/atom.xml",
    ):
        assert rel in changed, rel
    assert "Lovely harbour." in (out / "posts/p1/index.html").read_text()
    for rel in ("posts/p2/index.html", "about/index.html", "feed.xml", "sitemap.xml"):
        assert rel not in changed, rel
    # fetched: the pages that show this thread or count comments, a few of all the files
    assert 0 < after.fetched < first.fetched / 2
    assert after.written == len(changed)
    # and they are what the app serves now (as it renders an export's pages)
    with TestClient(create_app(site, export=True), base_url=BASE) as client:
        for rel in changed - {".masthead-search.json"}:
            url = "/" + rel.removesuffix("index.html")
            r = client.get(url, headers={"Accept-Encoding": "identity"})
            assert r.status_code == 200 and r.content == (out / rel).read_bytes(), rel
    assert build(site, out).fetched == 0  # and then nothing again


def test_an_edited_post_renders_again_and_rewrites_only_changed_files(tmp_path, small_built):
    template, first = small_built
    site, out = copy_built(template, tmp_path)
    before = snapshot(out)
    (site.content_dir / "posts/p5.md").write_text(
        post("Post 5", "2024-03-05", body="New words.\n", tags="[harbour]")
    )
    edited = build(site, out)
    assert 0 < edited.fetched < first.fetched  # the pages the post changes (export/changes.py)
    changed = {rel for rel, v in snapshot(out).items() if before.get(rel) != v} - {MANIFEST}
    assert set(edited.changed) == changed and "posts/p5/index.html" in changed
    assert "posts/p2/index.html" not in changed


NOW = 1_800_000_000.0  # one clock for every build of a test (2027): the same bytes each time


def outputs(out: Path) -> dict[str, bytes]:
    """Every file of an export but its manifest, by OUT-relative name."""
    return {
        p.relative_to(out).as_posix(): p.read_bytes()
        for p in out.rglob("*")
        if p.is_file() and p.name != MANIFEST
    }


def searchable(files: dict[str, bytes]) -> set[str]:
    """The files of an export's search index (export/search_index.py's folder and stamp)."""
    return {r for r in files if r.startswith(search_index.FOLDER + "/") or r == search_index.STAMP}


def wide_site(root: Path):
    """Posts in two tags and a category, with a translation, over several list pages."""
    files: dict[str, str | bytes] = {}
    for i in range(1, 10):
        tags = "[harbour]" if i % 2 else "[harbour, storm]"
        files[f"posts/p{i}.md"] = post(
            f"Post {i}", f"2024-03-0{i}", body=f"Body {i}.\n", tags=tags, categories="[news]"
        )
    files["posts/q1.md"] = post("Quiet", "2024-02-01", tags="[calm]")
    files["posts/p1.zh.md"] = post("帖子", "2024-03-01", tags="[港口]")
    files["pages/about.md"] = post("About", "2024-01-01")
    return write_site(root, files, TOML)


EDITS = {
    "title": ("posts/p3.md", post("Post 3, renamed", "2024-03-03", body="Body 3.\n",
                                  tags="[harbour]", categories="[news]")),
    "tags": ("posts/p4.md", post("Post 4", "2024-03-04", body="Body 4.\n",
                                 tags="[harbour, gale]", categories="[news]")),
    "date": ("posts/p1.md", post("Post 1", "2024-03-20", body="Body 1.\n",
                                 tags="[harbour]", categories="[news]")),
    "slug": ("posts/p6.md", post("Post 6", "2024-03-06", body="Body 6.\n",
                                 tags="[harbour, storm]", categories="[news]", slug="six")),
    "new post": ("posts/p0.md", post("Post 0", "2024-03-15", body="New.\n", tags="[calm]")),
    "removed": ("posts/q1.md", None),
    "draft": ("posts/p7.md", post("Post 7", "2024-03-07", body="Body 7.\n", tags="[harbour]",
                                  categories="[news]", draft="true")),
}  # fmt: skip


@pytest.fixture(scope="module")
def wide_built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, BuildReport]:
    """`wide_site` and its first (cold) build at NOW, made once a module (see `small_built`)."""
    root = tmp_path_factory.mktemp("wide")
    report = build(wide_site(root / "site"), root / "out", clock=lambda: NOW)
    return root, report


@pytest.mark.parametrize("edit", list(EDITS))
def test_a_saved_post_renders_only_the_pages_it_changes_and_equals_a_cold_build(
    tmp_path, edit, wide_built
):
    template, first = wide_built
    site, out = copy_built(template, tmp_path)
    before = snapshot(out)
    rel, text = EDITS[edit]
    if text is None:
        (site.content_dir / rel).unlink()
    else:
        (site.content_dir / rel).write_text(text)
    again = build(site, out, clock=lambda: NOW)
    # fewer pages asked of the app than a full build's; only files whose bytes changed written
    assert 0 < again.fetched < first.fetched / 2, (again.fetched, first.fetched)
    after = snapshot(out)
    changed = {r for r, v in after.items() if before.get(r) != v} - {MANIFEST}
    assert set(again.changed) == changed - (set(before) - set(after))
    # the same files, byte for byte, as a build of the edited site into a new folder
    cold = tmp_path / "cold"
    full = build(site, cold, clock=lambda: NOW)
    assert full.fetched > again.fetched
    mine, theirs = outputs(out), outputs(cold)
    assert searchable(mine)  # the search index too: the same files, byte for byte
    assert sorted(mine) == sorted(theirs)
    differ = [r for r in theirs if mine[r] != theirs[r]]
    assert differ == []
    # and the edit is there
    if edit == "title":
        assert "Post 3, renamed" in (out / "tags/harbour/page/4/index.html").read_text()
    elif edit == "slug":
        assert (out / "posts/six/index.html").is_file()
        assert (
            not (out / "posts/p6/index.html").is_file()
            or "refresh" in (out / "posts/p6/index.html").read_text()
        )
    elif edit == "removed":
        assert not (out / "posts/q1/index.html").exists() and not (out / "tags/calm").exists()
    elif edit == "tags":
        assert (out / "tags/gale/index.html").is_file()


@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_many_saved_posts_render_everything(tmp_path):
    from masthead.export.changes import MAX_CHANGED

    site = wide_site(tmp_path / "site")
    for i in range(MAX_CHANGED + 1):
        (site.content_dir / f"posts/m{i}.md").write_text(post(f"M {i}", "2024-01-02"))
    out = tmp_path / "out"
    build(site, out, clock=lambda: NOW)
    for i in range(MAX_CHANGED + 1):
        (site.content_dir / f"posts/m{i}.md").write_text(post(f"M {i}!", "2024-01-02"))
    again = build(site, out, clock=lambda: NOW)
    assert again.fetched == build(site, tmp_path / "cold", clock=lambda: NOW).fetched


@pytest.mark.parametrize("change", ["setting", "template", "static file", "media file"])
def test_what_is_not_in_the_index_renders_again(tmp_path, change, small_built):
    template, first = small_built
    site, out = copy_built(template, tmp_path)
    if change == "setting":
        toml = site.root / "masthead.toml"
        toml.write_text(toml.read_text().replace('"Small"', '"Smaller"'))
        site = load_site(site.root)
    elif change == "template":
        folder = site.root / "templates"
        folder.mkdir()
        source = Path(create_app.__code__.co_filename).parent / "templates" / "post.html"
        (folder / "post.html").write_text(
            source.read_text().replace("</article>", "<!--x--></article>")
        )
    elif change == "static file":
        (site.root / "static").mkdir()
        (site.root / "static/extra.css").write_text("body { color: red }\n")
    else:
        (site.content_dir / "posts/p2").mkdir()
        (site.content_dir / "posts/p2/map.png").write_bytes(b"\x89PNG\r\n\x1a\nfake")
    again = build(site, out)
    assert again.fetched >= first.fetched
    if change == "setting":
        assert "Smaller" in (out / "index.html").read_text()
    elif change == "template":
        assert "<!--x-->" in (out / "posts/p1/index.html").read_text()
    elif change == "static file":
        assert (out / "static/extra.css").is_file()
    else:
        assert (out / "media/posts/p2/map.png").is_file()


def test_a_post_becoming_due_renders_again(tmp_path):
    site = small_site(tmp_path / "site")
    (site.content_dir / "posts/later.md").write_text(post("Later", "2030-01-01"))
    out = tmp_path / "out"
    build(site, out, clock=lambda: 1_800_000_000.0)  # 2027: not yet published
    assert not (out / "posts/later").exists()
    assert build(site, out, clock=lambda: 1_800_000_001.0).fetched == 0
    due = build(site, out, clock=lambda: 1_900_000_000.0)  # 2030: due
    assert due.fetched > 0 and (out / "posts/later/index.html").is_file()


def test_a_file_deleted_from_out_is_written_again(tmp_path, small_built):
    site, out = copy_built(small_built[0], tmp_path)
    (out / "posts/p3/index.html").unlink()
    again = build(site, out)
    assert "posts/p3/index.html" in again.changed and (out / "posts/p3/index.html").is_file()


def test_a_damaged_manifest_makes_a_full_build(tmp_path, small_built):
    template, first = small_built
    site, out = copy_built(template, tmp_path)
    manifest = json.loads((out / MANIFEST).read_text())
    manifest["made"] = {"fingerprint": 7, "marks": {"x": "y"}}
    (out / MANIFEST).write_text(json.dumps(manifest))
    assert build(site, out).fetched == first.fetched


def test_every_page_is_called_directly_not_through_the_router(tmp_path, small_built):
    site, _out = copy_built(small_built[0], tmp_path)  # indexed
    app = create_app(site, index=False)
    fetcher = Direct(app, Client(app, BASE))
    db = Database(site.database_path)
    try:
        urls = page_urls(site, db.read(), time.time())
    finally:
        db.close()
    assert len(urls) > 30
    for url in urls:
        answer = fetcher._direct(url, unquote(urlsplit(url).path))
        assert answer is not None and answer.status == 200, url
    app.state.masthead.db.close()


def test_related_posts_from_memory_are_the_stores(tmp_path):
    tags = ["a", "b", "c", "d"]
    files = {}
    for i in range(60):
        mine = [t for n, t in enumerate(tags) if (i >> n) & 1] or ["a"]
        day = 1 + i % 27
        files[f"posts/n{i:02d}.md"] = post(
            f"N {i}", f"2024-02-{day:02d}", tags=f"[{', '.join(mine)}]"
        )
    files["posts/z.zh.md"] = post("中", "2024-02-03", tags="[a, b]")
    files["posts/draft.md"] = post("Draft", "2024-02-03", tags="[a, b]", draft="true")
    site = write_site(tmp_path / "site", files, TOML)
    build(site, tmp_path / "out")
    db = Database(site.database_path)
    try:
        conn = db.read()
        now = time.time()
        index = RelatedIndex(posts_store.tagged_posts(conn, now))
        rows = posts_store.tagged_posts(conn, now)
        assert len(rows) == 61  # not the draft
        for row in rows:
            full = posts_store.post_by_url(conn, row.url, now)
            assert full is not None
            for limit in (1, 3, 10):
                assert index.related(row.id, limit) == posts_store.related(conn, full, now, limit)
    finally:
        db.close()


def test_translations_and_related_read_an_index_not_every_post(tmp_path):
    """The plans SQLite makes for the statements `translations` and `related` run: neither
    walks every post (translations once did, planned on `posts_list` with no sqlite_stat1), and
    `related` reads the facts of the posts sharing a tag from an index, not their rows."""
    files = {f"posts/n{i:02d}.md": post(f"N {i}", "2024-02-01", tags="[a, b]") for i in range(30)}
    files["posts/n00.zh.md"] = post("中", "2024-02-01", tags="[a]")
    site = write_site(tmp_path / "site", files, TOML)
    build(site, tmp_path / "out")
    db = Database(site.database_path)
    try:
        conn = db.read()
        now = time.time()
        row = posts_store.post_by_url(conn, "/posts/n00/", now)
        assert row is not None
        seen: list[str] = []
        conn.set_trace_callback(seen.append)  # the SQL with its values bound
        try:
            assert [t.lang for t in posts_store.translations(conn, row, now)] == ["zh"]
            translation_sql = seen[-1]
            assert posts_store.related(conn, row, now, 3)
            related_sql = seen[-1]
        finally:
            conn.set_trace_callback(None)
        plan = " | ".join(r[3] for r in conn.execute("EXPLAIN QUERY PLAN " + translation_sql))
        assert "posts_translation" in plan and "posts_list" not in plan, plan
        plan = " | ".join(r[3] for r in conn.execute("EXPLAIN QUERY PLAN " + related_sql))
        steps = plan.split(" | ")
        terms = "SEARCH t USING COVERING INDEX post_terms_posts (taxonomy=? AND key=?)"
        assert terms in steps, plan
        # each post's facts from the index, not its row (which holds its bodies): only the
        # posts kept are read by their id
        facts = "SEARCH p USING COVERING INDEX posts_facts (id=?"
        assert any(step.startswith(facts) for step in steps), plan
        assert "SEARCH p USING INTEGER PRIMARY KEY (rowid=?)" in steps, plan
    finally:
        db.close()


@pytest.mark.slow
def test_build_watch_follows_a_saved_post_and_a_moderated_comment(tmp_path):
    """`masthead build --watch` as a process: a saved post and a comment approved by another
    process (as the dashboard of a running `masthead serve` would) each reach the export,
    rewriting only files whose bytes changed; Ctrl-C ends it cleanly."""
    site = small_site(tmp_path / "site")
    out = tmp_path / "out"
    log = (tmp_path / "watch.log").open("w")
    # `--jobs 2`: its first build renders in worker processes, spawned beside the watch's
    # threads (without it, a site this small renders in the watch's process)
    cmd = ["build", str(site.root), str(out), "--watch", "--jobs", "2"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "masthead", *cmd],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "COLUMNS": "200"},
    )
    try:
        page = out / "posts/p2/index.html"
        until(lambda: (out / MANIFEST).is_file() and page.is_file(), what="the first build")
        other = (out / "posts/p4/index.html").stat().st_mtime_ns
        (site.content_dir / "posts/p2.md").write_text(
            post("Post 2", "2024-03-02", body="Saved words.\n", tags="[harbour]")
        )
        until(lambda: "Saved words." in page.read_text(), what="the saved post in its page")
        approve_comment(site, "/posts/p1/", "Lovely harbour.")
        first = out / "posts/p1/index.html"
        until(lambda: "Lovely harbour." in first.read_text(), what="the comment in its page")
        assert (out / "posts/p4/index.html").stat().st_mtime_ns == other  # same bytes: untouched
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(timeout=CEILING)
        except subprocess.TimeoutExpired:  # shown, not left running
            proc.kill()
            proc.wait()
            code = None
        log.close()
    text = (tmp_path / "watch.log").read_text()
    assert code == 0, f"exit {code} after Ctrl-C; its output:\n{text}"
    # the first build's summary and the next's (the last may be cut short by the Ctrl-C)
    assert text.count("files in") >= 2, text


# What FastAPI does the first time a build routes a page: a string annotation evaluated by
# `eval()`. The signal arrives inside it (`raise_signal` runs the handler before it returns).
INTERRUPTED_IN_EVAL = """
import signal, sys, threading
from masthead.cli.site import signals_end_watch
stop = threading.Event()
before = signal.getsignal(signal.SIGINT)  # SIG_IGN when started in a script's background
with signals_end_watch(stop):
    eval("__import__('signal').raise_signal(%d)")
    sys.exit("the block went on after the signal")
assert stop.is_set()
assert signal.getsignal(signal.SIGINT) is before
print("ended")
"""


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_watch_interrupted_inside_eval_exits_0(signum):
    """`build --watch` ends with 0 wherever Ctrl-C or SIGTERM finds it. It once exited killed
    by SIGINT (-2) when the signal came while FastAPI evaluated an annotation: CPython marks a
    plain KeyboardInterrupt raised inside `eval()` of a string as unhandled, even once caught."""
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPTED_IN_EVAL % signum],
        capture_output=True,
        text=True,
        timeout=CEILING,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, "ended\n"), done.stderr


# What a signal raised inside a build's event loop can cost: the callback on the loop's task
# that ends an AnyIO worker thread (Starlette runs sync routes in them) when the task is done.
LEFT_WAITING = """
import asyncio, signal, threading
import anyio
from anyio._backends._asyncio import WorkerThread
from masthead.cli.site import signals_end_watch

async def main():
    await anyio.to_thread.run_sync(lambda: None)
    for thread in threading.enumerate():
        if isinstance(thread, WorkerThread):
            asyncio.current_task().remove_done_callback(thread.stop)

asyncio.run(main())
assert any(isinstance(t, WorkerThread) for t in threading.enumerate())
with signals_end_watch(threading.Event()):
    signal.raise_signal(signal.SIGINT)
print("ended")
"""


def test_a_watch_ended_by_a_signal_leaves_no_thread_worker_waiting():
    """A process waits at exit for its threads that are not daemons. `build --watch` did not
    end after Ctrl-C, 3 times in 7 under a CPU hog: the signal, raised inside a build's event
    loop, had left an AnyIO worker thread waiting for work (py-spy: the main thread in
    `threading._shutdown`, the worker in `Queue.get`). The watch's end now tells such workers
    to end (`cli.site.end_thread_workers`); without it this process never exits."""
    done = subprocess.run(
        [sys.executable, "-c", LEFT_WAITING],
        capture_output=True,
        text=True,
        timeout=CEILING,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, "ended\n"), done.stderr


def test_build_watch_sees_a_file_saved_as_soon_as_the_first_build_is_done(tmp_path, small_built):
    """The watches exist before the first build: a post saved the moment that build is done
    (here from its own report, before anything else can run) is built next. Watching only after
    the first build lost such a save until the file was saved again."""
    # built before, as usual: the watch's first build changes nothing
    site, out = copy_built(small_built[0], tmp_path)
    stop = threading.Event()
    reports: list[object] = []

    def on_build(report: object) -> None:
        reports.append(report)
        if len(reports) == 1:
            (site.content_dir / "posts/p2.md").write_text(
                post("Post 2", "2024-03-02", body="Saved at once.\n", tags="[harbour]")
            )

    errors: list[BaseException] = []

    def run() -> None:
        try:
            watch(site, out, on_build=on_build, stop=stop)
        except BaseException as exc:  # shown by the assertion below, not lost in the thread
            errors.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    try:
        page = out / "posts/p2/index.html"
        until(
            lambda: errors or (page.is_file() and "Saved at once." in page.read_text()),
            what="the post saved after the first build, in its page",
        )
        assert not errors, errors
    finally:
        stop.set()
        thread.join(CEILING)
    assert not thread.is_alive()


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["Ctrl-C", "SIGTERM"])
def test_build_watch_ends_on_ctrl_c_and_sigterm_even_if_started_ignoring_ctrl_c(tmp_path, sig):
    """A command started in the background of a script inherits SIGINT ignored, and in a
    container SIGTERM does nothing to a first process without a handler: `build --watch` sets
    its own, as `masthead serve` does, and either ends it cleanly (exit 0)."""
    site = small_site(tmp_path / "site")
    out = tmp_path / "out"
    # `--jobs 1`: the signals reach the watch once its first build is done, when no worker is
    # left; the workers of the watch's build are test_build_watch_follows_…'s
    cmd = ["build", str(site.root), str(out), "--watch", "--jobs", "1"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "masthead", *cmd],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=_ignore_sigint,  # as a background job of a script; before the exec
    )
    try:
        until(lambda: (out / MANIFEST).is_file(), what="the first build")
        proc.send_signal(sig)
        assert proc.wait(timeout=CEILING) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
