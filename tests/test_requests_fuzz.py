"""No request gets a 5xx, and no redirect leaves the site: hypothesis drives more than 10,000
generated requests through the real app (a copy of the demo site, its real SQLite file).

Paths are built from the site's real URL shapes (its posts, pages, terms, feeds, media and static
files, search, the API) with hostile segments put in; every route gets query strings (the search
parameters with out-of-range numbers and dates, raw broken percent-encoding); requests carry
conditional, range, language, encoding, host and cookie headers, and every method. Requests go
in batches (`CORES` drawn per example, each sent with several methods) straight to httpx's ASGI
transport (no sockets), so 10,000 fit in the 30 seconds this test may take on 2 busy cores.
They are sent in `PARTS` independent parts (a test each, one hypothesis seed each), so the
suite's workers share them: as one test, it took about 240 s of wall time under the suite's
load for 51 s of CPU, all of it contention (no socket, no timer: the wall time of a pure-CPU
test grows alike under the same load).

Bodies include JSON nested far deeper than any real one (issue 29, D1) and bodies that end
early, as a server delivers a malformed chunked body (D3): granian and uvicorn end the ASGI body
stream with `http.disconnect` when the chunk framing breaks, which `cut_short` does for requests
drawn with it (the real servers get the exact bytes in tests/test_hostile_bodies.py).

The profile is derandomized (a fixed seed per part) and keeps no example database: every run
sends the same requests.
"""

from __future__ import annotations

import asyncio
import string
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import httpx
import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from masthead.web.app import create_app

from support.sites import demo_copy

