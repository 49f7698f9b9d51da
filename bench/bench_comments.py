#!/usr/bin/env python3
"""Comments under load (issue 11's acceptance): concurrent comment POSTs against `masthead serve`
while its watcher re-indexes changed posts.

A plain script, not a test (tests/test_comments_cache.py runs a small `run()` for correctness
only, never timed). It writes a site of `--posts` posts into a temporary folder (English, with
every 5th post translated into Chinese), starts `python -m masthead serve SITE --port 0
--workers W` (the watcher on, as in production) and, once every worker answers, at the same
moment:

  - `--clients` threads each send their share of `--comments` comment POSTs, one after another,
    half as the no-JavaScript form (`POST /comments`, answered 303) and half as JSON (`POST
    /api/comments`, answered 201), to posts spread over the whole site; every comment is
    published at once (no moderation, no per-client limits: all clients are 127.0.0.1), so each
    one moves its thread's version; after each POST the client fetches the post page on a new
    connection (any worker) and checks that the comment is there;
  - `--edits` post files are rewritten with a new title, which the watcher re-indexes (the
    script waits until every new title is served).

Checked: every comment stored exactly once (by its unique text, in the database afterwards), no
5xx answer, every page fetched after a POST showed that comment (the cache never hid it), every
edited post served with its new title. Measured (time.perf_counter): comments/s over the POST
phase, the POST latency (p50, p95, max; nearest-rank), and when the watcher's edits became visible
relative to the POST phase. Usage, from the repository root:

    .venv/bin/python bench/bench_comments.py [--comments 200] [--clients 20] [--edits 50]
        [--posts 60] [--workers 2] [--server uvicorn|granian]
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx

TOML = """title = "Comments under load"
default_language = "en"
timezone = "Asia/Shanghai"
posts_per_page = 10
comments_moderation = false
comments_previously_approved = false
comments_flood_seconds = 0
comments_per_minute = 0
comments_min_seconds = 0
comments_max_links = 0

[languages.en]
name = "English"

[languages.zh]
name = "中文"
prefix = "zh"
"""
PARAGRAPH = (
    "The harbour lights come on one by one as the tide turns, and the keeper walks the pier "
    "with a lamp, counting boats against the ledger he has kept for thirty years.\n\n"
)


def post_text(title: str, day: int) -> str:
    return f'---\ntitle: "{title}"\ndate: 2024-01-{day:02d}\ntags: [harbour]\n---\n\n' + (
        PARAGRAPH * 12
    )


def make_site(root: Path, posts: int) -> list[str]:
    """A site of `posts` posts under `root` (every 5th one translated); their permalinks."""
    (root / "content" / "posts").mkdir(parents=True)
    (root / "masthead.toml").write_text(TOML, encoding="utf-8")
    urls = []
    for n in range(posts):
        folder = root / "content" / "posts"
        (folder / f"p{n}.md").write_text(post_text(f"Post {n}", n % 28 + 1), encoding="utf-8")
        urls.append(f"/posts/p{n}/")
        if n % 5 == 0:
            (folder / f"p{n}.zh.md").write_text(post_text(f"文章 {n}", n % 28 + 1), "utf-8")
    return urls


@dataclass
class Result:
    """What one run saw: per POST `(seconds, status)`, the 5xx answers, pages that did not show
    a comment just published, texts and how often each was stored, edited posts not served."""

    posts: list[tuple[float, int]] = field(default_factory=list)
    server_errors: list[str] = field(default_factory=list)
    hidden: list[str] = field(default_factory=list)
    stored: Counter[str] = field(default_factory=Counter)
    sent: list[str] = field(default_factory=list)
    stale_titles: list[str] = field(default_factory=list)
    wall: float = 0.0  # seconds of the POST phase
    edits_visible: float = 0.0  # seconds from the start until every edit was served
    lock: threading.Lock = field(default_factory=threading.Lock)

    def latency(self, q: float) -> float:
        values = sorted(s for s, _ in self.posts)
        return values[max(1, min(len(values), math.ceil(q / 100 * len(values)))) - 1]


def serve(site: Path, workers: int, server: str) -> tuple[subprocess.Popen[str], str]:
    """`masthead serve` on a free port with the watcher; the process and its URL (no slash)."""
    cmd = [sys.executable, "-m", "masthead", "serve", str(site), "--port", "0"]
    cmd += ["--workers", str(workers), "--server", server]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline() if proc.stdout else ""
    found = re.search(r"at (http://127\.0\.0\.1:\d+)/", line)
    if not found:
        proc.terminate()
        raise SystemExit(f"serve printed no URL: {line!r}")
    url = found.group(1)
    pids: set[int] = set()
    watching = False
    deadline = time.monotonic() + 60
    while len(pids) < workers or not watching:  # every worker up, the watcher armed
        if time.monotonic() > deadline:
            proc.terminate()
            raise SystemExit("the workers did not all answer within 60 s")
        try:
            health = httpx.get(url + "/healthz", headers={"Connection": "close"}).json()
        except httpx.TransportError:
            time.sleep(0.1)
            continue
        pids.add(health["pid"])
        watching = watching or bool(health.get("watch"))
    return proc, url


def _client(url: str, targets: list[str], n: int, count: int, result: Result) -> None:
    """One reader's session: `count` comments, form and JSON alternately, each checked on a
    fresh connection right after it was published."""
    origin = {"Origin": url}
    with httpx.Client(base_url=url, timeout=60) as client:
        for i in range(count):
            post = targets[(n * 7 + i * 13) % len(targets)]
            text = f"Comment {n}-{i} from load reader {n}"
            fields = {"post": post, "name": f"Reader {n}", "email": f"r{n}@example.com"}
            fields["body"] = text
            started = time.perf_counter()
            if i % 2:
                r = client.post("/api/comments", json=fields)
            else:
                r = client.post("/comments", data=fields, headers=origin)
            took = time.perf_counter() - started
            with result.lock:
                result.posts.append((took, r.status_code))
                result.sent.append(text)
                if r.status_code >= 500:
                    result.server_errors.append(f"POST {post}: {r.status_code}")
            if r.status_code not in (201, 303):
                continue
            page = httpx.get(url + post, headers={"Connection": "close"}, timeout=60)
            if page.status_code >= 500:
                with result.lock:
                    result.server_errors.append(f"GET {post}: {page.status_code}")
            elif text not in page.text:
                with result.lock:
                    result.hidden.append(f"{post}: {text}")


def _edit_posts(site: Path, url: str, count: int, started: float, result: Result) -> None:
    """Rewrite `count` posts with a new title; wait until the site serves every one of them."""
    folder = site / "content" / "posts"
    edited = {}
    for n in range(count):
        path = folder / f"p{n}.md"
        path.write_text(post_text(f"Edited post {n} (new)", n % 28 + 1), encoding="utf-8")
        st = path.stat()  # a new mtime even on a coarse clock
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))
        edited[f"/posts/p{n}/"] = f"Edited post {n} (new)"
    deadline = time.monotonic() + 120
    waiting = dict(edited)
    while waiting and time.monotonic() < deadline:
        for path, title in list(waiting.items()):
            r = httpx.get(url + path, headers={"Connection": "close"}, timeout=60)
            if r.status_code >= 500:
                with result.lock:
                    result.server_errors.append(f"GET {path}: {r.status_code}")
            if title in r.text:
                del waiting[path]
        time.sleep(0.05)
    result.edits_visible = time.perf_counter() - started
    result.stale_titles = sorted(waiting)


def stored_comments(site: Path) -> Counter[str]:
    """How many times each comment text is in the site's database (read through the store)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    from masthead.config import load_site
    from masthead.store import comments as store
    from masthead.store.db import Database

    db = Database(load_site(site).database_path)
    try:
        return Counter(c.body for c in store.all_comments(db.read()))
    finally:
        db.close()


