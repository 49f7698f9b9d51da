"""`masthead import hugo HUGO_DIR SITE` (issue 30, item 1 and the Hugo side of item 4): the Hugo
site in tests/data/hugo-site (written for these tests: the three front-matter formats, page
bundles, a translation, shortcodes, a top-level page, a headless bundle, `static/`) becomes a
site that `masthead check --strict` passes and that serves every post at its Hugo URL."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from masthead.config import load_site
from masthead.importing import hugo_config, toml_out
from masthead.web.app import create_app

from support.cli import masthead, one_line_error

HUGO = Path(__file__).parent / "data" / "hugo-site"


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    site = tmp_path_factory.mktemp("import") / "site"
    done = masthead("import", "hugo", str(HUGO), str(site))
    assert done.returncode == 0, (done.stdout, done.stderr)
    return site, done.stdout


def test_the_report_says_what_came_across_and_what_did_not(imported: tuple[Path, str]) -> None:
    _site, report = imported
    for line in (
        "  carried: title: Harbour Notes",
        "  carried: base_url: https://harbour.example.org",
        "  carried: permalinks: posts /:year/:month/:slug/",
        "  carried: languages: en (English, /), zh (中文, /zh)",
        "  carried: posts_per_page: 5",
        "  not carried: theme: masthead draws its own theme",
        "  not carried: summarylength: ",
        "  not carried: taxonomies.series: masthead has tags and categories",
        "  not carried: markup: ",
        "  page: content/about.md -> content/pages/about.md (its URL stays)",
        "  skipped: static/robots.txt: not copied: /robots.txt is masthead's robots.txt",
        "check: errors: 0, warnings: 0",
    ):
        assert line in report, line


def test_the_settings_file_is_masthead_toml(imported: tuple[Path, str]) -> None:
    site, _ = imported
    data = tomllib.loads((site / "masthead.toml").read_text(encoding="utf-8"))
    assert data["languages"]["zh"] == {
        "name": "中文",
        "prefix": "zh",
        "hreflang": "zh-CN",
        "aliases": ["zh-cn"],
    }
    assert data["menu"]["en"][0] == {"title": "About", "url": "/about/", "weight": 10}
    assert data["params"]["social"] == {"mastodon": "@ada@example.social"}
    settings = load_site(site).settings
    assert settings.timezone == "Asia/Shanghai" and settings.posts_per_page == 5


@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_check_strict_passes_on_the_imported_site(imported: tuple[Path, str]) -> None:
    site, _ = imported
    done = masthead("check", "--strict", str(site))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "errors: 0, warnings: 0" in done.stderr


def test_every_post_is_served_at_its_hugo_url(imported: tuple[Path, str]) -> None:
    site, _ = imported
    with TestClient(create_app(load_site(site))) as client:
        for url, words in [
            ("/2024/05/tides/", "tide tables"),  # TOML front matter
            ("/2024/06/the-night-ferry/", "Ada Harbour took it twice"),  # JSON, param
            ("/2024/03/harbour-lights/", "one by one"),  # YAML bundle
            ("/zh/2024/03/%E6%B8%AF%E5%8F%A3%E7%9A%84%E7%81%AF/", "灯一盏一盏"),  # :slug, title
            ("/about/", "Ada keeps these notes"),  # a top-level page stays a page
        ]:
            page = client.get(url)
            assert page.status_code == 200 and words in page.text, url
        old = client.get("/old/harbour-lights/", follow_redirects=False)
        assert old.status_code == 301 and old.headers["location"] == "/2024/03/harbour-lights/"
        assert client.get(old.headers["location"]).status_code == 200
        assert client.get("/images/logo.png").status_code == 200  # static/ at the root
        assert client.get("/CNAME").text == "harbour.example.org\n"
        assert client.get("/posts/harbour-lights/dusk.png").status_code == 404
        bundle_image = client.get("/2024/03/harbour-lights/").text
        assert "/media/posts/harbour-lights/dusk.png" in bundle_image
        tides = client.get("/2024/05/tides/").text
        assert 'class="line hl"' in tides and "gist.github.com/ada/4f3c2b1a" in tides
        assert "<script src=" not in tides.split("<article", 1)[1].split("</article>")[0]
        assert client.get("/pages/shared/").status_code == 404  # headless
        assert client.get("/2024/01/kept-out-of-the-build/").status_code == 404
        home = client.get("/").text
        assert "The tide tables are the first thing to read each morning." in home
        assert "A small script" not in home  # the summary ends at <!--more-->
        robots = client.get("/robots.txt").text
        assert "Disallow: /private/" not in robots  # Hugo's file was not copied over ours


def test_link_keeps_one_copy(tmp_path: Path) -> None:
    site = tmp_path / "site"
    done = masthead("import", "hugo", "--link", str(HUGO), str(site))
    assert (site / "content").is_symlink() and (site / "static").is_symlink()
    assert "top-level pages (about.md, shared…) are posts in masthead when linked" in done.stdout
    # the linked static/ keeps Hugo's robots.txt, which masthead's own hides: check says so
    assert "check: errors: 1, warnings: 0" in done.stdout
    assert "static/robots.txt:0: its URL /robots.txt is masthead's robots.txt" in done.stdout
    assert done.returncode == 1


def test_config_folder_yaml_and_json_files(tmp_path: Path) -> None:
    hugo = tmp_path / "hugo"
    folder = hugo / "config" / "_default"
    folder.mkdir(parents=True)
    (folder / "hugo.yaml").write_text(
        "baseURL: https://x.example/\ntitle: From YAML\ndefaultContentLanguage: zh\n"
        "paginate: 7\npermalinks:\n  blog: /blog/:slug/\n  notes: /n/:slug/\n",
        encoding="utf-8",
    )
    (folder / "languages.json").write_text(
        json.dumps(
            {
                "zh": {"languageName": "中文", "contentDir": "content/zh", "weight": 1},
                "en": {"languageName": "English", "contentDir": "content/en", "title": "Other"},
            }
        ),
        encoding="utf-8",
    )
    (folder / "menus.en.toml").write_text(
        '[[main]]\nname = "Home"\nurl = "/en/"\n[[footer]]\nname = "x"\nurl = "/x/"\n',
        encoding="utf-8",
    )
    (folder / "params.toml").write_text('Author = "Kept As Written"\n', encoding="utf-8")
    for lang, text in [("zh", "中文正文。"), ("en", "English body.")]:
        post = hugo / "content" / lang / "blog" / "first.md"
        post.parent.mkdir(parents=True)
        post.write_text(f"---\ntitle: First\ndate: 2024-01-01\n---\n\n{text}\n", encoding="utf-8")
    site = tmp_path / "site"
    done = masthead("import", "hugo", str(hugo), str(site))
    assert done.returncode == 0, done.stdout + done.stderr
    data = tomllib.loads((site / "masthead.toml").read_text(encoding="utf-8"))
    assert data["default_language"] == "zh" and data["posts_per_page"] == 7
    assert data["languages"] == {
        "zh": {"name": "中文", "folder": "zh"},
        "en": {"name": "English", "prefix": "en", "folder": "en"},
    }
    assert data["permalinks"] == {"posts": "/blog/:slug/"}
    assert data["menu"] == {"en": [{"title": "Home", "url": "/en/"}]}
    assert data["params"] == {"Author": "Kept As Written"}
    assert "not carried: permalinks.notes: masthead has one pattern for posts" in done.stdout
    assert "not carried: menus.footer: masthead draws one menu, main" in done.stdout
    assert "not carried: languages.en.title: masthead has one site title" in done.stdout
    with TestClient(create_app(load_site(site))) as client:
        assert "中文正文" in client.get("/blog/first/").text
        assert "English body" in client.get("/en/blog/first/").text


def test_hugo_default_urls_keep_the_section(tmp_path: Path) -> None:
    hugo = tmp_path / "hugo"
    (hugo / "content" / "blog").mkdir(parents=True)
    (hugo / "config.toml").write_text('title = "T"\n', encoding="utf-8")
    (hugo / "content" / "blog" / "a.md").write_text(
        "---\ntitle: A\ndate: 2024-01-01\n---\n\nA.\n", encoding="utf-8"
    )
    nested = hugo / "content" / "blog" / "2020" / "b" / "index.md"
    nested.parent.mkdir(parents=True)
    nested.write_text("---\ntitle: B\ndate: 2020-01-01\n---\n\nB.\n", encoding="utf-8")
    site = tmp_path / "site"
    done = masthead("import", "hugo", str(hugo), str(site))
    assert done.returncode == 0
    with TestClient(create_app(load_site(site))) as client:
        assert client.get("/blog/a/").status_code == 200  # as Hugo published it
        assert client.get("/blog/b/").status_code == 200
    # Hugo served the nested one at /blog/2020/b/: said, not silently lost
    assert (
        "warning: content/blog/2020/b/index.md: Hugo served it under /blog/2020/, masthead "
        "under /blog/; add its old URL to its aliases"
    ) in done.stdout
    assert "content/blog/a.md" not in done.stdout


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda t: (t / "hugo").mkdir(), "no Hugo configuration"),
        (lambda t: None, "no such folder"),
        (lambda t: (t / "hugo").mkdir() or (t / "hugo" / "hugo.toml").write_text("a = "), "TOML"),
    ],
)
def test_what_cannot_be_imported_is_one_line_kind(tmp_path: Path, make, words: str) -> None:  # type: ignore[no-untyped-def]
    make(tmp_path)
    done = masthead("import", "hugo", str(tmp_path / "hugo"), str(tmp_path / "site"))
    one_line_error(done, words)
    assert not (tmp_path / "site").exists()


def test_an_existing_site_is_never_overwritten(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "masthead.toml").write_text('title = "Mine"\n', encoding="utf-8")
    one_line_error(masthead("import", "hugo", str(HUGO), str(site)), "must be an empty")
    assert (site / "masthead.toml").read_text(encoding="utf-8") == 'title = "Mine"\n'


def test_toml_out_round_trips() -> None:
    data = {
        "title": 'Quote " and \\ and 中文\n',
        "n": 3,
        "f": 1.5,
        "on": True,
        "list": ["a", 1],
        "params": {"a b": {"c": [1, 2]}, "menu": [{"x": 1}, {"x": 2}], "inline": [{"y": {"z": 1}}]},
    }
    text = "\n".join(toml_out.table("", data))
    assert tomllib.loads(text) == data


def test_unknown_settings_are_listed() -> None:
    converted = hugo_config.settings(HUGO)
    names = [name for name, _why in converted.dropped]
    assert names == sorted(set(names), key=names.index)  # each once
    assert "enablerobotstxt" in names and "copyright" in names


@pytest.mark.parametrize(
    ("hugo", "hreflang"),
    [("zh-cn", "zh-CN"), ("zh-hans", "zh-Hans"), ("en_us", "en-US"), ("es-419", "es-419")],
)
def test_language_codes_become_bcp47_hreflang_kind(hugo: str, hreflang: str) -> None:
    assert hugo_config.bcp47(hugo) == hreflang
