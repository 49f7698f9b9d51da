"""No script from content runs: the XSS acceptance test of issue 9, item 1, in real Chromium.

A bilingual site (`raw_html` off) is built in tmp from the corpus in tests/data/xss/vectors.json
(OWASP's XSS Filter Evasion Cheat Sheet, vectors written after the technique families of
PortSwigger's XSS cheat sheet, and Markdown/masthead-specific ones; see SOURCE.md there). Every
vector goes into post bodies (as a block, inline, and in the alt, title, caption and link of
images, links and shortcodes), into every front-matter field (several vectors to a value), and,
when it holds no `/` or NUL, into file names. The real app is served by uvicorn (with its
Content-Security-Policy removed, see `WithoutCSP`), and every page, feed, the sitemap and search
results are checked twice:

- statically, on the bytes served (lxml): no `on*` attribute, no `javascript:`/`vbscript:`/`data:`
  URL (bar `data:image/*` in `img src`) in any URL attribute, no `<script>` but JSON-LD and the
  theme's own files, no `<iframe>`/`<object>`/`<embed>`/`<base>`/`<form>`/`<meta http-equiv>`/
  `<style>` from content, JSON-LD that parses;
- in headless Chromium, with `alert`/`confirm`/`prompt`/`print` hooked and dialog, console and
  page-error listeners: pages in same-origin iframes (a few top-level, hovered and tabbed
  through), feed entry bodies and API hits in `srcdoc` frames; in each document the same rules
  are checked on the browser's own parse (mutation XSS), every inline handler is fired with its
  own (synthetic) event and every `javascript:` link is clicked.

Each vector's `alert(1)` (and `confirm(1)`, `prompt(1)`) is rewritten to `alert(<id>)`, so a
report names the vector that ran. The browser is found as in support/browser.py; the test is never
skipped; `test_the_detectors_see_script_that_runs` shows that each detector can fail.
"""

from __future__ import annotations

import html
import re
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode, urljoin, urlsplit

import httpx
import lxml.html
import pytest
import yaml
from lxml import etree
from playwright.sync_api import Browser, BrowserContext

from masthead.web.app import create_app

from support.servers import uvicorn_server
from support.sites import BILINGUAL_TOML, write_site
from support.xss import (
    DATA,
    HOOKS,
    LANG_PREFIXES,
    VECTORS,
    Checker,
    Vector,
    Watch,
    WithoutCSP,
    html_problems,
    report,
    tree_problems,
    xml_problems,
)

TOML = BILINGUAL_TOML.replace("posts_per_page = 3", "posts_per_page = 100\nfeed_items = 500")


def _png() -> bytes:
    """A 1×1 transparent PNG (ISO/IEC 15948: signature, IHDR, IDAT, IEND chunks)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0)  # 1×1, 8-bit RGBA
    pixels = zlib.compress(b"\x00\x00\x00\x00\x00")  # filter byte, one transparent pixel
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


PNG = _png()
BODY_CHUNK = 40  # vectors per body post: few page loads, one vector's mark-up near the next
FIELD_PACK = 16  # vectors per front-matter value
TERM_PACK = 32  # vectors per tag or category name
# other hosts do not resolve: a vector's request elsewhere fails at once, with no network
NO_OTHER_HOSTS = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"


# --- the corpus --------------------------------------------------------------------------------


def test_corpus_has_150_distinct_sourced_vectors():
    texts = [v.text for v in VECTORS]
    assert len(set(texts)) == len(texts) >= 150
    sources = (DATA / "SOURCE.md").read_text(encoding="utf-8")
    for source in {v.source for v in VECTORS}:
        assert f"`{source}`" in sources, f"SOURCE.md does not describe the group {source!r}"


# --- the site ----------------------------------------------------------------------------------


def _quoted(text: str) -> str:
    """`text` double-quoted with `\\` and `"` escaped: a Hugo shortcode argument (shlex rules)
    or a Markdown link title (CommonMark backslash escapes)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _md_label(text: str) -> str:
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def _body_section(v: Vector) -> str:
    """One vector in the contexts a body offers: an HTML/Markdown block, inline in a paragraph,
    and (when it fits on one line) as alt, title, caption and link of images, links and
    shortcodes."""
    parts = [f"Vector {v.id}:", v.text, f"Inline {v.id}: before {v.text} after"]
    if "\n" not in v.text and "{{" not in v.text and "}}" not in v.text:
        arg = _quoted(v.text)
        parts += [
            f"{{{{< figure src={arg} alt={arg} title={arg} caption={arg} link={arg} >}}}}",
            f'{{{{< figure src="x.png" alt={arg} >}}}}',
            f"{{{{< note title={arg} >}}}}note {v.id}{{{{< /note >}}}}",
            f"[link {v.id}](https://example.com/ {_quoted(v.text)}) "
            f"![{_md_label(v.text)}](x.png {_quoted(v.text)}) [{_md_label(v.text)}](x.png)",
        ]
    return "\n\n".join(parts)