PROFILE = "requests-fuzz"
CORES = 6  # drawn per example, each sent as 8 requests (`requests_of`)
PARTS = 4  # tests of their own, each with its own seed
EXAMPLES = 220  # x 48 requests: 10,560, in PARTS parts of 55 examples (2,640 requests)
MIN_REQUESTS = 10_000
settings.register_profile(
    PROFILE,
    max_examples=EXAMPLES // PARTS,
    derandomize=True,  # a fixed seed: CI sends the same requests every run
    database=None,
    # No shrinking: a failure names the request that failed, and shrinking batches of requests
    # takes minutes, past the time this test may take.
    phases=[Phase.explicit, Phase.generate],
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"]
HUGE = ["9223372036854775807", "9223372036854775808", "18446744073709551616", "9" * 30, "9" * 5000]
NUMBERS = ["0", "1", "2", "3", "-1", "00", "01", "1e9", "1.5", "+1", " 2", "２", *HUGE]
HOSTILE_SEGMENTS = [
    "..", ".", "%2e%2e", "%2E%2E%2F", "%00", "%ff", "%", "%%", "%zz", "%2F", "%2f%2f", "%5C",
    "\\", "~", ".git", ".git/config", ".env", ".post.md.swp", "index.md~", "a.tmp", "a.bak",
    "index.md", "index.html", "index", "feed.xml", "atom.xml", "page", "节点", "😀", "%E8%8A",
    "%C0%AE", "a" * 300, "%0d%0aLocation:%20//evil.example", "%20", "%09", "evil.example",
    "@evil.example", "javascript:alert(1)", ";", "&", "=", "'\"><script>", "CON", "%u002e",
    *NUMBERS,
]  # fmt: skip
OPEN_REDIRECTS = [
    "//evil.example/x", "///evil.example/x", "/%2F%2Fevil.example/x", "/%2f/evil.example/x",
    "/%09/evil.example/x", "/\\evil.example/x", "/%5Cevil.example/x", "/\\/evil.example/",
    "//evil.example", "/./evil.example", "//evil.example/posts/x/index.html", "/%5C%5Cevil.example",
]  # fmt: skip
SEARCH_KEYS = ["q", "lang", "tag", "category", "author", "after", "before", "year", "page",
               "per_page"]  # fmt: skip
DATES = [
    "9999", "9999-12", "9999-12-31", "0000", "0001", "0001-01-01", "1000", "2024-02-30",
    "2024-13", "2024-1-1", "2024-00-10", " 2024", "２０２４", "2024-02-29", "2023-02-29", "-2024",
]  # fmt: skip
QUERIES = [
    "before:9999-12-31", "after:0001", "after:2024 before:2023", "year:9999", "year:0000",
    "year:2023 year:2024", 'kubelet "unbalanced', "*", "OR", "-", "-kubelet", "kube*", "节点",
    "tag:kubelet", "lang:zh", "lang:xx", "author:", "x" * 2000, "NEAR(a b)", "a:b:c", "\x00",
]  # fmt: skip
CUT = "x-fuzz-cut-body"  # the test's own marker: `cut_short` ends this request's body early
HEADER_VALUES = {
    "if-none-match": ["*", '"abc"', 'W/"x"', ",,,", '"""', "W/", '"' + "0" * 32 + '"'],
    "if-modified-since": [
        "Fri, 31 Dec 9999 23:59:59 GMT", "Mon, 01 Jan 0001 00:00:00 GMT", "garbage", "",
        "Thu, 01 Jan 1970 00:00:00 GMT", "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994", "99999999999", "Tue, 31 Feb 2026 25:61:61 GMT", "-1",
    ],
    "accept-language": ["zh-CN,zh;q=0.9", "en;q=abc", "*", ";;;", "zh;q=1e999", "x" * 500,
                        "zh-Hans-CN;q=-1", "en-US,en;q=0.5,zh;q=0.3"],
    "range": ["bytes=0-0", "bytes=-1", "bytes=0-", "bytes=99999999999999999999-", "bytes=5-1",
              "bytes=0-1,2-3,4-5", "lines=1-2", "bytes=", "bytes=-0", "bytes=--1",
              "bytes=0-" + "9" * 40],
    "accept-encoding": ["gzip", "br, gzip;q=0", "*;q=0", "identity;q=0", "garbage;;q=x", ""],
    "host": ["evil.example", "testserver:99999", "[::1]", "a b", "testserver@evil.example",
             "evil.example:80", "127.0.0.1"],
    "content-type": ["application/json", "text/html", "multipart/form-data; boundary=",
                     "application/x-www-form-urlencoded"],
    "cookie": ["a=b", "=;;=", "session=" + "x" * 4000, '"q"="\\"', "a=%zz; b",
               "masthead_author=" + "[" * 1500, "masthead_author=%7B%22a%22%3A" * 50],
    CUT: ["1"],
}  # fmt: skip
HEADER_PAIRS = [(name, value) for name, values in HEADER_VALUES.items() for value in values]
DEEP = [b"[" * 1000 + b"]" * 1000, b'{"a":' * 1000 + b"1" + b"}" * 1000, b"[" * 100_000,
        b'{"post": "/posts/x/", "body": ' + b"[" * 900 + b"]" * 900 + b"}",
        b'{"action": "spam", "ids": ' + b"[" * 2000 + b"}"]  # fmt: skip
BODIES = [b"", b"{}", b'{"q": "x"}', b"q=kubelet&page=2", b"\xff\xfe\x00", b"x" * 300, *DEEP]
BROKEN_QUERIES = ["%zz", "q=%", "&&&", "=", "q", "q=%00", "q=%ff%fe", "a=b=c", "q=%E8%8A",
                  "page=1&page=2", "q=" + "%41" * 3000, ";q=x"]  # fmt: skip
SHAPES = [
    "/", "/page/{n}/", "/posts/{slug}/", "/{slug}/", "/{tax}/", "/{tax}/{key}/",
    "/{tax}/{key}/page/{n}/", "/{tax}/{key}/feed.xml", "/{tax}/{key}/atom.xml", "/archive/",
    "/feed.xml", "/atom.xml", "/all/feed.xml", "/all/atom.xml", "/sitemap.xml", "/robots.txt",
    "/healthz", "/sitemap-{n}.xml", "{file}", "/static/{any}", "/media/{any}", "/_ref/{any}",
    "/search", "/search/", "/api/search", "/api/search", "/api/openapi.json", "/api/{any}",
    "{redirect}", "/{any}", "/{any}/",
    "/comments", "/comments/{n}/reply", "/comments/mine", "/api/comments", "/api/comments/{n}",
    "/api/comments/mine",
]  # fmt: skip
SUFFIXES = ["", "", "", "", "", "", "index.html", "index", "/", "//", "%2F", "..", "?", "#x"]
# Generating a request costs hypothesis more than the app spends answering it, so choices are
# mostly picks from lists (one draw each), free text is one branch of several and short.
TEXT = st.text(alphabet=string.printable + "é节😀\u200b\ufeff", max_size=6)
HEADER_TEXT = st.text(
    alphabet=st.characters(min_codepoint=0x20, max_codepoint=0xFF, exclude_characters="\x7f"),
    max_size=12,
)


@dataclass
class Site:
    """The served demo site: its app's ASGI transport and its real URL parts."""

    transport: httpx.ASGITransport
    loop: asyncio.AbstractEventLoop
    slugs: list[str]
    terms: dict[str, list[str]]
    files: list[str]  # media and static paths that exist
    sent: list[int] = field(default_factory=lambda: [0])

    def send(self, requests: list[httpx.Request]) -> None:
        """Send `requests` in turn and check each response. The transport is called directly:
        httpx's client machinery (cookies, redirects, auth) would double the cost of each."""

        async def go() -> None:
            for request in requests:
                response = await self.transport.handle_async_request(request)
                await response.aread()
                self.sent[0] += 1
                check(request, response)

        self.loop.run_until_complete(go())


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    demo = demo_copy(tmp_path_factory.mktemp("fuzz") / "demo")
    app = create_app(demo)
    conn = app.state.masthead.db.read()
    urls = [r[0] for r in conn.execute("SELECT url FROM posts")]
    urls += [r[0] for r in conn.execute("SELECT path FROM aliases")]
    slugs = sorted({u.strip("/").split("/")[-1] for u in urls if u.strip("/")})
    terms: dict[str, list[str]] = {"tags": [], "categories": [], "authors": []}
    for taxonomy, key in conn.execute("SELECT DISTINCT taxonomy, key FROM post_terms"):
        terms[taxonomy].append(key)
    content = demo.content_dir
    files = ["/media/" + p.relative_to(content).as_posix() for p in content.rglob("*")]
    files += ["/static/css/site.css", "/static/js/site.js", "/static/favicon.svg",
              "/static/css/highlight.css"]  # fmt: skip
    loop = asyncio.new_event_loop()
    transport = httpx.ASGITransport(
        app=cut_short(app), raise_app_exceptions=False, client=("198.51.100.7", 1)
    )
    yield Site(transport, loop, slugs, terms, files)
    loop.close()
    app.state.search.close()  # what the lifespan does (the ASGI transport runs none)
    app.state.masthead.db.close()


def cut_short(app: Any) -> Any:
    """`app`, but a request carrying the `CUT` header gets its body as a server passes on a
    malformed chunked one: the first bytes, then `http.disconnect` (the stream ends early)."""

    async def wrapped(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not any(k == CUT.encode() for k, _ in scope["headers"]):
            await app(scope, receive, send)
            return
        first = await receive()
        parts = [{"type": "http.request", "body": first.get("body", b"")[:3], "more_body": True}]

        async def broken() -> dict[str, Any]:
            return parts.pop(0) if parts else {"type": "http.disconnect"}

        await app(scope, broken, send)

    return wrapped


def _mostly(values: list[str], text: st.SearchStrategy[str] = TEXT) -> st.SearchStrategy[str]:
    picked = st.sampled_from(values)
    return st.one_of(picked, picked, picked, text)


@dataclass(frozen=True)
class Core:
    """What one drawn request varies, before the method: raw path and query, headers, body."""

    raw: bytes
    headers: list[tuple[str, bytes]]
    body: bytes


def cores(site: Site) -> st.SearchStrategy[Core]:
    """Requests of the site's own URL shapes (see the module docstring)."""
    fills = {
        "{n}": _mostly(NUMBERS, st.integers(-5, 10**20).map(str)),
        "{slug}": _mostly(site.slugs + HOSTILE_SEGMENTS),
        "{tax}": st.sampled_from(["tags", "categories", "authors"]),
        "{key}": _mostly(
            site.terms["tags"] + site.terms["categories"] + site.terms["authors"] + HOSTILE_SEGMENTS
        ),
        "{any}": st.lists(_mostly(site.slugs + HOSTILE_SEGMENTS), min_size=1, max_size=3).map(
            "/".join
        ),
        "{file}": st.sampled_from(site.files),
        "{redirect}": st.sampled_from(OPEN_REDIRECTS),
    }
    keys = _mostly([*SEARCH_KEYS, "x", "utm_source"], TEXT)
    values = _mostly(DATES + NUMBERS + QUERIES + ["", " "], TEXT)

    @st.composite
    def core(draw: st.DrawFn) -> Core:
        path = draw(st.sampled_from(SHAPES))
        for placeholder, strategy in fills.items():
            while placeholder in path:
                path = path.replace(placeholder, draw(strategy), 1)
        path = draw(st.sampled_from(["", "", "/zh"])) + path + draw(st.sampled_from(SUFFIXES))
        query = urlencode(draw(st.lists(st.tuples(keys, values), max_size=3)))
        broken = draw(st.sampled_from(["", "", "", "", *BROKEN_QUERIES]))
        query = "&".join(filter(None, [query, broken]))
        raw = _raw_path(path) + (f"?{query}" if query else "")
        pairs = draw(st.lists(st.sampled_from(HEADER_PAIRS), max_size=3, unique_by=lambda p: p[0]))
        extra = draw(st.one_of(st.none(), st.none(), st.tuples(st.sampled_from(
            sorted(HEADER_VALUES)), HEADER_TEXT)))  # fmt: skip
        if extra and extra[0] not in dict(pairs):
            pairs.append(extra)
        headers = [(name, value.encode("latin-1")) for name, value in pairs]
        return Core(raw.encode("ascii"), headers, draw(st.sampled_from(BODIES)))

    return core()


def _raw_path(path: str) -> str:
    """Percent-encode only what a request line cannot carry; hostile ASCII stays as it is."""
    return quote(path, safe="!$&'()*+,;=:@/%\\~.-_[]{}|^`\"<>")


def requests_of(core: Core) -> list[httpx.Request]:
    """Each drawn request is sent with every method: GET bare and with the drawn headers, the
    others with those headers (and the drawn body where a method has one). Drawing a request
    costs hypothesis more than the app spends answering it."""
    url = httpx.URL("http://testserver", raw_path=core.raw)
    with_body = {"POST", "PUT", "PATCH"}
    return [httpx.Request("GET", url)] + [
        httpx.Request(m, url, headers=core.headers, content=core.body if m in with_body else b"")
        for m in METHODS
    ]


def same_origin_path(location: str) -> bool:
    """Whether a browser would stay on this origin following `location`: a path, not `//host`
    (browsers read `\\` as `/` and drop tabs and newlines in URLs)."""
    cleaned = location.translate({9: None, 10: None, 13: None}).replace("\\", "/")
    parts = urlsplit(cleaned)
    return cleaned.startswith("/") and not cleaned.startswith("//") and not parts.netloc


def check(request: httpx.Request, response: httpx.Response) -> None:
    status = response.status_code
    location = response.headers.get("location", "")
    redirect = 300 <= status < 400 and status != 304
    if status < 500 and (not redirect or same_origin_path(location)):
        return
    where = f"{request.method} {request.url.raw_path[:300]!r} {dict(request.headers)}"
    assert status < 500, f"{status} for {where}: {response.text[:300]}"
    assert same_origin_path(location), f"redirect to {location!r} for {where}"


@pytest.mark.slow
@pytest.mark.parametrize("part", range(PARTS))
def test_no_request_gets_a_5xx_or_leaves_the_site(site: Site, part: int) -> None:
    """One part of the more than 10,000 requests: its seed is its own (`derandomize` alone
    would draw the same requests in every part), its share of the requests is sent."""
    started = time.perf_counter()
    before = site.sent[0]

    @seed(f"{PROFILE}-{part}")
    @settings(settings.get_profile(PROFILE))
    @given(batch=st.lists(cores(site), min_size=CORES, max_size=CORES))
    def run(batch: list[Core]) -> None:
        site.send([request for core in batch for request in requests_of(core)])

    run()
    seconds = time.perf_counter() - started
    sent = site.sent[0] - before
    assert sent >= MIN_REQUESTS / PARTS, f"only {sent} requests in {seconds:.1f}s"
    print(f"{sent} requests in {seconds:.1f}s")  # shown with -s


def test_the_redirect_check_itself() -> None:
    """It rejects what browsers would follow to another host, and only that."""
    for bad in ("//evil.example/x", "/\\evil.example", "http://evil.example/", "/\t/evil.example",
                "https:evil.example", ""):  # fmt: skip
        assert not same_origin_path(bad), bad
    for good in ("/posts/x/", "/%2F%2Fevil.example/x/", "/search?q=//evil", "/"):
        assert same_origin_path(good), good


def test_known_hostile_bodies(site: Site) -> None:
    """Issue 29's D1 and D3, always sent, whatever hypothesis draws: every deep body and a cut
    one to every route that reads a body, with each body type."""
    paths = ["/comments", "/api/comments", "/api/comments/1", "/api/admin/comments/bulk",
             "/api/admin/comments/1", "/guanli/login", "/search"]  # fmt: skip
    kinds = ["application/json", "application/x-www-form-urlencoded",
             "multipart/form-data; boundary=x"]  # fmt: skip
    requests = [
        httpx.Request(method, "http://testserver" + path, content=body, headers=headers)
        for path in paths
        for method in ("POST", "PATCH")
        for body in [*DEEP, b"post=%2Fposts%2Fx%2F&body=hello"]
        for kind in kinds
        for headers in ({"content-type": kind}, {"content-type": kind, CUT: "1"})
    ]
    site.send(requests)
    assert site.sent[0] >= len(requests)


def test_known_hostile_requests(site: Site) -> None:
    """The requests of issue 9 item 4, always sent, whatever hypothesis draws."""
    known = [
        "/page/9223372036854775807/",
        "/tags/kubelet/page/9223372036854775807/",
        "/categories/tech/page/99999999999999999999/",
        "/zh/page/9223372036854775808/",
        "/page/" + "9" * 5000 + "/",
        "/sitemap-" + "9" * 5000 + ".xml",
        "/api/search?q=x&year=9999",
        "/api/search?q=x&before=9999",
        "/search?q=before:9999-12-31",
        "/search?q=x&year=9999",
        "/api/search?q=after:2024%20before:2023",
        "//evil.example/x",
        "/%2F%2Fevil.example/x",
        "/\\evil.example/x",
    ]
    site.send(
        [httpx.Request("GET", httpx.URL("http://testserver", raw_path=p.encode())) for p in known]
    )
