#!/usr/bin/env python3
"""Serving benchmark: a cached masthead page against nginx serving the same bytes, in one run.

A plain script, not a test. Run from the repository root (Debian's nginx, wrk and ab on PATH:
`apt-get install -y nginx wrk apache2-utils`):

    PYTHONPATH=src python bench/bench_serve.py                  # 5,000 generated posts
    PYTHONPATH=src python bench/bench_serve.py --posts 500 --duration 5 --runs 1   # a quick look

What it does
  1. Generates a site of N posts (bench/make_corpus.py, plain layout, --seed) and indexes it.
  2. Exports it with `masthead build SITE OUT` when this checkout has that command (the file nginx
     serves is then the exported one); otherwise writes the post's page, fetched from masthead
     with `Accept-Encoding: identity`, to OUT/<its path>/index.html (the same bytes by
     construction). The body sizes are checked equal before anything is timed.
  3. Starts nginx (worker_processes 2, sendfile, open_file_cache, access_log off: a production
     setup serving static files) and `masthead serve SITE --no-watch` with each worker count
     in --workers (when `serve` has no --workers option, only the one-process server runs).
  4. For each request kind it runs wrk (-t2 -c64 -dD) against every server in turn, --runs
     rounds alternating between servers (the machine is shared and noisy: side by side in one
     run is the only fair comparison), and prints req/s of each run, the median, and the
     median ratio to nginx.
Request kinds: `get` (200, no Accept-Encoding: identity bodies on both sides), `get-br`
(masthead's brotli body; nginx still sends identity, as Debian's nginx has no brotli module
enabled), `304` (If-None-Match with the server's own ETag), `head` (with ApacheBench, `ab -k -i
-c64`, from apache2-utils, because wrk cannot read responses to HEAD: it waits for the body the
Content-Length announces; ab is one thread, so its ceiling is lower than wrk's).
Output: Markdown tables on stdout; progress on stderr.
"""

from __future__ import annotations

import argparse
import http.client
import os
import platform
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))  # run as a script: its siblings import
from bench_index import GENERATED_TOML as SITE_TOML  # noqa: E402  (base_url bench.example.org)
from bench_index import log  # noqa: E402

REPO = BENCH_DIR.parent
MAKE_CORPUS = BENCH_DIR / "make_corpus.py"