def _front_matter(meta: dict[str, Any], body: str) -> str:
    # safe_dump keeps every vector a valid YAML string, whatever quotes or colons it holds
    dumped = yaml.safe_dump(meta, allow_unicode=True, sort_keys=False, width=10_000)
    return f"---\n{dumped}---\n\n{body}\n"


def _file_name_ok(text: str) -> bool:
    """A name usable as a POSIX file name: no `/`, no NUL, short enough for `.png` after it."""
    name = text + ".md"
    return (
        "/" not in text
        and "\x00" not in text
        and len(name.encode()) <= 240
        and text.strip() == text
    )


@dataclass
class Corpus:
    """The site's files, and the files masthead must refuse to publish."""

    files: dict[str, str | bytes] = field(default_factory=dict)
    rejected: list[str] = field(default_factory=list)


def _groups(vectors: list[Vector], size: int, offset: int = 0) -> list[list[Vector]]:
    """`vectors` rotated by `offset` and cut into groups of `size`: each vector in one group."""
    turned = vectors[offset % len(vectors) :] + vectors[: offset % len(vectors)]
    return [turned[i : i + size] for i in range(0, len(turned), size)]


def _joined(group: list[Vector]) -> str:
    return " ".join(v.text for v in group)


def _short_groups(vectors: list[Vector], limit: int) -> list[list[Vector]]:
    """`vectors` packed greedily into groups whose joined text has at most `limit` characters
    (a longer vector alone)."""
    out: list[list[Vector]] = []
    for v in vectors:
        if out and len(_joined([*out[-1], v])) <= limit:
            out[-1].append(v)
        else:
            out.append([v])
    return out


def _name_groups(vectors: list[Vector]) -> list[list[Vector]]:
    """Vectors that can be file names, packed greedily into names of at most ~230 bytes."""
    out: list[list[Vector]] = []
    for v in vectors:
        if not _file_name_ok(f"n000-{v.text}"):
            continue
        if (
            out
            and _file_name_ok(f"n000-{_joined([*out[-1], v])}")
            and len(_joined([*out[-1], v]).encode()) <= 230
        ):
            out[-1].append(v)
        else:
            out.append([v])
    return out


