"""`masthead build SITE OUT`: the static export (issue 10, item 5).

The Kubernetes corpus (tests/data/k8s-blog, CC BY 4.0) is exported once per module; every
exported file is compared with what the real app serves for its URL, and every same-origin link
of the export is found as a file. The tests of that export are one xdist group (K8S): on one
worker, so that the suite exports the corpus once, not once per worker.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import resource
import shutil
import stat
import time
from pathlib import Path
from urllib.parse import quote, urlsplit

import pytest
from bs4 import BeautifulSoup
from starlette.testclient import TestClient
from typer.testing import CliRunner

from masthead.cli import app as cli
from masthead.config import Site, load_site
from masthead.export.build import (
    MANIFEST,
    WORKER_PAGES,
    BuildReport,
    build,
    cores,
    file_for,
    processes_for,
)
from masthead.indexing.indexer import index_site
from masthead.store.db import Database
from masthead.web.app import create_app

from support.cli import masthead, one_line_error, run, unprivileged
from support.servers import static_host
from support.sites import post, write_site

CORPUS = Path(__file__).parent / "data" / "k8s-blog"
BASE = "https://k8s.example.org"
runner = CliRunner()
K8S = pytest.mark.xdist_group("k8s-export")  # the tests reading the `k8s` export: one worker


@pytest.fixture(scope="module")
def k8s(tmp_path_factory):
    """The corpus site, exported by the CLI once; (site, OUT, the CLI's output)."""
    root = tmp_path_factory.mktemp("k8s") / "site"
    shutil.copytree(CORPUS, root)
    out = root.parent / "public"
    result = runner.invoke(cli, ["build", str(root), str(out)])
    assert result.exit_code == 0, result.output
    return load_site(root), out, result.output


@pytest.fixture(scope="module")
def k8s_app(k8s):
    # the app as `build` runs it (`export=True`: pages for an export, SiteState.self_contained)
    app = create_app(k8s[0], export=True)
    with TestClient(app, base_url=BASE, follow_redirects=False) as client:
        yield client


def exported(out: Path) -> dict[str, Path]:
    """OUT-relative POSIX path → file, of every file the build wrote (its manifest)."""
    files = json.loads((out / MANIFEST).read_text())["files"]
    return {rel: out / rel for rel in files}


def url_of(rel: str) -> str:
    """The URL path a static server answers with OUT/`rel`."""
    if rel == "index.html" or rel.endswith("/index.html"):
        rel = rel[: -len("index.html")]
    return "/" + quote(rel)


# files of the build that are no response of the app: host files, the search index
BUILD_FILES = (
    "_redirects",
    "_headers",
    "404.html",
    "_nginx.conf",
    ".nojekyll",
    ".masthead-search.json",
)


def built(rel: str) -> bool:
    return rel in BUILD_FILES or rel.startswith("search-index/")


def redirects(out: Path) -> dict[str, str]:
    lines = (out / "_redirects").read_text().splitlines()
    return {old: new for old, new, code in (line.split() for line in lines) if code == "301"}


@K8S
def test_every_exported_file_is_what_serve_sends(k8s, k8s_app):
    _site, out, _output = k8s
    moved = redirects(out)
    files = exported(out)
    assert len(files) > 100
    compared = 0
    for rel, path in files.items():
        if built(rel):
            continue
        url = url_of(rel)
        r = k8s_app.get(url, headers={"Accept-Encoding": "identity"})
        if url in moved:  # an alias page where serve answers 301
            assert r.status_code == 301 and r.headers["location"] == moved[url], url
            continue
        assert r.status_code == 200, url
        assert path.read_bytes() == r.content, url
        compared += 1
    assert compared == len([r for r in files if not built(r)]) - len(moved)
    missing = k8s_app.get("/404.html", headers={"Accept-Encoding": "identity"})
    assert missing.status_code == 404 and (out / "404.html").read_bytes() == missing.content


@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_the_demo_built_by_two_processes_is_what_a_third_serves(tmp_path, demo_site):
    """Bytes must not depend on the process: a page rendered by one worker, by `build`, or by
    the next build must be the same (nh3 once added attributes in a per-process hash order)."""
    out = tmp_path / "out"
    base = "http://127.0.0.1:8000"  # the demo has no base_url; a bare app uses this address
    first = masthead("build", str(demo_site.root), str(out), "--base-url", base)
    assert first.returncode == 0, first.stderr
    second = masthead("build", str(demo_site.root), str(out), "--base-url", base)
    assert second.returncode == 0, second.stderr
    assert ": 0 written," in second.stdout and " 0 removed " in second.stdout, second.stdout
    files = exported(out)
    assert any("task-list-item" in p.read_text() for r, p in files.items() if r.endswith(".html"))
    with TestClient(
        create_app(demo_site, served=base, export=True), follow_redirects=False
    ) as client:
        moved = redirects(out)
        for rel, path in files.items():
            url = url_of(rel)
            if built(rel) or url in moved:
                continue
            r = client.get(url, headers={"Accept-Encoding": "identity"})
            assert r.status_code == 200 and r.content == path.read_bytes(), url


def test_a_sanitized_body_is_the_same_in_every_process():
    import subprocess
    import sys

    code = (
        "from masthead.content.sanitize import clean; print(clean("
        "'<input type=text checked><input class=task-list-item-checkbox disabled type=checkbox>'))"
    )
    outputs = {
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout
        for _ in range(8)
    }
    assert len(outputs) == 1, outputs
    assert outputs.pop().count('type="checkbox" disabled=""') == 2


@K8S
def test_layout_and_summary(k8s):
    _site, out, output = k8s
    for rel in (
        "index.html",
        "page/2/index.html",
        "posts/warnings/index.html",
        "zh/posts/warnings/index.html",
        "zh/index.html",
        "archive/index.html",
        "zh/archive/index.html",
        "tags/index.html",
        "categories/index.html",
        "feed.xml",
        "atom.xml",
        "zh/feed.xml",
        "all/feed.xml",
        "all/atom.xml",
        "sitemap.xml",
        "robots.txt",
        "404.html",
        "_redirects",
        "_headers",
        "static/css/site.css",
        "static/css/highlight.css",
        "static/js/site.js",
        "static/favicon.svg",
        "dockershim/index.html",
    ):
        assert (out / rel).is_file(), rel
    assert "/dockershim/ /posts/dockershim-faq/ 301" in (out / "_redirects").read_text()
    alias = BeautifulSoup((out / "dockershim/index.html").read_text(), "html.parser")
    assert alias.select_one('link[rel="canonical"]')["href"] == f"{BASE}/posts/dockershim-faq/"
    assert alias.select_one('meta[name="robots"]')["content"] == "noindex"
    refresh = alias.select_one('meta[http-equiv="refresh"]')["content"]
    assert refresh == "0; url=/posts/dockershim-faq/"
    assert "Kubernetes" in (out / "404.html").read_text()
    headers = (out / "_headers").read_text().splitlines()
    assert headers[0] == "/*" and "  X-Content-Type-Options: nosniff" in headers
    assert any(h.startswith("  Content-Security-Policy: default-src 'self'") for h in headers)
    # the summary line
    summary = r"^\d+ files in .*: \d+ written, 0 unchanged, 0 removed \(\d+\.\d\ds\)$"
    assert re.search(summary, output, re.M)


def links_of(rel: str, data: bytes) -> list[str]:
    """Every URL an exported file points at: href and src in HTML, links in feeds, `<loc>` in
    sitemaps, `Sitemap:` in robots.txt."""
    if rel.endswith(".html"):
        soup = BeautifulSoup(data, "lxml")  # not html.parser: a fraction of its time
        found = [t.get("href") for t in soup.find_all(href=True)]
        found += [t.get("src") for t in soup.find_all(src=True)]
        found += [t.get("content").split("url=", 1)[-1] for t in soup.select("meta[http-equiv]")]
        found += [t.get("content") for t in soup.select('meta[property="og:url"]')]
        return found
    text = data.decode("utf-8", "replace")
    if rel.endswith(".xml"):
        found = re.findall(r"<(?:loc|link|id|guid[^>]*)>([^<]+)<", text)
        return found + re.findall(r'(?:href|url)="([^"]+)"', text)
    if rel == "robots.txt":
        return re.findall(r"^Sitemap: (\S+)", text, re.M)
    return []


@K8S
def test_every_same_origin_link_of_the_export_is_a_file(k8s, k8s_app):
    _site, out, _output = k8s
    files = exported(out)
    broken: dict[str, str] = {}
    checked = 0
    for rel, path in files.items():
        for link in links_of(rel, path.read_bytes()):
            parts = urlsplit(link.replace("&amp;", "&"))
            if parts.scheme or parts.netloc:
                if f"{parts.scheme}://{parts.netloc}" != BASE:
                    continue  # another site
            elif not parts.path.startswith("/"):
                continue  # a fragment or mailto:
            if parts.path.startswith("/search"):
                continue  # the search form's page: answered by a running masthead (api_url)
            target = file_for(parts.path)
            checked += 1
            if target is None or not (out / target).is_file():
                broken[link] = rel
    assert checked > 1000
    # a link the live site does not answer is broken there too; none other may be missing
    for link in broken:
        r = k8s_app.get(urlsplit(link).path, follow_redirects=True)
        assert r.status_code == 404, (link, broken[link], r.status_code)


def test_a_path_is_written_as_the_decoded_file_name():
    assert file_for("/tags/%E4%B8%AD%E6%96%87/") == "tags/中文/index.html"
    assert file_for("/posts/a%20b/?x=1") == "posts/a b/index.html"
    assert file_for("/static/css/site.css?v=1") == "static/css/site.css"
    assert file_for("/posts/%2E%2E/") is None
    assert file_for("/posts/a%2Fb/") is None
    assert file_for("/posts/%FF/") is None


SMALL = """
title = "Small"
base_url = "https://small.example"
posts_per_page = 2

[languages.en]
name = "English"

[languages.zh]
name = "中文"
prefix = "zh"
"""


def small_site(root: Path):
    files = {
        f"posts/p{i}.md": post(f"Post {i}", f"2024-03-0{i}", body=f"Body {i}.\n", tags="[harbour]")
        for i in range(1, 6)
    }
    files["posts/p1.zh.md"] = post("帖子", "2024-03-01", tags="[港口]", aliases="[/old-one/]")
    files["posts/p1/map.png"] = b"\x89PNG\r\n\x1a\nfake"
    files["posts/p1/notes.html"] = "<script>alert(1)</script>"
    files["pages/about.md"] = post("About", "2024-01-01")
    return write_site(root, files, SMALL)


@pytest.fixture(scope="module")
def small_built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, BuildReport]:
    """`small_site` and its first build, made once a module: (the folder holding `site` and
    `out`, that build's report). A test that builds again starts from a copy (`copy_built`),
    which builds as the original would: the manifest names no folder."""
    root = tmp_path_factory.mktemp("small")
    return root, build(small_site(root / "site"), root / "out")


