"""The pure parts of the imports: WordPress bodies (shortcodes, wpautop) and Ghost's editor
documents (lexical, mobiledoc) to Markdown, on plain strings."""

from __future__ import annotations

import json

from masthead.importing import lexical, wpbody
from masthead.importing.tomarkdown import Blocks, to_markdown


def wp(raw: str) -> tuple[str, list[str]]:
    found = wpbody.Body()
    return wpbody.convert(raw, lambda url: None, lambda ids: [], found), found.unknown


def test_an_escaped_shortcode_stays_as_written() -> None:
    text, unknown = wp("Write [[caption]] to show it.")
    assert text.strip() == "Write [caption] to show it." and unknown == []


def test_wpautop_keeps_preformatted_text() -> None:
    text, _ = wp("One\n\n<pre>a\n\n  b</pre>\n\nTwo\nlines")
    assert "```\na\n\n  b\n```" in text
    assert "Two  \nlines" in text


def test_the_more_divider_with_its_own_text() -> None:
    text, _ = wp("Intro\n\n<!--more Read the rest-->\n\nRest")
    assert text == "Intro\n\n<!--more-->\n\nRest\n"


def test_a_self_closing_unknown_shortcode_with_attributes_is_listed() -> None:
    text, unknown = wp('Before [poll id="3"/] after')
    assert '[poll id="3"/]' in text and unknown == ["poll"]


def test_mobiledoc_sections_and_cards() -> None:
    doc = {
        "version": "0.3.1",
        "markups": [["a", ["href", "https://x.example/"]], ["strong"]],
        "cards": [["markdown", {"markdown": "A *card*."}], ["image", {"src": "/i.png"}]],
        "sections": [
            [1, "p", [[0, [0], 1, "link"], [0, [1], 1, " bold"]]],
            [3, "ul", [[[0, [], 0, "one"]], [[0, [], 0, "two"]]]],
            [10, 0],
            [10, 1],
        ],
    }
    unknown: list[str] = []
    text = to_markdown(lexical.mobiledoc_html(json.dumps(doc), unknown), lambda u: None, Blocks())
    assert (
        "[link](https://x.example/)** bold**" in text
        or "[link](https://x.example/) **bold**" in text
    )
    assert "- one\n- two" in text
    assert "A *card*." in text and '{{< figure src="/i.png" >}}' in text
    assert unknown == []


def test_a_lexical_document_that_is_not_json_is_named() -> None:
    unknown: list[str] = []
    assert lexical.lexical_html("{not json", unknown) == ""
    assert unknown == ["lexical (not JSON)"]


def test_the_parsed_tags_convert_as_beautiful_soups_own() -> None:
    """`tomarkdown._Tag` answers markdownify's `find_parent` by walking the parents: every
    body of the fixture exports, and nested `<pre>` and `<code>`, convert as with bs4's Tag."""
    import re

    from masthead.importing.tomarkdown import Converter

    from support.imports import IMPORTS

    bodies = [
        "<div><pre><code class='language-py'>a\n\n  b</code></pre><p>x <code>*y*</code></p></div>",
        "<blockquote><p>q <em>e</em></p><pre>p\n  <b>re</b>\n</pre></blockquote><ul><li>a<ul>"
        "<li>b <pre>c</pre></li></ul></li></ul><table><tr><td><pre>t</pre></td></tr></table>",
        "<pre><code>one\n\n\n<span>\n\n\ntwo</span>\n\n\nthree</code></pre>",  # all kept
    ]
    for export in (IMPORTS / "wordpress.xml", IMPORTS / "same-blog" / "wordpress.xml"):
        text = export.read_text(encoding="utf-8")
        bodies += re.findall(r"<content:encoded><!\[CDATA\[(.*?)\]\]>", text, re.DOTALL)
    for ghost in ("ghost4.json", "ghost5.json"):
        data = json.loads((IMPORTS / ghost).read_text(encoding="utf-8"))
        posts = (data.get("db") or [data])[0]["data"]["posts"]
        bodies += [post["html"] for post in posts if post.get("html")]
    assert len(bodies) > 10

    def image(url: str) -> str:
        return "new-" + url.rsplit("/", 1)[-1]

    for body in bodies:
        plain = Converter(image, bs4_options="html.parser").convert(body)
        assert Converter(image).convert(body) == plain, body[:80]
