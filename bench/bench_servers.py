#!/usr/bin/env python3
"""ASGI servers side by side: which one `masthead serve` should run on.

A plain script, not a test. Run from the repository root, with wrk on PATH (granian is a
dependency: `masthead serve` runs on it in production):

    PYTHONPATH=src .venv/bin/python bench/bench_servers.py            # wrk -t2 -c64 -d5s
    PYTHONPATH=src .venv/bin/python bench/bench_servers.py --seconds 10

Servers: uvicorn with uvloop + httptools (what uvicorn[standard] picks), uvicorn with asyncio +
h11, granian (ASGI interface). Apps: (a) a pure ASGI app answering 12 KB of fixed bytes, the
ceiling of each server; (b) masthead's app over a copy of the demo site (index done once first,
no watcher), asked for one cached post. Each with 1 and 2 worker processes, on 127.0.0.1, one
after the other in one run. HOME is a temporary folder (nothing written outside it).
Output: a Markdown table of requests/s on stdout, and the longest time each server took to
stop after SIGTERM (right after wrk); progress on stderr.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "src" / "masthead" / "demo"
POST = "/posts/kubelet-syncloop-pleg/"
BODY = b"x" * 12 * 1024


async def trivial(scope, receive, send):  # type: ignore[no-untyped-def]
    """(a): 12 KB of fixed bytes for every HTTP request."""
    if scope["type"] != "http":
        return
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"text/html"), (b"content-length", b"12288")],
        }
    )
    await send({"type": "http.response.body", "body": BODY})


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def command(server: str, target: str, factory: bool, workers: int, port: int) -> list[str]:
    py = sys.executable
    common = ["--host", "127.0.0.1", "--port", str(port), "--workers", str(workers)]
    if server == "granian":
        return [py, "-m", "granian", "--interface", "asgi", "--no-access-log", *common]
    loop, http = ("uvloop", "httptools") if server == "uvicorn-uvloop" else ("asyncio", "h11")
    fac = ["--factory"] if factory else []
    return [py, "-m", "uvicorn", "--loop", loop, "--http", http, "--no-access-log",
            "--log-level", "warning", *fac, *common, target]  # fmt: skip


def wait(url: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"{url} never answered")


def wrk(url: str, seconds: int) -> float:
    out = subprocess.run(
        ["wrk", "-t2", "-c64", f"-d{seconds}s", url], capture_output=True, text=True, check=True
    ).stdout
    m = re.search(r"Requests/sec:\s+([\d.]+)", out)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if not m or errors:
        raise SystemExit(f"wrk failed on {url}:\n{out}")
    return float(m.group(1))


def main() -> None:
    seconds = int(sys.argv[sys.argv.index("--seconds") + 1]) if "--seconds" in sys.argv else 5
    tmp = Path(tempfile.mkdtemp(prefix="masthead-bench-servers-"))
    site = tmp / "demo"
    shutil.copytree(DEMO, site, ignore=shutil.ignore_patterns(".masthead"))
    env = {**os.environ, "HOME": str(tmp), "PYTHONPATH": f"{ROOT / 'src'}:{ROOT / 'bench'}"}
    subprocess.run([sys.executable, "-m", "masthead", "index", str(site)], env=env, check=True,
                   capture_output=True)  # fmt: skip
    results: dict[tuple[str, str, int], float] = {}
    stops: dict[str, float] = {}
    apps = {
        "trivial 12 KB ASGI": ("bench_servers:trivial", False, "/"),
        "masthead cached post": ("masthead.cli.server:worker_app", True, POST),
    }
    servers = ("uvicorn-uvloop", "uvicorn-asyncio", "granian")
    for app_name, (target, factory, path) in apps.items():
        for workers in (1, 2):
            for server in servers:
                port = free_port()
                served = f"http://127.0.0.1:{port}"
                plan = {"root": str(site), "served": served, "dev": False, "watch": False}
                cmd = command(server, target, factory, workers, port)
                if server == "granian":
                    cmd += [*(["--factory"] if factory else []), target]
                proc = subprocess.Popen(
                    cmd,
                    start_new_session=True,  # its workers too can be killed
                    env={**env, "_MASTHEAD_SERVE_WORKER": json.dumps(plan)},
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                try:
                    wait(served + path)
                    for _ in range(20):  # every worker renders the page once
                        urllib.request.urlopen(served + path).read()
                    rps = wrk(served + path, seconds)
                finally:
                    proc.terminate()
                    stopping = time.monotonic()
                    try:
                        proc.wait(20)
                        took = time.monotonic() - stopping
                        stops[server] = max(stops.get(server, 0.0), took)
                    except subprocess.TimeoutExpired:  # seen once with granian: say so, go on
                        print(f"{server} did not stop within 20 s of SIGTERM", file=sys.stderr)
                        os.killpg(proc.pid, signal.SIGKILL)
                        proc.wait()
                results[(app_name, server, workers)] = rps
                print(f"{app_name}, {server}, {workers} worker(s): {rps:,.0f}/s", file=sys.stderr)
    shutil.rmtree(tmp, ignore_errors=True)
    machine = platform.processor() or platform.machine()
    print(f"machine: {machine}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
          f"wrk -t2 -c64 -d{seconds}s, 127.0.0.1\n")  # fmt: skip
    print("| app | workers | " + " | ".join(servers) + " |")
    print("| --- | ---: | " + " | ".join("---:" for _ in servers) + " |")
    for app_name in apps:
        for workers in (1, 2):
            row = [f"{results[(app_name, s, workers)]:,.0f}" for s in servers]
            print(f"| {app_name} | {workers} | " + " | ".join(row) + " |")
    print("\nlongest stop after SIGTERM: " + ", ".join(f"{k} {v:.1f} s" for k, v in stops.items()))


if __name__ == "__main__":
    main()
