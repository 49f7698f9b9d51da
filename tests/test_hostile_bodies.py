"""Hostile request bodies get a 4xx with a message, never a 500 (issue 29, item 8, D1 and D3),
and what granian answers on its own before the app sees a request (D11).

- D1: JSON nested 1,000 deep made `json.loads` exhaust Python's recursion limit: a 500 on
  `POST /api/comments`, `PATCH /api/comments/{id}` and the admin bulk API. Sent here through
  the real app on a real SQLite file; a remember-me cookie of `[[[…` too.
- D3: a malformed chunked body (`Transfer-Encoding: chunked`, then `ZZZ\\r\\n`) made the server end
  the body stream; Starlette raised `ClientDisconnect` and the app answered 500 with a traceback
  in the log. Sent byte for byte over a socket to `masthead serve` on granian and on uvicorn.
- D11: granian answers a request line or headers it cannot read (400, 414, 431) itself, with
  no body and without the app's security headers; granian has no setting to add headers to
  those answers. docs/security.md says so; the test pins what they are (empty, so nothing in
  them can be rendered or sniffed), so a granian that starts sending a body is noticed.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from masthead.accounts import service as accounts
from masthead.store.db import Database

from support.servers import cli_server
from support.sites import post, write_site

DEEP_ARRAY = b"[" * 1000 + b"]" * 1000
DEEP_OBJECT = b'{"a":' * 1000 + b"1" + b"}" * 1000
PASSWORD = "a long password"  # pragma: allowlist secret
FILES = {"posts/a.md": post("A", "2024-03-01")}
SAME_ORIGIN = {"Origin": "https://testserver"}
END = b"\r\n\r\n"


@pytest.fixture
def client(make_site, serve):
    app = serve(make_site(FILES))
    app.base_url = "https://testserver"
    return app


@pytest.mark.parametrize("body", [DEEP_ARRAY, DEEP_OBJECT], ids=["array", "object"])
def test_deep_json_is_a_400_everywhere(client, body):
    site = client.app.state.masthead.site
    db = Database(site.database_path)
    accounts.add_user(db, "mei", PASSWORD)
    bearer = {"Authorization": f"Bearer {accounts.new_token(db, 'mei')}"}
    db.close()
    json_type = {"Content-Type": "application/json"}
    sent = [
        client.post("/api/comments", content=body, headers={**json_type, **SAME_ORIGIN}),
        client.patch("/api/comments/1", content=body, headers={**json_type, **SAME_ORIGIN}),
        client.post("/api/admin/comments/bulk", content=body, headers={**json_type, **bearer}),
        client.post("/api/admin/comments/1", content=body, headers={**json_type, **bearer}),
    ]
    for response in sent:
        assert response.status_code == 400, (response.request.url, response.text[:300])
        assert "nests deeper" in response.json()["error"]["message"]


def test_a_shallow_body_still_reads(client):
    """The depth check counts brackets, not brackets inside strings."""
    head = b'{"post": "/posts/a/", "name": "A", "email": "a@example.org", "body": "'
    body = head + b"[{" * 500 + b'"}'
    response = client.post(
        "/api/comments", content=body, headers={"Content-Type": "application/json", **SAME_ORIGIN}
    )
    assert response.status_code == 201, response.text


def test_a_deep_remember_cookie_is_ignored(client):
    client.cookies.set("masthead_author", "[" * 1500)
    response = client.get("/posts/a/")
    assert response.status_code == 200


# --- over a socket, to the real servers -------------------------------------------------------


def exchange(url: str, raw: bytes) -> bytes:
    """Send `raw` to the server at `url` and read until it closes the connection."""
    host, port = url.removeprefix("http://").rstrip("/").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(raw)
        out = b""
        while chunk := sock.recv(65536):
            out += chunk
    return out


def status_of(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


def headers_of(answer: bytes) -> dict[str, str]:
    head = answer.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")[1:]
    return {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in head)}


def chunked(path: str, body: bytes, port: str) -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://127.0.0.1:{port}\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n"
        "Connection: close\r\n\r\n"
    ).encode() + body


# the tests over `served` on one worker: pytest-xdist hands out a module's tests one by one, and
# each worker given one of them would start both servers again
SERVED = pytest.mark.xdist_group("hostile-bodies-served")


@pytest.fixture(scope="module", params=["granian", "uvicorn"])
def served(request, tmp_path_factory) -> Iterator[str]:
    """`masthead serve` on granian or uvicorn, one process for the module's tests: they only
    send requests, each on a connection of its own, and the server must outlive every one."""
    site = write_site(tmp_path_factory.mktemp(request.param) / "site", FILES)
    args = ("--no-watch", "--workers", "1", "--server", request.param)
    with cli_server(str(site.root), *args) as url:
        yield url


@SERVED
@pytest.mark.server
@pytest.mark.parametrize(
    "body",
    [b"ZZZ\r\n", b"5\r\nab\r\n0\r\n\r\n", b"-1\r\nx\r\n", b"ffffffffffffffffffff\r\nx\r\n"],
    ids=["not-hex", "short-chunk", "negative", "huge-size"],
)
def test_a_malformed_chunked_body_is_a_400(served, body):
    port = served.rstrip("/").rsplit(":", 1)[1]
    for path in ("/comments", "/api/comments", "/guanli/login"):
        answer = exchange(served, chunked(path, body, port))
        if not answer:  # the server closed the connection without a word: no 5xx either
            continue
        assert 400 <= status_of(answer) < 500, (path, answer[:400])
        assert b"Traceback" not in answer


@SERVED
@pytest.mark.server
@pytest.mark.parametrize("served", ["granian"], indirect=True)
def test_granian_answers_it_cannot_read_are_empty(served):
    """D11: granian's own 400, 414 and 431 carry no body (and no app header: it has no setting
    for them). Nothing in them can run or be sniffed; docs/security.md says so."""
    answers = {
        414: exchange(served, b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"),
        431: exchange(served, b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 600_000 + END),
        400: exchange(served, b"GET / HTTP/1.1\r\nHost x\r\n\r\n"),
    }
    for status, answer in answers.items():
        assert status_of(answer) == status, answer[:200]
        _, _, body = answer.partition(b"\r\n\r\n")
        assert body == b"", (status, body[:200])
        headers = headers_of(answer)
        assert headers.get("content-length", "0") == "0", headers
        assert "content-type" not in headers, headers
