"""The client IP of a comment (case C52): one resolver, `comments.identity.client_ip`, fed by a
server that believes forwarding headers only from `trusted_proxies`.

Real servers: the app (with a comment endpoint calling the real `submit`, as the reader routes
do) under a real uvicorn configured by `server.proxy_options`, reached over real TCP from
different loopback addresses (Linux answers all of 127.0.0.0/8): 127.0.0.1 stands for the
attacker of cases 1 and 2 (it is the address uvicorn trusts by default, so a server that kept that
default would rewrite its `client`), 127.0.0.10 for the victim, 127.0.0.5 for the proxy
10.0.0.5 of cases 3 and 4. And `masthead serve` itself, on uvicorn and on granian, read
through its access log.
"""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from masthead.cli import server
from masthead.comments import identity
from masthead.comments.rules import Submission
from masthead.comments.submit import submit
from masthead.errors import CommentError
from masthead.store import comments as store
from masthead.store import site_secrets
from masthead.web.app import create_app

from support.comments_rig import POSTS
from support.servers import healthy, uvicorn_server
from support.sites import BILINGUAL_TOML, write_site
from support.wait import CEILING, until

ENDPOINT = "/_test/comments"
ATTACKER, VICTIM, PROXY = "127.0.0.1", "127.0.0.10", "127.0.0.5"


# --- the resolver ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("peer", "headers", "trusted", "client"),
    [
        ("198.51.100.7", {"x-forwarded-for": "203.0.113.1"}, [], "198.51.100.7"),
        ("198.51.100.7", {"x-real-ip": "203.0.113.1", "forwarded": "for=203.0.113.1"}, [],
         "198.51.100.7"),
        ("198.51.100.7", {"x-forwarded-for": "203.0.113.1"}, ["10.0.0.5"], "198.51.100.7"),
        ("10.0.0.5", {"x-forwarded-for": "1.2.3.4, 198.51.100.7"}, ["10.0.0.5"], "198.51.100.7"),
        ("10.0.0.5", {"x-forwarded-for": "1.2.3.4, 198.51.100.7, 10.0.0.9"}, ["10.0.0.0/8"],
         "198.51.100.7"),
        ("10.0.0.5", {"x-real-ip": "1.2.3.4", "forwarded": "for=1.2.3.4"}, ["10.0.0.5"],
         "10.0.0.5"),
        ("10.0.0.5", {"x-forwarded-for": "10.0.0.7"}, ["10.0.0.0/8"], "10.0.0.7"),
        ("10.0.0.5", {"x-forwarded-for": "198.51.100.7:4711"}, ["10.0.0.5"], "198.51.100.7"),
        ("10.0.0.5", {"x-forwarded-for": "[2001:db8::7]:4711"}, ["10.0.0.5"], "2001:db8::7"),
        ("::ffff:10.0.0.5", {"x-forwarded-for": "198.51.100.7"}, ["10.0.0.5"], "198.51.100.7"),
        ("2001:db8::1", {"x-forwarded-for": "198.51.100.7"}, ["2001:db8::/64"], "198.51.100.7"),
        (None, {"x-forwarded-for": "198.51.100.7"}, [], ""),
    ],
)  # fmt: skip
def test_client_ip(peer, headers, trusted, client):
    assert identity.client_ip(peer, headers, trusted) == client


def test_client_ip_reads_every_x_forwarded_for_header_of_a_scope():
    scope = {
        "client": ("10.0.0.5", 4711),
        "headers": [(b"x-forwarded-for", b"1.2.3.4"), (b"X-Forwarded-For", b"198.51.100.8")],
    }
    assert identity.client_ip_of(scope, ["10.0.0.5"]) == "198.51.100.8"
    assert identity.client_ip_of(scope, []) == "10.0.0.5"


# --- the app under a real uvicorn, as `serve` configures it ----------------------------------


def comment_endpoint(app: Any, peers: list[str]) -> None:
    """POST ENDPOINT (JSON): what the reader routes do with a comment, recording the ASGI
    `client` each request arrived with."""

    async def post_comment(request: Request) -> JSONResponse:
        state = request.app.state.masthead
        peer = request.client.host if request.client else None
        peers.append(peer or "")
        ip = identity.client_ip(peer, request.headers, state.site.settings.trusted_proxies)
        form = Submission(**await request.json())
        try:
            out = await run_in_threadpool(
                submit, state, form, client_ip=ip, cookie_id=None, scripted_elapsed=None
            )
        except CommentError as exc:
            error = {"status": exc.status, "message": exc.message, "field": exc.field}
            retry = {"Retry-After": str(exc.retry_after)} if exc.retry_after else {}
            return JSONResponse({"error": error}, exc.status, headers=retry)
        return JSONResponse({"id": out.id, "status": out.status, "ip": ip}, 201)

    app.router.routes.insert(0, Route(ENDPOINT, post_comment, methods=["POST"]))


