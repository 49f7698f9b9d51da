#!/usr/bin/env python3
"""Save-to-visible latency of the watcher: how long after a save a reader sees the change.

A plain script, not a test. For generated sites of 100, 1,000 and 5,000 posts (bench/make_corpus.py,
as bench_index.py builds them) it serves the site with the watcher on (create_app(watch=True,
dev=True), uvicorn on 127.0.0.1 in a thread), then edits one post --edits times (a different post
each time, written in place like most editors' plain save) and measures, with time.perf_counter:

  visible   from the write to the first `GET /posts/{slug}/` that shows the new text
            (polled every 5 ms over HTTP by a separate client thread)
  reload    from the write to the `version` event on the live-reload stream (/_dev/reload),
            i.e. when an open page in --dev is told to reload

p50/p95 are nearest-rank percentiles. Usage, from the repository root:

    PYTHONPATH=src .venv/bin/python bench/bench_watch.py [--sizes 100 1000 5000] [--edits 30]
"""

from __future__ import annotations

import argparse
import math
import platform
import socket
import sqlite3
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import uvicorn

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_index import make_site

from masthead.config import load_site
from masthead.web.app import create_app


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[max(1, min(len(s), math.ceil(q / 100 * len(s)))) - 1]


def serve(site_dir: Path) -> tuple[uvicorn.Server, threading.Thread, str]:
    app = create_app(load_site(site_dir), watch=True, dev=True)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    time.sleep(0.5)
    return server, thread, f"http://127.0.0.1:{sock.getsockname()[1]}"


class Stream:
    """Reads the live-reload stream in a thread and records when each version arrives."""

    def __init__(self, base: str) -> None:
        self.events: list[tuple[float, str]] = []
        self._client = httpx.Client(timeout=None)
        self._thread = threading.Thread(target=self._run, args=(base,), daemon=True)
        self._thread.start()

    def _run(self, base: str) -> None:
        try:
            with self._client.stream("GET", base + "/_dev/reload") as r:
                for line in r.iter_lines():
                    if line.startswith("data:"):
                        self.events.append((time.perf_counter(), line[5:].strip()))
        except httpx.HTTPError:
            pass  # the server stopped: the measurement is over

    def after(self, t: float, timeout: float = 10.0) -> float | None:
        end = time.perf_counter() + timeout
        while time.perf_counter() < end:
            for when, _version in self.events:
                if when >= t:
                    return when
            time.sleep(0.002)
        return None


def measure(site_dir: Path, edits: int) -> dict:
    server, thread, base = serve(site_dir)
    http = httpx.Client(base_url=base, timeout=10)
    stream = Stream(base)
    time.sleep(0.3)
    db = sqlite3.connect(site_dir / ".masthead" / "site.db")
    rows = db.execute(
        "SELECT source, url FROM posts WHERE kind = 'post' AND draft = 0 ORDER BY id LIMIT :n",
        {"n": edits},
    ).fetchall()
    db.close()
    visible: list[float] = []
    reload: list[float] = []
    for k, (source, url) in enumerate(rows):
        path = site_dir / source
        marker = f"benchmark edit {k} {time.time_ns()}"
        text = path.read_text(encoding="utf-8")
        t0 = time.perf_counter()
        path.write_text(text.rstrip("\n") + f"\n\n{marker}\n", encoding="utf-8")
        while True:
            r = http.get(url)
            if marker in r.text:
                visible.append(time.perf_counter() - t0)
                break
            if time.perf_counter() - t0 > 10:
                raise SystemExit(f"{url}: edit not visible after 10 s")
            time.sleep(0.005)
        seen = stream.after(t0)
        if seen is not None:
            reload.append(seen - t0)
        time.sleep(0.3)  # let the batch close before the next save
    stats = http.get("/healthz").json()["watch"]
    http.close()
    server.should_exit = True
    thread.join(5)
    return {"visible": visible, "reload": reload, "stats": stats}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=["100", "1000", "5000"])
    parser.add_argument("--edits", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"<!-- Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}, "
          f"{platform.machine()}; {args.edits} edits per size -->\n")  # fmt: skip
    print("| posts | edits | visible p50 ms | visible p95 ms | reload event p50 ms | "
          "reload event p95 ms | batches | rescans |")  # fmt: skip
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="masthead-watch-") as tmp:
        for size in args.sizes:
            site_dir = make_site(size, Path(tmp), args.seed)
            print(f"{size}: serving {site_dir}", file=sys.stderr, flush=True)
            result = measure(site_dir, args.edits)
            v = [x * 1000 for x in result["visible"]]
            r = [x * 1000 for x in result["reload"]] or [float("nan")]
            s = result["stats"]
            print(
                f"| {int(size):,} | {len(v)} | {pct(v, 50):.0f} | {pct(v, 95):.0f} | "
                f"{pct(r, 50):.0f} | {pct(r, 95):.0f} | {s['batches']} | {s['rescans']} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
