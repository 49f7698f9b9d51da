"""granian's RSGI interface (web/cache/rsgi.py): a cache hit answered natively is the same
response, every header and every byte (but the Date's value), as the same request through the
app; everything else reaches the app through the RSGI→ASGI bridge; the app's lifespan runs.

Real servers on 127.0.0.1: `masthead serve --server granian` (RSGI), and granian processes
serving the same site's app over ASGI, with the ASGI fast path and without any fast path (every
request through FastAPI's router: tests/support/granian_apps.py)."""

from __future__ import annotations

import itertools
import json
import os
import re
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from hashlib import sha1
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from masthead.cli.server import WORKER_ENV, index_once
from masthead.config import Site

from support.servers import cli_server, healthy
from support.sites import post
from support.wait import CEILING, until

pytestmark = pytest.mark.server

TESTS = Path(__file__).resolve().parent
SRC = TESTS.parent / "src"
CODINGS = [None, "gzip", "br", "gzip, deflate, br", "br;q=0, gzip;q=0.5", "identity"]
PATHS = ["/", "/posts/harbour/", "/zh/", "/zh/posts/gang/", "/feed.xml", "/atom.xml",
         "/sitemap.xml", "/robots.txt", "/static/css/site.css", "/static/favicon.svg"]  # fmt: skip


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def granian(site: Site, factory: str, interface: str = "asgi") -> Iterator[str]:
    """A granian process (one worker) serving `factory` (support.granian_apps) for `site`,
    which is indexed already; yields its URL once `/healthz` answers."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}/"
    plan = {"root": str(site.root), "served": url.rstrip("/"), "dev": False, "watch": False}
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{TESTS}", WORKER_ENV: json.dumps(plan)}
    cmd = [sys.executable, "-m", "granian", "--interface", interface, "--factory", "--host",
           "127.0.0.1", "--port", str(port), "--workers", "1", "--no-ws",
           f"support.granian_apps:{factory}"]  # fmt: skip
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        until(lambda: healthy(url, proc), what=f"granian {factory} answered")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(CEILING)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def raw(url: str, method: str, path: str, headers: dict[str, str]) -> bytes:
    """The response's bytes as they came off the socket (Connection: close, read to the end),
    the Date header's value blanked: the one thing two servers may say differently."""
    parts = urlsplit(url)
    lines = [f"{method} {path} HTTP/1.1", "Host: example.com", "Connection: close"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    with socket.create_connection((parts.hostname, parts.port), timeout=CEILING) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return re.sub(rb"(?im)^date: [^\r\n]*", b"date: -", b"".join(chunks))


def _header(response: bytes, name: str) -> str | None:
    head = response.split(b"\r\n\r\n", 1)[0].decode("latin-1")
    m = re.search(rf"(?im)^{name}: ([^\r\n]*)", head)
    return m.group(1) if m else None


def _show(response: bytes) -> str:
    head, _, body = response.partition(b"\r\n\r\n")
    return f"{head.decode('latin-1')}\n<{len(body)} body bytes, sha1 {sha1(body).hexdigest()}>"


def _requests(router: str) -> Iterator[tuple[str, str, dict[str, str]]]:
    """Every kind of request the fast path answers: GET and HEAD, each coding, and each
    conditional form (a matching and a stale ETag, `*`, If-Modified-Since), for pages, feeds'
    kin (sitemap, robots.txt) and static files."""
    for path, coding in itertools.product(PATHS, CODINGS):
        ask = {"Accept-Encoding": coding} if coding else {}
        first = raw(router, "GET", path, ask)
        assert first.startswith(b"HTTP/1.1 200"), (path, first[:200])
        etag, modified = _header(first, "etag"), _header(first, "last-modified")
        forms: list[dict[str, str]] = [{}, {"If-None-Match": '"stale"'}, {"If-None-Match": "*"}]
        forms.append({"If-None-Match": etag or '"none"'})
        forms.append({"If-None-Match": f'"x", W/{etag}'})
        forms.append({"If-Modified-Since": modified or "Fri, 01 Mar 2024 01:00:00 GMT"})
        for method, form in itertools.product(("GET", "HEAD"), forms):
            yield method, path, {**ask, **form}


@pytest.fixture
def site(make_site: Callable[..., Site]) -> Site:
    return make_site(
        {
            "posts/harbour.md": post("Harbour", body="The *first* version.\n", slug="harbour"),
            "posts/gang.zh.md": post("港口", body="第一版。\n", slug="gang"),
        }
    )


def test_an_rsgi_hit_is_byte_for_byte_the_apps_answer(site: Site) -> None:
    with cli_server(str(site.root), "--server", "granian", "--workers", "1", "--no-watch") as fast:
        assert httpx.get(fast + "healthz", timeout=CEILING).json()["interface"] == "rsgi"
        with granian(site, "router_app") as router, granian(site, "asgi_app") as asgi_fast:
            assert httpx.get(asgi_fast + "healthz", timeout=CEILING).json()["interface"] == "asgi"
            for base in (fast, asgi_fast):  # each page cached and remembered: hits from now on
                for path in PATHS:
                    assert raw(base, "GET", path, {}).startswith(b"HTTP/1.1 200")
            differ, asked = [], 0
            for method, path, headers in _requests(router):
                asked += 1
                expected = raw(router, method, path, headers)
                for name, base in (("rsgi", fast), ("asgi", asgi_fast)):
                    got = raw(base, method, path, headers)
                    if got != expected:
                        differ.append(f"{name} {method} {path} {headers}:\n{_show(got)}\n"
                                      f"the app's:\n{_show(expected)}")  # fmt: skip
            assert asked >= len(PATHS) * len(CODINGS) * 12
            assert not differ, "\n\n".join(differ[:5])


@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_hits_skip_the_asgi_app_and_misses_reach_it(site: Site) -> None:
    """Through `marked_rsgi_app` every response the ASGI app sends carries `x-through-asgi`:
    a hit does not; the first request of a page, a query string, a POST and a 404 do."""
    index_once(site)
    with (
        granian(site, "marked_rsgi_app", interface="rsgi") as url,
        httpx.Client(base_url=url, timeout=CEILING) as client,
    ):
        page = "/posts/harbour/"
        assert client.get(page).headers.get("x-through-asgi") == "1"  # a miss renders
        for headers in ({}, {"Accept-Encoding": "br"}, {"Accept-Encoding": "gzip"}):
            hit = client.get(page, headers=headers)
            assert hit.status_code == 200 and "x-through-asgi" not in hit.headers
            etag = hit.headers["etag"]
            again = client.get(page, headers={**headers, "If-None-Match": etag})
            assert again.status_code == 304 and "x-through-asgi" not in again.headers
        assert "x-through-asgi" not in client.head(page).headers
        assert client.get(page + "?x=1").headers.get("x-through-asgi") == "1"
        missing = client.get("/posts/no-such-post/")
        assert missing.status_code == 404 and missing.headers.get("x-through-asgi") == "1"
        posted = client.post("/api/comments", json={})
        assert 400 <= posted.status_code < 500
        assert posted.headers.get("x-through-asgi") == "1"
        health = client.get("/healthz").json()
        assert health["interface"] == "rsgi" and health["posts"] == 2
