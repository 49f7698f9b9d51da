"""Security over HTTP: the headers on every kind of response, `/media/` and `/static/` serving
only what they should, and redirects that never leave the site's origin (issue 9, items 2, 3, 6).

Hostile request targets are sent byte for byte over a socket to a real uvicorn server (an HTTP
client would normalise them first); the rest goes through the real app with Starlette's client.
"""

from __future__ import annotations

import http.client
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import httpx
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from masthead.content.urls import canonical_path
from masthead.errors import ConfigError
from masthead.web.app import create_app
from masthead.web.http.redirects import location

from support.servers import cli_server, uvicorn_server
from support.sites import BILINGUAL_TOML, post, write_site
from support.wait import CEILING

ROOT = Path(__file__).parent.parent
PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
    b"\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00"
    b"\x00\x00IEND\xaeB`\x82"
)
SVG = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.domain)</script></svg>'
HEADERS = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "strict-origin-when-cross-origin",
    "cross-origin-opener-policy": "same-origin",
}
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; media-src 'self'; object-src 'none'; "
    "base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)


def assert_secure(response: httpx.Response, what: object = "") -> None:
    """The headers of item 6 on one response."""
    h = response.headers
    for name, value in HEADERS.items():
        assert h.get(name) == value, (what, name, h.get(name))
    assert h.get("content-security-policy"), what
    assert "camera=()" in h.get("permissions-policy", ""), what
    assert h.get_list("server") == ["masthead"] and "x-powered-by" not in h, what


def bundle_site(make_site: Callable[..., object], toml: str = BILINGUAL_TOML):  # type: ignore[no-untyped-def]
    """A post bundle with a file of every kind beside it, and secrets a content folder holds."""
    bundle = {
        "pic.png": PNG,
        "photo.JPG": PNG,
        "drawing.svg": SVG,
        "paper.pdf": b"%PDF-1.4\n%%EOF\n",
        "clip.mp4": b"\x00\x00\x00\x18ftypmp42",
        "song.mp3": b"ID3",
        "font.woff2": b"wOF2",
        "data.csv": "a,b\n1,2\n",
        "notes.txt": "plain notes",
        "points.json": '{"a": 1}',
        "captions.vtt": "WEBVTT\n",
        # active documents and scripts: never from /media/
        "page.html": "<script>alert(1)</script>",
        "page.htm": "<script>alert(1)</script>",
        "page.xhtml": '<html xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script></html>',
        "feed.xml": '<x:script xmlns:x="http://www.w3.org/1999/xhtml">alert(1)</x:script>',
        "app.js": "alert(1)",
        "style.css": "body{}",
        "raw": "no extension",
        # sources, backups, temporary and hidden files
        "index.md~": "backup",
        ".index.md.swp": "vim swap",
        "#index.md#": "emacs autosave",
        "index.md.orig": "merge",
        "draft.tmp": "temp",
        "old.bak": "backup",
        "pic.png~": PNG,
        ".env": "SECRET_KEY=hunter2",
        ".hidden/pic.png": PNG,
    }
    files: dict[str, str | bytes] = {f"posts/trip/{k}": v for k, v in bundle.items()}
    files["posts/trip/index.md"] = post("Trip", body="![pic](pic.png)\n")
    files[".git/config"] = "[remote]\nurl = secret"
    files[".env"] = "SECRET=1"
    files["masthead.toml"] = "title = 'x'"
    site = make_site(files, toml)
    content = site.content_dir
    os.symlink(content / "posts/trip/.env", content / "posts/trip/link.png")
    return site


# --- item 2: /media/ and /static/ ----------------------------------------------------------------


