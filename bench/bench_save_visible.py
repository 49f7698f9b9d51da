#!/usr/bin/env python3
"""Save → visible under `masthead serve --workers N`: from an edited post file's save to the
first request that shows the new text, step by step; then the workers' memory after many
distinct pages. A plain script, not a test.

    PYTHONPATH=src .venv/bin/python bench/bench_save_visible.py DIR --posts 50000 \\
        [--edits 20] [--rounds 2] [--workers 2] [--baseline OTHER/src] [--pages 1000]

DIR/site is made once (bench/make_corpus.py, seed 1, and `masthead index`) and reused by later
runs; with `--baseline`, copy DIR/site/.masthead/site.db to before.db beside it first, while both
checkouts can read it (each server uses its own database: `MASTHEAD_DATABASE`).

Each round serves it with `python -m masthead serve DIR/site --workers N` (granian) from
this checkout ("now") and, with `--baseline OTHER/src`, from another checkout ("before"), in
alternating order, and edits --edits posts (different ones in every round and server): each post
is fetched first (so the workers hold it), then a marker paragraph is appended (an in-place
write, as most editors save) and the page is polled every 2 ms, on a new connection each time
(any worker may answer, as for a reader). The edits start once the workers are ready (the watcher
armed) and have warmed up (their search catalog and frequent words made: the server's CPU quiet
for three seconds). Per edit:

  commit    from the write to the watcher's COMMIT (the change signal `site.db.gen` moved;
            polled every 0.5 ms): inotify, the debounce window, the batch
  batch     the watcher's batch (`/healthz` `watch.last_batch_ms`): settling, parsing, the write
  after     from the COMMIT to the first answer with the new text: a worker noticing the change,
            re-rendering the page, the polling interval
  miss      how long that first answer took (the worker's re-render, with the request)
  visible   from the write to that answer

p50/p95 are nearest-rank. Each round also prints the server's CPU time (utime + stime of the
whole process tree, from /proc) and the 1-minute load average. `--pages N`: after the edits,
fetch N distinct post pages from "now" (its last round, after the edits) and print the RSS and
PSS (/proc/PID/smaps_rollup) of every process under `masthead serve`.
"""

from __future__ import annotations

