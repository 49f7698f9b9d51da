"""Cache hits: no SQL and no thread-pool hop (the ASGI fast path, web/cache/fastpath.py), changes
made by another process seen on the next request (the change signal, store/signal.py), and bodies
kept gzip- and brotli-compressed per entry (web/cache/conditional.py)."""

from __future__ import annotations

import contextlib
import gzip
import itertools
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import anyio
import anyio.to_thread
import brotli
import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from masthead.config import Site
from masthead.web.app import create_app
from masthead.web.cache.encoding import CODINGS, negotiate

from support.servers import uvicorn_server
from support.sites import post
from support.sql import trace_statements
from support.wait import CEILING

POST = "/posts/harbour/"


@pytest.fixture
def statements(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every SQL statement run on any connection the Database opens from now on."""
    return trace_statements(monkeypatch)


@pytest.fixture
def site(make_site: Callable[..., Site]) -> Site:
    return make_site({"posts/harbour.md": post("Harbour", body="The first version.\n")})


def test_no_sql_runs_on_a_cache_hit(site: Site, statements: list[str]) -> None:
    app = create_app(site)
    with uvicorn_server(app) as base, httpx.Client(base_url=base, timeout=CEILING) as client:
        first = client.get(POST)
        assert first.status_code == 200
        etag = first.headers["etag"]
        statements.clear()
        for _ in range(5):
            assert client.get(POST).status_code == 200
            assert client.head(POST).status_code == 200
            assert client.get(POST, headers={"If-None-Match": etag}).status_code == 304
        assert statements == [], "a cache hit ran SQL"
        assert client.get(POST + "?x=1").status_code == 200  # the router path still works


@contextlib.asynccontextmanager
async def no_free_thread() -> AsyncIterator[None]:
    """Hold every token of anyio's default thread limiter: a thread-pool hop inside would wait
    (and the caller's `fail_after` ends the test)."""
    limiter = anyio.to_thread.current_default_thread_limiter()
    holders = [object() for _ in range(int(limiter.total_tokens))]
    for holder in holders:
        await limiter.acquire_on_behalf_of(holder)
    try:
        yield
    finally:
        for holder in holders:
            limiter.release_on_behalf_of(holder)


def test_a_hit_needs_no_thread_from_the_pool(site: Site) -> None:
    app = create_app(site)

    async def main() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://test", timeout=CEILING
        ) as client:
            assert (await client.get(POST)).status_code == 200  # a miss: rendered in a thread
            async with no_free_thread():
                with anyio.fail_after(5):
                    hit = await client.get(POST)
                    head = await client.head(POST)
                    etag = hit.headers["etag"]
                    again = await client.get(POST, headers={"If-None-Match": etag})
            assert hit.status_code == 200 and b"The first version." in hit.content
            assert head.status_code == 200 and head.content == b""
            assert again.status_code == 304 and again.content == b""
            for response in (hit, head, again):  # the security headers, on the fast path too
                assert "default-src 'self'" in response.headers["content-security-policy"]
                assert response.headers["x-content-type-options"] == "nosniff"
                assert response.headers["vary"] == "Accept-Encoding"
            assert again.headers["etag"] == etag
            assert again.headers["cache-control"] == hit.headers["cache-control"]

    anyio.run(main)


def test_a_change_indexed_by_another_process_is_served_on_the_next_request(
    site: Site, statements: list[str]
) -> None:
    app = create_app(site, watch=False)
    with uvicorn_server(app) as base, httpx.Client(base_url=base, timeout=CEILING) as client:
        before = client.get(POST)
        assert "The first version." in before.text
        etag = before.headers["etag"]
        statements.clear()
        assert client.get(POST, headers={"If-None-Match": etag}).status_code == 304
        assert statements == [], "the generation is held in memory, not read per request"
        source = site.content_dir / "posts" / "harbour.md"
        source.write_text(post("Harbour", body="The second version.\n"), encoding="utf-8")
        subprocess.run(
            [sys.executable, "-m", "masthead", "index", str(site.root)],
            check=True,
            capture_output=True,
        )
        after = client.get(POST)
        assert "The second version." in after.text
        assert client.get(POST, headers={"If-None-Match": etag}).status_code == 200


def raw_get(client: httpx.Client, path: str, **headers: str) -> tuple[httpx.Response, bytes]:
    """GET `path` and the body exactly as sent (no content decoding)."""
    with client.stream("GET", path, headers=headers) as response:
        return response, b"".join(response.iter_raw())


def test_bodies_per_coding_decode_to_the_identity_body(demo_site: Site) -> None:
    app = create_app(demo_site)
    path = "/posts/moving-from-hugo/"
    with uvicorn_server(app) as base, httpx.Client(base_url=base, timeout=CEILING) as client:
        plain, identity = raw_get(client, path, **{"Accept-Encoding": "identity"})
        assert plain.status_code == 200 and "content-encoding" not in plain.headers
        br, br_body = raw_get(client, path, **{"Accept-Encoding": "gzip, deflate, br"})
        gz, gz_body = raw_get(client, path, **{"Accept-Encoding": "br;q=0, gzip"})
        assert br.headers["content-encoding"] == "br"
        assert gz.headers["content-encoding"] == "gzip"
        assert brotli.decompress(br_body) == identity
        assert gzip.decompress(gz_body) == identity
        assert len(br_body) <= 0.40 * len(identity), "brotli body over 40% of the page"
        tags = {plain.headers["etag"], br.headers["etag"], gz.headers["etag"]}
        assert len(tags) == 3, "one ETag per coding"
        assert br.headers["etag"].endswith('-br"')
        for response, body in ((plain, identity), (br, br_body), (gz, gz_body)):
            assert response.headers["vary"] == "Accept-Encoding"
            assert int(response.headers["content-length"]) == len(body)
            head = client.head(
                path, headers={"Accept-Encoding": response.request.headers["accept-encoding"]}
            )
            assert head.content == b""
            for name in ("content-length", "etag", "content-type", "vary", "cache-control"):
                assert head.headers[name] == response.headers[name]
            assert head.headers.get("content-encoding") == response.headers.get("content-encoding")
        # a tag answers 304 only for its own coding
        headers = {"Accept-Encoding": "br", "If-None-Match": br.headers["etag"]}
        assert client.get(path, headers=headers).status_code == 304
        headers = {"Accept-Encoding": "gzip", "If-None-Match": br.headers["etag"]}
        assert client.get(path, headers=headers).status_code == 200
        # refused codings are never sent
        for refused in ("gzip;q=0, br;q=0", "*;q=0, identity", "br;q=0, gzip;q=0, identity;q=1"):
            response, _ = raw_get(client, path, **{"Accept-Encoding": refused})
            assert "content-encoding" not in response.headers, refused
        feed, _ = raw_get(client, "/feed.xml", **{"Accept-Encoding": "gzip"})
        assert feed.headers["content-encoding"] == "gzip" and feed.headers["vary"]
        since = {"If-Modified-Since": feed.headers["last-modified"], "Accept-Encoding": "gzip"}
        assert client.get("/feed.xml", headers=since).status_code == 304


@pytest.mark.parametrize(
    ("header", "coding"),
    [
        (None, "identity"),  # no preference: the plain body
        ("", "identity"),
        ("gzip, deflate, br", "br"),
        ("br;q=0, gzip", "gzip"),
        ("gzip;q=0.5, br;q=0.4", "gzip"),
        ("GZIP", "gzip"),
        ("x-gzip", "gzip"),
        ("*", "br"),
        ("*;q=0", "identity"),  # nothing acceptable: identity anyway (RFC 9110 §12.5.3)
        ("identity, gzip;q=0.5", "identity"),
        ("deflate", "identity"),
        ("br;q=2, gzip", "gzip"),  # a malformed q-value drops its element
        ("br ; q=0.9 , gzip ; q=0.8", "br"),
    ],
)
def test_accept_encoding_is_negotiated_by_q_values(header: str | None, coding: str) -> None:
    assert negotiate(header) == coding


@given(st.text(max_size=300))
def test_negotiation_never_fails(header: str) -> None:
    assert negotiate(header) in CODINGS
    assert negotiate(header, ("identity",)) == "identity"


def test_static_text_files_are_served_precompressed(site: Site) -> None:
    static = site.root / "static"
    (static / "js").mkdir(parents=True)
    script = ("function hello() { return 'hello, reader'; }\n" * 40).encode()
    (static / "js" / "extra.js").write_bytes(script)
    (static / "logo.svg").write_text(
        "<svg xmlns='http://www.w3.org/2000/svg'>" + " " * 500 + "</svg>"
    )
    (static / ".env").write_text("SECRET=1\n" * 100)
    (static / "pixel.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 600)
    app = create_app(site)
    with uvicorn_server(app) as base, httpx.Client(base_url=base, timeout=CEILING) as client:
        for path, source in (
            ("/static/js/extra.js", script),  # the site's own
            ("/static/css/site.css", None),  # the package's
        ):
            plain, identity = raw_get(client, path, **{"Accept-Encoding": "identity"})
            assert plain.status_code == 200
            if source is not None:
                assert identity == source
            br, br_body = raw_get(client, path, **{"Accept-Encoding": "br, gzip"})
            gz, gz_body = raw_get(client, path, **{"Accept-Encoding": "gzip"})
            assert br.headers["content-encoding"] == "br"
            assert brotli.decompress(br_body) == identity
            assert gzip.decompress(gz_body) == identity
            assert len(br_body) < len(identity)
            assert len({plain.headers["etag"], br.headers["etag"], gz.headers["etag"]}) == 3
            for response in (plain, br, gz):
                assert response.headers["vary"] == "Accept-Encoding"
                assert response.headers["cache-control"] == "public, max-age=3600"
                assert response.headers["last-modified"]
            again = client.get(
                path, headers={"Accept-Encoding": "br", "If-None-Match": br.headers["etag"]}
            )
            assert again.status_code == 304 and again.content == b""
            assert again.headers["etag"] == br.headers["etag"]
            assert again.headers["x-content-type-options"] == "nosniff"
            since = {"Accept-Encoding": "br", "If-Modified-Since": br.headers["last-modified"]}
            assert client.get(path, headers=since).status_code == 304
        svg, _ = raw_get(client, "/static/logo.svg", **{"Accept-Encoding": "gzip"})
        assert svg.headers["content-encoding"] == "gzip"
        assert "sandbox" in svg.headers["content-security-policy"]  # its own policy kept
        assert client.get("/static/.env", headers={"Accept-Encoding": "gzip"}).status_code == 404
        png, _ = raw_get(client, "/static/pixel.png", **{"Accept-Encoding": "gzip, br"})
        assert png.status_code == 200 and "content-encoding" not in png.headers
        css, _ = raw_get(client, "/static/css/highlight.css", **{"Accept-Encoding": "br"})
        assert css.headers["content-encoding"] == "br" and css.headers["vary"]
        # a changed file is served as it is now
        before = client.head("/static/js/extra.js", headers={"Accept-Encoding": "identity"})
        (static / "js" / "extra.js").write_bytes(b"// changed\n" * 50)
        changed, body = raw_get(client, "/static/js/extra.js", **{"Accept-Encoding": "identity"})
        assert body == b"// changed\n" * 50
        assert changed.headers["etag"] != before.headers["etag"]


@pytest.mark.parametrize("query", ["", "?x=1"])  # the fast path and the router path
def test_a_hostile_if_modified_since_is_no_date(site: Site, query: str) -> None:
    app = create_app(site)
    with uvicorn_server(app) as base, httpx.Client(base_url=base, timeout=CEILING) as client:
        assert client.get("/feed.xml").status_code == 200
        since = {"If-Modified-Since": "Mon, 01 Jan 99999999999 00:00:00 GMT"}
        assert client.get("/feed.xml" + query, headers=since).status_code == 200


def test_every_bump_of_the_change_signal_moves_its_stamp(tmp_path: Path) -> None:
    from masthead.store.signal import ROTATE_AT, ChangeSignal

    signal = ChangeSignal(tmp_path / "site.db")
    assert signal.path == tmp_path / "site.db.gen"
    assert signal.stamp() is None
    stamps = [signal.stamp()]
    for _ in range(ROTATE_AT + 10):  # across a rotation to a fresh file
        signal.bump()
        stamps.append(signal.stamp())
    assert all(a != b for a, b in itertools.pairwise(stamps))
    assert signal.path.stat().st_size < ROTATE_AT


def test_the_page_cache_is_bounded_by_bytes(
    make_site: Callable[..., Site], statements: list[str]
) -> None:
    site = make_site({f"posts/p{n}.md": post(f"Post {n}", body="Words. " * 200) for n in range(3)})
    app = create_app(site)
    with uvicorn_server(app) as base, httpx.Client(base_url=base, timeout=CEILING) as client:
        assert client.get("/posts/p0/").status_code == 200
        statements.clear()
        assert client.get("/posts/p0/").status_code == 200
        assert statements == [], "a hit"
        one_page = app.state.masthead.cached(("post", "/posts/p0/"), lambda: ("", 200)).size
        app.state.masthead.cache_bytes = one_page  # the budget (state.CACHE_BYTES by default)
        assert client.get("/posts/p1/").status_code == 200  # p0 out
        statements.clear()
        assert "Post 0" in client.get("/posts/p0/").text
        assert statements, "rendered again: the cache held no more than its bound"


def test_static_text_files_are_answered_by_the_fast_path_until_they_change(site: Site) -> None:
    """A /static/ text file held in memory needs no thread (StaticFiles stats in one), keeps
    an SVG's own policy as its only CSP, and stops being answered from memory as soon as the
    file is edited or a site file appears in front of the package's."""
    static = site.root / "static"
    static.mkdir()
    (static / "logo.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'>" + " " * 500)
    app = create_app(site)

    async def main() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://test", timeout=CEILING
        ) as client:
            paths = ("/static/css/site.css", "/static/logo.svg")
            first = {p: await client.get(p, headers={"Accept-Encoding": "br"}) for p in paths}
            async with no_free_thread():
                with anyio.fail_after(5):
                    hits = {
                        p: await client.get(p, headers={"Accept-Encoding": "br"}) for p in paths
                    }
                    etag = hits["/static/css/site.css"].headers["etag"]
                    css = {"Accept-Encoding": "br", "If-None-Match": etag}
                    again = await client.get("/static/css/site.css", headers=css)
            for path in paths:
                assert hits[path].status_code == 200
                assert hits[path].content == first[path].content
                assert hits[path].headers["etag"] == first[path].headers["etag"]
            assert again.status_code == 304
            svg = hits["/static/logo.svg"].headers.get_list("content-security-policy")
            assert len(svg) == 1 and "sandbox" in svg[0], svg
            (static / "css").mkdir()
            (static / "css" / "site.css").write_text("body { color: red }\n" * 40)
            override = await client.get("/static/css/site.css")
            assert override.text == "body { color: red }\n" * 40
            (static / "logo.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>" * 20)
            edited = await client.get("/static/logo.svg")
            assert edited.text == "<svg xmlns='http://www.w3.org/2000/svg'/>" * 20

    anyio.run(main)
