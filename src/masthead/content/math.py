"""TeX math in Markdown bodies to MathML, when the post is indexed: no script on the page.

Written as Pandoc reads it (https://pandoc.org/MANUAL.html#math, `tex_math_dollars` and
`tex_math_single_backslash`), plus GitLab's and GitHub's ```` ```math ```` fences:

- `$…$` is inline math when the opening `$` has a non-space character right after it and the
  closing `$` a non-space character right before it and no digit right after it: so "$5 and
  $10" stays text. `\\$` is a dollar sign. `$$…$$` is display math. Neither spans a blank line.
- `\\(…\\)` is inline math, `\\[…\\]` display math; a fenced block whose info string is `math` is
  display math.
- Nothing inside a code span or a fenced code block is math; an indented code block or a raw
  `<pre>`/`<code>` shows its formula as written.

The Markdown parser must not see the TeX (`_` and `*` would become emphasis), so `Formulas.extract`
puts a token in each formula's place, as `content.refs` does for `ref`: private-use characters
(U+E002 … U+E003, with base-256 digits from U+E200 between) that Markdown keeps whole in text.
Once the body is rendered and sanitized, `Formulas.place` puts each formula's MathML
(latex2mathml, with the TeX as `alttext`) where its token stands in text, the formula as
written inside code, and the TeX in an attribute (an image's `alt`); the body then passes the
sanitizer again, whose allowlist has MathML's elements (`TAGS`, `ATTRIBUTES`). Plain text for
search, excerpts and heading titles gets the TeX (`Formulas.text`), never MathML markup.

TeX that latex2mathml cannot convert (an error, or a command it does not know and would show as
its name) is shown as written, as code (`<code class="math-error">`), and reported by
`Formulas.warnings` with its offset, which `masthead check` prints with file and line.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from functools import lru_cache
from html.parser import HTMLParser

from defusedxml import ElementTree
from latex2mathml.converter import convert

_OPEN, _CLOSE, _DIGIT0 = "\ue002", "\ue003", 0xE200
_TOKEN = re.compile("\ue002[\ue200-\ue2ff]+\ue003")
_NOT_MARKUP = frozenset(
    {"code", "pre", "kbd", "samp", "script", "style", "textarea", "title", "xmp", "iframe"}
)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*([^\n]*)$", re.M)
_INTEREST = re.compile(r"[\\`$]")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_UNKNOWN_COMMAND = re.compile(r">\\[A-Za-z]+<")  # latex2mathml shows an unknown `\cmd` as text

# MathML Core elements and attributes (https://www.w3.org/TR/mathml-core/), for the sanitizer
TAGS = frozenset({
    "math", "mi", "mn", "mo", "ms", "mtext", "mrow", "msup", "msub", "msubsup", "mfrac",
    "msqrt", "mroot", "mover", "munder", "munderover", "mtable", "mtr", "mtd", "mspace",
    "mstyle", "mpadded", "mphantom", "menclose", "mmultiscripts", "mprescripts", "merror",
    "semantics", "annotation",
})  # fmt: skip
ATTRIBUTES = {
    "math": {"display", "alttext", "xmlns"},
    "mo": {"fence", "separator", "stretchy", "symmetric", "largeop", "movablelimits", "form",
           "lspace", "rspace", "minsize", "maxsize", "accent"},
    "mover": {"accent"},
    "munder": {"accentunder"},
    "munderover": {"accent", "accentunder"},
    "mfrac": {"linethickness"},
    "mspace": {"width", "height", "depth"},
    "mpadded": {"width", "height", "depth", "lspace", "voffset"},
    "mstyle": {"displaystyle", "scriptlevel", "mathvariant"},
    "mtable": {"columnalign", "rowspacing", "columnspacing", "columnlines", "rowlines", "frame",
               "displaystyle"},
    "mtd": {"columnalign", "columnspan", "rowspan"},
    "mtr": {"columnalign"},
    "menclose": {"notation"},
    "annotation": {"encoding"},
    "*": {"mathvariant", "displaystyle", "scriptlevel", "mathsize", "mathcolor", "mathbackground"},
}  # fmt: skip


def attributes() -> dict[str, set[str]]:
    """The attributes each MathML element may keep (for the sanitizer's allowlist)."""
    common = ATTRIBUTES["*"]
    return {tag: set(ATTRIBUTES.get(tag, ())) | common for tag in TAGS}


@dataclass(frozen=True)
class Formula:
    """One formula: its TeX, the `source` as written (delimiters included), whether it is
    `display` math, its MathML (None when it does not convert: `why`) and where the source
    starts in the body given to `extract`."""

    tex: str
    source: str
    display: bool
    mathml: str | None
    why: str
    offset: int


@lru_cache(maxsize=4096)
def to_mathml(tex: str, display: bool) -> tuple[str | None, str]:
    """`(MathML, "")` for `tex`, with `tex` as the `alttext`; `(None, reason)` when latex2mathml
    cannot convert it."""
    try:
        out = convert(tex, display="block" if display else "inline")
    except Exception as exc:  # latex2mathml raises many kinds, and IndexError on bad input
        return None, f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    unknown = _UNKNOWN_COMMAND.search(out)
    if unknown:
        return None, f"unknown command {unknown.group(0)[1:-1]}"
    strange = _not_mathml(out)
    if strange:
        return None, strange
    alt = html.escape(" ".join(tex.split()), quote=True)
    return out.replace("<math ", f'<math alttext="{alt}" ', 1), ""


def _not_mathml(markup: str) -> str:
    """Why latex2mathml's `markup` is not MathML alone ("" when it is): it writes `\\text{…}`'s
    text unescaped, so `\\text{<b>}` would be HTML inside the formula."""
    try:
        root = ElementTree.fromstring(markup)
    except Exception:  # not well-formed XML (defusedxml refuses entities too)
        return "text that is markup"
    for element in root.iter():
        tag = element.tag.rsplit("}", 1)[-1] if isinstance(element.tag, str) else ""
        if tag not in TAGS:
            return f"element <{tag}> in the formula"
    return ""


def _token(number: int) -> str:
    digits = ""
    while True:
        number, digit = divmod(number, 256)
        digits = chr(_DIGIT0 + digit) + digits
        if not number:
            return _OPEN + digits + _CLOSE


def _run_length(text: str, at: int, char: str) -> int:
    end = at
    while end < len(text) and text[end] == char:
        end += 1
    return end - at


class Formulas:
    """The formulas of one body, in order (`found`), and their tokens."""

    def __init__(self) -> None:
        self.found: dict[str, Formula] = {}

    # -- before Markdown -------------------------------------------------------------------

    def extract(self, body: str) -> str:
        """`body` with each formula replaced by its token (see the module docstring)."""
        if "$" not in body and "\\(" not in body and "\\[" not in body and "math" not in body:
            return body
        out: list[str] = []
        at = 0
        for fence in self._fences(body):
            start, end, info, inner = fence
            out.append(self._inline(body[at:start], at))
            if info == "math":
                out.append("\n" + self._add(inner, body[start:end], True, start) + "\n")
            else:
                out.append(body[start:end])
            at = end
        out.append(self._inline(body[at:], at))
        return "".join(out)

    @staticmethod
    def _fences(body: str) -> list[tuple[int, int, str, str]]:
        """`(start, end, info word, content)` of each fenced code block, in order."""
        found: list[tuple[int, int, str, str]] = []
        pos = 0
        while True:
            m = _FENCE.search(body, pos)
            if m is None:
                return found
            marker, info = m.group(1), m.group(2).strip()
            if marker[0] == "`" and "`" in info:  # not a fence: an inline code span
                pos = m.end()
                continue
            close = re.compile(rf"^ {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}[ \t]*$", re.M)
            c = close.search(body, m.end())
            end = c.end() if c else len(body)
            inner = body[m.end() + 1 : c.start()] if c else body[m.end() + 1 :]
            word = info.split()[0].lower() if info else ""
            found.append((m.start(), end, word, inner))
            pos = end
            if pos >= len(body):
                return found

    def _add(self, tex: str, source: str, display: bool, offset: int) -> str:
        tex = tex.strip()
        mathml, why = to_mathml(tex, display)
        token = _token(len(self.found))
        self.found[token] = Formula(tex, source, display, mathml, why, offset)
        return token

    def _inline(self, text: str, base: int) -> str:
        """`text` (no fenced code in it) with its inline and display formulas as tokens."""
        out: list[str] = []
        copied = 0
        i = 0
        n = len(text)
        while True:
            m = _INTEREST.search(text, i)
            if m is None:
                break
            i = m.start()
            c = text[i]
            found: tuple[int, int, bool] | None = None  # (tex start, end after the closer, display)
            if c == "\\":
                nxt = text[i + 1 : i + 2]
                if nxt in ("(", "["):
                    closer = "\\)" if nxt == "(" else "\\]"
                    end = self._closing(text, i + 2, closer)
                    if end is not None:
                        found = (i + 2, end + 2, nxt == "[")
                if found is None:
                    i += 2
                    continue
            elif c == "`":
                run = _run_length(text, i, "`")
                end = self._code_span_end(text, i + run, run)
                i = end if end is not None else i + run
                continue
            elif text.startswith("$$", i):
                end = self._closing(text, i + 2, "$$")
                if end is None or not text[i + 2 : end].strip():
                    i += 2
                    continue
                found = (i + 2, end + 2, True)
            else:  # one `$`: Pandoc's rules
                end = self._dollar_close(text, i + 1)
                if end is None:
                    i += 1
                    continue
                found = (i + 1, end + 1, False)
            start, stop, display = found
            closer_len = 1 if c == "$" and not display else 2
            tex = text[start : stop - closer_len]
            out.append(text[copied:i])
            out.append(self._add(tex, text[i:stop], display, base + i))
            copied = i = stop
        out.append(text[copied:n])
        return "".join(out)

    @staticmethod
    def _closing(text: str, start: int, closer: str) -> int | None:
        """Offset of `closer` after `start`, not escaped and before a blank line; None if none."""
        pos = start
        limit = _BLANK_LINE.search(text, start)
        stop = limit.start() if limit else len(text)
        while True:
            at = text.find(closer, pos, stop)
            if at == -1:
                return None
            backslashes = 0
            while at - backslashes - 1 >= start and text[at - backslashes - 1] == "\\":
                backslashes += 1
            if closer[0] == "\\":  # `\)`: its own backslash must not be escaped
                if backslashes % 2 == 0:
                    return at
            elif backslashes % 2 == 0:
                return at
            pos = at + 1

    @staticmethod
    def _dollar_close(text: str, start: int) -> int | None:
        """Where the `$` closing inline math opened before `start` stands, or None."""
        if start >= len(text) or text[start].isspace() or text[start] == "$":
            return None
        limit = _BLANK_LINE.search(text, start)  # a blank line ends the paragraph
        stop = limit.start() if limit else len(text)
        pos = start
        while pos < stop:
            ch = text[pos]
            if ch == "\\":
                pos += 2
                continue
            if ch == "$" and not text[pos - 1].isspace() and not text[pos + 1 : pos + 2].isdigit():
                return pos
            pos += 1
        return None

    @staticmethod
    def _code_span_end(text: str, start: int, run: int) -> int | None:
        """The end of the code span whose opening backtick run of length `run` ends at
        `start`: after the next run of exactly `run` backticks, before a blank line."""
        limit = _BLANK_LINE.search(text, start)
        stop = limit.start() if limit else len(text)
        pos = start
        while True:
            at = text.find("`", pos, stop)
            if at == -1:
                return None
            length = _run_length(text, at, "`")
            if length == run:
                return at + length
            pos = at + length

    # -- after Markdown --------------------------------------------------------------------

    def warnings(self) -> list[tuple[int, str]]:
        """`(offset, reason)` for each formula that does not convert."""
        return [
            (f.offset, f"math {f.source!r} does not convert ({f.why}): shown as code")
            for f in self.found.values()
            if f.mathml is None
        ]

    def found_at(self, offset: int) -> str:
        """The source as written of the formula found at `offset`, or ""."""
        return next((f.source for f in self.found.values() if f.offset == offset), "")

    def text(self, value: str) -> str:
        """Plain `value` with each token as its formula's TeX."""
        if not self.found or _OPEN not in value:
            return value
        return _TOKEN.sub(lambda m: self._tex(m.group(0)), value)

    def source(self, value: str) -> str:
        """Plain `value` (code) with each token as its formula as written."""
        if not self.found or _OPEN not in value:
            return value
        return _TOKEN.sub(lambda m: self._source(m.group(0)), value)

    def _tex(self, token: str) -> str:
        found = self.found.get(token)
        return found.tex if found else ""

    def _source(self, token: str) -> str:
        found = self.found.get(token)
        return found.source if found else ""

    def place(self, clean_html: str) -> str:
        """Sanitized `clean_html` with each token as its MathML in text, the formula as written
        inside code, the TeX in attributes. The caller sanitizes the result again."""
        if not self.found or _OPEN not in clean_html:
            return clean_html
        finder = _TextFinder()
        finder.feed(clean_html)
        finder.close()
        out: list[str] = []
        at = 0
        for start, data, is_markup in finder.chunks:
            if _OPEN not in data:
                continue
            out.append(self._attributes(clean_html[at:start]))
            out.append(self._placed(data, is_markup))
            at = start + len(data)
        out.append(self._attributes(clean_html[at:]))
        return "".join(out)

    def _placed(self, data: str, markup: bool) -> str:
        return _TOKEN.sub(lambda m: self._html(m.group(0), markup), data)

    def _attributes(self, markup: str) -> str:
        if _OPEN not in markup:
            return markup
        return _TOKEN.sub(lambda m: html.escape(self._tex(m.group(0)), quote=True), markup)

    def _html(self, token: str, markup: bool) -> str:
        found = self.found.get(token)
        if found is None:
            return ""
        if not markup:
            return html.escape(found.source, quote=False)
        if found.mathml is None:
            return f'<code class="math-error">{html.escape(found.source, quote=False)}</code>'
        return found.mathml


class _TextFinder(HTMLParser):
    """`chunks`: `(offset, raw text, is markup)` of every text run, offsets in characters;
    a run inside code or an element whose text is not markup is not markup."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.chunks: list[tuple[int, str, bool]] = []
        self._open: list[str] = []
        self._starts = [0]

    def feed(self, data: str) -> None:
        at = data.find("\n")
        while at != -1:
            self._starts.append(at + 1)
            at = data.find("\n", at + 1)
        super().feed(data)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _NOT_MARKUP:
            self._open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self._open:
            del self._open[len(self._open) - 1 - self._open[::-1].index(tag) :]

    def handle_data(self, data: str) -> None:
        line, column = self.getpos()
        self.chunks.append((self._starts[line - 1] + column, data, not self._open))
