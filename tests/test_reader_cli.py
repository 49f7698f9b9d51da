"""Issue 13 item 3 (READER): `masthead new SITE "Title" [--lang] [--translation-of PATH]` and
`masthead --version`. Real site folders; the new files are parsed by the real parser."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from typer.testing import CliRunner

import masthead
from masthead.cli import app
from masthead.content.post import parse_post
from masthead.indexing.indexer import index_site
from masthead.store.db import Database
from masthead.store.posts import list_posts

from support.sites import HUGO_TOML, post, write_site

runner = CliRunner()


def new(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["new", *args])


def test_new_writes_a_draft_with_front_matter_and_prints_its_path(make_site):
    site = make_site({"posts/old.md": post("Old")})  # timezone Asia/Shanghai
    before = datetime.now(site.tz).replace(microsecond=0)
    result = new(str(site.root), "Hello, World: a First Post!")
    assert result.exit_code == 0, result.output
    path = site.content_dir / "posts" / "hello-world-a-first-post.md"
    assert result.output.strip() == str(path)
    parsed = parse_post(site, "posts/hello-world-a-first-post.md", path.read_bytes())
    assert parsed.title == "Hello, World: a First Post!"
    assert parsed.draft and parsed.lang == "en"
    assert parsed.url == "/posts/hello-world-a-first-post/"
    assert parsed.date.utcoffset() == timedelta(hours=8)  # written in the site's zone
    assert before <= parsed.date <= datetime.now(site.tz) + timedelta(seconds=1)
    assert re.search(r"^date: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+08:00$", path.read_text(), re.M)
    db = Database(site.database_path)
    index_site(site, db)
    rows, _total = list_posts(db.read(), lang="en", now=datetime.now().timestamp(), limit=10)
    assert [r.title for r in rows] == ["Old"]  # a draft: never published
    db.close()
    again = new(str(site.root), "Hello, World: a First Post!")
    assert again.exit_code == 2 and "exists" in again.output
    assert parse_post(site, "posts/hello-world-a-first-post.md", path.read_bytes()).draft


def test_new_in_chinese_gets_a_word_slug_in_the_languages_place(make_site, tmp_path):
    site = make_site({})
    result = new(str(site.root), "长文阅读的排版：实用指南", "--lang", "zh")
    assert result.exit_code == 0, result.output
    path = site.content_dir / "posts" / "长文-阅读-的-排版-实用-指南.zh.md"
    assert result.output.strip() == str(path)
    parsed = parse_post(site, "posts/长文-阅读-的-排版-实用-指南.zh.md", path.read_bytes())
    assert parsed.lang == "zh" and parsed.title == "长文阅读的排版：实用指南"
    assert parsed.slug == "长文-阅读-的-排版-实用-指南"
    hugo = write_site(tmp_path / "hugo", {}, HUGO_TOML)  # Hugo's layout: a folder per language
    result = new(str(hugo.root), "潮汐", "--lang", "zh-cn")
    assert result.exit_code == 0, result.output
    assert result.output.strip() == str(hugo.content_dir / "zh" / "posts" / "潮汐.md")
    assert new(str(hugo.root), "x", "--lang", "fr").exit_code == 2


def test_new_translation_takes_the_originals_base_name_and_key(make_site):
    site = make_site(
        {
            "posts/tides.md": post("Tides"),
            "posts/harbour/index.md": post("Harbour", translationKey="harbour-2024"),
        }
    )
    result = new(
        str(site.root), "潮汐", "--lang", "zh", "--translation-of", "content/posts/tides.md"
    )
    assert result.exit_code == 0, result.output
    zh = site.content_dir / "posts" / "tides.zh.md"
    original = parse_post(
        site, "posts/tides.md", (site.content_dir / "posts/tides.md").read_bytes()
    )
    parsed = parse_post(site, "posts/tides.zh.md", zh.read_bytes())
    assert parsed.translation_key == original.translation_key and parsed.lang == "zh"
    bundle = site.content_dir / "posts" / "harbour" / "index.md"
    result = new(str(site.root), "港口", "--lang", "zh", "--translation-of", str(bundle))
    assert result.exit_code == 0, result.output
    made = site.content_dir / "posts" / "harbour" / "index.zh.md"
    assert 'translationKey: "harbour-2024"' in made.read_text()
    assert parse_post(site, "posts/harbour/index.zh.md", made.read_bytes()).translation_key == (
        "k:harbour-2024"
    )
    same = new(str(site.root), "Tides", "--translation-of", "content/posts/tides.md")
    assert same.exit_code == 2 and "already in English" in same.output
    missing = new(str(site.root), "x", "--lang", "zh", "--translation-of", "nope.md")
    assert missing.exit_code == 2 and "no such file" in missing.output


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"masthead {masthead.__version__}"