def copy_built(template: Path, tmp_path: Path) -> tuple[Site, Path]:
    """A copy of a built site and its OUT in `tmp_path` (files' times kept): (site, OUT)."""
    shutil.copytree(template / "site", tmp_path / "site")
    shutil.copytree(template / "out", tmp_path / "out")
    return load_site(tmp_path / "site"), tmp_path / "out"


def snapshot(out: Path) -> dict[str, tuple[int, bytes]]:
    return {
        p.relative_to(out).as_posix(): (p.stat().st_mtime_ns, p.read_bytes())
        for p in out.rglob("*")
        if p.is_file()
    }


def test_modes_are_0644_and_0755_whatever_the_umask(tmp_path):
    site = small_site(tmp_path / "site")
    old = os.umask(0o077)
    try:
        build(site, tmp_path / "out" / "public")
    finally:
        os.umask(old)
    out = tmp_path / "out" / "public"
    paths = [out, out.parent, *out.rglob("*")]
    for p in paths:
        mode = stat.S_IMODE(p.stat().st_mode)
        assert mode == (0o755 if p.is_dir() else 0o644), (p, oct(mode))
    assert (out / "media/posts/p1/map.png").read_bytes() == b"\x89PNG\r\n\x1a\nfake"
    assert not (out / "media/posts/p1/notes.html").exists()  # /media/ does not serve it
    assert not list(out.rglob("*.md"))
    assert (out / "zh/tags" / "港口" / "index.html").is_file()
    assert (out / "page/2/index.html").is_file() and (out / "page/3/index.html").is_file()
    assert (out / "tags/harbour/page/3/index.html").is_file()
    assert not (out / "tags/harbour/page/4/index.html").exists()
    assert (out / "tags/harbour/feed.xml").is_file() and (out / "about/index.html").is_file()
    assert "/old-one/ /zh/posts/p1/ 301" in (out / "_redirects").read_text()