def build_corpus(vectors: list[Vector]) -> Corpus:
    """A site where every vector is in bodies, in every front-matter field and (when it can be
    one) in a file name. Field values hold FIELD_PACK vectors each (joined by spaces; lists get
    them as separate items where a list item makes no page of its own), so a few dozen posts
    carry the whole corpus in every field and the pages to load stay few."""
    corpus = Corpus()
    files = corpus.files
    for folder in ("body", "fields", "names", "slugs"):  # the image most vectors point to
        files[f"{folder}/x.png"] = PNG

    # bodies: BODY_CHUNK vectors per post
    usable = [v for v in vectors if "\x00" not in v.text]
    for i, chunk in enumerate(_groups(usable, BODY_CHUNK)):  # English and Chinese in turn
        lang = ("en", "zh")[i % 2]
        rel = f"body/{lang}-{i:02d}" + (".zh.md" if lang == "zh" else ".md")
        meta = {"title": f"Body {lang} {i}", "date": "2024-01-01", "tags": ["body"]}
        files[rel] = _front_matter(meta, "\n\n".join(_body_section(v) for v in chunk))
    for v in vectors:
        if "\x00" in v.text:  # a NUL byte makes the whole file a content error: never published
            rel = f"body/nul-{v.id}.md"
            files[rel] = _front_matter({"title": f"NUL {v.id}", "date": "2024-01-01"}, v.text)
            corpus.rejected.append(rel)

    # front matter: field number f of post k holds group k of the corpus rotated by 3f, so
    # every field sees every vector, each time beside other ones
    def group(k: int, f: int) -> list[Vector]:
        groups = _groups(vectors, FIELD_PACK, 3 * f)
        return groups[k % len(groups)]

    plain_slugs = _groups([v for v in vectors if "/" not in v.text], FIELD_PACK)
    for k in range(len(_groups(vectors, FIELD_PACK))):
        odd = k % 2 == 1
        # a term is a page of its own: TERM_PACK vectors to a name keeps those pages few
        terms = _groups(vectors, TERM_PACK, 9)
        tags = terms[k] if k < len(terms) else []
        category = _groups(vectors, TERM_PACK, 20)[k] if k < len(terms) else None
        canonical = _joined(group(k, 7))
        meta: dict[str, Any] = {
            "title": _joined(group(k, 0)),
            "date": f"2023-{1 + k % 12:02d}-{1 + k % 28:02d}T10:00:00+08:00",
            "updated": "2024-06-01",
            ("excerpt", "summary", "description")[k % 3]: _joined(group(k, 1)),
            ("author" if odd else "authors"): [
                *(v.text for v in group(k, 2)),
                "[Ann](https://example.com/ann)",
            ],
            "tags": [_joined(tags), "shared tag"] if tags else ["shared tag"],
            ("category" if odd else "categories"): [_joined(category)] if category else [],
            ("cover" if odd else "image"): _joined(group(k, 5)),
            # canonical must be an absolute http(s) URL: the vectors follow a base
            ("canonical" if odd else "canonicalUrl"): "https://example.com/" + canonical,
            "aliases": [v.text for v in group(k, 6)],
            "translationKey": _joined(group(k - k % 2, 8)),  # post 2j and 2j+1 translate each other
            "linkTitle": _joined(group(k, 9)),
            "xss_extra": _joined(group(k, 10)),
            "params": {"nested": _joined(group(k, 11)), "list": [v.text for v in group(k, 12)]},
        }
        if k < len(plain_slugs):
            meta["slug"] = _joined(plain_slugs[k])
        if odd:
            meta["lang"] = "zh"
        files[f"fields/f{k:03d}.md"] = _front_matter(meta, f"Field post {k}.")
    canonical_first = [  # a vector as the whole canonical URL when it is one
        v for v in vectors if v.text.startswith(("http://", "https://"))
    ]
    for v in canonical_first:
        meta = {"title": f"Canonical {v.id}", "date": "2022-03-03", "canonical": v.text}
        files[f"fields/canonical-{v.id}.md"] = _front_matter(meta, "x")
    # slugs with `/` are no single path segment: their own posts (a 404 page, listed everywhere)
    for i, chunk in enumerate(_groups([v for v in vectors if "/" in v.text], FIELD_PACK)):
        meta = {"title": f"Slug {i}", "date": "2022-05-05", "slug": _joined(chunk)}
        files[f"slugs/s{i:03d}.md"] = _front_matter(meta, f"Slug post {i}.")

    # file names: the post's own name (its slug, after an `n<k>-` that keeps it apart from the
    # same text as a front-matter slug) and an image beside it
    for k, chunk in enumerate(_name_groups(vectors)):
        name = f"n{k:03d}-{_joined(chunk)}"
        files[f"names/{name}.md"] = _front_matter(
            {"title": f"File name {k}", "date": "2022-01-01"},
            f"![name {k}]({quote(name)}.png) [file {k}]({quote(name)}.md)",
        )
        files[f"names/{name}.png"] = PNG

    # pages (`pages/…`: no date in the URL, WebPage JSON-LD), one per language
    for suffix in (".md", ".zh.md"):
        meta = {
            "title": _joined(group(1, 0)),
            "date": "2022-02-02",
            "description": _joined(group(2, 1)),
            "cover": _joined(group(3, 5)),
            "slug": _joined(plain_slugs[-1]),
        }
        files[f"pages/page{suffix}"] = _front_matter(meta, _body_section(vectors[0]))

    # dates and flags only take dates and true/false: a vector there makes the file an error
    for key in ("date", "updated", "draft", "noindex", "toc", "comments"):
        rel = f"dates/{key}.md"
        meta = {"title": f"Bad {key}", "date": "2024-01-01", key: VECTORS[0].text}
        files[rel] = _front_matter(meta, "x")
        corpus.rejected.append(rel)
    return corpus


# --- serving -----------------------------------------------------------------------------------


@dataclass
class Served:
    url: str
    corpus: Corpus
    http: httpx.Client


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("xss") / "site"
    corpus = build_corpus(VECTORS)
    site = write_site(root, corpus.files, TOML)
    assert not site.settings.raw_html
    with (
        uvicorn_server(WithoutCSP(create_app(site))) as base,
        httpx.Client(base_url=base, timeout=30) as client,
    ):
        yield Served(base, corpus, client)


