"""A Hugo site's `static/` folder as Hugo serves it (issue 30, item 1): `static/images/x.png` at
`/images/x.png` (and still at `/static/images/x.png`), through the real app, in `masthead
build`, and in `masthead check`: clashes with pages, feeds and masthead's own paths are errors
naming both, links to files that are not there are warnings."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from masthead.config import Site
from masthead.export.build import build
from masthead.indexing.check import check_site
from masthead.web.app import create_app

from support.sites import BILINGUAL_TOML, post, write_site

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16


def make(root: Path, static: dict[str, bytes], files: dict[str, str | bytes] | None = None) -> Site:
    site = write_site(root, files or {"posts/hello.md": post("Hello")}, BILINGUAL_TOML)
    for rel, data in static.items():
        path = root / "static" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return site


def test_static_files_are_served_at_the_root_as_hugo_does(tmp_path: Path) -> None:
    site = make(
        tmp_path / "s",
        {
            "images/x.png": PNG,
            "favicon.ico": b"\x00\x00\x01\x00",
            "docs/index.html": b"<!doctype html><title>Docs</title>",
            "zh/notes.txt": b"zh file",
            ".env": b"SECRET=1",
            "draft.md": b"# not served",
        },
    )
    with TestClient(create_app(site)) as client:
        image = client.get("/images/x.png")
        assert image.status_code == 200 and image.content == PNG
        assert image.headers["content-type"] == "image/png"
        assert client.get("/static/images/x.png").content == PNG  # masthead's /static/ too
        assert client.get("/favicon.ico").status_code == 200
        assert "Docs" in client.get("/docs/").text  # a folder's index.html at the folder
        assert client.get("/docs", follow_redirects=False).headers["location"] == "/docs/"
        assert client.get("/zh/notes.txt").text == "zh file"  # under another language's prefix
        for refused in ("/.env", "/draft.md", "/images/missing.png", "/images/"):
            assert client.get(refused).status_code == 404, refused
        assert client.head("/images/x.png").status_code == 200
        etag = image.headers["etag"]
        assert client.get("/images/x.png", headers={"If-None-Match": etag}).status_code == 304


def test_a_page_wins_over_a_static_file_at_its_url(tmp_path: Path) -> None:
    site = make(tmp_path / "s", {"posts/hello/index.html": b"<p>old Hugo page</p>"})
    with TestClient(create_app(site)) as client:
        page = client.get("/posts/hello/")
        assert page.status_code == 200 and "old Hugo page" not in page.text


def test_a_file_saved_while_the_server_runs_is_served(tmp_path: Path) -> None:
    site = make(tmp_path / "s", {})  # no static/ folder yet
    with TestClient(create_app(site)) as client:
        assert client.get("/late.txt").status_code == 404
        (site.root / "static").mkdir()
        (site.root / "static" / "late.txt").write_text("here", encoding="utf-8")
        assert client.get("/late.txt").text == "here"


def test_build_writes_static_files_at_the_root(tmp_path: Path) -> None:
    site = make(tmp_path / "s", {"images/x.png": PNG, "docs/index.html": b"<p>docs</p>"})
    toml = site.root / "masthead.toml"
    out = tmp_path / "out"
    report = build(site, out)
    assert report.missing == []
    assert (out / "images" / "x.png").read_bytes() == PNG
    assert (out / "static" / "images" / "x.png").read_bytes() == PNG
    assert (out / "docs" / "index.html").read_bytes() == b"<p>docs</p>"
    assert toml.is_file()


def _issues(site: Site, severity: str) -> list[tuple[str, int, str]]:
    return [(i.path, i.line, i.reason) for i in check_site(site) if i.severity == severity]


@pytest.mark.parametrize(
    ("rel", "words"),
    [
        ("robots.txt", "/robots.txt is masthead's robots.txt"),
        ("feed.xml", "/feed.xml is the rss feed of en"),
        ("zh/atom.xml", "/zh/atom.xml is the atom feed of zh"),
        ("sitemap-2.xml", "sitemap"),
        ("_redirects", "redirects file masthead build writes"),
        ("404.html", "not-found page"),
        ("index.html", "/ is the home page of en"),
        ("posts/hello/index.html", "/posts/hello/ is the permalink of content/posts/hello.md"),
        ("old/index.html", "/old/ is an alias of content/posts/hello.md"),
        ("posts/hello/comments.xml", "a feed of content/posts/hello.md"),
        ("tags/x.png", "under /tags/, which masthead serves itself"),
        ("static/x.css", "under /static/"),
        ("media/y.png", "under /media/"),
    ],
)
def test_a_clash_is_an_error_naming_both_kind(tmp_path: Path, rel: str, words: str) -> None:
    hello = post("Hello", aliases='["/old/"]')
    site = make(tmp_path / "s", {rel: b"x"}, {"posts/hello.md": hello})
    errors = _issues(site, "error")
    assert len(errors) == 1, errors
    path, line, reason = errors[0]
    assert path == f"static/{rel}" and line == 0 and words in reason, reason


def test_no_clash_for_ordinary_files(tmp_path: Path) -> None:
    site = make(tmp_path / "s", {"images/x.png": PNG, "css/custom.css": b"a{}", "CNAME": b"x"})
    assert _issues(site, "error") == []


def test_replacing_a_theme_file_under_static_is_info(tmp_path: Path) -> None:
    site = make(tmp_path / "s", {"css/site.css": b"body{}"})
    assert _issues(site, "error") == []
    (info,) = [i for i in _issues(site, "info") if i[0].startswith("static/")]
    assert (
        info[0] == "static/css/site.css"
        and "replaces masthead's own /static/css/site.css" in (info[2])
    )


def test_links_to_missing_static_files_are_warnings(tmp_path: Path) -> None:
    body = (
        "![there](/images/x.png) ![gone](/images/gone.png)\n\n"
        "[pdf](/files/paper.pdf) [theme](/static/js/site.js) [old](/static/old.css)\n\n"
        "[page](/posts/hello/) [feed](/feed.xml) [no slash](/about)\n"
    )
    files = {"posts/hello.md": post("Hello", body=body, cover="/images/cover.png")}
    site = make(tmp_path / "s", {"images/x.png": PNG}, files)
    warnings = [(line, reason) for path, line, reason in _issues(site, "warning")]
    missing = "link to {}: no such file in static/ (looked for static/{})"
    assert warnings == [
        (4, missing.format("/images/cover.png", "images/cover.png")),
        (7, missing.format("/images/gone.png", "images/gone.png")),
        (9, missing.format("/files/paper.pdf", "files/paper.pdf")),
        (9, missing.format("/static/old.css", "old.css")),
    ]
    (site.root / "static" / "images" / "gone.png").write_bytes(PNG)
    assert len(_issues(site, "warning")) == 3


@pytest.mark.parametrize(
    "path",
    ["/%00.png", "/" + "a" * 300 + ".png", "/images/%2e%2e/%2e%2e/masthead.toml", "/..%2fx.png"],
)
def test_odd_paths_are_404_not_500_kind(tmp_path: Path, path: str) -> None:
    site = make(tmp_path / "s", {"images/x.png": PNG})
    with TestClient(create_app(site)) as client:
        assert client.get(path).status_code in (301, 404), path
