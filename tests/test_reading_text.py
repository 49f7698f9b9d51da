"""The text readers see of a post besides the post itself (issue 29 item 3): excerpts on the home
page, `<meta name="description">`, og:description and search snippets carry no footnote
references, a table reads as rows ("Loaf: Country; Hydration: 75%"), not as a run of cells, and
snippets and excerpts end on a word boundary (any character boundary in Chinese). Over HTTP on a
real site for the pages, and on plain text for the cutting rules."""

from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup
from hypothesis import given
from hypothesis import strategies as st

from masthead.content import text
from masthead.search import snippets

from support.sites import post

BREAD = """\
We started logging everything.[^log] This post explains why the bakery keeps a notebook.

| Loaf | Hydration | Bake |
| --- | --- | --- |
| Country | 75% | 45 min |
| Rye | 80% | 60 min |

Second paragraph about crumb and crust.[^crumb]

[^log]: Every loaf since March.
[^crumb]: An open crumb needs more water.
"""
RAW = """\
<p>Raw HTML first paragraph, logging everything.<sup class="footnote-ref"><a href="#fn:9">\
[9]</a></sup> Done.</p>

<table><tr><th>Loaf</th><th>Hydration</th></tr><tr><td>Spelt</td><td>70%</td></tr></table>
"""


@pytest.fixture
def client(make_site, serve):  # type: ignore[no-untyped-def]
    site = make_site(
        {
            "posts/bread.md": post("Bread notes", "2024-03-02", BREAD),
            "posts/raw.md": post("Raw notes", "2024-03-01", RAW),
        },
        'title = "Test site"\nbase_url = "https://example.com"\nraw_html = true\n',
    )
    return serve(site)


FOOTNOTE = re.compile(r"\[\d+(?::\d+)?\]")


def test_excerpts_and_descriptions_carry_no_footnote_references(client):
    home = BeautifulSoup(client.get("/").text, "lxml")
    excerpts = [p.get_text() for p in home.select(".card__excerpt")]
    assert excerpts == [
        "We started logging everything. This post explains why the bakery keeps a notebook.",
        "Raw HTML first paragraph, logging everything. Done.",
    ]
    for url in ("/posts/bread/", "/posts/raw/"):
        page = BeautifulSoup(client.get(url).text, "lxml")
        description = page.select_one('meta[name="description"]')["content"]
        og = page.select_one('meta[property="og:description"]')["content"]
        assert "logging everything. " in description and description == og
        assert not FOOTNOTE.search(description), description
        assert page.select_one("sup.footnote-ref") is not None  # the page keeps its footnotes


def test_search_snippets_carry_no_footnote_references_and_read_tables_by_rows(client):
    def snippet(q: str) -> list[str]:
        hits = client.get("/api/search", params={"q": q}).json()["hits"]
        return [re.sub(r"</?mark>", "", h["snippet_html"]) for h in hits]

    for found in snippet("logging"):
        assert "logging everything." in found and not FOOTNOTE.search(found), found
    found = " ".join(snippet("hydration"))
    assert "Country; Hydration: 75%; Bake: 45 min · Loaf: Rye; Hydration: 80%" in found, found
    assert "Loaf: Spelt; Hydration: 70%" in found, found
    assert "Loaf · Hydration" not in found and "Hydration · Bake" not in found, found


def test_table_text_names_each_cell_by_its_header():
    assert text.table_lines(["Loaf", "Hydration"], [["Country", "75%"], ["Rye", ""]]) == [
        "Loaf: Country; Hydration: 75%",
        "Loaf: Rye",
    ]
    assert text.table_lines(["面包", "含水量"], [["乡村", "75%"]]) == ["面包：乡村；含水量：75%"]
    assert text.table_lines([], [["a", "b"]]) == ["a; b"]
    assert text.table_lines(["Only", "Headers"], []) == ["Only; Headers"]


WORDS = st.lists(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyzéüß0123456789", min_size=1, max_size=14),
    min_size=1,
    max_size=80,
)


@given(words=WORDS, limit=st.integers(min_value=20, max_value=220), pick=st.integers(0, 79))
def test_snippets_and_excerpts_end_on_a_word_boundary(words, limit, pick):
    """Every word of a snippet or an excerpt is a whole word of the text (save a single word
    longer than a third of the span, cut as it is)."""
    source = " ".join(words)
    whole = set(words)
    needle = words[pick % len(words)]
    piece = snippets.words_marked(source, [needle], limit)
    inner = re.sub(r"</?mark>", "", piece).strip("…")
    cut = [w for w in inner.split() if w not in whole]
    assert all(len(w) * 3 > limit or len(w) > 8 for w in cut), (piece, cut)
    short = text.truncate(source, limit)
    cut = [w for w in short.rstrip("…").split() if w not in whole]
    assert all(len(w) * 3 > limit for w in cut), (short, cut)


def test_a_snippet_is_not_cut_inside_a_word():
    body = "Our bakery notes. " * 10 + "The hydration of the loaf matters most. " * 8
    piece = snippets.words_marked(body, ["loaf"], 80)
    assert piece.startswith("…The hydration of the <mark>loaf</mark> matters most.")
    inner = piece.strip("…").replace("<mark>", "").replace("</mark>", "")
    assert set(inner.split()) <= set(body.split()), piece
    fox = "The quick brown fox jumps over the lazy dog"
    assert text.truncate(fox, 24) == "The quick brown fox…"


def test_chinese_is_cut_at_any_character_not_pulled_back_to_a_space():
    body = "港口灯火照亮了夜晚的海面，渔船缓缓归来。" * 20 + " English tail"
    piece = snippets.words_marked(body, ["渔船"], 60)
    inner = piece.strip("…").replace("<mark>", "").replace("</mark>", "")
    assert len(inner) >= 55, piece  # the limit used, not a Latin word boundary far back
    assert inner in body
    assert len(text.truncate(body, 50)) >= 49
