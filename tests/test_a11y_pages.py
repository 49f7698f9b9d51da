"""Issue 13, item 1 and the 404 page, over HTTP: a meta description on every home, list, taxonomy
and archive page in the page's language; a machine-readable `datetime` on every `<time>`; a 404
page with a way forward (a search box and the language's latest posts)."""

from __future__ import annotations

import html
import re
from datetime import datetime

from support.sites import post

TOML = """
title = "Test site"
description = "The site's own line."
base_url = "https://example.com"
default_language = "en"
posts_per_page = 2

[languages.en]
name = "English"
description = "Essays on typesetting, in English."

[languages.zh]
name = "中文"
prefix = "zh"
hreflang = "zh-Hans"
description = "关于排版的文章。"

[languages.fr]
name = "Français"
"""

FILES = {
    "posts/a.md": post("Alpha", "2024-03-01", tags="[Type]", categories="[Craft]"),
    "posts/b.md": post("Beta", "2024-03-02", tags="[Type]"),
    "posts/c.md": post("Gamma", "2024-03-03"),
    "posts/a.zh.md": post("甲", "2024-03-01", tags="[Type]"),
    "posts/z.zh.md": post("乙", "2024-03-04"),
    "posts/a.fr.md": post("Alpha fr", "2024-03-01", tags="[Type]"),
}
DESCRIPTION = re.compile(r'<meta name="description" content="([^"]*)">')
OG_DESCRIPTION = re.compile(r'<meta property="og:description" content="([^"]*)">')


def _description(page: str) -> str | None:
    found = DESCRIPTION.findall(page)
    assert len(found) <= 1, found
    return html.unescape(found[0]) if found else None


def test_list_pages_describe_the_site_in_their_language(make_site, serve):
    client = serve(make_site(FILES, TOML))
    en, zh, fr = "Essays on typesetting, in English.", "关于排版的文章。", "The site's own line."
    for path, expected in (
        ("/", en), ("/page/2/", en), ("/archive/", en), ("/tags/", en), ("/tags/type/", en),
        ("/categories/", en), ("/categories/craft/", en),
        ("/zh/", zh), ("/zh/archive/", zh), ("/zh/tags/", zh), ("/zh/tags/type/", zh),
        ("/fr/", fr), ("/fr/archive/", fr), ("/fr/tags/type/", fr),
    ):  # fmt: skip
        response = client.get(path)
        assert response.status_code == 200, path
        assert _description(response.text) == expected, path
        assert [html.unescape(d) for d in OG_DESCRIPTION.findall(response.text)] == [expected]
    # a post keeps its own excerpt
    assert _description(client.get("/posts/a/").text) == "Body text."


def test_the_demo_describes_itself_in_both_languages(demo_site, serve):
    client = serve(demo_site)
    en, zh = _description(client.get("/").text), _description(client.get("/zh/").text)
    assert en and zh and en != zh
    assert re.search(r"[\u4e00-\u9fff]", zh), zh


def test_every_time_element_has_a_valid_datetime(demo_site, serve):
    client = serve(demo_site)
    for path in ("/search?q=kubelet", "/zh/search?q=kubelet", "/", "/archive/"):
        times = re.findall(r"<time([^>]*)>", client.get(path).text)
        assert times, path
        for attributes in times:
            value = re.search(r'datetime="([^"]+)"', attributes)
            assert value, f"{path}: <time{attributes}> has no datetime"
            datetime.fromisoformat(value.group(1))  # a valid date and time string


def test_404_offers_search_and_the_latest_posts_of_its_language(make_site, serve):
    client = serve(make_site(FILES, TOML))
    for path, lang, newest, other in (
        ("/no/such/page/", "en", ("/posts/c/", "/posts/b/"), "/zh/posts/z/"),
        ("/zh/no/such/", "zh", ("/zh/posts/z/", "/zh/posts/a/"), "/posts/c/"),
    ):
        response = client.get(path)
        assert response.status_code == 404
        main = response.text.split('<main id="mh-main"', 1)[1].split("</main>", 1)[0]
        form = re.search(r'<form[^>]*role="search"[^>]*>(.*?)</form>', main, re.S)
        assert form, f"{path}: no search form in the page's main content"
        action = re.search(r'action="([^"]+)"', form.group(0))
        assert action and action.group(1) == ("/search" if lang == "en" else "/zh/search")
        assert re.search(r'<input[^>]*name="q"', form.group(1))
        assert re.search(r"<label[^>]*for=", form.group(1)), "the search box has a label"
        for url in newest:
            assert f'href="{url}"' in main, f"{path}: {url} is not listed"
        assert f'href="{other}"' not in main, f"{path}: another language's post is listed"
        assert re.search(r"<h2[^>]*>", main), "the latest posts have a heading"
