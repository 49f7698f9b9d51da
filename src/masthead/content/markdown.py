"""Markdown to HTML: CommonMark (markdown-it-py) plus GFM tables, strikethrough, task lists,
footnotes, definition lists and bare URLs as links (linkify); Pygments highlighting; heading ids
and the TOC.

`render()` returns the raw HTML (before sanitizing) and the headings it found. Heading ids may be
written by the author as `## Title {#my-id}` (Hugo, Pandoc), otherwise they come from the text.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from mdit_py_plugins.deflist import deflist_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.tasklists import tasklists_plugin
from pygments import highlight as _pygments_highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from masthead.content.headings import is_reserved, slugify, unique_ids

_EXPLICIT_ID = re.compile(r"\s*\{#([\w:.-]+)\}\s*$", re.UNICODE)
_RAW_ID = re.compile(r"""(?<![\w-])\s*id\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))""", re.I)


def _raw_html_ids(tokens: list[Token], found: set[str] | None = None) -> set[str]:
    """Ids the author wrote in raw HTML (`<a id="x">`); heading ids will not repeat them.

    An id the product reserves (`mh-…`, `fn:N`) or one an earlier element already has is removed
    from the author's HTML, so that every id on the page stays unique (also with `raw_html`).
    """
    found = set() if found is None else found

    def keep_first(m: re.Match[str]) -> str:
        value = next((g for g in m.groups() if g is not None), "")
        if not value or value in found or is_reserved(value):
            return ""
        found.add(value)
        return m.group(0)

    for tok in tokens:
        if tok.type in ("html_block", "html_inline") and "id" in tok.content.lower():
            tok.content = _RAW_ID.sub(keep_first, tok.content)
        if tok.children:
            _raw_html_ids(tok.children, found)
    return found


_FORMATTER = HtmlFormatter(nowrap=True)


@lru_cache(maxsize=256)  # a translation repeats its original's code blocks (k8s-blog: 1 in 4)
def _highlighted(code: str, name: str) -> str:
    """The Pygments token spans of `code` in language `name` (escaped text if none/unknown)."""
    try:
        lexer = get_lexer_by_name(name) if name else None
    except ClassNotFound:
        lexer = None
    return _pygments_highlight(code, lexer, _FORMATTER) if lexer is not None else html.escape(code)


def highlight(code: str, lang: str, _attrs: Any = None, label: str = "Code") -> str:
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


def _code_block(code: str, info: str, env: Any) -> str:
    """A code block in its frame: `<div class="code-block" data-lang>` around the `<pre>`. The
    frame carries the language (site.css shows it from `data-lang`, so it is no text of the page)
    and, with script, the copy button (site.js)."""
    name = info.split()[0].lower() if info.strip() else ""
    lang_attr = f' data-lang="{html.escape(name, quote=True)}"' if name else ""
    pre = highlight(code, name, None, env.get("code_label", "Code"))
    return f'<div class="code-block"{lang_attr}>{pre.rstrip()}</div>\n'


def _fence(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    return _code_block(tokens[idx].content, tokens[idx].info, env)


def _indented_code(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    return _code_block(tokens[idx].content, "", env)


def _table_open(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    # a wide table scrolls in its own focusable frame, never the page (axe
    # scrollable-region-focusable); the table itself takes the column's width (site.css)
    label = html.escape(env.get("table_label", "Table"), quote=True)
    table = self.renderToken(tokens, idx, options, env)
    return f'<div class="table-scroll" tabindex="0" role="group" aria-label="{label}">\n{table}'


def _table_close(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    return self.renderToken(tokens, idx, options, env) + "</div>\n"


def _wrap_raw_tables(state: StateCore) -> None:
    """Core rule: an author's `<table>` in raw HTML gets the same scroll frame as a Markdown
    table, when its HTML blocks (one, or several split by blank lines) open and close it."""
    label = html.escape(state.env.get("table_label", "Table"), quote=True)
    blocks = [t for t in state.tokens if t.type == "html_block"]
    for i, tok in enumerate(blocks):
        if not tok.content.lstrip().lower().startswith("<table"):
            continue
        end = next((b for b in blocks[i:] if b.content.rstrip().lower().endswith("</table>")), None)
        if end is None:
            continue
        frame = f'<div class="table-scroll" tabindex="0" role="group" aria-label="{label}">\n'
        tok.content = frame + tok.content
        end.content = end.content.rstrip() + "\n</div>\n"


def _plain(tokens: list[Token] | None) -> str:
    out: list[str] = []
    for tok in tokens or []:
        if tok.type in ("text", "code_inline"):
            out.append(tok.content)
        elif tok.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif tok.children:
            out.append(_plain(tok.children))
    return "".join(out)


def _heading_ids(state: StateCore) -> None:
    """Core rule: give every heading an id and record `(level, id, text)` in env["headings"]."""
    tokens = state.tokens
    found: list[tuple[int, int, str, bool]] = []  # token index, level, base id, explicit
    texts: list[str] = []
    for i, tok in enumerate(tokens):
        if tok.type != "heading_open":
            continue
        inline = tokens[i + 1]
        explicit = False
        m = _EXPLICIT_ID.search(inline.content)
        if m and inline.children:
            last = inline.children[-1]
            if last.type == "text" and _EXPLICIT_ID.search(last.content):
                last.content = _EXPLICIT_ID.sub("", last.content)
                inline.content = _EXPLICIT_ID.sub("", inline.content)
                explicit = True
        text = " ".join(_plain(inline.children).split())
        base = m.group(1) if explicit and m else slugify(text)
        found.append((i, int(tok.tag[1]), base, explicit))
        texts.append(text)
    ids = unique_ids([f[2] for f in found], [f[3] for f in found], _raw_html_ids(tokens))
    headings = []
    for (i, level, _base, _explicit), hid, text in zip(found, ids, texts, strict=True):
        tokens[i].attrSet("id", hid)
        headings.append((level, hid, text))
    state.env["headings"] = headings


_ALIGN = re.compile(r"text-align:(left|center|right)")


def _align_classes(state: StateCore) -> None:
    """Core rule: table alignment as `class="align-…"` instead of markdown-it's `style`
    attribute, which a `style-src 'self'` Content-Security-Policy blocks (site.css styles it)."""
    for tok in state.tokens:
        if tok.type not in ("th_open", "td_open"):
            continue
        m = _ALIGN.fullmatch(str(tok.attrs.pop("style", "")))
        if m:
            tok.attrJoin("class", f"align-{m.group(1)}")


def _footnote_name(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    # "fn:1" cannot collide with a heading id: heading ids never contain a colon
    return ":" + str(tokens[idx].meta["id"] + 1)


def _footnote_block_open(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    label = html.escape(env.get("footnotes_label", "Footnotes"), quote=True)
    return (
        f'<section class="footnotes" id="mh-footnotes" aria-label="{label}">\n'
        '<ol class="footnotes-list">\n'
    )


def _footnote_anchor(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    ident = self.rules["footnote_anchor_name"](tokens, idx, options, env)
    if tokens[idx].meta["subId"] > 0:
        ident += ":" + str(tokens[idx].meta["subId"])
    label = html.escape(env.get("backref_label", "Back to content"), quote=True)
    return (
        f' <a href="#fnref{ident}" class="footnote-backref" aria-label="{label}">\u21a9\ufe0e</a>'
    )


@lru_cache(maxsize=1)
def parser() -> MarkdownIt:
    """The shared markdown-it instance (CommonMark + the plugins of DESIGN.md)."""
    md = (
        MarkdownIt("commonmark", {"html": True, "highlight": highlight, "linkify": True})
        .enable(["table", "strikethrough", "linkify"])
        .use(footnote_plugin)
        .use(tasklists_plugin, label=True)  # the item's text names its checkbox (axe: label)
        .use(deflist_plugin)
    )
    # bare URLs become links (linkify-it-py), only with a scheme: `README.md` stays text
    if md.linkify is None:  # linkify-it-py is a dependency: only a broken install lacks it
        raise ModuleNotFoundError("bare URLs as links need linkify-it-py")
    md.linkify.set({"fuzzy_link": False})
    md.core.ruler.push("masthead_heading_ids", _heading_ids)
    md.core.ruler.push("masthead_align_classes", _align_classes)
    md.core.ruler.push("masthead_raw_tables", _wrap_raw_tables)
    md.add_render_rule("footnote_anchor_name", _footnote_name)
    md.add_render_rule("footnote_block_open", _footnote_block_open)
    md.add_render_rule("footnote_anchor", _footnote_anchor)
    md.add_render_rule("fence", _fence)
    md.add_render_rule("code_block", _indented_code)
    md.add_render_rule("table_open", _table_open)
    md.add_render_rule("table_close", _table_close)
    return md


@dataclass(frozen=True)
class Rendered:
    html: str
    headings: list[tuple[int, str, str]]
    tokens: list[Token] = field(default_factory=list)  # the block tokens the HTML came from


def render(markdown: str, labels: dict[str, str] | None = None) -> Rendered:
    """Render Markdown; `labels` may give `footnotes_label`, `backref_label`, `code_label` and
    `table_label` in the post's language. Returns the unsanitized HTML, the `(level, id, text)`
    of every heading and the tokens (for `content.text.from_tokens`: the text without parsing
    the HTML again)."""
    env: dict[str, Any] = dict(labels or {})
    md = parser()
    tokens = md.parse(markdown, env)
    out = md.renderer.render(tokens, md.options, env)
    return Rendered(out, env.get("headings", []), tokens)


def render_inline(markdown: str) -> str:
    """Inline Markdown (captions, author lines) to HTML, unsanitized."""
    return parser().renderInline(markdown)