def test_sitemap_index_files_and_the_site_static_folder(tmp_path):
    root = tmp_path / "site"
    small_site(root)
    (root / "masthead.toml").write_text(SMALL.replace("posts_per_page = 2", "sitemap_max_urls = 5"))
    (root / "static/css").mkdir(parents=True)
    (root / "static/css/site.css").write_text("body { color: red }\n")  # the site's wins
    (root / "static/logo.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    (root / "static/.env").write_text("SECRET=1")
    (root / "static/notes.md").write_text("# draft")
    site = load_site(root)
    out = tmp_path / "out"
    build(site, out)
    index = (out / "sitemap.xml").read_text()
    assert "<sitemapindex" in index
    parts = sorted(p.name for p in out.glob("sitemap-*.xml"))
    assert parts and parts == [f"sitemap-{n}.xml" for n in range(1, len(parts) + 1)]
    assert index.count("<loc>") == len(parts)
    assert (out / "static/css/site.css").read_text() == "body { color: red }\n"
    assert (out / "static/logo.svg").is_file() and (out / "static/js/site.js").is_file()
    assert not (out / "static/.env").exists() and not (out / "static/notes.md").exists()
    with TestClient(create_app(site), base_url="https://small.example") as client:
        for name in ["sitemap.xml", *parts, "static/css/site.css"]:
            assert client.get("/" + name).content == (out / name).read_bytes(), name
        assert client.get(f"/sitemap-{len(parts) + 1}.xml").status_code == 404


def test_a_second_build_writes_only_what_changed_and_removes_what_is_gone(tmp_path, small_built):
    template, first = small_built
    site, out = copy_built(template, tmp_path)
    assert first.written > 30 and first.unchanged == 0 and first.removed == 0
    before = snapshot(out)

    again = build(site, out)
    assert (again.written, again.removed) == (0, 0) and again.unchanged == first.written
    assert snapshot(out) == before  # not one file touched: same bytes, same mtimes

    # one edit: that post's page and the lists and feeds showing it, nothing else
    p3 = site.content_dir / "posts/p3.md"
    p3.write_text(post("Post 3", "2024-03-03", body="New words.\n", tags="[harbour]"))
    edited = build(site, out)
    after = snapshot(out)
    # the manifest records the index generation the pages were made from: it moved
    changed = {rel for rel in after if after[rel] != before.get(rel)} - {MANIFEST}
    # the search index is made again (export/search_index.py): p3's post file and the shards
    # of its words
    index = {rel for rel in changed if rel.startswith("search-index/")}
    assert any(rel.startswith("search-index/s/") for rel in index)
    p3_file = next(
        rel
        for rel in after
        if rel.startswith("search-index/d/")
        and json.loads((out / rel).read_text())["url"] == "/posts/p3/"
    )
    assert p3_file in index  # p3's post, with its new words
    assert ".masthead-search.json" in changed
    gone = {rel for rel in before if rel not in after}
    assert all(rel.startswith("search-index/") for rel in gone)  # shards it has no more
    assert set(edited.changed) == changed and edited.written == len(changed)
    assert edited.removed == len(gone)
    assert "posts/p3/index.html" in changed and "feed.xml" in changed
    assert "tags/harbour/page/2/index.html" in changed  # p3 is the third newest
    assert "all/feed.xml" in changed and "tags/harbour/feed.xml" in changed
    for untouched in ("posts/p1/index.html", "posts/p5/index.html", "zh/index.html", "index.html"):
        assert untouched not in changed and after[untouched] == before[untouched]
    assert changed - index - {".masthead-search.json"} <= {
        "posts/p3/index.html", "page/2/index.html", "tags/harbour/page/2/index.html",
        "feed.xml", "atom.xml", "all/feed.xml", "all/atom.xml",
        "tags/harbour/feed.xml", "tags/harbour/atom.xml",
    }, changed  # fmt: skip

    # a removed post is gone after the next build; foreign files in OUT stay
    (out / "notes.txt").write_text("mine")
    (out / "posts/p5/keep.txt").write_text("mine too")
    (site.content_dir / "posts/p4.md").unlink()
    (site.content_dir / "posts/p1/map.png").unlink()
    removed = build(site, out)
    assert removed.removed >= 2
    assert not (out / "posts/p4").exists()  # its folder with it
    assert not (out / "media/posts/p1/map.png").exists()
    assert (out / "notes.txt").read_text() == "mine"
    assert (out / "posts/p5/keep.txt").read_text() == "mine too"
    assert (out / "posts/p5/index.html").is_file()


def children_cpu() -> float:
    """CPU seconds of this process's reaped children (a build's worker processes are)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def test_build_processes_follow_the_pages_not_the_static_files():
    """Without `--jobs` a build starts a worker per `WORKER_PAGES` pages, at most one per core,
    none below two (one would only add its start); static files are not counted. `--jobs N`
    is N processes whatever the size, 1 this one."""
    assert cores() == len(os.sched_getaffinity(0))
    assert WORKER_PAGES == 320
    assert processes_for(135, None, 2) == 0  # the demo: its own process
    assert processes_for(639, None, 2) == 0
    assert processes_for(640, None, 2) == 2
    assert processes_for(5000, None, 2) == 2
    assert processes_for(1000, None, 8) == 3
    assert processes_for(5000, None, 1) == 0
    assert processes_for(10, 2, 1) == 2 and processes_for(10, 4, 8) == 4
    assert processes_for(100_000, 1, 8) == 0


def test_a_small_site_with_many_static_files_renders_in_the_command_s_process(tmp_path):
    """The command without `--jobs` on a site of few pages and more static files than that
    (the package's and the site's: once, their sum started two workers) renders in its own
    process: no worker is started. A worker's start alone costs over a second of CPU in its
    own process, reaped as this process's child; the build's other children (fontconfig's
    `fc-match`, looking for a font for the share cards) cost some hundredths."""
    root = tmp_path / "site"
    small_site(root)
    (root / "static").mkdir()
    for n in range(40):
        (root / "static" / f"s{n}.css").write_text(f"a{{order:{n}}}\n")
    before = children_cpu()
    result = runner.invoke(cli, ["build", str(root), str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert children_cpu() - before < 0.5  # no worker process
    files = exported(tmp_path / "out")
    pages = [r for r in files if r.endswith((".html", ".xml")) and not built(r)]
    assert len(files) - len(pages) > 2 * 64 > len(pages)  # mostly static files
    assert (tmp_path / "out/static/s39.css").read_text() == "a{order:39}\n"


@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_the_command_with_jobs_renders_in_worker_processes_and_writes_what_one_process_writes(
    tmp_path,
):
    """`masthead build --jobs 2` renders in two worker processes, which write the files of a
    build in one process, byte for byte (the search index too: made from the database, after
    the pages), listed in the same order; a build with nothing changed then writes nothing.
    (One test for the command and its workers: each run of the workers costs a second of CPU
    a worker, for importing the app.)"""
    files = {
        f"posts/n{i:02d}.md": post(f"N {i}", f"2024-02-{i % 28 + 1:02d}", tags=f"[t{i % 7}, all]")
        for i in range(40)
    }
    site = write_site(tmp_path / "site", files, SMALL)
    one = build(site, tmp_path / "one", jobs=1)
    assert one.workers == 0 and one.files > 2 * 64
    before = children_cpu()
    result = runner.invoke(cli, ["build", str(site.root), str(tmp_path / "two"), "--jobs", "2"])
    assert result.exit_code == 0, result.output
    assert children_cpu() - before > 2  # two workers: processes of their own, reaped
    assert f"{one.files} files in" in result.output, result.output
    first, second = snapshot_bytes(tmp_path / "one"), snapshot_bytes(tmp_path / "two")
    index = [{r: d for r, d in s.items() if r.startswith("search-index/")} for s in (first, second)]
    assert index[0] == index[1] and len([r for r in index[0] if "/d/" in r]) == 40
    assert {r: d for r, d in second.items() if r != MANIFEST} == {
        r: d for r, d in first.items() if r != MANIFEST
    }
    listed = [[r for r in exported(tmp_path / d) if not built(r)] for d in ("one", "two")]
    assert listed[0] == listed[1]
    again = build(site, tmp_path / "two", jobs=2)
    assert (again.written, again.removed, again.unchanged) == (0, 0, one.files)


def snapshot_bytes(out: Path) -> dict[str, bytes]:
    return {rel: data for rel, (_mtime, data) in snapshot(out).items()}


def test_a_build_reads_static_files_as_they_are_and_compresses_none(tmp_path):
    """A build asks for every file uncompressed: the static mount, which compresses its text
    files once for a server (gzip and brotli), keeps no compressed copy of any for a build
    (they cost about 40% of the CPU of a build of the demo)."""
    from starlette.routing import Mount

    from masthead.export.build import _fetcher
    from masthead.web.app import PACKAGE_STATIC
    from masthead.web.http.media import Files

    site = small_site(tmp_path / "site")
    db = Database(site.database_path)
    index_site(site, db)
    db.close()
    with _fetcher(site, time.time()) as fetcher:
        for rel in ("css/site.css", "js/site.js", "favicon.svg"):
            answer = asyncio.run(fetcher.get("/static/" + rel))
            assert answer.status == 200 and answer.body == (PACKAGE_STATIC / rel).read_bytes()
        mounts = [
            r.app
            for r in fetcher.app.router.routes
            if isinstance(r, Mount) and isinstance(r.app, Files)
        ]
        assert len(mounts) >= 3  # static, media, thumbnails, cards
        assert [m._pages for m in mounts if m._pages] == []  # nothing compressed, kept


def test_a_manifest_never_removes_anything_outside_out(tmp_path, small_built):
    site, out = copy_built(small_built[0], tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    manifest = json.loads((out / MANIFEST).read_text())
    manifest["files"] += ["../victim.txt", str(victim)]
    (out / MANIFEST).write_text(json.dumps(manifest))
    build(site, out)
    assert victim.read_text() == "keep"


@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_build_errors_are_one_line(tmp_path):
    site = small_site(tmp_path / "site")
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    for out, expected in (
        (a_file, "is a file"),
        (site.root, "site folder"),
        (tmp_path, "site folder"),  # holds the site
        (site.content_dir / "out", "inside"),
    ):
        one_line_error(run(unprivileged("build", str(site.root), str(out))), str(out), expected)
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    try:
        result = run(unprivileged("build", str(site.root), str(locked / "public")))
        one_line_error(result, "not writable")
    finally:
        locked.chmod(0o755)
    assert not (site.content_dir / "out").exists()


def test_an_export_needs_a_base_url(tmp_path):
    site = write_site(tmp_path / "site", {"posts/a.md": post("A")}, 'title = "No base"\n')
    result = run(unprivileged("build", str(site.root), str(tmp_path / "out")))
    one_line_error(result, "base_url", "--base-url")
    assert not (tmp_path / "out").exists()
    # in this process (`--jobs 1`): the option is what is tested here; a build's workers get
    # `--base-url` in test_the_demo_built_by_two_processes_is_what_a_third_serves
    out = str(tmp_path / "out")
    result = runner.invoke(
        cli, ["build", str(site.root), out, "--base-url", "https://cdn.example/", "--jobs", "1"]
    )
    assert result.exit_code == 0, result.output
    head = BeautifulSoup((tmp_path / "out/posts/a/index.html").read_text(), "html.parser")
    assert head.select_one('link[rel="canonical"]')["href"] == "https://cdn.example/posts/a/"
    feed = (tmp_path / "out/feed.xml").read_text()
    assert "https://cdn.example/posts/a/" in feed


def test_a_bad_base_url_option_is_blamed_on_the_option(tmp_path):
    site = write_site(tmp_path / "site", {"posts/a.md": post("A")}, 'title = "No base"\n')
    result = run(
        unprivileged("build", str(site.root), str(tmp_path / "out"), "--base-url", "blog.example")
    )
    one_line_error(result, "--base-url blog.example", "absolute http(s) URL")
    assert "masthead.toml" not in result.stderr
    assert not (tmp_path / "out").exists()


# --- api_url and allowed_origins ------------------------------------------------------------


def api_toml(api_url: str, *origins: str) -> str:
    listed = ", ".join(f'"{o}"' for o in origins)
    settings = f'api_url = "{api_url}"\nallowed_origins = [{listed}]\n'
    return SMALL.replace("posts_per_page = 2\n", "posts_per_page = 2\n" + settings)


def test_api_url_sends_the_search_form_there_and_the_csp_allows_it(tmp_path):
    root = tmp_path / "site"
    small_site(root)
    (root / "masthead.toml").write_text(
        api_toml("https://api.example.net/", "https://small.example")
    )
    site = load_site(root)
    assert site.settings.api_url == "https://api.example.net"
    build(site, tmp_path / "out")
    page = BeautifulSoup((tmp_path / "out/zh/posts/p1/index.html").read_text(), "html.parser")
    form = page.select_one("form.search-form")
    assert form["action"] == "https://api.example.net/zh/search"
    assert form["data-api"] == "https://api.example.net"
    home = (tmp_path / "out/index.html").read_text()
    assert '"urlTemplate":"https://api.example.net/search?q={search_term_string}"' in home
    with TestClient(create_app(site), base_url="https://small.example") as client:
        r = client.get("/posts/p1/")
        assert r.content == (tmp_path / "out/posts/p1/index.html").read_bytes()
        csp = dict(d.split(" ", 1) for d in r.headers["content-security-policy"].split("; "))
        assert csp["form-action"] == "'self' https://api.example.net"
        assert csp["connect-src"] == "'self' https://api.example.net"
    headers = (tmp_path / "out/_headers").read_text()
    assert "form-action 'self' https://api.example.net" in headers


def test_without_api_url_the_form_and_csp_stay_on_the_site(tmp_path):
    site = small_site(tmp_path / "site")
    with TestClient(create_app(site)) as client:
        r = client.get("/posts/p1/")
    form = BeautifulSoup(r.text, "html.parser").select_one("form.search-form")
    assert form["action"] == "/search" and not form.has_attr("data-api")
    assert "form-action 'self';" in r.headers["content-security-policy"] + ";"
    assert "access-control-allow-origin" not in r.headers


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("api_url", "api.example.net"),
        ("api_url", "ftp://api.example.net"),
        ("api_url", "https://api.example.net/?q=1"),
        ("allowed_origins", ["https://www.example.com/blog"]),
        ("allowed_origins", ["*"]),
        ("allowed_origins", ["www.example.com"]),
        ("allowed_origins", ["https://www.example.com:99999"]),
    ],
)
def test_bad_api_url_and_origins_fail_at_start(tmp_path, key, value):
    from masthead.errors import ConfigError

    site = small_site(tmp_path / "site")
    with pytest.raises(ConfigError, match=key):
        load_site(site.root, {key: value})


def test_cors_answers_only_the_allowed_origins_and_only_under_api(tmp_path):
    root = tmp_path / "site"
    small_site(root)
    toml = api_toml(
        "https://api.example.net", "https://www.example.com", "HTTP://Static.Example:8080/"
    )
    (root / "masthead.toml").write_text(toml)
    site = load_site(root)
    assert site.settings.allowed_origins == [
        "https://www.example.com",
        "http://static.example:8080",
    ]
    with TestClient(create_app(site)) as client:
        for origin in ("https://www.example.com", "http://static.example:8080"):
            pre = client.options(
                "/api/search?q=body",
                headers={"Origin": origin, "Access-Control-Request-Method": "GET"},
            )
            assert pre.status_code == 200
            assert pre.headers["access-control-allow-origin"] == origin
            assert "GET" in pre.headers["access-control-allow-methods"]
            assert "access-control-allow-credentials" not in pre.headers
            got = client.get("/api/search?q=body", headers={"Origin": origin})
            assert got.status_code == 200 and got.json()["total"] >= 5
            assert got.headers["access-control-allow-origin"] == origin
            assert "Origin" in got.headers["vary"]
        for origin in ("https://evil.example", "https://www.example.com.evil.example", "null"):
            pre = client.options(
                "/api/search?q=body",
                headers={"Origin": origin, "Access-Control-Request-Method": "GET"},
            )
            assert pre.status_code == 400 and "access-control-allow-origin" not in pre.headers
            got = client.get("/api/search?q=body", headers={"Origin": origin})
            assert got.status_code == 200 and "access-control-allow-origin" not in got.headers
        page = client.get("/posts/p1/", headers={"Origin": "https://www.example.com"})
        assert page.status_code == 200 and "access-control-allow-origin" not in page.headers


# --- an exported page in a real browser, searching on a masthead at another origin ----------


def test_an_exported_page_searches_on_the_masthead_at_api_url_in_chromium(tmp_path, browser):
    from support.browser import WATCH_CSP, outside_playwright
    from support.servers import uvicorn_server

    root = tmp_path / "site"
    small_site(root)
    out = tmp_path / "out"
    out.mkdir()
    with (
        uvicorn_server(static_host(out)) as static,
        uvicorn_server(static_host(out)) as other,  # the same files from an origin not allowed
    ):
        (root / "masthead.toml").write_text(api_toml("http://unused.invalid", static))
        with uvicorn_server(create_app(load_site(root))) as api:
            with outside_playwright():  # the export runs a loop of its own
                build(load_site(root, {"api_url": api}), out)
            page = browser.new_page()
            page.add_init_script(WATCH_CSP)
            asked: list[str] = []
            page.on("request", lambda r: asked.append(r.url))
            page.goto(static + "/posts/p1/")
            assert "form-action 'self' " + api in page.evaluate(
                "fetch(location.href).then(r => r.headers.get('content-security-policy'))"
            )
            page.fill("#mh-search", "body")
            page.press("#mh-search", "Enter")
            page.wait_for_selector("#mh-search-inline .hit")
            assert page.url == static + "/posts/p1/"  # results shown here, from the API
            assert api + "/api/search?q=body" in asked
            assert page.locator("#mh-search-inline .hit").count() >= 5
            assert page.locator("#mh-search-inline mark").count() >= 5
            assert page.evaluate("window.__violations") == []
            page.locator("#mh-search-inline .hit a").first.click()
            page.wait_for_load_state()
            assert page.url.startswith(static + "/") and "/posts/" in page.url  # exported
            assert page.locator("h1").count() == 1

            # without script the same form goes to that masthead's search page
            context = browser.new_context(java_script_enabled=False)
            plain = context.new_page()
            plain.goto(static + "/zh/")
            plain.fill("#mh-search", "body")
            plain.press("#mh-search", "Enter")
            plain.wait_for_url(api + "/zh/search?q=body")
            assert plain.locator(".hit").count() >= 5
            context.close()

            # an origin not in allowed_origins cannot read the API: the script falls back
            # to the form, so the reader still gets results (on the API's search page)
            page = browser.new_page()
            page.goto(other + "/posts/p1/")
            page.fill("#mh-search", "body")
            page.press("#mh-search", "Enter")
            page.wait_for_url(api + "/search?q=body")
            assert page.locator("#mh-search-inline").count() == 0
            assert page.locator(".hit").count() >= 5
