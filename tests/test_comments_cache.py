"""Issue 11 item 7: comments and the page cache.

Approving, trashing, editing or posting an approved comment refreshes that thread's post page in
every language, the comment feeds and the comment counts on list pages on the next request, on
every worker; nothing else is rendered again (an unrelated post keeps its cached page object,
its ETag), and the index generation does not move. Comments reach the pages through the store
functions every writer uses (`masthead.store.comments`), from a second `Database` on the same
file, as another process (a dashboard worker, the CLI) would.
"""

from __future__ import annotations

import http.client
import importlib.util
import json
import logging
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from starlette.testclient import TestClient

from masthead.config import Site
from masthead.store import comments as comments_store
from masthead.store import posts as posts_store
from masthead.store.comments import NewComment
from masthead.store.db import Database
from masthead.web.app import create_app
from masthead.web.cache.purge import Purger
from masthead.web.cache.state import SiteState

from support.servers import cli_server, uvicorn_server
from support.sites import BILINGUAL_TOML, post
from support.sql import trace_statements
from support.wait import CEILING, until

BENCH = Path(__file__).resolve().parent.parent / "bench"
A, A_ZH, B = "/posts/a/", "/zh/posts/a/", "/posts/b/"
LISTS = ("/", "/zh/", "/tags/harbour/")
FEEDS = (
    "/comments/feed.xml",
    "/comments/atom.xml",
    "/posts/a/comments.xml",
    "/zh/posts/a/comments-atom.xml",
)


def _site(make_site: Callable[..., Site]) -> Site:
    return make_site(
        {
            "posts/a.md": post("Harbour lights", "2024-03-01", tags="[harbour]"),
            "posts/a.zh.md": post("港口灯火", "2024-03-01"),
            "posts/b.md": post("Tide tables", "2024-03-02", tags="[harbour]"),
        }
    )


def thread_of(db: Database, url: str) -> str:
    row = posts_store.post_by_url(db.read(), url, time.time())
    assert row is not None, url
    return str(row.translation_key)


def write_comment(
    db: Database,
    url: str,
    text: str,
    *,
    status: str = "approved",
    lang: str = "en",
    name: str = "Ann",
) -> int:
    """Store a comment on the post at `url` as the submission service does: one `add`."""
    new = NewComment(
        thread=thread_of(db, url),
        post_url=url,
        parent_id=None,
        lang=lang,
        status=status,
        author_name=name,
        author_email="ann@example.com",
        author_url="",
        body=text,
        body_html=f"<p>{text}</p>",
        created=time.time(),
        fingerprint=text,
    )
    return comments_store.add(db, new, "reader")


def state_of(client: TestClient) -> SiteState:
    state: SiteState = client.app.state.masthead  # type: ignore[attr-defined]
    return state


def get_all(client: TestClient, paths: tuple[str, ...]) -> dict[str, httpx.Response]:
    out = {}
    for path in paths:
        r = client.get(path)
        assert r.status_code == 200, (path, r.status_code)
        out[path] = r
    return out


@pytest.fixture
def served(
    make_site: Callable[..., Site], serve: Callable[..., TestClient]
) -> Iterator[tuple[TestClient, Database]]:
    site = _site(make_site)
    client = serve(site)
    db = Database(site.database_path)  # another writer on the same file
    yield client, db
    db.close()


def test_a_change_to_a_thread_refreshes_its_pages_feeds_and_counts_and_nothing_else(served):
    client, db = served
    state = state_of(client)
    everything = (A, A_ZH, B, *LISTS, *FEEDS, "/archive/", "/tags/")
    before = get_all(client, everything)
    pages = {path: state.hit(path) for path in everything}
    assert all(pages.values()), "every page is cached and found by the fast path"
    generation = client.get("/healthz").json()["generation"]

    held = write_comment(db, A, "Held for moderation", status="pending")
    # a held comment changes nothing anyone sees: nothing is rendered again
    get_all(client, everything)
    assert all(state.hit(p) is pages[p] for p in everything)

    comments_store.set_status(db, [held], "approved", "editor:test", expect={"pending"})
    after = get_all(client, everything)
    for path in (A, A_ZH):  # the thread, in both languages (JSON-LD Comment items)
        assert "Held for moderation" in after[path].text, path
        assert after[path].headers["etag"] != before[path].headers["etag"]
    for path in FEEDS:
        assert "Held for moderation" in after[path].text, path
    assert "1 comment" in after["/"].text and "1 条评论" in after["/zh/"].text
    assert "1 comment" in after["/tags/harbour/"].text
    for path in (B, "/archive/", "/tags/"):  # not rendered again: the same cached page
        assert state.hit(path) is pages[path], path
        assert after[path].headers["etag"] == before[path].headers["etag"]
    assert client.get("/healthz").json()["generation"] == generation, "comments moved the index"

    # trashing it: gone from both languages, the feeds and the counts; B still untouched
    comments_store.set_status(db, [held], "trash", "editor:test")
    gone = get_all(client, everything)
    for path in (A, A_ZH, *FEEDS):
        assert "Held for moderation" not in gone[path].text, path
    assert 'class="card__comments"' not in gone["/"].text
    assert state.hit(B) is pages[B]


