"""Deploy targets of an export (issue 31, item 4): nginx with the configuration of the docs
(Debian's nginx, started for real), Netlify and Cloudflare Pages (`_headers` and `_redirects`, read
by a parser of their documented syntax) and GitHub Pages (alias pages, `.nojekyll`).

Syntax followed: Netlify "Redirects and rewrites" / "Custom headers" and Cloudflare Pages
"Redirects" / "Headers": `_redirects` has one `from to [status]` per line; `_headers` has a URL
pattern on a line of its own, then its headers indented, `Name: value`; `#` starts a comment.
Cloudflare Pages reads at most 2,000 static redirects, 100 header rules, 2,000 characters a line.
"""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
from bs4 import BeautifulSoup
from starlette.testclient import TestClient

from masthead.config import load_site
from masthead.export.build import build
from masthead.web.app import create_app
from masthead.web.http.media import SVG_POLICY
from masthead.web.http.security import security_headers

from support import client
from support.wait import CEILING, until

DEMO = Path(__file__).parent.parent / "src" / "masthead" / "demo"
DOCS = Path(__file__).parent.parent / "docs" / "deploying.md"
BASE = "https://blog.example.com"
OLD_PATHS = {  # the post added to the demo: its former addresses, one not ASCII
    "/2019/05/old-harbour/": "/posts/old-harbour/",
    "/旧/港口/": "/posts/old-harbour/",
}
HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")  # RFC 9110 token


