"""`masthead serve` as readers and operators meet it: real processes, real sockets, real files.

Workers (`--workers N`): every worker serves a change fresh on its next request, whether the
watcher made it or another process (`masthead index`); one watcher among them, taken over when
its worker dies; SIGINT and SIGTERM end every process. The served address: absolute URLs carry
the address listened on when `base_url` is unset or under `--dev`, the setting otherwise.
Which worker answered is told by `/healthz`'s `pid`, asked on the same connection as the page.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from support.cli import invoke
from support.client import get
from support.servers import cli_server
from support.sites import BILINGUAL_TOML, post
from support.wait import CEILING, until

NO_BASE_URL = BILINGUAL_TOML.replace('base_url = "https://example.com"\n', "")
POST = "/posts/a/"


def _site(make_site, toml: str = BILINGUAL_TOML):  # type: ignore[no-untyped-def]
    return make_site(
        {
            "posts/a.md": post("First words", "2024-03-01", tags="[harbour]"),
            "posts/a.zh.md": post("第一句", "2024-03-01"),
        },
        toml,
    )


def _ask(url: str, path: str) -> tuple[int, str]:
    """`(pid of the worker, page text)`: both asked on one new connection (one worker)."""
    conn = http.client.HTTPConnection(urlsplit(url).netloc, timeout=CEILING)  # cheaper than httpx's
    try:
        conn.request("GET", "/healthz")
        pid = json.loads(conn.getresponse().read())["pid"]
        conn.request("GET", path)
        return pid, conn.getresponse().read().decode("utf-8")
    finally:
        conn.close()


def _every_worker_shows(url: str, path: str, text: str, workers: int = 2) -> set[int]:
    """Ask on new connections until `workers` distinct workers have answered (a worker may
    still be starting); every answer must contain `text`. Returns the pids seen."""
    pids: set[int] = set()

    def ask() -> bool:
        pid, body = _ask(url, path)
        assert text in body, f"worker {pid} served a stale {path}"
        pids.add(pid)
        return len(pids) == workers

    _until(ask, f"{workers} workers answering new connections (seen: {pids})")
    return pids


def _edit(path: Path, title: str) -> None:
    path.write_text(post(title, "2024-03-01", tags="[harbour]"), encoding="utf-8")
    st = path.stat()  # a new mtime even on a coarse clock: the index compares size and mtime
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))


# a connection refused, reset or cut while a worker starts, dies or is replaced: not yet
NOT_YET = (httpx.TransportError, ConnectionError, TimeoutError, http.client.HTTPException)


def _until(check, what: str) -> None:  # type: ignore[no-untyped-def]
    until(check, what=what, retry=NOT_YET)


def _health(url: str) -> dict:
    return get(url + "healthz").json()


# --- workers -----------------------------------------------------------------------------------


def test_two_workers_serve_a_watched_edit_fresh(make_site):
    site = _site(make_site)
    with cli_server(str(site.root), "--workers", "2") as url:
        _every_worker_shows(url, POST, "First words")  # each worker has cached the page
        _until(lambda: any(h["watch"] for h in (_health(url) for _ in range(6))), "armed")
        _edit(site.content_dir / "posts/a.md", "Second words")
        _until(lambda: "Second words" in get(url + POST[1:]).text, "the edit")
        _every_worker_shows(url, POST, "Second words")


def test_two_workers_serve_what_another_process_indexed(make_site):
    site = _site(make_site)
    with cli_server(str(site.root), "--workers", "2", "--no-watch") as url:
        _every_worker_shows(url, POST, "First words")
        _edit(site.content_dir / "posts/a.md", "Indexed elsewhere")
        _every_worker_shows(url, POST, "First words")  # no watcher: still the indexed page
        done = subprocess.run(
            [sys.executable, "-m", "masthead", "index", str(site.root)],
            capture_output=True,
            text=True,
            timeout=CEILING,
        )
        assert done.returncode == 0, done.stderr
        _every_worker_shows(url, POST, "Indexed elsewhere")  # the very next request, each


@pytest.mark.parametrize("server", ["uvicorn", "granian"])
def test_port_0_with_two_workers_one_watcher_taken_over_when_it_dies(make_site, server):
    site = _site(make_site)
    with _process(str(site.root), "--workers", "2", "--server", server) as (_proc, url, log):
        assert not url.endswith(":0/")
        watching: dict[int, bool] = {}
        _until(lambda: len(_watchers(url, watching)) == 2, "two workers on the printed port")
        _until(lambda: any(_watchers(url, watching).values()), "the watcher armed")
        assert sum(watching.values()) == 1, watching
        (watcher,) = (pid for pid, w in watching.items() if w)
        os.kill(watcher, signal.SIGKILL)
        _edit(site.content_dir / "posts/a.md", "After the takeover")  # no one watches now
        _until(
            lambda: "After the takeover" in get(url + POST[1:]).text,
            "the takeover",
        )
        after: dict[int, bool] = {}
        _until(lambda: len(_watchers(url, after)) == 2, "the dead worker replaced")
        assert watcher not in after
        _until(lambda: any(_watchers(url, after).values()), "a watcher again")
        assert sum(after.values()) == 1, after
        if server == "uvicorn":
            died = f"Child process [{watcher}] died"  # reported, and replaced
            _until(lambda: died in log.read_text(), "the report")
        else:
            _until(lambda: _reported_and_replaced(log.read_text(), watcher), "the report")


def _reported_and_replaced(log: str, pid: int) -> bool:
    """granian names workers by number: worker K had `pid`, its death is logged, K respawned."""
    m = re.search(rf"Spawning (worker-\d+) with PID: {pid}\b", log)
    assert m, log
    return f"Unexpected exit from {m[1]}" in log and f"Respawning {m[1]}" in log


def _watchers(url: str, seen: dict[int, bool]) -> dict[int, bool]:
    """Record in `seen` which workers answered `/healthz` and whether each watches."""
    for _ in range(10):
        try:
            health = _health(url)
        except httpx.TransportError:  # a worker killed mid-request
            continue
        seen[health["pid"]] = health["watch"] is not None and health["watch"]["armed"]
    return seen


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


@contextmanager
def _process(*args: str) -> Iterator[tuple[subprocess.Popen, str, Path]]:  # type: ignore[type-arg]
    """`masthead serve ARGS --port 0` in its own session (so that a Ctrl-C can reach its whole
    group); yields the process, the URL it printed, and the file its stderr goes to."""
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"masthead-serve-{os.getpid()}-{time.time()}"
    with log.open("w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "masthead", "serve", *args, "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            start_new_session=True,
        )
    try:
        m = re.search(r"at (http://127\.0\.0\.1:\d+/)", proc.stdout.readline())  # type: ignore[union-attr]
        assert m, log.read_text()
        _until(lambda: _answers(m.group(1)), "the server to answer")
        yield proc, m.group(1), log
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(CEILING)
        log.unlink()


def _answers(url: str) -> bool:
    try:
        return get(url + "healthz").status_code == 200
    except httpx.TransportError:
        return False


@pytest.mark.parametrize(
    ("args", "how"),
    [
        (("--workers", "2"), "SIGTERM"),
        (("--workers", "2"), "Ctrl-C"),
        (("--workers", "2", "--server", "granian"), "SIGTERM"),
        (("--workers", "2", "--server", "granian"), "Ctrl-C"),
        (("--dev",), "Ctrl-C"),  # with a live-reload stream open
    ],
)
def test_sigterm_and_ctrl_c_end_every_worker_promptly(make_site, args, how):
    site = _site(make_site)
    with _process(str(site.root), *args) as (proc, url, _log):
        workers: dict[int, bool] = {}
        n = 1 if "--dev" in args else 2
        _until(lambda: len(_watchers(url, workers)) == n, f"{n} workers")
        with httpx.Client(timeout=CEILING) as idle, httpx.Client(timeout=CEILING) as stream:
            idle.get(url + "healthz")  # a kept-alive connection stays open
            events = stream.stream("GET", url + "_dev/reload") if "--dev" in args else None
            if events is not None:
                events.__enter__()
            if how == "SIGTERM":
                proc.send_signal(signal.SIGTERM)
            else:  # a terminal sends SIGINT to the whole foreground group
                os.killpg(proc.pid, signal.SIGINT)
            # the idle connection (and the event stream) stay open for as long as this waits:
            # a server that waited for its clients would never end (the ceiling ends the hang)
            proc.wait(CEILING)
            _until(lambda: not any(_alive(pid) for pid in workers), "the workers to end")
            if events is not None:
                events.__exit__(None, None, None)


def test_dev_refuses_several_workers(make_site):
    site = _site(make_site)
    done = subprocess.run(
        [sys.executable, "-m", "masthead", "serve", str(site.root), "--dev", "--workers", "2"],
        capture_output=True,
        text=True,
        timeout=CEILING,
    )
    assert done.returncode == 2 and "--dev serves with one worker" in done.stderr


@pytest.mark.parametrize("server", ["uvicorn", "granian"])
def test_access_log_only_when_asked(make_site, server):
    site = _site(make_site)
    for args, logged in (
        (("--server", server), False),
        (("--server", server, "--access-log"), True),
    ):
        with _process(str(site.root), "--workers", "1", "--no-watch", *args) as (proc, url, _log):
            get(url + POST[1:])
            proc.send_signal(signal.SIGTERM)
            printed = proc.communicate(timeout=CEILING)[0]  # uvicorn logs requests on stdout
            assert (f'"GET {POST} HTTP/1.1" 200' in printed) is logged, printed


# --- the served address ------------------------------------------------------------------------


def _absolute_urls(url: str) -> list[str]:
    """Every absolute URL of the served site's head links, feed, sitemap and robots.txt."""
    page = get(url + POST[1:]).text
    found = re.findall(r'<link rel="(?:canonical|alternate)"[^>]* href="([^"]+)"', page)
    found += re.findall(r'<meta property="og:url" content="([^"]+)"', page)
    found += re.findall(r'"(?:url|@id)": "(http[^"]+)"', page)  # JSON-LD
    found += re.findall(r"<link>([^<]+)</link>", get(url + "feed.xml").text)
    found += re.findall(r"<loc>([^<]+)</loc>", get(url + "sitemap.xml").text)
    found += re.findall(r"^Sitemap: (\S+)$", get(url + "robots.txt").text, re.M)
    assert len(found) >= 8, found
    return found