def run(
    site: Path,
    *,
    comments: int = 200,
    clients: int = 20,
    edits: int = 50,
    posts: int = 60,
    workers: int = 2,
    server: str = "uvicorn",
) -> Result:
    """One run on a new site in the empty folder `site` (see the module doc)."""
    targets = make_site(site, max(posts, edits))
    proc, url = serve(site, workers, server)
    result = Result()
    try:
        shares = [
            comments // clients + (1 if n < comments % clients else 0) for n in range(clients)
        ]
        threads = [
            threading.Thread(target=_client, args=(url, targets, n, share, result))
            for n, share in enumerate(shares)
        ]
        started = time.perf_counter()
        editor = threading.Thread(target=_edit_posts, args=(site, url, edits, started, result))
        editor.start()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        result.wall = time.perf_counter() - started
        editor.join()
    finally:
        proc.terminate()
        proc.wait(30)
    result.stored = stored_comments(site)
    return result


def report(result: Result, args: argparse.Namespace) -> int:
    """Print the figures and the checks; 0 when every check passed."""
    n = len(result.posts)
    statuses = Counter(status for _, status in result.posts)
    twice = [t for t in result.sent if result.stored[t] != 1]
    extra = set(result.stored) - set(result.sent)
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    )
    print(
        f"{n} comment POSTs from {args.clients} clients, {args.workers} workers ({args.server}), "
        f"{args.edits} posts re-indexed by the watcher meanwhile"
    )
    print(f"  statuses: {dict(sorted(statuses.items()))}")
    print(f"  {n / result.wall:.1f} comments/s over {result.wall:.2f} s")
    print(
        f"  POST latency: p50 {result.latency(50) * 1000:.0f} ms, "
        f"p95 {result.latency(95) * 1000:.0f} ms, max {result.latency(100) * 1000:.0f} ms"
    )
    print(f"  every edit served {result.edits_visible:.2f} s after the start")
    checks = {
        "every comment stored exactly once": not twice and not extra and len(result.sent) == n,
        "no 5xx": not result.server_errors,
        "every page fetched after a POST showed it": not result.hidden,
        "every edited post served with its new title": not result.stale_titles,
    }
    for what, ok in checks.items():
        print(f"  {'ok ' if ok else 'FAIL'} {what}")
    for problem in (twice[:5], sorted(extra)[:5], result.server_errors[:5], result.hidden[:5]):
        for line in problem:
            print(f"     {line}")
    return 0 if all(checks.values()) else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--comments", type=int, default=200)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--edits", type=int, default=50)
    parser.add_argument("--posts", type=int, default=60)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--server", choices=("uvicorn", "granian"), default="uvicorn")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        result = run(
            Path(tmp) / "site",
            comments=args.comments,
            clients=args.clients,
            edits=args.edits,
            posts=args.posts,
            workers=args.workers,
            server=args.server,
        )
    return report(result, args)


if __name__ == "__main__":
    raise SystemExit(main())