NGINX_CONF = """\
worker_processes {workers};
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
{user}
events {{ worker_connections 1024; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 100000;
    open_file_cache max=1000 inactive=60s;
    access_log off;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    server {{
        listen 127.0.0.1:{port};
        root {root};
        index index.html;
    }}
}}
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetch(port: int, path: str, headers: dict[str, str] | None = None, method: str = "GET"):
    """(status, headers dict with lower-case names, body bytes) of one request."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def wait_ready(port: int, path: str, proc: subprocess.Popen, timeout: float = 300) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise SystemExit(f"server exited with {proc.returncode} before answering")
        try:
            if fetch(port, path)[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit(f"no answer on port {port} within {timeout} s")


def masthead(*args: str, **kw) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    return subprocess.run([sys.executable, "-m", "masthead", *args], env=env, **kw)


def has_option(command: str, option: str) -> bool:
    text = masthead(command, "--help", capture_output=True, text=True).stdout
    return option in text


def make_site(workdir: Path, posts: int, seed: int) -> Path:
    site = workdir / "site"
    (site / "content" / "posts").mkdir(parents=True)
    (site / "masthead.toml").write_text(SITE_TOML, encoding="utf-8")
    subprocess.run(
        [sys.executable, str(MAKE_CORPUS), str(site / "content" / "posts"), str(posts), str(seed)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    log(f"indexing {posts} posts …")
    masthead("index", str(site), check=True, stdout=subprocess.DEVNULL)
    return site


def start_masthead(site: Path, workers: int | None) -> tuple[subprocess.Popen, int]:
    port = free_port()
    args = ["serve", str(site), "--no-watch", "--port", str(port)]
    if workers is not None:
        args += ["--workers", str(workers)]
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "masthead", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    return proc, port


def start_nginx(root: Path, prefix: Path, workers: int) -> tuple[subprocess.Popen, int]:
    port = free_port()
    for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (prefix / sub).mkdir(parents=True, exist_ok=True)
    user = "user root root;" if os.geteuid() == 0 else ""  # workers must read the temp root
    conf = prefix / "nginx.conf"
    conf.write_text(
        NGINX_CONF.format(workers=workers, prefix=prefix, user=user, port=port, root=root)
    )
    proc = subprocess.Popen(
        ["nginx", "-c", str(conf), "-p", str(prefix), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    return proc, port


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def export(site: Path, out: Path, port: int, path: str) -> None:
    """The post's file for nginx: `masthead build` when available, else the served bytes."""
    if has_option("build", "--base-url"):
        log("exporting with masthead build …")
        masthead("build", str(site), str(out), check=True, stdout=subprocess.DEVNULL)
        return
    status, _, body = fetch(port, path, {"Accept-Encoding": "identity"})
    assert status == 200, status
    target = out / path.strip("/") / "index.html"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(body)


def wrk(port: int, path: str, seconds: int, headers: dict[str, str]) -> float:
    cmd = ["wrk", "-t2", "-c64", f"-d{seconds}s", "--latency"]
    for name, value in headers.items():
        cmd += ["-H", f"{name}: {value}"]
    cmd.append(f"http://127.0.0.1:{port}{path}")
    text = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    if errors:
        raise SystemExit(f"wrk saw {errors.group(1)} non-2xx/3xx responses on port {port}")
    return rps


def ab_head(port: int, path: str, seconds: int) -> float:
    cmd = ["ab", "-k", "-i", "-c64", "-t", str(seconds), "-n", "100000000", "-q"]
    text = subprocess.run(
        [*cmd, f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True, check=True
    ).stdout
    failed = re.search(r"Non-2xx responses:\s+(\d+)", text)
    if failed:
        raise SystemExit(f"ab saw {failed.group(1)} non-2xx responses on port {port}")
    return float(re.search(r"Requests per second:\s+([\d.]+)", text).group(1))


def pick_post(site: Path) -> str:
    """The URL path of a mid-sized English post (the same one every run)."""
    posts = sorted((site / "content" / "posts").glob("*.md"))
    english = [p for p in posts if not p.name.endswith(".zh.md")]
    chosen = english[len(english) // 2]
    return f"/posts/{chosen.stem}/"


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    nginx = subprocess.run(["nginx", "-v"], capture_output=True, text=True).stderr.strip()
    wrk_v = subprocess.run(["wrk", "-v"], capture_output=True, text=True).stdout.splitlines()
    return (
        f"{os.cpu_count()} CPUs ({cpu}), Python {platform.python_version()}, {nginx}, "
        f"{wrk_v[0] if wrk_v else 'wrk'}, load average {os.getloadavg()[0]:.2f} at start"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--posts", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    ap.add_argument("--runs", type=int, default=3, help="alternating rounds")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--kinds", nargs="+", default=["get", "get-br", "304", "head"])
    args = ap.parse_args()
    for tool in ("nginx", "wrk", "ab"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is not on PATH (apt-get install -y nginx wrk apache2-utils)")

    work = Path(tempfile.mkdtemp(prefix="bench-serve-"))
    os.chmod(work, 0o755)
    procs: list[subprocess.Popen] = []
    try:
        log(machine())
        site = make_site(work, args.posts, args.seed)
        path = pick_post(site)
        workers: list[int | None] = list(args.workers)
        if not has_option("serve", "--workers"):
            log("this checkout's serve has no --workers: one process only")
            workers = [None]
        servers: dict[str, int] = {}
        first, first_port = start_masthead(site, workers[0])
        procs.append(first)
        wait_ready(first_port, path, first)
        out = work / "out"
        export(site, out, first_port, path)
        subprocess.run(["chmod", "-R", "a+rX", str(work)], check=True)
        nginx, nginx_port = start_nginx(out, work / "nginx", 2)
        procs.append(nginx)
        wait_ready(nginx_port, path, nginx)
        servers["nginx (2 workers)"] = nginx_port

        def label(w):
            return "masthead" if w is None else f"masthead --workers {w}"

        servers[label(workers[0])] = first_port
        for w in workers[1:]:
            proc, port = start_masthead(site, w)
            procs.append(proc)
            wait_ready(port, path, proc)
            servers[label(w)] = port

        ident = {
            name: fetch(port, path, {"Accept-Encoding": "identity"})
            for name, port in servers.items()
        }
        sizes = {name: len(body) for name, (_, _, body) in ident.items()}
        if len(set(sizes.values())) != 1:
            raise SystemExit(f"the servers send different bodies for {path}: {sizes}")
        size = next(iter(sizes.values()))
        encoded = {}
        for enc in ("gzip", "br"):
            _status, headers, body = fetch(first_port, path, {"Accept-Encoding": enc})
            encoded[enc] = (headers.get("content-encoding", "identity"), len(body))

        results: dict[tuple[str, str], list[float]] = {}
        for kind in args.kinds:
            for rnd in range(args.runs):
                for name, port in servers.items():
                    headers: dict[str, str] = {}
                    if kind == "get-br":
                        headers["Accept-Encoding"] = "br"
                    elif kind == "304":
                        headers["If-None-Match"] = ident[name][1].get("etag", '"none"')
                    if kind == "head":
                        rps = ab_head(port, path, args.duration)
                    else:
                        rps = wrk(port, path, args.duration, headers)
                    results.setdefault((kind, name), []).append(rps)
                    log(f"{kind:7} round {rnd + 1} {name:24} {rps:10.0f} req/s")

        print(f"### `bench/bench_serve.py --posts {args.posts}`\n")
        print(f"Machine: {machine()}.\n")
        print(
            f"Page `{path}` of {args.posts} generated posts (seed {args.seed}): identity "
            f"{size} bytes; gzip {encoded['gzip'][1]} bytes ({encoded['gzip'][0]}), "
            f"brotli {encoded['br'][1]} bytes ({encoded['br'][0]}, "
            f"{encoded['br'][1] / size:.0%} of identity).\n"
        )
        print(
            f"`wrk -t2 -c64 -d{args.duration}s` (head: `ab -k -i -c64 -t {args.duration}`), "
            f"{args.runs} alternating rounds; requests/s.\n"
        )
        print("| request | server | runs | median | × nginx |")
        print("|---|---|---|---|---|")
        for kind in args.kinds:
            base = statistics.median(results[(kind, "nginx (2 workers)")])
            for name in servers:
                runs = results[(kind, name)]
                med = statistics.median(runs)
                shown = ", ".join(f"{r:.0f}" for r in runs)
                print(f"| {kind} | {name} | {shown} | {med:.0f} | {med / base:.2f} |")
        return 0
    finally:
        for proc in procs:
            stop(proc)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