@pytest.mark.parametrize(
    ("toml", "args", "expect", "source"),
    [
        (NO_BASE_URL, (), None, "the served address (base_url is not set)"),
        (BILINGUAL_TOML, (), "https://example.com", "the base_url setting"),
        (BILINGUAL_TOML, ("--dev",), None, "the served address (--dev ignores base_url)"),
    ],
    ids=["unset", "set", "dev"],
)
def test_absolute_urls_carry_the_base_url_serve_printed(make_site, toml, args, expect, source):
    site = _site(make_site, toml)
    # one worker: the address is the same for every worker (the workers' tests above), and each
    # worker process imports the app (about a second of CPU)
    with _process(str(site.root), "--no-watch", "--workers", "1", *args) as (proc, url, _log):
        base = expect or url.rstrip("/")
        assert re.fullmatch(r"http://127\.0\.0\.1:[1-9]\d*", url.rstrip("/"))
        for absolute in _absolute_urls(url):
            assert absolute.startswith(base + "/"), absolute
        line = proc.stdout.readline()  # type: ignore[union-attr]
        assert f"base URL {base}, from {source}" in line, line


def test_served_address_brackets_ipv6_and_names_wildcards():
    from masthead.web.http.address import served_address

    assert served_address("127.0.0.1", 8123) == "http://127.0.0.1:8123"
    assert served_address("::1", 8123) == "http://[::1]:8123"
    assert served_address("0.0.0.0", 80) == "http://localhost:80"
    assert served_address("localhost", 8000) == "http://localhost:8000"


