"""Plain text of a post: for search, excerpts, reading time and word counts.

Two sources give the same text: the syntax tree of a pure-Markdown body (`content.tree`, in
the walk that writes the HTML) and the sanitized HTML (`prose_and_code`, `html_to_text`), used when
the body holds raw HTML, whose text only the sanitizer's output shows. Either way the text has
one line per block (paragraph, heading, list item, table cell…), so a heading never runs into
the next sentence; a soft line break inside a paragraph is a space.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from html.parser import HTMLParser

_BLOCK = {
    "p", "div", "li", "pre", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "td", "th", "blockquote",
    "figcaption", "dt", "dd", "br", "section", "summary", "details", "table",
}  # fmt: skip
_SKIP = {"script", "style"}
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]")
_WORD = re.compile(r"[^\W\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]+")
WORDS_PER_MINUTE = 230  # English prose
CJK_CHARS_PER_MINUTE = 400  # Chinese prose is read by characters, not words


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.code: list[str] = []
        self.skip = 0
        self.pre = 0
        self.split_code = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        cls = dict(attrs).get("class") or ""
        if tag in _SKIP or "footnote-backref" in cls:
            self.skip += 1
            return
        if tag == "pre":
            self.pre += 1
        if tag in _BLOCK:
            self._out().append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP or (tag == "a" and self.skip):
            self.skip = max(0, self.skip - 1)
            return
        if tag in _BLOCK:
            self._out().append("\n")
        if tag == "pre":
            self.pre = max(0, self.pre - 1)

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self._out().append(data)

    def _out(self) -> list[str]:
        return self.code if self.split_code and self.pre else self.parts


def lines(parts: list[str]) -> str:
    """The joined `parts` as one line per block: whitespace runs as one space, no empty lines."""
    lines = (" ".join(line.split()) for line in "".join(parts).split("\n"))
    return "\n".join(line for line in lines if line)


@dataclass(frozen=True)
class PlainText:
    """A post's text: `prose` (outside code blocks), `code` (inside them), both
    one line per block, and `excerpt` (the first paragraph of 20+ characters, not yet
    truncated; "" when there is none), or with `divided` the text before Hugo's summary
    divider `<!--more-->`."""

    prose: str
    code: str
    excerpt: str
    divided: bool = False


def html_to_text(html: str) -> str:
    """Visible text of an HTML fragment, one line per block, entities decoded."""
    parser = _Text()
    parser.feed(html)
    parser.close()
    return lines(parser.parts)


def prose_and_code(html: str) -> tuple[str, str]:
    """`(prose, code)`: the visible text outside and inside `<pre>` blocks, in one pass."""
    parser = _Text()
    parser.split_code = True
    parser.feed(html)
    parser.close()
    return lines(parser.parts), lines(parser.code)


def count_words(text: str) -> tuple[int, int]:
    """`(latin_words, cjk_characters)` of plain text."""
    return len(_WORD.findall(text)), len(_CJK.findall(text))


def reading_minutes(words: int, cjk: int) -> int:
    """Minutes to read `words` Latin-script words at 230/min plus `cjk` CJK characters at
    400/min (`count_words` gives both); at least 1."""
    return max(1, math.ceil(words / WORDS_PER_MINUTE + cjk / CJK_CHARS_PER_MINUTE))


def truncate(text: str, limit: int = 200) -> str:
    """`text` cut to at most `limit` characters on a word boundary (any character for CJK),
    ending in …"""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit]
    if not _CJK.search(cut[-1]):
        space = cut.rfind(" ")
        if space > limit * 0.6:
            cut = cut[:space]
    return cut.rstrip(" ,.;:，。；：、") + "…"


_FIRST_P = re.compile(r"<p>(.*?)</p>", re.DOTALL)


def excerpt_from_html(html: str, limit: int = 200) -> str:
    """The first paragraph with text, truncated."""
    for m in _FIRST_P.finditer(html):
        text = html_to_text(m.group(1))
        if len(text) >= 20:
            return truncate(text, limit)
    return truncate(html_to_text(html), limit)
