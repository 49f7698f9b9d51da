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
