"""Safe result snippets: plain text in, escaped HTML with `<mark>` out.

Snippets are cut by FTS5 from the unsegmented plain text with sentinel characters around matches;
the text is HTML-escaped first and only then are the sentinels turned into `<mark>`, so neither a
post nor a query can inject markup, and every `<mark>` is closed (case C21). The allowlist is the
last step all the same: what leaves here has passed `sanitize.marks_only` (text and bare `<mark>`).

A post's text has one line per block (heading, paragraph, list item: `content.text`); a snippet
shows each line break as `BLOCK_SEPARATOR`, so a heading never runs into the next sentence
("Overview · At the heart of…", not "Overview At the heart of…").
"""

from __future__ import annotations

import html
import re
from functools import lru_cache

from masthead.content.sanitize import marks_only
from masthead.content.text import word_bounds
from masthead.search.segment import ZWSP

MARK_OPEN, MARK_CLOSE = "\x02", "\x03"  # sentinels around matches: escaped text cannot hold them
_SENTINELS = re.compile(f"[{MARK_OPEN}{MARK_CLOSE}]")
_SPLIT = re.compile(f"([{MARK_OPEN}{MARK_CLOSE}])")
BLOCK_SEPARATOR = " · "
_BREAKS = re.compile(r"[ \t]*\n\s*")


def _blocks(text: str) -> str:
    """Line breaks (block boundaries) as `BLOCK_SEPARATOR`; none at either end."""
    return _BREAKS.sub(BLOCK_SEPARATOR, text.strip())


def marked_to_html(text: str) -> str:
    """Escape `text` and turn balanced sentinel pairs into `<mark>…</mark>`."""
    return marks_only(_marked(text))


def marked(text: str) -> str:
    """`marked_to_html` before the allowlist: the caller passes it through
    `sanitize.marks_only_each` (with the page's other fragments)."""
    return _marked(text)


def _marked(text: str) -> str:
    text = html.escape(_blocks(text.replace(ZWSP, "")), quote=False)  # sentinels are kept
    out: list[str] = []
    open_mark = False
    for part in _SPLIT.split(text):
        if part == MARK_OPEN:
            if not open_mark:
                out.append("<mark>")
                open_mark = True
        elif part == MARK_CLOSE:
            if open_mark:
                out.append("</mark>")
                open_mark = False
        else:
            out.append(part)
    if open_mark:
        out.append("</mark>")
    return "".join(out)


def has_mark(text: str | None) -> bool:
    return bool(text) and MARK_OPEN in (text or "")


def mark_words(text: str, words: list[str], limit: int = 220) -> str:
    """Highlight `words` (case-insensitive substrings) in plain `text`, cut around the first one;
    for hits FTS5 could not place in the body (Chinese sub-words, titles). Returns escaped HTML."""
    return marks_only(words_marked(text, words, limit))


def words_marked(text: str, words: list[str], limit: int = 220) -> str:
    """`mark_words` before the allowlist (see `marked`)."""
    text = text.replace(ZWSP, "")
    if MARK_OPEN in text or MARK_CLOSE in text:
        text = _SENTINELS.sub("", text)
    needles, pattern = _needles(tuple(words))
    lower = text.lower()
    first = min((i for i in (lower.find(n) for n in needles) if i >= 0), default=0)
    # cut on word boundaries (any character between Chinese ones): never "hydrat…"
    start, end = word_bounds(text, max(0, first - limit // 3), max(0, first - limit // 3) + limit)
    start = min(start, first) if needles else start  # the first hit stays whole
    piece = text[start:end].strip()
    piece = piece.lstrip(".,;:!?，。；：、！？ ") if start else piece  # no sentence's tail
    prefix = "…" if start else ""
    suffix = "…" if end < len(text) else ""
    if pattern is not None:
        piece = pattern.sub(_mark_match, piece)
    return prefix + _marked(piece) + suffix


@lru_cache(maxsize=256)
def _needles(words: tuple[str, ...]) -> tuple[list[str], re.Pattern[str] | None]:
    """The words to mark, longest first, and one pattern for them (a search's words are the
    same for every hit of its page)."""
    needles = sorted({w.lower() for w in words if len(w) >= 2 or not w.isascii()}, key=len)[::-1]
    if not needles:
        return needles, None
    return needles, re.compile("|".join(re.escape(n) for n in needles), re.IGNORECASE)


def _mark_match(m: re.Match[str]) -> str:
    return MARK_OPEN + m.group(0) + MARK_CLOSE
