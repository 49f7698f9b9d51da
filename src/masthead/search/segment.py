"""Chinese word segmentation for the FTS5 index, with rjieba (a Rust port of jieba).

FTS5's unicode61 tokenizer reads a whole run of Han characters as one token, so `节点` would never
match inside `工作节点很多`. Before indexing, each Han run is cut into words (jieba's precise mode)
joined by U+200B ZERO WIDTH SPACE, which unicode61 treats as a separator but a reader never sees;
the extra sub-words of jieba's search mode (`cut_for_search`: `全文检索` → `全文`, `检索`) go to a
separate column. Queries are cut the same way, so index and query always agree.
"""

from __future__ import annotations

import re

import rjieba

ZWSP = "\u200b"
HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u200b]")


def segment(text: str) -> tuple[str, str]:
    """`(display, extra)`: `text` with Han words separated by U+200B, and the additional search
    sub-words, space-separated. Control characters (used as snippet markers) are removed."""
    text = _CONTROL.sub(" ", text)
    extra: list[str] = []

    def cut(m: re.Match[str]) -> str:
        words = rjieba.cut(m.group(0))
        if len(m.group(0)) > 2:
            seen = set(words)
            extra.extend(w for w in rjieba.cut_for_search(m.group(0)) if w not in seen)
        # separators at both ends too: `使用Docker部署` must not be one token
        return ZWSP + ZWSP.join(words) + ZWSP

    return HAN.sub(cut, text), " ".join(extra)


def query_words(run: str) -> list[str]:
    """The words of a Han run in a query (precise mode), each to be searched as a phrase."""
    return [w for w in rjieba.cut(run) if w.strip()]


def unsegment(text: str) -> str:
    """Remove the word separators again (for display)."""
    return text.replace(ZWSP, "")