# --- static rules ------------------------------------------------------------------------------


# --- crawling ----------------------------------------------------------------------------------

SKIP_PREFIXES = ("/static/", "/media/", "/api/", "/search", "/zh/search", "/__xss", "/_dev/")


@dataclass
class Crawl:
    pages: dict[str, str] = field(default_factory=dict)  # path → HTML served (status 200)
    errors: dict[str, str] = field(default_factory=dict)  # path → HTML of an error page
    problems: dict[str, list[str]] = field(default_factory=dict)
    statuses: dict[str, int] = field(default_factory=dict)


@pytest.fixture(scope="module")
def crawl(served: Served) -> Crawl:
    """Every HTML page reachable from the home pages, archives, term indexes and the sitemap,
    fetched once and checked statically."""
    found = Crawl()
    seeds = [f"{p}{s}" for p in LANG_PREFIXES for s in ("/", "/archive/", "/tags/", "/categories/")]
    sitemap = etree.fromstring(served.http.get("/sitemap.xml").content)
    for loc in sitemap.iter("{http://www.sitemaps.org/schemas/sitemap/0.9}loc"):
        seeds.append(urlsplit(loc.text or "").path)
    queue = list(dict.fromkeys(seeds))
    seen = set(queue)
    while queue:
        path = queue.pop()
        response = served.http.get(path, follow_redirects=True)
        found.statuses[path] = response.status_code
        if "html" not in response.headers.get("content-type", ""):
            continue
        final = response.url.raw_path.decode("ascii").split("?")[0]  # as percent-encoded
        if final in found.pages or final in found.errors:
            continue
        text = response.text
        # error pages (a slug with `/` is a 404) are pages readers see too
        (found.pages if response.status_code == 200 else found.errors)[final] = text
        tree = lxml.html.document_fromstring(text)
        problems = tree_problems(tree, False)
        if problems:
            found.problems[final] = problems
        for href in tree.xpath("//a/@href"):
            target = urlsplit(urljoin(served.url + final, href))
            if target.netloc != urlsplit(served.url).netloc:
                continue
            link = target.path
            if link.startswith(SKIP_PREFIXES) or link in seen:
                continue
            seen.add(link)
            queue.append(link)
    return found


@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_every_page_is_statically_clean(served: Served, crawl: Crawl):
    posts = [p for p in crawl.pages if "/posts/" in p]
    # every body, field and file-name post was reached (a page lost to a crash hides nothing)
    expected = sum(
        1
        for rel in served.corpus.files
        if rel.endswith(".md") and rel.startswith(("body/", "fields/", "names/"))
    ) - len([r for r in served.corpus.rejected if r.startswith("body/")])
    assert len(posts) >= expected, f"reached {len(posts)} post pages, wrote {expected}"
    assert not [p for p, s in crawl.statuses.items() if s >= 500], "pages answered 5xx"
    assert not crawl.problems, report(crawl.problems)


@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_aliases_redirect_to_their_post_on_this_origin(served: Served):
    """Every vector as an alias: the old URL answers a redirect to a path of this site."""
    wrong, moved, plain = [], 0, 0
    for v in VECTORS:
        alias = v.text.strip("/")
        if not alias.strip():
            continue
        path = "/" + quote(alias) + "/"
        response = served.http.get(path)
        location = response.headers.get("location", "")
        if response.status_code >= 500 or (
            response.is_redirect and not re.match(r"^/(?![/\\])", location)
        ):
            wrong.append(f"{path} → {response.status_code} {location!r}")
        moved += response.is_redirect
        plain += quote(alias) == alias
    assert not wrong, "\n".join(wrong)
    # at least the aliases that need no percent-encoding redirect (the others 404 today: the
    # alias table holds the encoded path, the lookup the decoded one)
    assert moved >= plain > 0, f"{moved} aliases redirect, {plain} plain ones"


def test_no_vector_runs_in_error_pages_of_hostile_paths(served: Served, context):
    """Every vector as a URL path: the 404 page (its language switcher links to the path)."""
    checker = Checker(context, served.url)
    static: dict[str, list[str]] = {}
    paths = []
    for group in _groups(VECTORS, TERM_PACK):
        for prefix in LANG_PREFIXES:
            path = f"{prefix}/" + quote(_joined(group).lstrip("/"), safe="") + "/"
            response = served.http.get(path, follow_redirects=True)
            assert response.status_code < 500, path
            # a redirect (a path the site cleans up) must stay on this origin; load its target
            assert response.url.host == urlsplit(served.url).hostname, (path, str(response.url))
            if problems := html_problems(response.text):
                static[f"static {path}"] = problems
            paths.append(response.url.raw_path.decode("ascii"))
    checker.frames(paths)
    result = {**static, **checker.result()}
    assert not result, report(result)