@pytest.fixture
def served(tmp_path) -> Iterator[Callable[..., tuple[str, list[str], Any]]]:
    """`served(**settings)`: a new site served by uvicorn with `server.proxy_options`; gives
    its URL, the list of ASGI clients requests arrived with, and the app's SiteState."""
    stack: list[Any] = []

    def start(**settings: str) -> tuple[str, list[str], Any]:
        lines = "comments_flood_seconds = 0\n"  # C52: the limit is 3 comments a minute
        lines += "".join(f"{k} = {v}\n" for k, v in settings.items())
        site = write_site(tmp_path / f"site{len(stack)}", POSTS, lines + BILINGUAL_TOML)
        app = create_app(site)
        peers: list[str] = []
        comment_endpoint(app, peers)
        context = uvicorn_server(app, **server.proxy_options(site.settings))
        url = context.__enter__()
        stack.append(context)
        return url, peers, app.state.masthead

    yield start
    for context in reversed(stack):
        context.__exit__(None, None, None)


def client_from(address: str) -> httpx.Client:
    """An HTTP client whose connections come from local `address`."""
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=CEILING)


def comment(http: httpx.Client, url: str, n: int, **headers: str) -> httpx.Response:
    body = {
        "post": "/posts/harbour-lights/",
        "parent": None,
        "name": f"Reader {n}",
        "email": f"reader{n}@example.org",
        "url": "",
        "body": f"Comment number {n}.",
    }
    return http.post(url + ENDPOINT, json=body, headers=headers)


def test_c52_1_direct_rotating_forwarding_headers_get_429_from_the_fourth(served):
    url, peers, _ = served()
    answers = []
    with client_from(ATTACKER) as http:
        for n in range(1, 31):
            headers = {"X-Forwarded-For": f"203.0.113.{n}"}
            if n % 2:
                headers |= {"X-Real-IP": f"203.0.113.{n}", "Forwarded": f"for=203.0.113.{n}"}
            answers.append(comment(http, url, n, **headers))
    assert [a.status_code for a in answers] == [201] * 3 + [429] * 27
    assert {a.json()["ip"] for a in answers[:3]} == {ATTACKER}
    assert set(peers) == {ATTACKER}  # the ASGI client is the socket peer: nothing rewrote it
    for refused in answers[3:]:
        assert 1 <= int(refused.headers["Retry-After"]) <= 60
        assert "comments a minute" in refused.json()["error"]["message"]


def test_c52_2_claiming_the_victims_address_does_not_limit_the_victim(served):
    url, _, _ = served()
    with client_from(ATTACKER) as http:
        codes = [comment(http, url, n, **{"X-Forwarded-For": VICTIM}).status_code for n in range(5)]
    assert codes == [201, 201, 201, 429, 429]
    with client_from(VICTIM) as http:
        answer = comment(http, url, 99)
    assert answer.status_code == 201 and answer.json()["ip"] == VICTIM


def test_c52_3_behind_a_trusted_proxy_the_header_is_walked_from_the_right(served):
    url, peers, state = served(trusted_proxies=f'["{PROXY}"]')
    with client_from(PROXY) as http:
        answer = comment(http, url, 1, **{"X-Forwarded-For": "1.2.3.4, 198.51.100.7"})
    assert answer.status_code == 201 and answer.json()["ip"] == "198.51.100.7"
    assert peers == ["198.51.100.7"]  # the server applied the same rule
    secret = site_secrets.site_secret(state.db)
    stored = store.get(state.db.read(), answer.json()["id"])
    assert stored is not None and stored.ip_hash == identity.ip_hash(secret, "198.51.100.7")
    with client_from(ATTACKER) as http:  # not the proxy: its header is nobody's word
        direct = comment(http, url, 2, **{"X-Forwarded-For": "198.51.100.9"})
    assert direct.json()["ip"] == ATTACKER


def test_c52_4_two_clients_behind_the_proxy_have_two_buckets(served):
    url, _, _ = served(trusted_proxies=f'["{PROXY}"]')
    codes = []
    with client_from(PROXY) as http:
        for n in range(3):
            for client in ("198.51.100.7", "198.51.100.8"):
                xff = {"X-Forwarded-For": f"1.2.3.4, {client}"}
                codes.append(comment(http, url, n * 10 + int(client[-1]), **xff).status_code)
        assert codes == [201] * 6
        assert comment(http, url, 77, **{"X-Forwarded-For": "198.51.100.7"}).status_code == 429


