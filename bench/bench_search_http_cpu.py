#!/usr/bin/env python3
"""Server CPU time per search request, one request at a time: a light load for a shared
machine (bench_search_http.py is the throughput test, for a quiet one). A plain script.

    python bench/bench_search_http_cpu.py MASTHEAD SITE [--path /api/search] [--requests 200]

Starts `MASTHEAD serve SITE --no-watch --workers 1` (granian), sends 30 warm-up requests, then
`--requests` requests (after `--settle` seconds) over one keep-alive connection, each a query
string seen once (as
bench_search_http.py: `harbor OR qN` or `harbor after:YYYY-MM-DD`), to `--path` (`/search`:
the HTML page). Prints the user + system CPU time the server's processes spent per request
(from /proc: the server and its children) and the wall time per request.
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path


def _cpu(pid: int) -> float:
    """User + system seconds of `pid` and its children (granian's workers), from /proc."""
    children = subprocess.run(
        ["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True, check=False
    ).stdout.split()
    total = 0.0
    for p in [pid, *map(int, children)]:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def _query(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return f"harbor%20OR%20q{rng.randint(1, 10**9)}"
    day = f"{rng.randint(1900, 1979):04d}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    return f"harbor%20after:{day}"


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("masthead")
    ap.add_argument("site")
    ap.add_argument("--path", default="/api/search")
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument(
        "--settle",
        type=float,
        default=10.0,
        help="seconds to wait after the warm-up: the server makes its search catalog's "
        "frequent words in the background after start (about 2 s of CPU at 10,000 posts)",
    )
    a = ap.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    cmd = [a.masthead, "serve", a.site, "--no-watch", "--workers", "1"]
    proc = subprocess.Popen(
        [*cmd, "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    rng = random.Random(1)
    try:
        deadline = time.monotonic() + 600
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz").read()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        conn = http.client.HTTPConnection("127.0.0.1", port)

        def get(q: str) -> None:
            conn.request("GET", f"{a.path}?q={q}")
            r = conn.getresponse()
            r.read()
            assert r.status == 200, r.status  # nosec B101 - a benchmark script

        for _ in range(30):
            get(_query(rng))
        time.sleep(a.settle)
        cpu, wall = _cpu(proc.pid), time.perf_counter()
        for _ in range(a.requests):
            get(_query(rng))
        wall, cpu = time.perf_counter() - wall, _cpu(proc.pid) - cpu
        print(
            f"{a.masthead} {a.site} {a.path}: server CPU {cpu / a.requests * 1000:.2f} ms a "
            f"request, wall {wall / a.requests * 1000:.2f} ms ({a.requests} one at a time), "
            f"load {os.getloadavg()[0]:.1f}"
        )
    finally:
        proc.terminate()
        proc.wait(30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