import argparse
import http.client
import math
import os
import platform
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
MAKE_CORPUS = BENCH / "make_corpus.py"
TICK = os.sysconf("SC_CLK_TCK")
SITE_TOML = """\
title = "masthead bench"
base_url = "https://bench.example.org"
default_language = "en"
timezone = "UTC"

[languages.en]
name = "English"

[languages.zh]
name = "中文"
prefix = "zh"
"""


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[max(1, min(len(s), math.ceil(q / 100 * len(s)))) - 1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get(port: int, path: str) -> tuple[int, bytes]:
    """One GET on a new connection: (status, body)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def make_site(workdir: Path, posts: int, seed: int, src: Path) -> Path:
    site = workdir / "site"
    if (site / "masthead.toml").exists():
        return site
    (site / "content" / "posts").mkdir(parents=True)
    log(f"writing {posts} posts …")
    subprocess.run(
        [sys.executable, str(MAKE_CORPUS), str(site / "content" / "posts"), str(posts), str(seed)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    (site / "masthead.toml").write_text(SITE_TOML, encoding="utf-8")
    log("indexing …")
    env = {**os.environ, "PYTHONPATH": str(src)}
    subprocess.run([sys.executable, "-m", "masthead", "index", str(site)], env=env, check=True)
    return site


def tree(root: int) -> list[int]:
    """`root` and every process below it."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += children.get(pid, [])
    return out


def cpu_seconds(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / TICK  # utime, stime
    return total


def memory(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of `pid` in KiB."""
    values = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":", 1)
        values[name] = int(value.split()[0])
    return values["Rss"], values["Pss"]


class Server:
    def __init__(self, site: Path, src: Path, workers: int, database: str) -> None:
        self.port = free_port()
        self.signal = site / (database + ".gen")
        env = {**os.environ, "PYTHONPATH": str(src), "MASTHEAD_DATABASE": database}
        args = ["serve", str(site), "--port", str(self.port), "--workers", str(workers)]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "masthead", *args, "--no-access-log"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.pids: list[int] = []
        self.cpu = 0.0

    def ready(self, timeout: float = 900) -> None:
        """Wait until a worker answers and the watcher is armed."""
        import json

        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise SystemExit(f"masthead serve exited with {self.proc.returncode}")
            try:
                status, body = get(self.port, "/healthz")
                watch = json.loads(body).get("watch") if status == 200 else None
                if watch and watch.get("armed"):
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise SystemExit(f"masthead serve not ready within {timeout} s")

    def quiet(self, timeout: float = 900) -> float:
        """Wait until the workers have warmed up (each makes its search catalog and frequent
        words in the background after it starts: an edit made meanwhile shares the CPU with
        them): three seconds in a row using under 5% of a CPU. The seconds waited."""
        start = end = time.monotonic()
        end += timeout
        calm = 0
        last = cpu_seconds(tree(self.proc.pid))
        while calm < 3 and time.monotonic() < end:
            time.sleep(1)
            now = cpu_seconds(tree(self.proc.pid))
            calm = calm + 1 if now - last < 0.05 else 0
            last = now
        return time.monotonic() - start

    def watch_stats(self) -> dict:
        """`/healthz`'s watch stats, from the worker that watches (asked until it answers)."""
        import json

        for _ in range(200):
            watch = json.loads(get(self.port, "/healthz")[1]).get("watch")
            if watch:
                return dict(watch)
        raise SystemExit("no worker reports the watcher")

    def workers(self) -> list[int]:
        return [pid for pid in tree(self.proc.pid) if pid != self.proc.pid]

    def stop(self) -> None:
        self.pids = tree(self.proc.pid)
        self.cpu = cpu_seconds(self.pids)  # before they exit: /proc forgets them after
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def watch_signal(path: Path, since: tuple, stop: threading.Event, out: list[float]) -> None:
    """Record when `path`'s (inode, size, mtime) first differs from `since`."""
    name = str(path)
    while not stop.is_set():
        try:
            st = os.stat(name)
            now = (st.st_ino, st.st_size, st.st_mtime_ns)
        except FileNotFoundError:
            now = None
        if now != since:
            out.append(time.perf_counter())
            return
        time.sleep(0.0005)


def stamp(path: Path) -> tuple | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def edit_round(server: Server, site: Path, rows: list[tuple[str, str]], label: str) -> dict:
    gen_file = server.signal
    steps: dict[str, list[float]] = {k: [] for k in ("commit", "batch", "after", "miss", "visible")}
    for k, (source, url) in enumerate(rows):
        path = site / source
        for _ in range(4):  # both workers hold the page, most likely
            get(server.port, url)
        marker = f"save-visible {label} {k} {time.time_ns()}".encode()
        text = path.read_bytes()
        committed: list[float] = []
        done = threading.Event()
        before = stamp(gen_file)
        watcher = threading.Thread(target=watch_signal, args=(gen_file, before, done, committed))
        watcher.start()
        t0 = time.perf_counter()
        path.write_bytes(text.rstrip(b"\n") + b"\n\n" + marker + b"\n")
        while True:
            a = time.perf_counter()
            _status, body = get(server.port, url)
            b = time.perf_counter()
            if marker in body:
                break
            if b - t0 > 30:
                raise SystemExit(f"{url}: the edit was not visible after 30 s")
            time.sleep(0.002)
        done.set()
        watcher.join()
        stats = server.watch_stats()
        steps["visible"].append((b - t0) * 1000)
        steps["miss"].append((b - a) * 1000)
        steps["batch"].append(stats["last_batch_ms"])
        if committed:
            steps["commit"].append((committed[0] - t0) * 1000)
            steps["after"].append((b - committed[0]) * 1000)
        time.sleep(0.3)  # the next save is a new batch
    return steps


def distinct_pages(server: Server, urls: list[str]) -> None:
    for k, url in enumerate(urls, start=1):
        get(server.port, url)
        if k % 100 == 0:
            log(f"  {k} pages")


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("workdir", type=Path)
    ap.add_argument("--posts", type=int, default=50000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--edits", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--baseline", type=Path, help="another checkout's src/, served in turn")
    ap.add_argument(
        "--baseline-db",
        default=".masthead/before.db",
        help="the baseline's database in the site (a copy made before this checkout migrated "
        "site.db: a newer schema would stop an older masthead)",
    )
    ap.add_argument("--pages", type=int, default=0, help="distinct pages before the memory")
    a = ap.parse_args()
    a.workdir.mkdir(parents=True, exist_ok=True)
    now_src = REPO / "src"
    site = make_site(a.workdir, a.posts, a.seed, now_src)
    db = sqlite3.connect(site / ".masthead" / "site.db")
    peers = [("now", now_src, ".masthead/site.db")]
    if a.baseline:
        peers.append(("before", a.baseline.resolve(), a.baseline_db))
    need = a.edits * a.rounds * len(peers) + a.pages
    rows = db.execute(
        "SELECT source, url FROM posts WHERE kind = 'post' AND draft = 0 ORDER BY id LIMIT ?",
        (need,),
    ).fetchall()
    db.close()
    print(
        f"<!-- {a.posts} posts, {a.workers} workers, {a.edits} edits a round; Python "
        f"{platform.python_version()}, SQLite {sqlite3.sqlite_version}, {platform.machine()}, "
        f"{os.cpu_count()} CPUs -->"
    )
    print(
        "| round | server | visible p50 | p95 | commit p50 | p95 | batch p50 | after p50 | p95 "
        "| miss p50 | server CPU | load |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    used = 0
    sizes: list[str] = []
    for rnd in range(1, a.rounds + 1):
        order = peers if rnd % 2 else peers[::-1]
        for label, src, database in order:
            server = Server(site, src, a.workers, database)
            try:
                server.ready()
                log(f"  {label}: warmed up after {server.quiet():.0f} s more")
                cpu0 = cpu_seconds(tree(server.proc.pid))
                chosen = rows[used : used + a.edits]
                used += a.edits
                s = edit_round(server, site, chosen, f"{label}-{rnd}")
                cpu1 = cpu_seconds(tree(server.proc.pid))
                load = os.getloadavg()[0]
                c, af = s["commit"] or [math.nan], s["after"] or [math.nan]
                print(
                    f"| {rnd} | {label} | {pct(s['visible'], 50):.0f} "
                    f"| {pct(s['visible'], 95):.0f} | {pct(c, 50):.0f} | {pct(c, 95):.0f} "
                    f"| {pct(s['batch'], 50):.1f} | {pct(af, 50):.0f} | {pct(af, 95):.0f} "
                    f"| {pct(s['miss'], 50):.1f} | {cpu1 - cpu0:.2f} s | {load:.1f} |",
                    flush=True,
                )
                log(f"  visible ms: {' '.join(f'{v:.0f}' for v in s['visible'])}")
                if a.pages and label == "now" and rnd == a.rounds:  # then the memory
                    urls = [u for _, u in rows[-a.pages :]]
                    distinct_pages(server, urls)
                    for pid in server.workers():
                        rss, pss = memory(pid)
                        sizes.append(
                            f"| {label} | {len(urls)} | {pid} | {rss / 1024:.0f} | "
                            f"{pss / 1024:.0f} | {os.getloadavg()[0]:.1f} |"
                        )
            finally:
                server.stop()
    if sizes:
        print("\n| server | pages | process | RSS MiB | PSS MiB | load |")
        print("|---|---:|---|---:|---:|---:|")
        print("\n".join(sizes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