def test_forwarded_allow_ips_overrides_trusted_proxies_for_the_server(monkeypatch, served):
    monkeypatch.setenv(server.FORWARDED_ENV, f" {PROXY} , 127.0.0.6")
    url, peers, _ = served()
    with client_from(PROXY) as http:
        answer = comment(http, url, 1, **{"X-Forwarded-For": "198.51.100.7"})
    assert answer.json()["ip"] == "198.51.100.7" and peers == ["198.51.100.7"]
    monkeypatch.delenv(server.FORWARDED_ENV)
    from masthead.config import Settings

    assert server.proxy_options(Settings()) == {"proxy_headers": False, "forwarded_allow_ips": []}
    trusted = Settings(trusted_proxies=["10.0.0.0/8"])
    assert server.proxy_options(trusted) == {
        "proxy_headers": True,
        "forwarded_allow_ips": ["10.0.0.0/8"],
    }


# --- `masthead serve` itself ---------------------------------------------------------------


def serve_and_get(
    root: Path, *args: str, headers: dict[str, str], source: str = "127.0.0.1"
) -> tuple[str, str]:
    """Run `masthead serve ROOT ARGS --port 0 --access-log --no-watch`, GET /healthz twice with
    `headers` from local address `source`, stop it; its stdout (the access log) and stderr
    (masthead's log)."""
    cmd = [sys.executable, "-m", "masthead", "serve", str(root), *args]
    cmd += ["--port", "0", "--access-log", "--no-watch"]
    env = {k: v for k, v in os.environ.items() if k != server.FORWARDED_ENV}
    env["PYTHONUNBUFFERED"] = "1"
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    out: list[str] = []
    err: list[str] = []
    readers = [
        threading.Thread(target=lambda: out.extend(proc.stdout or ()), daemon=True),
        threading.Thread(target=lambda: err.extend(proc.stderr or ()), daemon=True),
    ]
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        m = re.search(r"at (http://127\.0\.0\.1:\d+/)", line)
        assert m, f"serve printed no URL: {line!r}"
        for reader in readers:
            reader.start()
        until(lambda: healthy(m.group(1), proc), what="the server answered")
        with client_from(source) as http:
            for _ in range(2):
                assert http.get(m.group(1) + "healthz", headers=headers).status_code == 200
        # the access log line is written after the response: one for the first answer above,
        # two for these
        until(lambda: sum("/healthz" in x for x in out) >= 3, what="3 lines in the access log")
    finally:
        proc.terminate()
        proc.wait(CEILING)
        for reader in readers:
            reader.join(CEILING)
    return line + "".join(out), "".join(err)


WARNING = "ignored: trusted_proxies is empty"
SERVE = [
    ("granian", "1", ""),
    ("granian", "1", f'trusted_proxies = ["{PROXY}"]'),
    ("uvicorn", "1", ""),
    ("uvicorn", "2", 'trusted_proxies = ["127.0.0.4/30"]'),
]


@pytest.mark.parametrize(
    ("name", "workers", "trust"),
    SERVE,
    ids=["granian", "granian-trusted", "uvicorn", "uvicorn-2-workers-trusted"],
)
def test_serve_ignores_forwarding_headers_unless_the_proxy_is_trusted(
    tmp_path, name, workers, trust
):
    """Each way `serve` runs (granian, uvicorn in this process, uvicorn's worker processes)
    believes `X-Forwarded-For` from the trusted proxies only (the proxy at 127.0.0.5, which no
    default trusts), never from 127.0.0.1 unless told; the access log shows whom."""
    headers = {"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https"}
    toml = trust + "\n" + BILINGUAL_TOML
    site = write_site(tmp_path / "site", {"posts/a.md": POSTS["posts/p1.md"]}, toml)
    source = PROXY if trust else "127.0.0.1"
    args = ("--server", name, "--workers", workers)
    log, err = serve_and_get(site.root, *args, headers=headers, source=source)
    if trust:
        assert "203.0.113.9" in log
        assert WARNING not in err
    else:
        assert "203.0.113.9" not in log and "127.0.0.1" in log
        assert err.count(WARNING) == 1  # once, the first time


def test_the_warning_names_the_headers_and_is_logged_once(caplog):
    seen: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope["path"])

    wrapped = server.ForwardingWarning(app)
    import asyncio

    with caplog.at_level(logging.WARNING, logger="masthead.cli.server"):
        for path, headers in [("/a", []), ("/b", [(b"x-real-ip", b"1.2.3.4")]),
                              ("/c", [(b"x-forwarded-for", b"1.2.3.4")])]:  # fmt: skip
            asyncio.run(wrapped({"type": "http", "path": path, "headers": headers}, None, None))
    assert seen == ["/a", "/b", "/c"]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "x-real-ip" in warnings[0]
