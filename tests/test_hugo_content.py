"""Hugo content as it is (issue 30, item 1): the `highlight` shortcode and fence options, the
embeds as plain links, `param`, the `<!--more-->` summary divider, `url` in front matter, and
headless or never-rendered bundles. Plain text in, HTML out (`parse_post`), and through a real
index and the real app where it is about what gets published."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from masthead.config import Site
from masthead.content.model import Post
from masthead.content.post import NotRendered, parse_post
from masthead.errors import ContentError
from masthead.indexing.check import check_site
from masthead.indexing.indexer import index_site
from masthead.store import posts as store
from masthead.store.db import Database
from masthead.web.app import create_app

from support.sites import BILINGUAL_TOML, write_site

PARAMS = '\n[params]\nauthor = "Site Author"\n[params.social]\nmastodon = "@masthead"\n'


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return write_site(tmp_path / "site", {"posts/.keep": ""}, BILINGUAL_TOML + PARAMS)


def parse(site: Site, body: str, head: str = "", name: str = "posts/x.md") -> Post:
    raw = f"---\ntitle: T\ndate: 2024-03-01\n{head}---\n\n{body}"
    return parse_post(site, name, raw.encode())


def soup(html: str) -> BeautifulSoup:
    return BeautifulSoup(html, "html.parser")


CODE = "def f():\n    x = 1\n    y = 2\n    return x\n"


# --- highlight -------------------------------------------------------------------------------


def test_highlight_shortcode_is_a_code_block_with_its_language(site: Site) -> None:
    post = parse(site, "{{< highlight python >}}\n" + CODE + "{{< /highlight >}}\n")
    block = soup(post.html).select_one("div.code-block")
    assert block is not None and block["data-lang"] == "python"
    assert block.pre.get_text() == CODE  # the indentation kept, no paragraph
    assert block.select(".k")  # Pygments' token classes
    assert not post.warnings and "{{" not in post.html
    assert post.code.splitlines()[1] == "x = 1"  # searched as code, not prose


def test_highlight_line_numbers_and_highlighted_lines_as_hugo_draws_them(site: Site) -> None:
    body = (
        '{{< highlight python "linenos=table,hl_lines=2 4,linenostart=199" >}}\n'
        + CODE
        + "{{< /highlight >}}\n"
    )
    pre = soup(parse(site, body).html).select_one("pre")
    lines = pre.select("span.line")
    assert len(lines) == 4
    assert [ln.get_text() for ln in pre.select(".ln")] == ["199", "200", "201", "202"]
    assert all(ln["aria-hidden"] == "true" for ln in pre.select(".ln"))
    # hl_lines counts the block's lines from 1, whatever linenostart says (as Hugo)
    assert ["hl" in ln["class"] for ln in lines] == [False, True, False, True]
    assert "".join(cl.get_text() for cl in pre.select(".cl")) == CODE


@pytest.mark.parametrize(
    ("info", "numbers", "marked"),
    [
        ('python {linenos=true,hl_lines=[1,"3-4"]}', ["1", "2", "3", "4"], [0, 2, 3]),
        ("python {linenos=inline linenostart=9}", ["9", "10", "11", "12"], []),
        ('python {hl_lines="2"}', [], [1]),
        ("python {linenos=false}", [], []),
    ],
)
def test_fence_options_kind(site: Site, info: str, numbers: list, marked: list) -> None:
    pre = soup(parse(site, f"```{info}\n{CODE}```\n").html).select_one("pre")
    assert pre["data-lang"] == "python"
    assert [ln.get_text().strip() for ln in pre.select(".ln")] == numbers
    lines = pre.select("span.line")
    assert [i for i, ln in enumerate(lines) if "hl" in ln["class"]] == marked


def test_a_fence_without_options_is_drawn_as_before(site: Site) -> None:
    pre = soup(parse(site, f"```python\n{CODE}```\n").html).select_one("pre")
    assert not pre.select("span.line") and pre.get_text() == CODE


def test_highlight_keeps_backticks_and_escaped_shortcodes(site: Site) -> None:
    body = "{{< highlight md >}}\n```go\nx\n```\n{{</* note */>}}\n{{< /highlight >}}\n"
    pre = soup(parse(site, body).html).select_one("pre")
    assert pre.get_text() == "```go\nx\n```\n{{< note >}}\n"


def test_an_unclosed_highlight_is_a_warning(site: Site) -> None:
    post = parse(site, "{{< highlight go >}}\nx := 1\n")
    assert [w.reason for w in post.warnings] == ["shortcode 'highlight' is never closed"]


# --- embeds as plain links -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "href", "text"),
    [
        ("{{< gist spf13 7896402 >}}", "https://gist.github.com/spf13/7896402", "GitHub Gist"),
        (
            '{{< gist spf13 7896402 "img.html" >}}',
            "https://gist.github.com/spf13/7896402#file-img-html",
            "GitHub Gist",
        ),
        (
            '{{< tweet user="SanDiegoZoo" id="1453110110599868418" >}}',
            "https://x.com/SanDiegoZoo/status/1453110110599868418",
            "on X",
        ),
        (
            "{{< tweet 1453110110599868418 >}}",
            "https://x.com/i/status/1453110110599868418",
            "on X",
        ),
        (
            '{{< x user="SanDiegoZoo" id="1453110110599868418" >}}',
            "https://x.com/SanDiegoZoo/status/1453110110599868418",
            "on X",
        ),
        ("{{< vimeo 55073825 >}}", "https://vimeo.com/55073825", "on Vimeo"),
        ('{{< vimeo id="55073825" title="Sea" >}}', "https://vimeo.com/55073825", "Sea"),
        (
            "{{< instagram CxOWiQNP2MO >}}",
            "https://www.instagram.com/p/CxOWiQNP2MO/",
            "on Instagram",
        ),
    ],
)
def test_embeds_are_plain_links_kind(site: Site, call: str, href: str, text: str) -> None:
    post = parse(site, f"Before.\n\n{call}\n\nAfter.\n")
    page = soup(post.html)
    (link,) = page.select("a")
    assert link["href"] == href and text in link.get_text()
    assert not page.select("script, iframe, blockquote.twitter-tweet")
    assert not post.warnings


def test_embed_links_speak_the_post_language(site: Site) -> None:
    post = parse(site, "{{< vimeo 55073825 >}}\n", "lang: zh\n")
    assert "在 Vimeo 上观看视频" in post.html


@pytest.mark.parametrize(
    "call",
    ["{{< gist >}}", "{{< tweet user=a id=b >}}", "{{< vimeo abc >}}", '{{< instagram "" >}}'],
)
def test_an_embed_that_names_nothing_is_a_warning_kind(site: Site, call: str) -> None:
    post = parse(site, call + "\n")
    assert "<a" not in post.html and "{{" not in post.html
    assert [w.line for w in post.warnings] == [6] and "left out" in post.warnings[0].reason


# --- param -----------------------------------------------------------------------------------


def test_param_reads_front_matter_then_site_params(site: Site) -> None:
    head = "subtitle: Notes <b>from</b> sea\nparams:\n  mood: calm\n"
    body = (
        "{{< param subtitle >}} | {{< param mood >}} | {{< param author >}} | "
        '{{< param "social.mastodon" >}} | {{< param Author >}}\n'
    )
    post = parse(site, body, head)
    assert soup(post.html).p.get_text() == (
        "Notes <b>from</b> sea | calm | Site Author | @masthead | Site Author"
    )
    assert not post.warnings


def test_a_missing_param_is_a_warning(site: Site) -> None:
    post = parse(site, "x {{< param nope >}} y\n")
    assert soup(post.html).p.get_text() == "x  y"
    assert "'nope'" in post.warnings[0].reason


def test_changing_site_params_reparses_every_post(site: Site) -> None:
    (site.content_dir / "posts" / "p.md").write_text(
        "---\ntitle: P\ndate: 2024-03-01\n---\n\nBy {{< param author >}}.\n", encoding="utf-8"
    )
    db = Database(site.database_path)
    index_site(site, db)
    toml = site.root / "masthead.toml"
    toml.write_text(toml.read_text().replace("Site Author", "New Author"), encoding="utf-8")
    from masthead.config import load_site

    site = load_site(site.root)
    index_site(site, db)
    row = store.post_by_url(db.read(), "/posts/p/", 2e9)
    assert row is not None and "New Author" in row.html


# --- <!--more--> -----------------------------------------------------------------------------


def test_more_divider_gives_the_summary(site: Site) -> None:
    body = "Short lead.\n\nSecond paragraph, before the cut.\n\n<!--more-->\n\nThe rest of it.\n"
    post = parse(site, body)
    assert post.excerpt == "Short lead. Second paragraph, before the cut."
    assert "more" not in post.html and "The rest of it." in post.text


def test_more_divider_in_a_body_with_raw_html(site: Site) -> None:
    body = "Lead with <kbd>Ctrl</kbd> in it.\n\n<!--more-->\n\nRest.\n"
    post = parse(site, body)
    assert post.excerpt == "Lead with Ctrl in it."


def test_more_divider_summary_is_not_cut_at_200_characters(site: Site) -> None:
    lead = " ".join(["word"] * 50)  # 249 characters
    post = parse(site, f"{lead}\n\n<!--more-->\n\nRest.\n")
    assert post.excerpt == lead
    assert parse(site, f"{lead}\n\nRest.\n").excerpt.endswith("…")


def test_front_matter_summary_wins_over_the_divider(site: Site) -> None:
    post = parse(site, "Lead.\n\n<!--more-->\n\nRest.\n", "summary: Written by hand.\n")
    assert post.excerpt == "Written by hand."


# --- url -------------------------------------------------------------------------------------


def test_url_front_matter_is_the_permalink(site: Site) -> None:
    assert parse(site, "B", "url: /about-us/\n").url == "/about-us/"
    assert parse(site, "B", "url: old/2019/hello\n").url == "/old/2019/hello/"
    assert parse(site, "B", "url: /关于/\n").url == "/%E5%85%B3%E4%BA%8E/"
    toml = '+++\ntitle = "T"\ndate = 2024-03-01\nurl = "/toml-page/"\n+++\nB'
    assert parse_post(site, "posts/t.md", toml.encode()).url == "/toml-page/"


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("/", "home page"),
        ("/static/x/", "under /static/"),
        ("/tags/x/", "under /tags/"),
        ("https://example.org/x/", "site path"),
        ("/a b/", "site path"),
        ("/a/../b/", "site path"),
    ],
)
def test_a_url_masthead_cannot_serve_is_an_error_kind(site: Site, value: str, words: str) -> None:
    with pytest.raises(ContentError) as info:
        parse(site, "B", f'url: "{value}"\n')
    assert info.value.issue.line == 4 and words in info.value.issue.reason


def test_a_url_written_as_a_file_name_keeps_that_address(site: Site) -> None:
    post = parse(site, "B", "url: /2010/01/harbour.html\n")
    assert post.url == "/2010/01/harbour/" and post.aliases == ("/2010/01/harbour.html/",)
    (site.content_dir / "posts" / "p.md").write_text(
        "---\ntitle: Moved in\ndate: 2010-01-05\nurl: /2010/01/harbour.html\n---\n\nHi.\n",
        encoding="utf-8",
    )
    with TestClient(create_app(site)) as client:
        old = client.get("/2010/01/harbour.html", follow_redirects=False)
        assert old.status_code == 301 and old.headers["location"] == "/2010/01/harbour/"
        assert "Moved in" in client.get("/2010/01/harbour/").text


def test_a_post_is_served_at_its_url(site: Site) -> None:
    (site.content_dir / "posts" / "p.md").write_text(
        "---\ntitle: Old address\ndate: 2024-03-01\nurl: /2019/01/old-address/\n---\n\nHi.\n",
        encoding="utf-8",
    )
    with TestClient(create_app(site)) as client:
        page = client.get("/2019/01/old-address/")
        assert page.status_code == 200 and "Old address" in page.text
        assert client.get("/posts/p/").status_code == 404


# --- headless and build.render ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("head", "line"),
    [
        ("headless: true\n", 2),
        ("build:\n  render: never\n", 2),
        ("build:\n  render: link\n  list: never\n", 2),
        ("_build:\n  render: false\n", 2),
    ],
)
def test_headless_and_never_rendered_bundles_are_not_published_kind(
    site: Site, head: str, line: int
) -> None:
    raw = f"---\n{head}---\n\nResources only.\n".encode()  # no title or date: no error either
    with pytest.raises(NotRendered) as info:
        parse_post(site, "posts/shared/index.md", raw)
    assert info.value.issue.severity == "info" and info.value.issue.line == line


def test_a_bundle_turned_headless_leaves_the_site(site: Site) -> None:
    bundle = site.content_dir / "posts" / "shared"
    bundle.mkdir()
    (bundle / "pic.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    index_md = bundle / "index.md"
    index_md.write_text("---\ntitle: Shared\ndate: 2024-03-01\n---\n\nHi.\n", encoding="utf-8")
    (site.content_dir / "posts" / "toml.md").write_text(
        "+++\n[build]\nrender = 'never'\n+++\n", encoding="utf-8"
    )
    db = Database(site.database_path)
    report = index_site(site, db)
    assert report.errors == []
    assert store.post_by_url(db.read(), "/posts/shared/", 2e9) is not None
    assert store.post_by_url(db.read(), "/posts/toml/", 2e9) is None
    index_md.write_text("---\ntitle: Shared\nheadless: true\n---\n\nHi.\n", encoding="utf-8")
    report = index_site(site, db)
    assert report.errors == [] and report.parsed == 1
    assert store.post_by_url(db.read(), "/posts/shared/", 2e9) is None
    infos = [(i.path, i.severity) for i in check_site(site) if "not published" in i.reason]
    assert infos == [
        ("content/posts/shared/index.md", "info"),
        ("content/posts/toml.md", "info"),
    ]
    with TestClient(create_app(site)) as client:
        assert client.get("/posts/shared/").status_code == 404
        assert client.get("/media/posts/shared/pic.png").status_code == 200


def test_an_escaped_shortcode_in_a_paired_one_stays_escaped(site: Site) -> None:
    post = parse(site, '{{< note >}}\nWrite {{</* ref "a.md" */>}} here.\n{{< /note >}}\n')
    assert soup(post.html).select_one(".admonition p:not(.admonition-title)").get_text() == (
        'Write {{< ref "a.md" >}} here.'
    )
    assert not post.warnings


def test_hostile_shortcode_arguments_stay_inert(site: Site) -> None:
    head = "evil: '<img src=x onerror=alert(1)>'\n"
    body = (
        '{{< vimeo id="55073825" title="<script>alert(1)</script>" >}}\n\n'
        "{{< param evil >}}\n\n"
        '{{< highlight "python\\"><script>alert(1)</script>" "hl_lines=<b>" >}}\nx\n'
        "{{< /highlight >}}\n\n"
        '{{< gist "a\\" onmouseover=\\"alert(1)" 1 >}}\n\n'
        '{{< tweet user="a/../../evil" id="1" >}}\n\n'
        '{{< instagram "x\\"><script>" >}}\n'
    )
    post = parse(site, body, head)
    page = soup(post.html)
    assert not page.select("script, img, iframe")
    for tag in page.find_all(True):
        assert not any(name.startswith("on") for name in tag.attrs), tag
    assert "alert(1)" not in "".join(a.get("href", "") for a in page.select("a"))
    assert "<script>alert(1)</script>" in page.get_text()  # the vimeo title, shown as text


@pytest.mark.parametrize(
    ("aliases", "expected"),
    [
        ('["/old-url"]', ("/old-url/",)),  # from the site's root
        ('["old-name"]', ("/posts/old-name/",)),  # from the post's own folder, as Hugo
        ('["../old/path"]', ("/old/path/",)),
        ('["旧文章"]', ("/posts/%E6%97%A7%E6%96%87%E7%AB%A0/",)),
        ('["../../../x"]', ("/x/",)),  # never above the root
    ],
)
def test_page_relative_aliases_kind(site: Site, aliases: str, expected: tuple) -> None:
    assert parse(site, "B", f"aliases: {aliases}\n").aliases == expected


def test_url_without_a_slash_is_under_the_language_prefix(site: Site) -> None:
    # Hugo: on a site of several languages, `url: about` is /zh/about/ for a Chinese page,
    # `url: /about` is /about/; the default language has no prefix either way
    assert parse(site, "B", "lang: zh\nurl: about\n").url == "/zh/about/"
    assert parse(site, "B", "lang: zh\nurl: /about\n").url == "/about/"
    assert parse(site, "B", "url: about\n").url == "/about/"
    zh_file = parse(site, "B", "lang: zh\nurl: 2010/01/p.html\n")
    assert zh_file.url == "/zh/2010/01/p/" and zh_file.aliases == ("/zh/2010/01/p.html/",)