# every test here reads `export`: one xdist worker runs them all, which exports the demo once
pytestmark = pytest.mark.xdist_group("hosts-export")


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The demo and one post with two aliases, exported; (site folder, OUT)."""
    root = tmp_path_factory.mktemp("hosts") / "site"
    shutil.copytree(DEMO, root, ignore=shutil.ignore_patterns(".masthead"))
    aliases = ", ".join(f'"{p}"' for p in OLD_PATHS)
    (root / "content/posts/old-harbour.md").write_text(
        f"---\ntitle: Old harbour\ndate: 2019-05-01\naliases: [{aliases}]\n---\nMoved here.\n",
        encoding="utf-8",
    )
    out = root.parent / "public"
    build(load_site(root, {"base_url": BASE}), out)
    return root, out


# --- Netlify and Cloudflare Pages -------------------------------------------------------------


def parse_redirects(text: str) -> list[tuple[str, str, int]]:
    """`_redirects` as the hosts read it; fails on a line they would not take."""
    rules = []
    for n, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        assert len(line) <= 1000, f"line {n}: too long for Cloudflare Pages"
        parts = line.split()
        assert len(parts) in (2, 3), f"line {n}: {line!r}"
        old, new = parts[0], parts[1]
        status = int(parts[2]) if len(parts) == 3 else 301
        assert old.startswith("/") and old.isascii() and " " not in old, f"line {n}: {old!r}"
        assert new.startswith("/") and new.isascii(), f"line {n}: {new!r}"
        assert status in (200, 301, 302, 303, 307, 308, 404), f"line {n}: {status}"
        rules.append((old, new, status))
    assert len(rules) <= 2000, "more static redirects than Cloudflare Pages reads"
    return rules


def parse_headers(text: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """`_headers` as the hosts read it: (URL pattern, its headers), in order."""
    rules: list[tuple[str, list[tuple[str, str]]]] = []
    for n, line in enumerate(text.splitlines(), start=1):
        assert len(line) <= 2000, f"line {n}: too long for Cloudflare Pages"
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace():
            assert line.startswith("/") and " " not in line, f"line {n}: not a path {line!r}"
            rules.append((line, []))
            continue
        assert rules, f"line {n}: a header before any path"
        name, sep, value = line.strip().partition(":")
        assert sep and HEADER_NAME.match(name), f"line {n}: not `Name: value` {line!r}"
        rules[-1][1].append((name, value.strip()))
    assert all(headers for _path, headers in rules), "a path with no header"
    assert len(rules) <= 100, "more header rules than Cloudflare Pages reads"
    return rules


def test_redirects_and_headers_parse_and_say_what_serve_does(export):
    root, out = export
    rules = parse_redirects((out / "_redirects").read_text(encoding="utf-8"))
    moved = {old: new for old, new, _status in rules}
    assert {s for _o, _n, s in rules} == {301}
    for old, new in OLD_PATHS.items():
        assert moved[quote(old)] == new  # percent-encoded, as a request names it
    site = load_site(root, {"base_url": BASE})
    with TestClient(create_app(site), base_url=BASE, follow_redirects=False) as client:
        for old, new in moved.items():
            r = client.get(old)
            assert (r.status_code, r.headers["location"]) == (301, new), old
            assert (out / new.strip("/") / "index.html").is_file()
    headers = parse_headers((out / "_headers").read_text(encoding="utf-8"))
    every = dict(headers)["/*"]
    assert every == security_headers(site.settings, BASE)
    svgs = [p.relative_to(out).as_posix() for p in (out / "media").rglob("*.svg")]
    assert svgs
    for rel in svgs:
        assert dict(headers)["/" + rel] == [("Content-Security-Policy", SVG_POLICY)]


# --- GitHub Pages -----------------------------------------------------------------------------


def test_github_pages_gets_alias_pages_and_no_jekyll(export):
    _root, out = export
    assert (out / ".nojekyll").read_bytes() == b""  # names starting with _ are served as they are
    for old, new in OLD_PATHS.items():
        page = BeautifulSoup((out / old.strip("/") / "index.html").read_text(), "html.parser")
        refresh = page.select_one('meta[http-equiv="refresh"]')
        assert refresh is not None and refresh["content"] == f"0; url={new}"
        assert page.select_one('link[rel="canonical"]')["href"] == BASE + new
        assert page.select_one('meta[name="robots"]')["content"] == "noindex"


# --- nginx ------------------------------------------------------------------------------------


def docs_server_block() -> str:
    """The `server { … }` block of the docs' deploying page that serves an export (the ```nginx
    block that includes `_nginx.conf`)."""
    text = DOCS.read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```nginx\n(.*?)```", text, flags=re.S) if "_nginx.conf" in b]
    assert len(blocks) == 1, "docs/deploying.md should hold one nginx block for an export"
    return blocks[0]


def nginx_binary() -> str:
    found = shutil.which("nginx") or (
        "/usr/sbin/nginx" if Path("/usr/sbin/nginx").is_file() else None
    )
    if found is None:
        pytest.fail(
            "nginx is missing: run  sudo apt-get install nginx  (scripts/test.py does as root)"
        )
    return found


@pytest.fixture(scope="module")
def nginx(export, tmp_path_factory) -> Iterator[str]:
    """Debian's nginx serving OUT with the docs' server block (its paths and port replaced, in
    an `http` block as Debian's nginx.conf has it); its base URL."""
    _root, out = export
    prefix = tmp_path_factory.mktemp("nginx")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = (
        docs_server_block()
        .replace("/var/www/blog", str(out))
        .replace("listen 80;", f"listen 127.0.0.1:{port};")
        .replace("listen [::]:80;", "")
    )
    temps = " ".join(
        f"{name}_temp_path {prefix / name};"
        for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    conf = prefix / "nginx.conf"
    conf.write_text(
        f"daemon off;\nmaster_process off;\npid {prefix / 'nginx.pid'};\n"
        f"error_log {prefix / 'error.log'} warn;\nevents {{}}\n"
        f"http {{\n include /etc/nginx/mime.types;\n default_type application/octet-stream;\n"
        f" access_log off;\n {temps}\n{server}\n}}\n",
        encoding="utf-8",
    )
    checked = subprocess.run(
        [nginx_binary(), "-t", "-p", str(prefix), "-c", str(conf), "-e", str(prefix / "t.log")],
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stderr + (prefix / "error.log").read_text()
    proc = subprocess.Popen(
        [nginx_binary(), "-p", str(prefix), "-c", str(conf), "-e", str(prefix / "error.log")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        until(
            lambda: client.get(base + "/").status_code,
            what="nginx",
            retry=httpx.TransportError,
        )
        yield base
    finally:
        proc.terminate()
        proc.wait()


def test_nginx_redirects_every_alias_with_301(export, nginx):
    _root, out = export
    rules = parse_redirects((out / "_redirects").read_text(encoding="utf-8"))
    assert len(rules) >= 3
    for old, new, _status in rules:
        r = httpx.get(
            nginx + old, timeout=CEILING
        )  # percent-encoded: nginx matches the decoded path
        assert (r.status_code, r.headers.get("location")) == (301, new), old


def test_nginx_sends_the_security_headers_the_404_page_and_the_right_types(export, nginx):
    root, out = export
    site = load_site(root, {"base_url": BASE})
    wanted = {k.lower(): v for k, v in security_headers(site.settings, BASE)}
    old = next(iter(OLD_PATHS))
    for path in ("/", "/posts/moving-from-hugo/", "/static/css/site.css", "/no/such/page/", old):
        r = httpx.get(nginx + path, timeout=CEILING)
        for name, value in wanted.items():
            assert r.headers.get(name) == value, (path, name)
    missing = httpx.get(nginx + "/no/such/page/", timeout=CEILING)
    assert missing.status_code == 404
    assert missing.content == (out / "404.html").read_bytes()
    for private in ("/_headers", "/_redirects", "/_nginx.conf", "/.masthead-build.json"):
        assert httpx.get(nginx + private, timeout=CEILING).status_code == 404, private
    svg = next((out / "media").rglob("*.svg")).relative_to(out).as_posix()
    r = httpx.get(f"{nginx}/{svg}", timeout=CEILING)
    assert r.headers["content-security-policy"] == SVG_POLICY
    assert r.headers["x-content-type-options"] == "nosniff"
    # each kind of file with the type masthead serve gives it
    with TestClient(create_app(site), base_url=BASE) as client:
        for path in (
            "/",
            "/static/css/site.css",
            "/static/js/site.js",
            f"/{svg}",
            "/feed.xml",
            "/atom.xml",
            "/zh/feed.xml",
            "/comments/feed.xml",
            "/comments/atom.xml",
            "/sitemap.xml",
            "/robots.txt",
            "/static/favicon.svg",
        ):
            served = client.get(path).headers["content-type"]
            got = httpx.get(nginx + path, timeout=CEILING).headers["content-type"]
            assert _type(got) == _type(served), (path, got, served)
            if _type(served) == "text/html":
                assert got.lower().replace(" ", "") == "text/html;charset=utf-8"
    # the search index's files (export/search_index.py), which its script reads as JSON
    for path in ("/search-index/index.json", "/search-index/s/0.json", "/search-index/d/0.json"):
        assert (
            _type(httpx.get(nginx + path, timeout=CEILING).headers["content-type"])
            == "application/json"
        ), path


def _type(value: str) -> str:
    """The media type of a Content-Type, lower case."""
    return value.partition(";")[0].strip().lower()