def test_an_edit_and_a_new_approved_comment_are_served_on_the_next_request(served):
    client, db = served
    get_all(client, (A, A_ZH, "/"))
    first = write_comment(db, A_ZH, "第一条评论", lang="zh")
    assert "第一条评论" in client.get(A).text and "第一条评论" in client.get(A_ZH).text
    comments_store.edit(db, first, "author", body="改过的评论", body_html="<p>改过的评论</p>")
    for path in (A, A_ZH, "/posts/a/comments.xml"):
        page = client.get(path).text
        assert "改过的评论" in page and "第一条评论" not in page, path
    write_comment(db, A, "A second one")
    assert "2 comments" in client.get("/").text
    assert "2 条评论" in client.get("/zh/").text


def test_a_comment_committed_while_a_page_renders_is_not_hidden_by_the_cache(served):
    """The versions a page is cached under are read before it renders: a comment approved
    during the render leaves that page stale, rendered again on the next request."""
    client, db = served
    state = state_of(client)
    thread = thread_of(db, A)
    renders: list[int] = []

    def render() -> tuple[str, int]:
        state.reads_thread(thread)
        shown = len(comments_store.public_thread(db.read(), thread))
        if not renders:  # the first render: a comment lands before it is cached
            write_comment(db, A, "Posted mid-render")
        renders.append(shown)
        return f"{shown} comments", 200

    first = state.cached(("probe",), render)
    assert first.body == b"0 comments"
    second = state.cached(("probe",), render)
    assert second.body == b"1 comments" and renders == [0, 1]
    assert state.cached(("probe",), render) is second, "current: not rendered a third time"


def test_a_cache_hit_still_runs_no_sql(
    make_site: Callable[..., Site], monkeypatch: pytest.MonkeyPatch
) -> None:
    site = _site(make_site)
    app = create_app(site)  # indexes the site
    db = Database(site.database_path)
    write_comment(db, A, "Counted")
    db.close()
    seen = trace_statements(monkeypatch)  # the app's readers open on first use
    paths = (A, A_ZH, "/", "/comments/feed.xml", "/posts/a/comments.xml")
    with uvicorn_server(app) as base, httpx.Client(base_url=base, timeout=CEILING) as client:
        for path in paths:
            assert client.get(path).status_code == 200
        seen.clear()
        for path in paths:
            assert "Counted" in client.get(path).text or path == "/"
        assert seen == [], "a hit of a page showing comments ran SQL"


# --- two workers -----------------------------------------------------------------------------


def _ask(url: str, path: str) -> tuple[int, str, str]:
    """`(pid, ETag, body)` of `path`, asked with `/healthz` on one new connection (one worker)."""
    conn = http.client.HTTPConnection(urlsplit(url).netloc, timeout=CEILING)
    try:
        conn.request("GET", "/healthz")
        pid = json.loads(conn.getresponse().read())["pid"]
        conn.request("GET", path)
        response = conn.getresponse()
        body = response.read().decode("utf-8")
        return pid, response.getheader("etag") or "", body
    finally:
        conn.close()


def _each_worker(url: str, path: str, workers: int = 2) -> dict[int, tuple[str, str]]:
    """`{pid: (ETag, body)}` of `path` from `workers` distinct workers (asked for up to 30 s)."""
    seen: dict[int, tuple[str, str]] = {}
    deadline = time.monotonic() + 30
    while len(seen) < workers:
        assert time.monotonic() < deadline, f"only workers {list(seen)} answered"
        pid, etag, body = _ask(url, path)
        seen.setdefault(pid, (etag, body))
    return seen


