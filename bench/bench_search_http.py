#!/usr/bin/env python3
"""HTTP search throughput of `masthead serve` (granian, as in production) for a broad query
whose text differs on every request. A plain script, not a test.

    python bench/bench_search_http.py --site SITE --masthead .venv/bin/masthead \\
        [--site SITE2 --masthead OTHER/.venv/bin/masthead] [--rounds 2] [--seconds 10]

Each `--site` (an indexed site folder; its `database` setting may point anywhere) is served by
the `--masthead` given with it (`masthead serve SITE --no-watch --port P`: granian, one worker
per CPU), so two checkouts can be compared on the same machine in one run; the servers take
turns, `--rounds` times (alternating, so a change in the machine's load hits both alike).

Load: wrk, `-t2` with 4 and with 8 connections, `--seconds` each, after `--settle` seconds
and a 3-second warm-up.
Every request is `GET /api/search?q=...` with a query string seen once: `harbor OR qN` (N a
random number up to 10^9: a word no post has, so the hits are those of `harbor`) or
`harbor after:YYYY-MM-DD` (a random day of 1900-1979, before every generated post: a filter
that removes nothing). So a result cache keyed by the text never answers, and every request runs
a whole search (rank, count, facets, first page of snippets) of `harbor`'s hits plus one
term or filter. `--same` sends plain `harbor` every time instead (what a result cache answers).
`--page` asks for the search page (`GET /search?q=...`, HTML) instead of the JSON API.
Output: a Markdown table (requests/s, p50/p90/p99 latency) per server, round and connections.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

LUA = """\
local same = %(same)s
local path = "%(path)s"
function setup(thread)
  thread:set("seed", math.random(1, 1000000))
end
function init(args)
  math.randomseed(seed or os.time())
end
function request()
  if same then return wrk.format("GET", path .. "?q=harbor") end
  local q
  if math.random() < 0.5 then
    q = "harbor%%20OR%%20q" .. math.random(1, 1000000000)
  else
    q = "harbor%%20after:" .. string.format("%%04d-%%02d-%%02d", math.random(1900, 1979),
                                           math.random(1, 12), math.random(1, 28))
  end
  return wrk.format("GET", path .. "?q=" .. q)
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "WRKJSON {\\"requests\\": %%d, \\"duration_us\\": %%d, \\"errors\\": %%d, " ..
    "\\"p50\\": %%d, \\"p90\\": %%d, \\"p99\\": %%d}\\n",
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99)))
end
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(masthead: str, site: str) -> tuple[subprocess.Popen, int]:
    port = free_port()
    proc = subprocess.Popen(
        [masthead, "serve", site, "--no-watch", "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/search?q=harbor") as r:
                if r.status == 200 and json.load(r)["total"] > 0:
                    return proc, port
        except OSError:
            time.sleep(0.5)
    proc.kill()
    raise RuntimeError(f"{masthead} serve {site} did not answer")


def wrk(port: int, connections: int, seconds: int, script: Path) -> dict:
    cmd = ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "-s", str(script)]
    out = subprocess.run(
        [*cmd, f"http://127.0.0.1:{port}"], capture_output=True, text=True, check=True
    ).stdout
    r = json.loads(next(x for x in out.splitlines() if x.startswith("WRKJSON "))[8:])
    r["rps"] = r["requests"] / (r["duration_us"] / 1e6)
    return r


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--site", action="append", required=True)
    ap.add_argument("--masthead", action="append", required=True)
    ap.add_argument("--label", action="append")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--connections", type=int, nargs="+", default=[4, 8])
    ap.add_argument("--same", action="store_true", help="plain `harbor` on every request")
    ap.add_argument("--page", action="store_true", help="the search page, not /api/search")
    ap.add_argument(
        "--settle",
        type=float,
        default=5.0,
        help="seconds to wait after start: each worker makes its search catalog's frequent "
        "words in the background (about 2 s of CPU at 10,000 posts)",
    )
    a = ap.parse_args()
    if len(a.site) != len(a.masthead):
        ap.error("one --masthead per --site")
    labels = a.label or [f"{m} {s}" for m, s in zip(a.masthead, a.site, strict=True)]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "broad.lua"
        values = {
            "same": "true" if a.same else "false",
            "path": "/search" if a.page else "/api/search",
        }
        script.write_text(LUA % values, encoding="utf-8")
        for rnd in range(1, a.rounds + 1):
            for label, masthead, site in zip(labels, a.masthead, a.site, strict=True):
                proc, port = start(masthead, site)
                try:
                    time.sleep(a.settle)
                    wrk(port, 4, 3, script)  # warm-up
                    for c in a.connections:
                        load = os.getloadavg()[0]
                        r = wrk(port, c, a.seconds, script)
                        rows.append((label, rnd, c, r, load))
                        print(f"{label} round {rnd} c{c}: {r['rps']:.0f}/s", file=sys.stderr)
                finally:
                    proc.terminate()
                    proc.wait(30)
    print("| server | round | connections | requests/s | p50 ms | p90 ms | p99 ms | errors "
          "| load avg (1 min) |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, rnd, c, r, load in rows:
        print(
            f"| {label} | {rnd} | {c} | {r['rps']:.0f} | {r['p50'] / 1000:.1f} | "
            f"{r['p90'] / 1000:.1f} | {r['p99'] / 1000:.1f} | {r['errors']} | {load:.1f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
