"""Code blocks: Pygments highlighting and the frame every code block of a post is drawn in."""

from __future__ import annotations

import html
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


def highlight(code: str, lang: str, label: str = "Code") -> str:
    """A fenced block as `<pre class="highlight"><code>` with Pygments token classes.

    Unknown languages and fences without one are escaped as plain text. The `<pre>` is focusable
    (`tabindex="0"`) and named `label (lang)`, so that a reader without a mouse can scroll a long
    line into view (WCAG 2.1.1; axe `scrollable-region-focusable`).
    """
    name = (lang or "").split()[0].lower() if lang else ""
    lang_attr = f' data-lang="{html.escape(name, quote=True)}"' if name else ""
    body = _highlighted(code, name)
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
    indented block); its first word is the language."""
    name = info.split()[0].lower() if info.strip() else ""
    lang_attr = f' data-lang="{html.escape(name, quote=True)}"' if name else ""
    pre = highlight(code, name, label)
    return f'<div class="code-block"{lang_attr}>{pre.rstrip()}</div>\n'