def test_two_workers_serve_a_moderated_thread_fresh_and_leave_other_pages_alone(make_site):
    site = _site(make_site)
    with cli_server(str(site.root), "--workers", "2", "--no-watch") as url:
        paths = (A, A_ZH, B, "/", "/zh/", "/comments/feed.xml", "/posts/a/comments.xml")
        before = {path: _each_worker(url, path) for path in paths}  # each worker has them cached
        db = Database(site.database_path)
        try:
            spam = write_comment(db, A, "Buy cheap watches", status="pending", name="Spammer")
            kept = write_comment(db, A_ZH, "写得真好", status="pending", lang="zh", name="读者")
            comments_store.set_status(db, [kept], "approved", "editor:test")
            comments_store.set_status(db, [spam], "spam", "editor:test")
        finally:
            db.close()
        for path in (A, A_ZH, "/comments/feed.xml", "/posts/a/comments.xml"):
            for pid, (_etag, body) in _each_worker(url, path).items():
                assert "写得真好" in body, f"worker {pid} served a stale {path}"
                assert "Buy cheap watches" not in body and "Spammer" not in body
        for pid, (_etag, body) in _each_worker(url, "/").items():
            assert "1 comment" in body, f"worker {pid} served stale counts"
        for pid, (etag, body) in _each_worker(url, B).items():
            assert (etag, body) == before[B][pid], f"worker {pid} changed an unrelated page"


# --- purge_command and purge_webhook ---------------------------------------------------------

RECORD = "import json, sys; open(sys.argv[1], 'a').write(json.dumps(sys.argv[2:]) + '\\n')"
SITE_FEEDS = {"https://example.com/comments/feed.xml", "https://example.com/comments/atom.xml"}


def _thread_urls(*permalinks: str) -> set[str]:
    out = set()
    for p in permalinks:
        base = "https://example.com" + p
        out |= {base, base + "comments.xml", base + "comments-atom.xml"}
    return out


def _purging_site(make_site: Callable[..., Site], **settings: object) -> Site:
    """Posts a (en, zh), b..e newer (English): with 3 posts a page, a is on `/page/2/` and
    second on `/tags/harbour/` (b is tagged too)."""
    toml = "".join(f"{k} = {json.dumps(v)}\n" for k, v in settings.items()) + BILINGUAL_TOML
    files = {
        "posts/a.md": post("Harbour lights", "2024-03-01", tags="[harbour]"),
        "posts/a.zh.md": post("港口灯火", "2024-03-01"),
        "posts/b.md": post("Tide tables", "2024-03-02", tags="[harbour]"),
        **{f"posts/{n}.md": post(f"Post {n}", f"2024-03-0{i}") for i, n in enumerate("cde", 3)},
    }
    return make_site(files, toml)


def _until(check: Callable[[], object], what: str) -> None:
    until(check, what=what)


PURGING = "this process purges after comment changes"


def test_purge_command_runs_once_with_the_changed_urls_whatever_the_workers(make_site, tmp_path):
    calls = tmp_path / "purged.jsonl"
    log = tmp_path / "serve.log"
    command = [sys.executable, "-c", RECORD, str(calls)]
    site = _purging_site(make_site, purge_command=command)
    with cli_server(str(site.root), "--workers", "2", "--no-watch", log=log) as url:
        _each_worker(url, A)
        db = Database(site.database_path)
        try:
            _until(lambda: PURGING in log.read_text(), "a worker purging")
            write_comment(db, A, "Purge me")
            _until(calls.exists, "the purge command")
            # a pending comment changes nothing public; then a change on another post: once
            # that is purged, a second purging worker, or a purge for the held comment, would
            # have shown as a line of its own or as A's URLs in B's line
            write_comment(db, A, "Held", status="pending")
            write_comment(db, B, "Purge me too")
            _until(lambda: len(calls.read_text().splitlines()) >= 2, "the second purge")
            lines = [set(json.loads(line)) for line in calls.read_text().splitlines()]
            expected = _thread_urls(A, A_ZH) | SITE_FEEDS
            expected |= {"https://example.com/page/2/", "https://example.com/zh/"}
            expected |= {"https://example.com/tags/harbour/"}
            assert lines[0] == expected
            assert len(lines) == 2 and not lines[1] & _thread_urls(A, A_ZH), lines[1]
            assert _thread_urls(B) <= lines[1]
            assert log.read_text().count(PURGING) == 1, "one purging worker"
        finally:
            db.close()


