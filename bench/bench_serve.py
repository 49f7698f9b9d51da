#!/usr/bin/env python3
"""Serving benchmark: a cached masthead page against nginx serving the same bytes, in one run.

A plain script, not a test. Run from the repository root (Debian's nginx, wrk and ab on PATH:
`apt-get install -y nginx wrk apache2-utils`):

    PYTHONPATH=src python bench/bench_serve.py                  # 5,000 generated posts
    PYTHONPATH=src python bench/bench_serve.py --posts 500 --duration 5 --runs 1   # a quick look

What it does
  1. Generates a site of N posts (bench/make_corpus.py, plain layout, --seed) and indexes it.
  2. Writes the post's page, fetched from masthead with `Accept-Encoding: identity`, to
     OUT/<its path>/index.html for nginx (the same bytes by construction; `masthead build`'s
     page is made for a static host, with comments as of the build and no form). The body
     sizes are checked equal before anything is timed.
  3. Starts nginx (worker_processes 2, sendfile, open_file_cache, access_log off: a production
     setup serving static files) and, for each worker count in --workers and each interface in
     --interfaces: `rsgi`, `masthead serve SITE --no-watch --server granian` (granian's RSGI
     interface, web/cache/rsgi.py); `asgi`, the same worker app over granian's ASGI interface
     (`granian --interface asgi --factory masthead.cli.server:worker_app`: the ASGI fast path,
     as `serve` ran before RSGI).
  4. For each request kind it runs wrk (-t2 -c64 -dD) against every server in turn, --runs
     rounds alternating between servers (the machine is shared and noisy: side by side in one
     run is the only fair comparison), and prints, per round, req/s, the server's CPU per
     request (utime + stime of every process of its tree over the run, from /proc, divided by
     the requests wrk counted; it varies far less than req/s on a loaded machine), each as a
     ratio to nginx's in the same round, and the 1-minute load average after the round.
  `--variant LABEL=OPTIONS` (repeatable) adds a server to the rounds: the same worker app over
     RSGI started by granian's command line with OPTIONS (`'mt=--runtime-mode mt'`,
     `'bp16=--backpressure 16'`); an OPTIONS ending in `module:factory` serves that factory
     instead (found on PYTHONPATH, which is kept after src/): granian settings side by side.
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
import json
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


def start_masthead(
    site: Path, workers: int | None, interface: str = "rsgi", options: str = ""
) -> tuple[subprocess.Popen, int]:
    """`masthead serve` (granian, RSGI), or its worker app over granian's ASGI interface, or
    (`options`: a --variant's) over RSGI with granian's command line and those options."""
    port = free_port()
    path = os.pathsep.join(p for p in (str(REPO / "src"), os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PYTHONPATH": path}
    if interface == "asgi" or options:
        served = f"http://127.0.0.1:{port}"
        plan = {"root": str(site), "served": served, "dev": False, "watch": False}
        if options:
            plan["server"] = "granian"  # the worker app is then the RSGI one
        env["_MASTHEAD_SERVE_WORKER"] = json.dumps(plan)  # cli/server.py WORKER_ENV
        words = options.split()
        target = "masthead.cli.server:worker_app"
        if words and ":" in words[-1] and not words[-1].startswith("-"):
            target = words.pop()  # another factory (on PYTHONPATH)
        cmd = ["-m", "granian", "--interface", "asgi" if not options else "rsgi", "--factory",
               "--host", "127.0.0.1", "--port", str(port), "--workers", str(workers or 1),
               "--no-ws", *words, target]  # fmt: skip
    else:
        cmd = ["-m", "masthead", "serve", str(site), "--no-watch", "--port", str(port)]
        if workers is not None:
            cmd += ["--workers", str(workers), "--server", "granian"]
    proc = subprocess.Popen(
        [sys.executable, *cmd],
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
    """The post's file for nginx: the bytes masthead serves for it (a `masthead build` page is
    made for a static host: comments as of the build, no form, so not the same bytes)."""
    status, _, body = fetch(port, path, {"Accept-Encoding": "identity"})
    assert status == 200, status
    target = out / path.strip("/") / "index.html"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(body)


def tree_cpu(pid: int) -> float:
    """CPU seconds (utime + stime) used so far by process `pid` and all its descendants."""
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm) "
        parents[int(entry.name)] = int(fields[1])
        ticks[int(entry.name)] = int(fields[11]) + int(fields[12])
    tree, frontier = {pid}, [pid]
    while frontier:
        parent = frontier.pop()
        for child, ppid in parents.items():
            if ppid == parent and child not in tree:
                tree.add(child)
                frontier.append(child)
    return sum(ticks.get(p, 0) for p in tree) / os.sysconf("SC_CLK_TCK")


def wrk(port: int, path: str, seconds: int, headers: dict[str, str]) -> tuple[float, int]:
    """(requests/s, requests) of one wrk run."""
    cmd = ["wrk", "-t2", "-c64", f"-d{seconds}s", "--latency"]
    for name, value in headers.items():
        cmd += ["-H", f"{name}: {value}"]
    cmd.append(f"http://127.0.0.1:{port}{path}")
    text = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    count = int(re.search(r"(\d+) requests in", text).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    if errors:
        raise SystemExit(f"wrk saw {errors.group(1)} non-2xx/3xx responses on port {port}")
    return rps, count


def ab_head(port: int, path: str, seconds: int) -> tuple[float, int]:
    """(requests/s, requests) of one ab run of HEAD requests."""
    cmd = ["ab", "-k", "-i", "-c64", "-t", str(seconds), "-n", "100000000", "-q"]
    text = subprocess.run(
        [*cmd, f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True, check=True
    ).stdout
    failed = re.search(r"Non-2xx responses:\s+(\d+)", text)
    if failed:
        raise SystemExit(f"ab saw {failed.group(1)} non-2xx responses on port {port}")
    rps = float(re.search(r"Requests per second:\s+([\d.]+)", text).group(1))
    return rps, int(re.search(r"Complete requests:\s+(\d+)", text).group(1))


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
    ap.add_argument("--workers", type=int, nargs="+", default=[2])
    ap.add_argument("--interfaces", nargs="+", default=["rsgi", "asgi"], choices=["rsgi", "asgi"])
    ap.add_argument("--kinds", nargs="+", default=["get", "get-br", "304", "head"])
    ap.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="LABEL=OPTIONS",
        help="also serve the RSGI worker app with `granian OPTIONS` (e.g. "
        "'rust=--task-impl rust'), side by side with the others",
    )
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
        variants = [v.partition("=")[::2] for v in args.variant]
        setups = [(w, i, "") for w in args.workers for i in args.interfaces]
        setups += [(w, label, options) for w in args.workers for label, options in variants]
        servers: dict[str, tuple[subprocess.Popen, int]] = {}
        for w, interface, options in setups:
            proc, port = start_masthead(site, w, interface, options)
            procs.append(proc)
            wait_ready(port, path, proc)
            servers[f"masthead {interface}, {w} workers"] = (proc, port)
        first_port = next(iter(servers.values()))[1]
        out = work / "out"
        export(site, out, first_port, path)
        subprocess.run(["chmod", "-R", "a+rX", str(work)], check=True)
        nginx, nginx_port = start_nginx(out, work / "nginx", 2)
        procs.append(nginx)
        wait_ready(nginx_port, path, nginx)
        servers = {"nginx (2 workers)": (nginx, nginx_port), **servers}

        ident = {
            name: fetch(port, path, {"Accept-Encoding": "identity"})
            for name, (_, port) in servers.items()
        }
        sizes = {name: len(body) for name, (_, _, body) in ident.items()}
        if len(set(sizes.values())) != 1:
            raise SystemExit(f"the servers send different bodies for {path}: {sizes}")
        size = next(iter(sizes.values()))
        encoded = {}
        for enc in ("gzip", "br"):
            _status, headers, body = fetch(first_port, path, {"Accept-Encoding": enc})
            encoded[enc] = (headers.get("content-encoding", "identity"), len(body))
        for _ in range(20):  # every worker has the page cached
            for _, port in servers.values():
                fetch(port, path)

        # (kind, server) -> [(req/s, CPU µs per request)] per round; (kind, round) -> load
        results: dict[tuple[str, str], list[tuple[float, float]]] = {}
        loads: dict[tuple[str, int], float] = {}
        for kind in args.kinds:
            for rnd in range(args.runs):
                for name, (proc, port) in servers.items():
                    headers: dict[str, str] = {}
                    if kind == "get-br":
                        headers["Accept-Encoding"] = "br"
                    elif kind == "304":
                        headers["If-None-Match"] = ident[name][1].get("etag", '"none"')
                    before = tree_cpu(proc.pid)
                    if kind == "head":
                        rps, count = ab_head(port, path, args.duration)
                    else:
                        rps, count = wrk(port, path, args.duration, headers)
                    cpu = (tree_cpu(proc.pid) - before) / max(count, 1) * 1e6
                    results.setdefault((kind, name), []).append((rps, cpu))
                    log(f"{kind:7} round {rnd + 1} {name:28} {rps:10.0f} req/s {cpu:7.1f} µs/req")
                loads[(kind, rnd)] = os.getloadavg()[0]

        print(f"### `bench/bench_serve.py {' '.join(sys.argv[1:])}`\n")
        print(f"Machine: {machine()}.\n")
        print(
            f"Page `{path}` of {args.posts} generated posts (seed {args.seed}): identity "
            f"{size} bytes; gzip {encoded['gzip'][1]} bytes ({encoded['gzip'][0]}), "
            f"brotli {encoded['br'][1]} bytes ({encoded['br'][0]}, "
            f"{encoded['br'][1] / size:.0%} of identity).\n"
        )
        print(
            f"`wrk -t2 -c64 -d{args.duration}s` (head: `ab -k -i -c64 -t {args.duration}`), "
            f"{args.runs} alternating rounds; requests/s, server CPU µs per request "
            "(utime + stime of the process tree), each × nginx in the same round.\n"
        )
        print("| request | round | load | server | req/s | × nginx | CPU µs/req | × nginx |")
        print("|---|---:|---:|---|---:|---:|---:|---:|")
        base_name = "nginx (2 workers)"
        for kind in args.kinds:
            for rnd in range(args.runs):
                base_rps, base_cpu = results[(kind, base_name)][rnd]
                for name in servers:
                    rps, cpu = results[(kind, name)][rnd]
                    print(
                        f"| {kind} | {rnd + 1} | {loads[(kind, rnd)]:.1f} | {name} | {rps:.0f} | "
                        f"{rps / base_rps:.2f} | {cpu:.1f} | {cpu / base_cpu:.2f} |"
                    )
        print("\nMedians of the per-round ratios:\n")
        print("| request | server | req/s × nginx | CPU/req × nginx |")
        print("|---|---|---:|---:|")
        for kind in args.kinds:
            base = results[(kind, base_name)]
            for name in servers:
                if name == base_name:
                    continue
                runs = results[(kind, name)]
                rps_ratio = statistics.median(r[0] / b[0] for r, b in zip(runs, base, strict=True))
                cpu_ratio = statistics.median(r[1] / b[1] for r, b in zip(runs, base, strict=True))
                print(f"| {kind} | {name} | {rps_ratio:.2f} | {cpu_ratio:.2f} |")
        return 0
    finally:
        for proc in procs:
            stop(proc)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