def test_the_host_header_never_reaches_a_page(make_site, serve):
    site = _site(make_site, NO_BASE_URL)
    client = serve(site, served="http://[::1]:8123")
    page = client.get(POST, headers={"Host": "evil.example"}).text
    assert '<link rel="canonical" href="http://[::1]:8123/posts/a/">' in page
    assert "evil.example" not in page


def test_hsts_follows_the_effective_base_url(make_site, serve):
    site = _site(make_site)  # base_url = "https://example.com"
    assert "strict-transport-security" in serve(site).get(POST).headers
    assert "strict-transport-security" not in serve(site, dev=True).get(POST).headers


def test_init_writes_no_base_url_and_check_and_index_need_none(tmp_path):
    new = tmp_path / "new-site"
    for command in (("init", new), ("check", new), ("index", new)):  # in this process: what
        code, output = invoke(*command)  # they write and need does not depend on the process
        assert code == 0, output
    assert "base_url" not in (new / "masthead.toml").read_text(encoding="utf-8")


# --- the port, held for granian's workers ------------------------------------------------------


def test_reserve_holds_a_port_that_queues_nothing_and_only_workers_join():
    import errno
    import socket

    from masthead.cli.server import reserve

    held = reserve("127.0.0.1", 0)
    port = held.getsockname()[1]
    try:
        with pytest.raises(ConnectionRefusedError):  # not listening: no connection waits on it
            socket.create_connection(("127.0.0.1", port), timeout=2)
        for reuse in (socket.SO_REUSEADDR, None):  # nor can another server take the port
            other = socket.socket()
            if reuse is not None:
                other.setsockopt(socket.SOL_SOCKET, reuse, 1)
            with pytest.raises(OSError) as taken:
                other.bind(("127.0.0.1", port))
            assert taken.value.errno == errno.EADDRINUSE
            other.close()
        worker = socket.socket()  # how granian's workers bind (SO_REUSEPORT): they join
        worker.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        worker.bind(("127.0.0.1", port))
        worker.listen()
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            worker.settimeout(2)
            worker.accept()[0].close()  # the connection went to the listening worker
        with pytest.raises(OSError):  # a port a server's workers listen on cannot be reserved
            reserve("127.0.0.1", port)
        worker.close()
    finally:
        held.close()