@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_files_with_vectors_in_dates_or_nul_bytes_are_not_published(served: Served, crawl: Crawl):
    titles = {f"Bad {k}" for k in ("date", "updated", "draft", "noindex", "toc", "comments")} | {
        f"NUL {v.id}" for v in VECTORS if "\x00" in v.text
    }
    shown = [t for t in titles for page in crawl.pages.values() if f">{t}<" in page]
    assert not shown


# --- the browser -------------------------------------------------------------------------------


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    ctx = browser.new_context(viewport={"width": 1000, "height": 800})
    ctx.add_init_script(HOOKS)
    yield ctx
    ctx.close()


def test_the_detectors_see_script_that_runs(served: Served, browser: Browser, context):
    """A test that cannot fail proves nothing: the hooks, the dialog listener, the frames, the
    snippets and the DOM rules each report a script that runs."""
    checker = Checker(context, served.url)
    checker.top("/__xss.html", interact=False)
    checker.frames(["/__xss.html"])
    controls = [
        '<img src="/media/none.png" onerror="alert(7001)">',
        '<a href="javascript:alert(7002)">x</a>',
    ]
    checker.snippets("control", controls)
    assert checker.as_xml(["/__xss.xml"]) == ["x"]
    result = checker.result()
    ran = "\n".join(result.get("ran", []))
    assert ran.count("alert(__xss.html)") == 2 and "alert(__xss.xml)" in ran, ran
    assert "alert(7001)" in ran and "alert(7002)" in ran, ran
    found = "\n".join(p for where, items in result.items() if where != "ran" for p in items)
    assert "event attribute onerror" in found and "javascript: link" in found, found
    assert "<script>" in found, found
    bare = browser.new_page()  # no hooks: the dialog listener alone
    watch = Watch()
    watch.attach(bare)
    bare.goto(served.url + "/__xss.html")
    bare.close()
    assert watch.fired == [f"dialog alert(__xss.html) @ {served.url}/__xss.html"], watch.fired


# the body posts with OWASP's onmouseover vectors, the autofocus family and issue 9's own
TOP_LEVEL = ("/posts/en-00/", "/zh/posts/zh-03/", "/zh/posts/zh-05/", "/posts/en-06/")


PAGE_PARTS = 3  # the post and list pages in parts, so that the suite's workers share them


def _page_part(crawl: Crawl, part: int) -> tuple[list[str], list[str]]:
    """Part `part` of the post and list pages: the TOP_LEVEL ones it loads top-level, and the
    ones it loads in frames (every other page, and each error page whose bytes differ; error
    pages with the same bytes do not echo the path and are loaded once)."""
    errors = {text: path for path, text in sorted(crawl.errors.items())}.values()
    rest = sorted((set(crawl.pages) | set(errors)) - set(TOP_LEVEL))
    return list(TOP_LEVEL[part::PAGE_PARTS]), rest[part::PAGE_PARTS]


@pytest.mark.parametrize("part", range(PAGE_PARTS))
def test_no_vector_runs_in_post_and_list_pages(served: Served, crawl: Crawl, context, part: int):
    """Every page the crawl reached, in PAGE_PARTS parts that together load each one once."""
    checker = Checker(context, served.url)
    bodies = sorted(p for p in crawl.pages if re.search(r"/posts/(?:en|zh)-\d\d/$", p))
    assert len(bodies) == len(_groups(VECTORS, BODY_CHUNK)), bodies
    assert set(TOP_LEVEL) <= set(bodies), bodies
    parts = [_page_part(crawl, n) for n in range(PAGE_PARTS)]
    every = {p for tops, framed in parts for p in tops + framed}
    assert every >= set(crawl.pages), set(crawl.pages) - every  # the parts leave no page out
    tops, framed = parts[part]
    for path in tops:  # hovered and tabbed through; every other page in a frame
        checker.top(path)
    checker.frames(framed)
    share = set(crawl.pages) & {*tops, *framed}
    assert share and checker.seen >= share, share - checker.seen
    result = checker.result()
    assert not result, report(result)


