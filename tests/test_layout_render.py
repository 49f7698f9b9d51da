"""The markup the layout of issue 13 needs, read over HTTP from the real app: code blocks in a
focusable, named frame that carries the language; tables in a scroll frame; bare URLs linked;
`<wbr>` between the words of Chinese titles; the site's `menu` in the header."""

from __future__ import annotations

from bs4 import BeautifulSoup

from support.sites import post

CODE = "for i in range(10):\n    print('a very long line of code that will not fit on a phone')\n"
BODY = f"""
Read https://kubernetes.io/docs/concepts/architecture/ and the README.md of the repo.

```python
{CODE}```

    indented code

| a | b |
|---|---|
| 1 | 2 |

<table>
<tr><td>raw</td></tr>

<tr><td>after a blank line</td></tr>
</table>

<pre tabindex="7">author's pre</pre>
<p tabindex="3">author's paragraph</p>

Healthy[^1].

[^1]: Kubernetes documentation: https://kubernetes.io/docs/concepts/architecture/
"""


def _page(client, url: str) -> BeautifulSoup:
    r = client.get(url)
    assert r.status_code == 200, url
    return BeautifulSoup(r.text, "html.parser")


def _site(make_site, serve):
    return serve(
        make_site(
            {
                "posts/code.md": post("Code", body=BODY),
                "posts/code.zh.md": post("Kubelet 源码深度解析：SyncLoop 与 PLEG", body=BODY),
            }
        )
    )


def test_code_blocks_are_framed_focusable_and_named(make_site, serve):
    client = _site(make_site, serve)
    page = _page(client, "/posts/code/")
    frames = page.select(".post-body .code-block")
    assert len(frames) == 2
    fenced, indented = frames
    assert fenced["data-lang"] == "python" and not indented.has_attr("data-lang")
    pre = fenced.pre
    assert pre["tabindex"] == "0" and pre["aria-label"] == "Code (python)"
    assert indented.pre["tabindex"] == "0" and indented.pre["aria-label"] == "Code"
    # the language is an attribute, shown by CSS: the block's text is the code, nothing more
    assert fenced.get_text() == CODE
    zh = _page(client, "/zh/posts/code/").select_one(".post-body .code-block pre")
    assert zh["aria-label"] == "代码 (python)"


def test_an_authors_tabindex_never_jumps_the_page_order(make_site, serve):
    page = _page(_site(make_site, serve), "/posts/code/")
    author_pre = next(p for p in page.select(".post-body pre") if "author" in p.get_text())
    assert author_pre["tabindex"] == "0"
    para = next(p for p in page.select(".post-body p") if "author" in p.get_text())
    assert not para.has_attr("tabindex")


def test_tables_sit_in_a_focusable_scroll_frame(make_site, serve):
    page = _page(_site(make_site, serve), "/posts/code/")
    frames = page.select(".post-body .table-scroll")
    assert len(frames) == 2, "the Markdown table and the author's HTML table"
    for frame in frames:
        assert frame["tabindex"] == "0" and frame["aria-label"] == "Table"
        assert frame.find("table") is not None
    assert "after a blank line" in frames[1].get_text()
    assert (
        _page(_site(make_site, serve), "/zh/posts/code/").select_one(".table-scroll")["aria-label"]
        == "表格"
    )


def test_task_list_checkboxes_are_labelled_by_their_text(make_site, serve):
    client = serve(make_site({"posts/tasks.md": post("Tasks", body="- [ ] one\n- [x] two\n")}))
    boxes = _page(client, "/posts/tasks/").select(".post-body input[type=checkbox]")
    assert [(b.parent.name, b.parent.get_text().strip()) for b in boxes] == [
        ("label", "one"),
        ("label", "two"),
    ]


def test_bare_urls_become_links_but_file_names_do_not(make_site, serve):
    page = _page(_site(make_site, serve), "/posts/code/")
    url = "https://kubernetes.io/docs/concepts/architecture/"
    body_links = [a["href"] for a in page.select(".post-body > p a")]
    assert url in body_links
    assert page.select_one(f'.footnotes a[href="{url}"]') is not None
    assert not any("README" in href for href in body_links)
    assert "README.md" in page.select_one(".post-body").get_text()
    assert page.select_one(".code-block a") is None, "never inside code"


def test_the_demo_footnote_url_is_a_link(demo_site, serve):
    client = serve(demo_site)
    for url in ("/posts/kubelet-syncloop-pleg/", "/zh/posts/kubelet-syncloop-pleg/"):
        page = _page(client, url)
        link = page.select_one(
            '.footnotes a[href="https://kubernetes.io/docs/concepts/architecture/"]'
        )
        assert link is not None, url


def test_chinese_titles_break_between_words(make_site, serve):
    client = _site(make_site, serve)
    title = "Kubelet 源码深度解析：SyncLoop 与 PLEG"
    page = _page(client, "/zh/posts/code/")
    h1 = page.select_one("h1.post-title")
    assert h1.get_text() == title, "the title's text is unchanged"
    assert "源码<wbr/>深度<wbr/>解析：SyncLoop" in h1.decode_contents()
    for url, selector in (("/zh/", ".card__title a"), ("/zh/archive/", ".archive-list a")):
        link = _page(client, url).select_one(selector)
        assert link.get_text() == title and "深度<wbr/>解析" in link.decode_contents(), url
    english = _page(client, "/posts/code/").select_one("h1.post-title")
    assert english.decode_contents() == "Code"


def test_the_header_draws_the_sites_menu(demo_site, serve):
    """The `menu` setting (the demo declares About in each language) in the header's nav, in
    the page's language, marked current on its own page."""
    client = serve(demo_site)
    for url, entry in (
        ("/archive/", ("关于", "/zh/about/")),
        ("/zh/archive/", ("About", "/about/")),
    ):
        assert entry not in [
            (a.get_text(), a["href"]) for a in _page(client, url).select(".site-nav a")
        ]
    for url, entry in (
        ("/archive/", ("About", "/about/")),
        ("/zh/archive/", ("关于", "/zh/about/")),
    ):
        nav = _page(client, url).select(".site-nav a")
        assert (nav[-1].get_text(), nav[-1]["href"]) == entry, url
    about = _page(client, "/about/").select(".site-nav a")[-1]
    assert about.get("aria-current") == "page"
