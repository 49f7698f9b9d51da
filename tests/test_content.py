"""The content engine beyond the reported cases: Markdown extensions, slugs, languages,
excerpts, reading time, shortcodes, relative paths and unknown keys."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from masthead.content.post import parse_post

from support.sites import HUGO_TOML, post


def parse(site, rel, text):  # type: ignore[no-untyped-def]
    return parse_post(site, rel, text.encode("utf-8"))


def test_markdown_extensions(make_site):
    site = make_site({})
    body = """
| a | b |
|:--|--:|
| 1 | 2 |

~~gone~~ and `code`

- [x] done
- [ ] todo

Term
: Definition

A note[^n].

[^n]: The footnote.

```python
print("hi")
```
"""
    html = BeautifulSoup(parse(site, "posts/x.md", post("X", body=body)).html, "html.parser")
    assert html.select_one("table th").get_text() == "a"
    # alignment as classes (a CSP `style-src 'self'` blocks style attributes); site.css has them
    assert html.select_one("td")["class"] == ["align-left"] and not html.select("[style]")
    assert html.select_one("s").get_text() == "gone"
    boxes = html.select("input[type=checkbox]")
    assert [b.has_attr("checked") for b in boxes] == [True, False]
    assert html.select_one("dl dt").get_text() == "Term"
    assert html.select_one("#mh-footnotes li").get_text().startswith("The footnote.")
    assert html.select_one('pre[data-lang="python"] span.nb').get_text() == "print"


def test_slugs_from_file_names(make_site):
    site = make_site({})
    cases = {
        "posts/2024-05-02-Hello World.md": "/posts/hello-world/",
        "posts/My-Bundle/index.md": "/posts/my-bundle/",
        "posts/My-Bundle/index.zh.md": "/zh/posts/my-bundle/",
        "posts/kubernetes-1.29.md": "/posts/kubernetes-1.29/",
        "pages/About.md": "/about/",
    }
    for rel, url in cases.items():
        assert parse(site, rel, post("T")).url == url, rel
    assert parse(site, "posts/a.md", post("T", slug="Custom-Slug")).url == "/posts/custom-slug/"


def test_language_order_front_matter_suffix_folder_default(make_site):
    toml = """
default_language = "en"
[languages.en]
name = "English"
folder = "en"
[languages.zh]
name = "中文"
prefix = "zh"
folder = "zh-cn"
aliases = ["zh-cn"]
"""
    site = make_site({}, toml)
    assert parse(site, "x.md", post("T")).lang == "en"
    assert parse(site, "zh-cn/x.md", post("T")).lang == "zh"
    assert parse(site, "en/x.zh.md", post("T")).lang == "zh"
    assert parse(site, "zh-cn/x.md", post("T", lang="en")).lang == "en"
    assert parse(site, "x.md", post("T", lang="zh_CN")).lang == "zh"
    a, b = parse(site, "en/y.md", post("T")), parse(site, "zh-cn/y.md", post("T"))
    assert a.translation_key == b.translation_key


def test_excerpt_fallback_and_reading_time(make_site):
    site = make_site({})
    long_en = " ".join(["word"] * 690)
    en = parse(site, "posts/en.md", post("T", body=f"{long_en}\n"))
    assert en.excerpt.startswith("word word") and en.excerpt.endswith("…")
    assert len(en.excerpt) <= 201
    assert en.reading_minutes == 3  # 690 words at 230 a minute
    zh = parse(site, "posts/zh.md", post("T", body="汉" * 1200 + "\n", lang="zh"))
    assert zh.reading_minutes == 3, "Chinese is counted by characters, not by spaces"
    given = parse(site, "posts/g.md", post("T", excerpt='"Given <b>text</b>."'))
    assert given.excerpt == "Given <b>text</b>."


def test_shortcodes_in_both_forms_and_unknown_ones(make_site):
    site = make_site({})
    body = """
{{% alert title="Heads up" color="warning" %}}
**Bold** inside.
{{% /alert %}}

{{< caution >}}
Careful.
{{< /caution >}}

{{< tabs >}}Inner text stays.{{< /tabs >}}

