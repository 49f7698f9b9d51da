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


_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
         "track", "wbr"}  # fmt: skip


def _skipped(tag: str, cls: str) -> bool:
    """Not text: scripts, styles, a footnote's back link (↩) and a footnote reference (`[1]`,
    noise in an excerpt, a description or a search snippet)."""
    return tag in _SKIP or "footnote-backref" in cls or (tag == "sup" and "footnote-ref" in cls)


@dataclass
class _Table:
    """A table being read: its header row, its other rows, the row and the cell being read
    (`start`: where the cell's text begins in `out`)."""

    head: list[str]
    rows: list[list[str]]
    row: list[str]
    heads_only: bool = True
    out: list[str] | None = None
    start: int = 0


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.code: list[str] = []
        self.skip = 0
        self.pre = 0
        self.split_code = False
        self.tables: list[_Table] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.skip:  # inside a skipped element: count its depth
            self.skip += tag not in _VOID
            return
        if _skipped(tag, dict(attrs).get("class") or ""):
            self.skip = 1
            return
        if tag == "pre":
            self.pre += 1
        if tag in _BLOCK:
            self._out().append("\n")
        if tag == "table":
            self.tables.append(_Table([], [], []))
        elif tag in ("td", "th") and self.tables:
            table = self.tables[-1]
            table.out = self._out()
            table.start = len(table.out)
            table.heads_only = table.heads_only and tag == "th"

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if not self.skip and tag in _BLOCK:
            self._out().append("\n")

    def handle_endtag(self, tag: str) -> None:
        if self.skip:
            self.skip -= 1
            return
        if tag in ("td", "th") and self.tables and self.tables[-1].out is not None:
            table = self.tables[-1]
            out = table.out or []
            table.row.append(" ".join("".join(out[table.start :]).split()))
            del out[table.start :]
            table.out = None
        elif tag == "tr" and self.tables:
            table = self.tables[-1]
            if table.row:
                if table.heads_only and not table.head and not table.rows:
                    table.head = table.row
                else:
                    table.rows.append(table.row)
            table.row, table.heads_only = [], True
        elif tag == "table" and self.tables:
            table = self.tables.pop()
            self._out().append("\n" + "\n".join(table_lines(table.head, table.rows)) + "\n")
        if tag in _BLOCK:
            self._out().append("\n")
        if tag == "pre":
            self.pre = max(0, self.pre - 1)

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self._out().append(data)

    def _out(self) -> list[str]:
        return self.code if self.split_code and self.pre else self.parts


def table_lines(head: list[str], rows: list[list[str]]) -> list[str]:
    """A table as text: one line per row, each cell named by its column's header
    (`Loaf: Country; Hydration: 75%`), so a snippet or an excerpt reads as sentences rather
    than a run of cells ("Loaf · Hydration · Country · 75%"); a table without a header row
    gives its cells joined by "; ", and a header without rows its headers."""
    out = []
    for row in rows or ([head] if head else []):
        cjk = any(_CJK.search(cell) for cell in (*head, *row))
        named = []
        for i, cell in enumerate(row):
            if not cell:
                continue
            name = head[i] if i < len(head) and rows else ""
            named.append(f"{name}{'：' if cjk else ': '}{cell}" if name else cell)
        if named:
            out.append(("；" if cjk else "; ").join(named))
    return out


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


def _in_word(ch: str) -> bool:
    """A character inside a word of a spaced script (Latin, Cyrillic, digits…): a cut between
    two of them splits the word. CJK characters are words of their own: any boundary will do."""
    return (ch.isalnum() or ch in "_'’") and not _CJK.match(ch)


def word_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """`text[start:end]` widened to no word: `start` moved on past a word it would split,
    `end` back before one, by at most a third of the span each (a single word longer than
    that is cut as it is). Between CJK characters any position is a boundary."""
    start = max(0, start)
    most = max(1, (end - start) // 3)  # of the span asked for, even past the text's end
    end = min(len(text), end)
    if 0 < start < len(text) and _in_word(text[start - 1]) and _in_word(text[start]):
        i = start
        while i < min(end, start + most) and _in_word(text[i]):
            i += 1
        if i < end and not _in_word(text[i]):
            start = i
    if start < end < len(text) and _in_word(text[end - 1]) and _in_word(text[end]):
        j = end
        while j > max(start, end - most) and _in_word(text[j - 1]):
            j -= 1
        if j > start and not _in_word(text[j - 1]):
            end = j
    return start, end


def truncate(text: str, limit: int = 200) -> str:
    """`text` cut to at most `limit` characters on a word boundary (any character for CJK),
    ending in …"""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    _, end = word_bounds(text, 0, limit)
    return text[:end].rstrip(" ,.;:，。；：、") + "…"


_FIRST_P = re.compile(r"<p>(.*?)</p>", re.DOTALL)


def excerpt_from_html(html: str, limit: int = 200) -> str:
    """The first paragraph with text, truncated."""
    for m in _FIRST_P.finditer(html):
        text = html_to_text(m.group(1))
        if len(text) >= 20:
            return truncate(text, limit)
    return truncate(html_to_text(html), limit)