class _Hook(BaseHTTPRequestHandler):
    received: list[tuple[str, bytes]]
    release: threading.Event
    answered: list[bool]

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.received.append((self.headers["Content-Type"], body))
        self.release.wait(CEILING)  # a slow CDN API: it answers once the test releases it
        self.answered.append(True)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def hook() -> Iterator[tuple[str, type[_Hook]]]:
    handler = type("Hook", (_Hook,), {"received": [], "release": threading.Event(), "answered": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/purge", handler
    handler.release.set()
    server.shutdown()
    server.server_close()


def test_purge_webhook_is_posted_the_urls_in_the_background(make_site, serve, hook, caplog):
    caplog.set_level(logging.INFO, logger="masthead.web.cache.purge")
    endpoint, handler = hook
    client = serve(_purging_site(make_site, purge_webhook=endpoint))
    db = Database(client.app.state.masthead.db.path)  # type: ignore[attr-defined]
    try:
        assert "Slow CDN" not in client.get(A).text
        _until(lambda: PURGING in caplog.text, "the purger's first read")
        write_comment(db, A_ZH, "Slow CDN", lang="zh")
        _until(lambda: handler.received, "the webhook call")
        assert "Slow CDN" in client.get(A).text  # while the webhook is still answering
        # the webhook answers only once released (below), and the call times out after
        # purge.TIMEOUT: a request that waited for a call would have returned only after the
        # webhook answered or the call failed (logged), or made a call of its own
        assert not handler.answered and len(handler.received) == 1, "a request waited for it"
        assert not [r for r in caplog.records if "purge_webhook" in r.getMessage()]
        handler.release.set()
        kind, body = handler.received[0]
        assert kind == "application/json"
        assert set(json.loads(body)["urls"]) >= _thread_urls(A, A_ZH) | SITE_FEEDS
    finally:
        db.close()


def test_purge_failures_are_logged_and_change_nothing_else(make_site, serve, caplog):
    caplog.set_level(logging.INFO, logger="masthead.web.cache.purge")
    failing = [sys.executable, "-c", "import sys; sys.stderr.write('no such zone'); sys.exit(3)"]
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}/purge"
    site = _purging_site(make_site, purge_command=failing, purge_webhook=closed)
    client = serve(site)
    db = Database(site.database_path)

    def failed() -> list[logging.LogRecord]:
        return [r for r in caplog.records if r.levelno >= logging.ERROR]

    try:
        client.get(A)
        _until(lambda: PURGING in caplog.text, "the purger's first read")
        write_comment(db, A, "Logged")
        _until(lambda: len(failed()) >= 2, "two logged failures")
        said = " ".join(r.getMessage() for r in failed())
        assert "exited 3: no such zone" in said and closed in said
        assert "Logged" in client.get(A).text
    finally:
        db.close()


# --- the acceptance load, test-sized (bench/bench_comments.py measures the full one) ----------


@pytest.mark.slow  # `masthead serve`, 2 workers, many clients
def test_concurrent_comments_while_the_watcher_reindexes_are_each_stored_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Comment POSTs (form and JSON) from several clients at once against `masthead serve` with
    2 workers while its watcher re-indexes changed posts: every comment stored exactly once,
    no 5xx, each shown on the page fetched right after it, every edit served. Not timed."""
    spec = importlib.util.spec_from_file_location("bench_comments", BENCH / "bench_comments.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_comments", bench)  # dataclasses look it up
    spec.loader.exec_module(bench)
    result = bench.run(tmp_path / "site", comments=16, clients=4, edits=4, posts=8, workers=2)
    assert len(result.posts) == 16
    assert {status for _, status in result.posts} == {201, 303}
    assert all(result.stored[text] == 1 for text in result.sent), result.stored
    assert sum(result.stored.values()) == 16
    assert result.server_errors == []
    assert result.hidden == [], "a page fetched after a comment was published did not show it"
    assert result.stale_titles == []


def test_the_purged_urls_include_the_threads_further_pages_of_comments(make_site, serve):
    site = _purging_site(make_site, purge_command=["true"], comments_per_page=1)
    client = serve(site)
    db = Database(site.database_path)
    try:
        write_comment(db, A, "First page")
        write_comment(db, A_ZH, "Second page", lang="zh")
        write_comment(db, A, "Third page")
    finally:
        db.close()
    state = state_of(client)
    found = set(Purger(state).urls([thread_of(state.db, A)]))
    for permalink in (A, A_ZH):
        for n in (2, 3):
            assert f"https://example.com{permalink}?cpage={n}" in found
            assert client.get(f"{permalink}?cpage={n}").status_code == 200
        assert f"https://example.com{permalink}?cpage=4" not in found
        assert client.get(f"{permalink}?cpage=4").status_code == 200  # the last page, 3
