"""Chinese word segmentation for the FTS5 index, with rjieba (a Rust port of jieba).

FTS5's unicode61 tokenizer reads a whole run of Han characters as one token, so `节点` would never
match inside `工作节点很多`. Before indexing, each Han run is cut into words (jieba's precise mode)
joined by U+200B ZERO WIDTH SPACE, which unicode61 treats as a separator but a reader never sees;
the extra sub-words of jieba's search mode (`cut_for_search`: `全文检索` → `全文`, `检索`) go to a
separate column. Queries are cut the same way, so index and query always agree.

Segmentation depends on context: `调度器会优先` is cut `调度|器会|优先`, so the word `调度器` is not
among its tokens. So every Han run of two or more characters is also indexed as overlapping
character bigrams (`调度 度器 器会 会优 优先`) in a column of its own, runs apart by `BREAK`, and a
query's Han run also matches as the phrase of its bigrams there (`bigram_phrase`): any Han string
of two or more characters that a post contains finds the post.
"""

from __future__ import annotations

import re
from functools import cache
from operator import add
from types import ModuleType

ZWSP = "\u200b"
HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u200b]")
# between the bigrams of two runs, so that no phrase spans them: a private-use character, which
# unicode61 reads as a token (categories L* N* Co) and which queries never contain (query.py)
BREAK = "\ue000"


@cache
def _jieba() -> ModuleType:
    """rjieba, imported on first use: loading its dictionary takes about half a second, which
    a command that segments nothing (`masthead index` or `build` with nothing changed) skips."""
    import rjieba

    return rjieba


def segment(text: str) -> tuple[str, str]:
    """`(display, extra)`: `text` with Han words separated by U+200B, and the additional search
    sub-words, space-separated. Control characters (used as snippet markers) are removed."""
    text = _CONTROL.sub(" ", text)
    extra: list[str] = []

    def cut(m: re.Match[str]) -> str:
        words = _jieba().cut(m.group(0))
        if len(m.group(0)) > 2:
            seen = set(words)
            extra.extend(w for w in _jieba().cut_for_search(m.group(0)) if w not in seen)
        # separators at both ends too: `使用Docker部署` must not be one token
        return ZWSP + ZWSP.join(words) + ZWSP

    return HAN.sub(cut, text), " ".join(extra)


def query_words(run: str) -> list[str]:
    """The words of a Han run in a query (precise mode), each to be searched as a phrase."""
    return [w for w in _jieba().cut(run) if w.strip()]


def unsegment(text: str) -> str:
    """Remove the word separators again (for display)."""
    return text.replace(ZWSP, "")


def bigrams(text: str) -> str:
    """The overlapping character bigrams of every Han run of two or more characters in `text`,
    space-separated, `BREAK` between runs (`调度器会, 在节点` → `调度 度器 器会 \ue000 节点`)."""
    runs = []
    for m in HAN.finditer(text):
        run = m.group(0)
        if len(run) >= 2:
            runs.append(" ".join(map(add, run, run[1:])))  # each character and the next
    return f" {BREAK} ".join(runs)


def bigram_phrase(run: str) -> str:
    """A query's Han run (two or more characters) as the phrase of its bigrams, to be matched in
    the bigram column: `调度器` → `调度 度器`."""
    return " ".join(run[i : i + 2] for i in range(len(run) - 1))