def test_port_0_on_ipv6_is_one_port_that_every_worker_serves(make_site):
    site = _site(make_site)
    cmd = [sys.executable, "-m", "masthead", "serve", str(site.root), "--server", "granian"]
    proc = subprocess.Popen(
        [*cmd, "--workers", "2", "--no-watch", "--host", "::1", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    try:
        m = re.search(r"at (http://\[::1\]:(\d+)/)", proc.stdout.readline())  # type: ignore[union-attr]
        assert m and m[2] != "0"
        _until(lambda: _answers(m[1]), "the server to answer")
        assert len(_every_worker_shows(m[1], POST, "First words")) == 2
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(CEILING)


def test_a_half_sent_request_does_not_hold_sigterm(make_site):
    """A client that never finishes its request (a slow or hostile one) would hold granian's
    graceful stop for ever; the worker is killed `KILL_AFTER` seconds after SIGTERM."""
    import socket

    site = _site(make_site)
    args = ("--workers", "2", "--no-watch", "--server", "granian")
    with _process(str(site.root), *args) as (proc, url, _log):
        workers: dict[int, bool] = {}
        _until(lambda: len(_watchers(url, workers)) == 2, "2 workers")
        with socket.create_connection(("127.0.0.1", urlsplit(url).port or 0)) as half:
            half.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # no blank line: unfinished
            port = urlsplit(url).port or 0
            _until(lambda: _held_by(port, workers), "a worker holding the half-sent request")
            proc.send_signal(signal.SIGTERM)
            # the request stays unfinished for as long as this waits: a worker that waited for
            # it would never end (the ceiling ends the hang); granian kills it after KILL_AFTER
            proc.wait(CEILING)
        _until(lambda: not any(_alive(pid) for pid in workers), "the workers to end")


def _held_by(port: int, pids: Iterable[int]) -> bool:
    """Whether one of `pids` holds an established TCP connection on local `port` (/proc)."""
    established: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            cols = row.split()
            if int(cols[1].rsplit(":", 1)[1], 16) == port and cols[3] == "01":
                established.add(f"socket:[{cols[9]}]")
    for pid in pids:
        try:
            fds = [os.readlink(fd) for fd in Path(f"/proc/{pid}/fd").iterdir()]
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        if established.intersection(fds):
            return True
    return False