{{< param "x" >}}
"""
    p = parse(site, "posts/s.md", post("T", body=body))
    html = BeautifulSoup(p.html, "html.parser")
    warning = html.select_one(".admonition-warning")
    assert warning.select_one(".admonition-title").get_text() == "Heads up"
    assert warning.select_one("strong").get_text() == "Bold"
    assert html.select_one(".admonition-caution p:not(.admonition-title)").get_text() == "Careful."
    assert "Inner text stays." in html.get_text()
    assert "{{" not in p.html and "}}" not in p.html
    assert sorted(w.reason.split("'")[1] for w in p.warnings) == ["param", "tabs"]
    assert {w.line for w in p.warnings} == {15, 17}  # file lines of the two shortcodes


def test_relative_paths_and_unknown_keys(make_site):
    site = make_site({})
    text = post(
        "T",
        body="![pic](img/a.png) [next](../other/b.md#part) [abs](https://x.org/a.png)\n",
        cover="cover.jpg",
        evergreen="true",
        release="{minor: '1.30', themes: [a, b]}",
    )
    p = parse(site, "posts/bundle/index.md", text)
    html = BeautifulSoup(p.html, "html.parser")
    assert html.img["src"] == "/media/posts/bundle/img/a.png"
    hrefs = [a["href"] for a in html.select("a")]
    assert hrefs == ["/_ref/posts/other/b.md#part", "https://x.org/a.png"]
    assert p.cover == "/media/posts/bundle/cover.jpg"
    assert p.extra == {"evergreen": True, "release": {"minor": "1.30", "themes": ["a", "b"]}}


def test_explicit_heading_ids(make_site):
    site = make_site({})
    p = parse(site, "posts/h.md", post("T", body="## 简介 {#intro}\n\n## Next\n"))
    html = BeautifulSoup(p.html, "html.parser")
    assert [h["id"] for h in html.select("h2")] == ["intro", "next"]
    assert html.h2.get_text() == "简介"
    assert 'href="#intro"' in p.toc_html


# --- what is content: Hugo's rules (issue 9, item 8) ------------------------------------------


def masthead_check(site, *options):  # type: ignore[no-untyped-def]
    """`masthead check` run as a real process: (exit code, stdout lines)."""
    import os
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "masthead", "check", *options, str(site.root)],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        timeout=120,
    )
    return result.returncode, result.stdout.splitlines()


def test_posts_in_underscore_folders_are_listed_and_served_as_in_hugo(make_site, serve):
    site = make_site(
        {
            "en/blog/_posts/2024-05-02-lighthouse.md": post("Lighthouse", "2024-05-02"),
            "zh/blog/_posts/2024-05-02-lighthouse.md": post("灯塔", "2024-05-02"),
            "en/blog/_posts/_underscored.md": post("Underscored name", "2024-05-03"),
            "en/blog/_posts/old-suffix.mdown": post("A .mdown file", "2024-05-04"),
            "en/blog/_index.md": post("The blog section", "2024-01-01"),
            "en/_index.md": post("Home section", "2024-01-01"),
            "zh/_index.zh.md": post("首页", "2024-01-01"),
        },
        HUGO_TOML,
    )
    client = serve(site)
    home = client.get("/").text
    assert "/posts/lighthouse/" in home and "/posts/_underscored/" in home
    assert "The blog section" not in home and "Home section" not in home
    assert client.get("/posts/lighthouse/").status_code == 200
    assert client.get("/posts/_underscored/").status_code == 200
    assert client.get("/posts/old-suffix/").status_code == 200, "Hugo reads .mdown as Markdown"
    zh = client.get("/zh/posts/lighthouse/")
    assert zh.status_code == 200 and "灯塔" in zh.text
    assert client.get("/posts/_index/").status_code == 404, "a section list page is not a post"
    assert client.get("/zh/").text.count("首页") == 0


@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_check_names_every_skipped_file_and_folder(make_site):
    site = make_site(
        {
            "posts/good.md": post("Good", "2024-05-02", body="![map](map.png)\n"),
            "posts/map.png": b"\x89PNG\r\n\x1a\n",
            "posts/_index.md": post("Posts", "2024-01-01"),
            "posts/.hidden.md": post("Hidden", "2024-01-01"),
            "posts/good.md~": post("Backup", "2024-01-01"),
            "posts/.good.md.swp": b"\x00vim",
            "posts/4913": b"",
            "posts/#good.md#": "autosave",
            ".git/HEAD": "ref: refs/heads/main\n",
            ".git/objects/ab/cdef": b"\x00",
            "drafts~/x.md": post("In a backup folder", "2024-01-01"),
            "posts/notes.org": "* An Org-mode post\n",
            "posts/guide.adoc": "= An AsciiDoc post\n",
            "posts/page.html": "---\ntitle: An HTML content page\n---\n<p>Hi</p>\n",
        }
    )
    code, lines = masthead_check(site)
    assert code == 0, lines
    info = "info: skipped: "
    expected = {
        f"content/.git/:0: {info}hidden (the name starts with a dot)",
        f"content/drafts~/:0: {info}an editor's temporary or backup file",
        f"content/posts/.good.md.swp:0: {info}hidden (the name starts with a dot)",
        f"content/posts/.hidden.md:0: {info}hidden (the name starts with a dot)",
        f"content/posts/#good.md#:0: {info}an editor's temporary or backup file",
        f"content/posts/4913:0: {info}an editor's temporary or backup file",
        f"content/posts/good.md~:0: {info}an editor's temporary or backup file",
        f"content/posts/_index.md:0: {info}a Hugo section list page (_index.md); "
        "masthead builds its list pages itself",
        "content/posts/guide.adoc:0: warning: skipped: a .adoc file: "
        "masthead renders Markdown (.md, .markdown, .mdown) only",
        "content/posts/notes.org:0: warning: skipped: a .org file: "
        "masthead renders Markdown (.md, .markdown, .mdown) only",
        "content/posts/page.html:0: warning: skipped: a .html file: "
        "masthead renders Markdown (.md, .markdown, .mdown) only",
    }
    assert set(lines) == expected, "one line per skipped file or folder, none for media"
    assert masthead_check(site, "--strict")[0] == 1, "an unrendered format is a warning"
    (site.content_dir / "posts/notes.org").unlink()
    (site.content_dir / "posts/guide.adoc").unlink()
    (site.content_dir / "posts/page.html").unlink()
    code, lines = masthead_check(site, "--strict")
    assert code == 0, "a normal Hugo site (_index.md, .git, editor files) passes --strict"
    assert len(lines) == 8


def test_the_watcher_and_the_indexer_agree_with_discover(make_site):
    from watchfiles import Change

    from masthead.indexing.indexer import index_site
    from masthead.indexing.watcher import Watcher
    from masthead.store import posts as store
    from masthead.store.db import Database

    site = make_site({"en/blog/_posts/a.md": post("A", "2024-05-02")}, HUGO_TOML)
    db = Database(site.database_path)
    assert index_site(site, db).files == 1
    watcher = Watcher(site, db)
    saved = {
        "en/blog/_posts/b.md": post("B", "2024-05-03"),
        "en/blog/_index.md": post("Section", "2024-01-01"),
        "en/blog/_posts/.b.md.swp": "swap",
    }
    for rel, text in saved.items():
        (site.content_dir / rel).write_text(text)
    wanted = {rel for rel in saved if watcher.wanted(Change.added, str(site.content_dir / rel))}
    assert wanted == {"en/blog/_posts/b.md"}
    watcher.apply({(Change.added, str(site.content_dir / rel)) for rel in saved})
    assert store.post_by_url(db.read(), "/posts/b/", 2e9) is not None
    assert store.post_by_url(db.read(), "/posts/_index/", 2e9) is None
    assert index_site(site, db).files == 2, "a full walk finds what the watcher published"
    db.close()


@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_two_posts_of_one_language_with_one_translation_key_are_a_warning(make_site):
    site = make_site(
        {
            "posts/a.md": post("A", "2024-05-02", translationKey="shared"),
            "posts/b.md": post("B", "2024-05-03", translationKey="shared"),
            "posts/a.zh.md": post("甲", "2024-05-02", translationKey="shared"),
            "posts/c.md": post("C", "2024-05-02", translationKey="other"),
        }
    )
    code, lines = masthead_check(site)
    assert code == 0
    assert lines == [
        "content/posts/b.md:4: warning: translationKey 'shared' is also claimed by "
        "content/posts/a.md in language 'en': one post per language can have it"
    ]
    assert masthead_check(site, "--strict")[0] == 1
