"""Wrap a title into lines of a given width, the way Chinese typesetting allows (kinsoku).

Break opportunities: after a space, between the words rjieba finds in a run of Han characters
(the segmenter the search index uses; `web/render/linebreak.py` marks the same words with
`<wbr>` in pages), and where a Han run meets a Latin word or a digit. Never inside a Latin word,
and kinsoku shori (JIS X 4051, W3C's clreq "Prohibition rules for line start and end"): no line
starts with closing punctuation or a mark that belongs to the previous character (。，、：；？！
）」』》】…), and no line ends with opening punctuation (「『《（【“). Such characters are
glued to their neighbour, so a break never falls beside them.

A word wider than a whole line is broken between characters (a URL-like title), still keeping
the rules. Pure: the caller measures text (`measure(text) -> width`, e.g. a Pillow font's
`getlength`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from types import ModuleType

HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]+")
# may not start a line (clreq 3.1.7; JIS X 4051 classes 2, 5, 6, 7 and small kana)
NO_START = frozenset(
    "。．，、：；？！）］｝〕〉》」』】〙〗〟’”｠»・ー々〻ゝゞヽヾ…‥"
    "ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ"
    ".,;:?!)]}%’”"
)
# may not end a line
NO_END = frozenset("（［｛〔〈《「『【〘〖〝‘“｟«([{‘“$£¥€#")
_ATOM = re.compile(r"\s+|[A-Za-z0-9\u00c0-\u024f]+(?:[-'’._/][A-Za-z0-9\u00c0-\u024f]+)*|.", re.S)
ELLIPSIS = "…"

Measure = Callable[[str], float]


@cache
def _jieba() -> ModuleType:
    """rjieba, imported on first use: loading its dictionary takes about half a second, which
    a process that cuts no Chinese skips (as `search.segment` does)."""
    import rjieba

    return rjieba


def han_words(text: str) -> list[str]:
    """`text` cut by rjieba (Han runs into words), loaded on first use: a process that cuts no
    Chinese (`masthead serve` on an English site, `new` with a Latin title) skips its
    dictionary."""
    return list(_jieba().cut(text))


def _atoms(text: str) -> list[str]:
    """`text` cut into pieces no break may fall inside: spaces, Latin words, Han words (rjieba),
    and every other character alone."""
    out: list[str] = []
    pos = 0
    for m in HAN.finditer(text):
        out += _ATOM.findall(text[pos : m.start()])
        out += han_words(m.group(0))
        pos = m.end()
    out += _ATOM.findall(text[pos:])
    return out


def units(text: str) -> list[str]:
    """`text` as the pieces a line may break between: a break may fall before each piece
    after the first. Spaces end the piece before them; closing punctuation is glued to what
    precedes it and opening punctuation to what follows (kinsoku)."""
    out: list[str] = []
    glue_next = False
    for atom in _atoms(" ".join(text.split())):
        first, last = atom[0], atom[-1]
        if out and (glue_next or first in NO_START or atom.isspace()):
            out[-1] += atom
        else:
            out.append(atom)
        glue_next = last in NO_END
    return out


def _split_wide(unit: str, width: float, measure: Measure) -> list[str]:
    """A piece wider than `width` cut between characters, a closing mark kept with the
    character before it and an opening one with the character after."""
    pieces: list[str] = []
    current = ""
    for ch in unit:
        if current and measure(current + ch) > width and ch not in NO_START:
            if current[-1] in NO_END and len(current) > 1:
                pieces.append(current[:-1])
                current = current[-1]
            else:
                pieces.append(current)
                current = ""
        current += ch
    if current:
        pieces.append(current)
    return pieces


def wrap(text: str, width: float, measure: Measure, max_lines: int = 0) -> list[str]:
    """`text` in lines no wider than `width` (as `measure` says), broken only where `units`
    allows. With `max_lines`, what does not fit ends the last line with "…".

    A text that fits on one line is that line, measured once (most titles and every card's
    meta line): what the line by line fill below gives too, since a line only widens as
    pieces join it, without the measure of every piece (and no segmenting of its words)."""
    whole = " ".join(text.split())
    if whole and measure(whole) <= width:
        return [whole]
    return fill(whole, width, measure, max_lines)


def fill(text: str, width: float, measure: Measure, max_lines: int = 0) -> list[str]:
    """`wrap` without its one-line shortcut: each piece of `units(text)` added to the line
    while it fits."""
    lines: list[str] = []
    current = ""
    for unit in units(text):
        if not current:
            pieces = [unit]
        elif measure((current + unit).rstrip()) <= width:
            current += unit
            continue
        else:
            lines.append(current.rstrip())
            pieces = [unit]
        if measure(unit.rstrip()) > width:
            pieces = _split_wide(unit, width, measure)
        lines += pieces[:-1]
        current = pieces[-1]
    if current.strip():
        lines.append(current.rstrip())
    if max_lines and len(lines) > max_lines:
        last = lines[max_lines - 1]
        while last and measure(last + ELLIPSIS) > width:
            last = last[:-1]
        while last and last[-1] in NO_END | {" "}:  # no opening mark before the ellipsis
            last = last[:-1]
        lines = [*lines[: max_lines - 1], last + ELLIPSIS]
    return lines
