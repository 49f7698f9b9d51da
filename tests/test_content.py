"""The content engine beyond the reported cases: Markdown extensions, slugs, languages,
excerpts, reading time, shortcodes, relative paths and unknown keys."""

from __future__ import annotations

from bs4 import BeautifulSoup

from masthead.content.post import parse_post

from conftest import post


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
