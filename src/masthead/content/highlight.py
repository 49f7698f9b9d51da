"""Code blocks: Pygments highlighting and the frame every code block of a post is drawn in.

A fence's info string may carry Hugo's highlighting options after the language, in braces
(https://gohugo.io/content-management/syntax-highlighting/#highlighting-in-code-fences):
`python {linenos=table, hl_lines=[2, "4-5"], linenostart=10}`; Hugo's `highlight` shortcode
becomes such a fence (`content.shortcodes`). They are drawn as Hugo draws them: each line in a
`<span class="line">`, the highlighted ones `line hl`, and with `linenos` (`true`, `inline` or
`table`) the line's number first, in a `<span class="ln">` that screen readers skip and the
copy button leaves out. `hl_lines` counts the block's lines from 1 whatever `linenostart` says,
as in Hugo ("independent of linenostart").
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from functools import lru_cache

from pygments import highlight as _pygments_highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.token import Whitespace, _TokenType
from pygments.util import ClassNotFound

from masthead.content.lexing import speed_up


class _Formatter(HtmlFormatter):
    """Pygments' HTML with no `<span class="w">` around whitespace: a colour on spaces shows
    nothing (the site's styles give `.w` a colour only), and those spans were a quarter of a
    code block's elements, each parsed again by the sanitizer (20% less code HTML)."""

    def _get_css_classes(self, ttype: _TokenType) -> str:
        return "" if ttype in Whitespace else super()._get_css_classes(ttype)


_FORMATTER = _Formatter(nowrap=True)


@lru_cache(maxsize=256)  # a translation repeats its original's code blocks (k8s-blog: 1 in 4)
def _highlighted(code: str, name: str) -> str:
    """The Pygments token spans of `code` in language `name` (escaped text if none/unknown)."""
    lexer = _lexer(name)
    return _pygments_highlight(code, lexer, _FORMATTER) if lexer is not None else html.escape(code)


@lru_cache(maxsize=128)
def _lexer(name: str) -> Lexer | None:
    """Pygments' lexer for `name`, made once per process (150 µs each: a lookup through every
    lexer's aliases) and lexing with its rules joined (`lexing.speed_up`: the same tokens, half
    the time); None if none or unknown. A RegexLexer keeps no state between texts."""
    try:
        return speed_up(get_lexer_by_name(name)) if name else None
    except ClassNotFound:
        return None


_OPTIONS = re.compile(r"\{([^{}]*)\}\s*$")
_OPTION = re.compile(r"""([\w-]+)\s*=\s*(\[[^\]]*\]|"[^"]*"|'[^']*'|[^\s,]+)""")
_RANGE = re.compile(r"(\d+)(?:\s*-\s*(\d+))?")


@dataclass(frozen=True)
class Lines:
    """How a block's lines are drawn: `numbers` (line numbers shown), `start` (the first
    line's number) and `marked` (the highlighted lines, the first line being 1)."""

    numbers: bool = False
    start: int = 1
    marked: frozenset[int] = frozenset()


def options(info: str) -> tuple[str, Lines | None]:
    """A fence's info string split into the language and its Hugo options (None: none given).

    `linenos` is `true`, `inline` or `table` (numbers) or `false`; `hl_lines` is a list of
    numbers and ranges, `[2, "4-5"]` or `"2 4-5"`; `linenostart` a number. Unknown options
    (`style`, `anchorlinenos`…) are ignored, as the site's colours are the theme's."""
    found = _OPTIONS.search(info)
    if found is None:
        return info, None
    values = {k.lower(): v.strip("\"'") for k, v in _OPTION.findall(found.group(1))}
    numbers = values.get("linenos", "false").lower() in ("true", "inline", "table")
    try:
        start = max(0, int(values.get("linenostart", "1")))
    except ValueError:
        start = 1
    marked: set[int] = set()
    for low, high in _RANGE.findall(values.get("hl_lines", "")):
        first = int(low)
        marked.update(range(first, min(int(high or low), first + 10_000) + 1))
    return info[: found.start()].strip(), Lines(numbers, start, frozenset(marked))


def _lines(body: str, lines: Lines) -> str:
    """Pygments' HTML of a block (its spans never cross a line) drawn line by line."""
    rows = body.split("\n")
    if rows and rows[-1] == "":
        rows.pop()
    width = len(str(lines.start + len(rows) - 1))
    out = []
    for at, row in enumerate(rows, start=1):
        number = lines.start + at - 1
        cls = "line hl" if at in lines.marked else "line"
        ln = (
            f'<span class="ln" aria-hidden="true">{str(number).rjust(width)}</span>'
            if lines.numbers
            else ""
        )
        out.append(f'<span class="{cls}">{ln}<span class="cl">{row}\n</span></span>')
    return "".join(out)


def highlight(code: str, lang: str, label: str = "Code", lines: Lines | None = None) -> str:
    """A fenced block as `<pre class="highlight"><code>` with Pygments token classes.

    Unknown languages and fences without one are escaped as plain text. The `<pre>` is focusable
    (`tabindex="0"`) and named `label (lang)`, so that a reader without a mouse can scroll a long
    line into view (WCAG 2.1.1; axe `scrollable-region-focusable`).
    """
    name = (lang or "").split()[0].lower() if lang else ""
    lang_attr = f' data-lang="{html.escape(name, quote=True)}"' if name else ""
    body = _highlighted(code, name)
    if lines is not None:
        body = _lines(body, lines)
    cls = f' class="language-{html.escape(name, quote=True)}"' if name else ""
    named = html.escape(f"{label} ({name})" if name else label, quote=True)
    return (
        f'<pre class="highlight"{lang_attr} tabindex="0" role="group" aria-label="{named}">'
        f"<code{cls}>{body}</code></pre>\n"
    )


def code_block(code: str, info: str, label: str = "Code") -> str:
    """A code block in its frame: `<div class="code-block" data-lang>` around the `<pre>`. The
    frame carries the language (site.css shows it from `data-lang`, so it is no text of the page)
    and, with script, the copy button (site.js). `info` is the fence's info string ("" for an
    indented block); its first word is the language, and Hugo's options may follow in braces
    (`options`)."""
    info, lines = options(info) if "{" in info else (info, None)
    name = info.split()[0].lower() if info.strip() else ""
    lang_attr = f' data-lang="{html.escape(name, quote=True)}"' if name else ""
    pre = highlight(code, name, label, lines)
    return f'<div class="code-block"{lang_attr}>{pre.rstrip()}</div>\n'