def _search_pages(
    served: Served, static: dict[str, list[str]], prefix: str, q: str, every: bool
) -> list[str]:
    """The result pages of `q` (all of them when `every`, else the first), checked statically
    (breaches into `static`)."""
    paths = []
    page = 1
    while page:
        path = f"{prefix}/search?" + urlencode({"q": q, **({"page": page} if page > 1 else {})})
        response = served.http.get(path)
        assert response.status_code == 200, path
        if problems := html_problems(response.text):
            static[f"static {path}"] = problems
        paths.append(path)
        page = page + 1 if every and 'rel="next"' in response.text else 0
    return paths


def test_no_vector_runs_in_search_results(served: Served, context):
    checker = Checker(context, served.url)
    static: dict[str, list[str]] = {}
    paths: list[str] = []
    for prefix in LANG_PREFIXES:
        paths += _search_pages(served, static, prefix, "alert", every=True)  # nearly every post
        for q in ("onerror", "xss", "javascript", "file", "body"):
            paths += _search_pages(served, static, prefix, q, every=False)
    assert len(paths) > 10
    # the query itself is hostile: reflected in the form, the filters, the suggestions
    for group in _groups(VECTORS, TERM_PACK):
        paths += _search_pages(served, static, "", _joined(group), every=False)
    groups = _short_groups(VECTORS, 200)  # filters take at most 200 characters
    # every vector once as a tag, category or author filter (checked statically: the browser
    # already sees each vector in the query, the same reflection contexts)
    for n in range(0, len(groups), 3):
        names = [_joined(groups[(n + i) % len(groups)]) for i in range(3)]
        params = {"q": "nohit", "tag": names[0], "category": names[1], "author": names[2]}
        path = "/search?" + urlencode(params)
        response = served.http.get(path)  # a vector over 200 characters alone: a 400 page
        assert response.status_code in (200, 400), path
        if problems := html_problems(response.text):
            static[f"static {path}"] = problems
    # the JSON API's HTML fields, put in a page as a search client would
    api_bodies: list[str] = []
    page, total = 1, 0
    while page:
        result = served.http.get("/api/search", params={"q": "alert", "per_page": 50, "page": page})
        assert result.status_code == 200
        data = result.json()
        total = data["total"]
        for hit in data["hits"]:
            body = f'<h2><a href="{html.escape(hit["url"])}">{hit["title_html"]}</a></h2>'
            body += f"<p>{hit['snippet_html']}</p>"
            if problems := html_problems(body, fragment=True):
                static.setdefault("static /api/search?q=alert hits", []).extend(problems)
            api_bodies.append(body)
        page = page + 1 if page < data["pages"] else 0
    assert len(api_bodies) == total > len(VECTORS) // FIELD_PACK
    checker.frames(paths)
    checker.snippets("/api/search hit", api_bodies)
    result = {**static, **checker.result()}
    assert not result, report(result)


FEEDS = [f"{p}/{f}" for p in ("", "/zh", "/all") for f in ("feed.xml", "atom.xml")]


def test_no_vector_runs_in_feeds_or_sitemap(served: Served, crawl: Crawl, context):
    checker = Checker(context, served.url)
    static: dict[str, list[str]] = {}
    entry_bodies: dict[str, None] = {}  # in order, once each
    for path in [*FEEDS, "/sitemap.xml"]:
        response = served.http.get(path)
        assert response.status_code == 200, path
        problems, bodies = xml_problems(response.content)
        for n, body in enumerate(bodies):
            if body not in entry_bodies:  # the same post in several feeds: checked once
                problems += [f"entry body {n}: {p}" for p in html_problems(body, fragment=True)]
        if problems:
            static[path] = problems
        if path.startswith("/all/"):  # every published post is in the all-languages feeds
            posts = [p for p in crawl.pages if "/posts/" in p]
            assert len(bodies) >= len(posts), f"{path} has {len(bodies)} bodies, not {len(posts)}"
        entry_bodies.update(dict.fromkeys(bodies))
    documents = [*FEEDS, "/sitemap.xml"]
    for path in documents:  # the documents themselves, as a browser opens them
        checker.top(path, interact=False)
    # and as XML, all in one harness page (a frame each)
    for path, root in zip(documents, checker.as_xml(documents), strict=True):
        assert root in ("rss", "feed", "urlset"), f"{path} parsed as <{root}>, not as its XML"
    checker.snippets("feed entry", list(entry_bodies))
    result = {**{f"static {k}": v for k, v in static.items()}, **checker.result()}
    assert not result, report(result)
