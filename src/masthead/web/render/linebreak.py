"""Line breaks between Chinese words in titles: `<wbr>` between the words of each Han run.

Chinese has no spaces, so a browser may break a line between any two ideographs, also inside a
word (`深度解 / 析`). Titles are set with `word-break: keep-all` (site.css), which allows breaks
only at spaces, punctuation and `<wbr>`; this filter puts a `<wbr>` between the words that jieba
(rjieba, the segmenter the search index uses) finds in each Han run, and where a run meets a Latin
word or a digit without a space (`v1.32增加`). Never before punctuation: `<wbr>` is a break
opportunity even where UAX #14 forbids one (before `：`, `。`, `）`), so closing punctuation is
never orphaned at the start of a line.

`<wbr>` has no text: a page's text, its search text and its `<h1>` string stay the same.
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

from masthead.content.linebreak import han_words

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_WORD_CHAR = re.compile(r"\w", re.UNICODE)
_WBR = Markup("<wbr>")


def word_breaks(text: object) -> Markup:
    """`text` (plain text, escaped here) as HTML with `<wbr>` between Chinese words; text with
    no Han character comes back escaped and unchanged."""
    value = str(text)
    out: list[Markup] = []
    pos = 0
    for m in _HAN.finditer(value):
        before = value[pos : m.start()]
        out.append(escape(before))
        if before and _WORD_CHAR.match(before[-1]):
            out.append(_WBR)
        out.append(_WBR.join(escape(w) for w in han_words(m.group(0))))
        pos = m.end()
        if pos < len(value) and _WORD_CHAR.match(value[pos]):
            out.append(_WBR)
    out.append(escape(value[pos:]))
    return Markup("").join(out)  # every piece escaped above, or <wbr>