SERVED = {
    "pic.png": "image/png",
    "photo.JPG": "image/jpeg",
    "drawing.svg": "image/svg+xml",
    "paper.pdf": "application/pdf",
    "clip.mp4": "video/mp4",
    "song.mp3": "audio/mpeg",
    "font.woff2": "font/woff2",
    "data.csv": "text/csv; charset=utf-8",
    "notes.txt": "text/plain; charset=utf-8",
    "points.json": "application/json",
    "captions.vtt": "text/vtt; charset=utf-8",
}
REFUSED = [
    "posts/trip/page.html",
    "posts/trip/page.htm",
    "posts/trip/page.xhtml",
    "posts/trip/feed.xml",
    "posts/trip/app.js",
    "posts/trip/style.css",
    "posts/trip/raw",
    "posts/trip/index.md",
    "posts/trip/index.md~",
    "posts/trip/.index.md.swp",
    "posts/trip/%23index.md%23",
    "posts/trip/index.md.orig",
    "posts/trip/draft.tmp",
    "posts/trip/old.bak",
    "posts/trip/pic.png~",
    "posts/trip/.env",
    "posts/trip/.hidden/pic.png",
    "posts/trip/link.png",  # a symlink to .env
    ".git/config",
    ".env",
    "masthead.toml",
    "posts/trip/",
    "posts/",
]


def test_media_serves_an_allowlist_of_types(make_site, serve):
    client = serve(bundle_site(make_site))
    for name, media in SERVED.items():
        r = client.get(f"/media/posts/trip/{name}")
        assert r.status_code == 200, name
        assert r.headers["content-type"] == media, name
        assert_secure(r, name)
    for path in REFUSED:
        r = client.get(f"/media/{path}")
        assert r.status_code == 404, path
        assert "SECRET" not in r.text and "alert(1)" not in r.text, path
        assert_secure(r, path)


def test_svg_is_sandboxed_and_media_caches(make_site, serve):
    client = serve(bundle_site(make_site))
    svg = client.get("/media/posts/trip/drawing.svg")
    policy = svg.headers["content-security-policy"]
    assert "sandbox" in policy and "default-src 'none'" in policy and "script" not in policy
    assert svg.headers.get_list("content-security-policy") == [policy], "one policy, its own"
    again = client.get(
        "/media/posts/trip/drawing.svg", headers={"If-None-Match": svg.headers["etag"]}
    )
    assert again.status_code == 304 and again.content == b""
    # a 304 updates the stored headers (RFC 9111 §4.3.4): it must repeat the sandbox and caching
    assert again.headers["content-security-policy"] == policy
    assert again.headers["cache-control"] == svg.headers["cache-control"] == "public, max-age=3600"
    png = client.get("/media/posts/trip/pic.png")
    assert png.headers["content-security-policy"] == CSP
    cached = client.get("/media/posts/trip/pic.png", headers={"If-None-Match": png.headers["etag"]})
    assert cached.status_code == 304 and cached.headers["cache-control"] == "public, max-age=3600"
    assert_secure(cached)
    since = client.get(
        "/media/posts/trip/pic.png", headers={"If-Modified-Since": png.headers["last-modified"]}
    )
    assert since.status_code == 304


def test_static_refuses_hidden_backup_and_source_files(make_site, serve):
    site = make_site({"posts/a.md": post("A")})
    static = site.root / "static"
    for rel, text in {
        "css/extra.css": "p{}",
        "css/extra.css~": "old",
        "css/.extra.css.swp": "swap",
        ".env": "SECRET=1",
        ".git/HEAD": "ref",
        "notes.bak": "old",
        "README.md": "source",
        "4913": "vim",
        "css/site.css___jb_tmp___": "jetbrains",
    }.items():
        (static / rel).parent.mkdir(parents=True, exist_ok=True)
        (static / rel).write_text(text, encoding="utf-8")
    client = serve(site)
    assert client.get("/static/css/extra.css").text == "p{}"
    for rel in (
        "css/extra.css~",
        "css/.extra.css.swp",
        ".env",
        ".git/HEAD",
        "notes.bak",
        "README.md",
        "4913",
        "css/site.css___jb_tmp___",
    ):
        r = client.get(f"/static/{rel}")
        assert r.status_code == 404, rel
        assert_secure(r, rel)
    css = client.get("/static/css/site.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    cached = client.get("/static/css/site.css", headers={"If-None-Match": css.headers["etag"]})
    assert cached.status_code == 304
    assert cached.headers["cache-control"] == css.headers["cache-control"] == "public, max-age=3600"


# --- item 6: headers on every response -----------------------------------------------------------


def test_security_headers_on_every_kind_of_response(make_site):
    files: dict[str, str | bytes] = {
        "posts/a.md": post("A", tags="[x]", aliases="[/old/a/]"),
        "posts/pic.png": PNG,
        "posts/broken.md": post("Broken", layout="boom"),
    }
    site = make_site(files)
    templates = site.root / "templates"
    templates.mkdir()
    # a real failure while rendering one page: the 500 page must carry the headers too
    (templates / "post.html").write_text(
        '{% extends "base.html" %}{% block main %}{{ post.title }}'
        "{% if post.title == 'Broken' %}{{ 1 // 0 }}{% endif %}{% endblock %}",
        encoding="utf-8",
    )
    client = TestClient(create_app(site), follow_redirects=False, raise_server_exceptions=False)
    client.__enter__()
    page = client.get("/posts/a/")
    cases: list[tuple[str, str, dict[str, str], int]] = [
        ("GET", "/", {}, 200),
        ("GET", "/posts/a/", {}, 200),
        ("HEAD", "/posts/a/", {}, 200),
        ("GET", "/posts/a/", {"If-None-Match": page.headers["etag"]}, 304),
        ("GET", "/posts/broken/", {}, 500),
        ("GET", "/no/such/page/", {}, 404),
        ("GET", "/posts/a", {}, 301),
        ("GET", "/old/a/", {}, 301),
        ("GET", "/page/1/", {}, 301),
        ("POST", "/posts/a/", {}, 405),
        ("GET", "/static/css/site.css", {}, 200),
        ("GET", "/static/css/highlight.css", {}, 200),
        ("GET", "/static/js/site.js", {}, 200),
        ("GET", "/media/posts/pic.png", {}, 200),
        ("GET", "/feed.xml", {}, 200),
        ("GET", "/zh/atom.xml", {}, 200),
        ("GET", "/sitemap.xml", {}, 200),
        ("GET", "/robots.txt", {}, 200),
        ("GET", "/search?q=a", {}, 200),
        ("GET", "/api/search?q=a", {}, 200),
        ("GET", "/api/search?page=0", {}, 422),
        ("GET", "/api/openapi.json", {}, 200),
        ("GET", "/healthz", {}, 200),
    ]
    for method, url, headers, status in cases:
        r = client.request(method, url, headers=headers)
        assert r.status_code == status, (method, url, r.status_code)
        assert_secure(r, (method, url))
        assert r.headers["content-security-policy"] == CSP, url
        assert r.headers["x-frame-options"] == "DENY", url
        assert r.headers["strict-transport-security"] == "max-age=63072000", url
    client.__exit__(None, None, None)


def test_hsts_only_for_https_sites_and_the_policy_extends(make_site, serve):
    plain = BILINGUAL_TOML.replace("https://example.com", "http://example.com")
    client = serve(make_site({"posts/a.md": post("A")}, plain))
    assert "strict-transport-security" not in client.get("/").headers
    toml = BILINGUAL_TOML + (
        "\n[security]\nhsts_max_age = 600\nhsts_include_subdomains = true\n"
        'csp = {frame-src = ["https://www.youtube-nocookie.com"], '
        'img-src = ["https:"], frame-ancestors = ["https://partner.example"]}\n'
    )
    r = serve(make_site({"posts/a.md": post("A")}, toml)).get("/posts/a/")
    assert r.headers["strict-transport-security"] == "max-age=600; includeSubDomains"
    directives = dict(
        [*d.split(" ", 1), ""][:2] for d in r.headers["content-security-policy"].split("; ")
    )
    assert directives["frame-src"] == "'self' https://www.youtube-nocookie.com"
    assert directives["img-src"] == "'self' data: https:"
    assert directives["frame-ancestors"] == "https://partner.example"  # 'none' dropped
    assert directives["script-src"] == "'self'"
    assert "x-frame-options" not in r.headers  # it would contradict frame-ancestors


@pytest.mark.parametrize(
    "csp",
    [
        "{script-src = [\"'self'; script-src *\"]}",
        '{script-src = ["https://a.example\\r\\nSet-Cookie: x=1"]}',
        '{img-src = ["https://a.example https://b.example"]}',
        "{img-src = [\"'unsafe-everything'\"]}",
        '{img-src = ["a,b"]}',
        '{img-src = [""]}',
        '{"script-src; img-src" = ["*"]}',
        '{sandbox = ["allow-scripts"]}',
    ],
)
def test_policy_settings_cannot_inject_into_the_header(make_site, csp):
    toml = BILINGUAL_TOML + f"\n[security]\ncsp = {csp}\n"
    with pytest.raises(ConfigError, match=r"security\.csp"):
        make_site({}, toml)


def test_security_settings_are_documented():
    from masthead.config import SecuritySettings

    page = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    for name in SecuritySettings.model_fields:
        assert f"| `{name}` |" in page, name
    for words in ("raw_html", "nh3", "Content-Security-Policy", "trusted_proxies"):
        assert words in page, words
    deploying = (ROOT / "docs" / "deploying.md").read_text(encoding="utf-8")
    proxies = deploying.split("## Behind a reverse proxy", 1)[1].split("\n## ", 1)[0]
    assert "--forwarded-allow-ips" in proxies


@pytest.mark.parametrize("server", ["granian", "uvicorn"])
def test_serve_names_no_server_software_or_version(make_site, server):
    """One `Server: masthead` on every response, whichever server runs (granian always sends
    one; uvicorn's own is off): no server name, no version, on a miss and on a fast-path hit."""
    site = make_site({"posts/a.md": post("A")})
    with cli_server(str(site.root), "--no-watch", "--server", server) as url:
        responses = [
            httpx.head(url + "posts/a/", timeout=CEILING) for _ in range(2)
        ]  # a miss, then a hit
        responses.append(httpx.get(url + "no/such/page/", timeout=CEILING))
    for r in responses:
        assert r.headers.get_list("server") == ["masthead"], r.headers.get_list("server")
        assert "x-powered-by" not in r.headers
    assert responses[0].status_code == responses[1].status_code == 200
    assert_secure(responses[1])


# --- item 3: redirects stay on this origin -------------------------------------------------------


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real uvicorn server for a small site, shared by the module's tests that only send GETs
    and a POST that changes nothing (no comment route); yields host:port."""
    site = write_site(
        tmp_path_factory.mktemp("live") / "site",
        {
            "posts/x.md": post("X", aliases="[/2019/01/x/]"),
            "posts/pic.png": PNG,
        },
    )
    with uvicorn_server(create_app(site)) as base:
        yield base.removeprefix("http://")


def raw_get(hostport: str, target: str) -> tuple[int, str | None]:
    """Send `GET target` exactly as written; the status and the Location header."""
    conn = http.client.HTTPConnection(hostport, timeout=CEILING)
    try:
        conn.putrequest("GET", target, skip_accept_encoding=True)
        conn.endheaders()
        response = conn.getresponse()
        response.read()
        return response.status, response.getheader("location")
    finally:
        conn.close()


def stays_here(location: str) -> bool:
    """Whether a Location, resolved as a browser does (WHATWG: tab and newline dropped,
    backslash read as a slash), names a path on this origin."""
    browser = re.sub(r"[\t\n\r]", "", location).replace("\\", "/")
    joined = urlsplit(urljoin("https://example.com/a/b", browser))
    return (
        (joined.scheme, joined.netloc) == ("https", "example.com")
        and location.startswith("/")
        and not location.startswith(("//", "/\\"))
    )


HOSTILE = {
    "//evil.example/x": "/evil.example/x",
    "/%2F%2Fevil.example/x": "/evil.example/x",
    "/%2f/evil.example/x": "/evil.example/x",
    "///evil.example/x": "/evil.example/x",
    "/%09/evil.example/x": "/evil.example/x",
    "/%0A/evil.example/x": "/evil.example/x",
    "/%0D%0A/evil.example/x": "/evil.example/x",
    "/\\evil.example/x": "/evil.example/x",
    "/%5Cevil.example/x": "/evil.example/x",
    "/\\/evil.example/x": "/evil.example/x",
    "/%5C%5Cevil.example/x": "/evil.example/x",
    "/./evil.example/x": "/evil.example/x",
    "/../evil.example/x": "/evil.example/x",
    "//evil.example/x?next=//evil.example": "/evil.example/x?next=//evil.example",
    "//posts/x/": "/posts/x/",
    "/posts//x/": "/posts/x/",
    "/posts/x//": "/posts/x/",
    "/posts/x/index.html": "/posts/x/",
    "/posts/x/index": "/posts/x/",
    "/posts/x/index.html?utm_source=a": "/posts/x/?utm_source=a",
    "/index.html": "/",
    "//media/posts/pic.png": "/media/posts/pic.png",
    "//2019/01/x/": "/2019/01/x/",
}


def test_hostile_paths_redirect_to_this_origin(live):
    for target, expected in HOSTILE.items():
        status, where = raw_get(live, target)
        assert (status, where) == (301, expected), target
        assert stays_here(where), target
    # followed to the end, each lands on this site: a page, or a 404
    for target in HOSTILE:
        seen = [target]
        status, where = raw_get(live, target)
        while status == 301 and where and len(seen) < 5:
            seen.append(where)
            status, where = raw_get(live, where)
        assert status in (200, 404), seen
    assert raw_get(live, "/posts/x/")[0] == 200


def test_every_redirect_keeps_its_query_on_this_origin(live):
    for target, expected in {
        "/posts/x?a=1&b=%2F%2Fevil": "/posts/x/?a=1&b=%2F%2Fevil",
        "/2019/01/x/?ref=feed": "/posts/x/?ref=feed",
        "/2019/01/x": "/posts/x/",
        "/tags/a%2541": "/tags/a%2541/",  # a literal % stays one, not %41 = "A"
        "/tags/%E6%BA%90%E7%A0%81": "/tags/%E6%BA%90%E7%A0%81/",
        "/page/1/?utm_source=x": "/?utm_source=x",
        "/tags/none/page/1/": "/tags/none/",
        "/search/?q=harbour": "/search?q=harbour",
        "/zh/search/?q=x": "/zh/search?q=x",
        "/_ref/posts/x.md": "/posts/x/",
    }.items():
        status, where = raw_get(live, target)
        assert (status, where) == (301, expected), target


def test_a_post_to_a_doubled_path_stays_here(live):
    conn = http.client.HTTPConnection(live, timeout=CEILING)
    conn.request("POST", "//evil.example/x", body=b"")
    response = conn.getresponse()
    where = response.getheader("location")
    assert response.status < 500 and (where is None or stays_here(where)), where
    conn.close()


@settings(max_examples=300, deadline=None)
@given(st.text(), st.text())
@example("/\udcff/x", "a=\udcff")  # a lone surrogate (undecodable bytes) cannot be encoded
@example("\t//evil.example", "")
@example("https://evil.example/", "")
@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_location_is_always_a_path_on_this_origin(path, query):
    loc = location(path, query)
    assert stays_here(loc), loc
    assert re.fullmatch(r"/[\x21-\x7e]*", loc) and "\\" not in loc, loc
    assert location(loc.split("?", 1)[0], loc.split("?", 1)[1] if "?" in loc else "") == loc


ENCODED_PIECES = ["/", "//", "%2F", "%5C", "%09", "%0A", ".", "..", "evil.example", "posts", "x",
                  "index.html", "index", "page", "1", "%2e%2e", "@"]  # fmt: skip
PIECES = ["/", "//", "\\", "\t", "\n", ".", "..", "%", "evil.example", "posts", "x", "index.html",
          "index", "@", ":", "?", "#", "é", "\x00", " "]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=12).map("".join))
def test_canonical_path_is_canonical(path):
    clean = canonical_path(path)
    assert clean.startswith("/") and "//" not in clean and "\\" not in clean, clean
    assert not re.search(r"[\x00-\x1f\x7f]", clean), clean
    assert not re.search(r"(^|/)\.\.?(/|$)", clean), clean
    assert canonical_path(clean) == clean
    assert stays_here(location(clean))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(ENCODED_PIECES),
        min_size=1,
        max_size=8,
    ).map("".join),
    st.sampled_from(["", "?a=1", "?next=//evil.example", "?q=%0d%0a"]),
)
def test_no_request_is_redirected_off_the_site(live, path, query):
    status, where = raw_get(live, "/" + path + query)
    assert status < 500, path
    if 300 <= status < 400:
        assert where is not None and stays_here(where), (path, where)
