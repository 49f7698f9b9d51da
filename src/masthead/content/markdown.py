"""Markdown to HTML: CommonMark plus GFM tables, strikethrough and task lists, bare URLs and
e-mail addresses as links, footnotes and definition lists; Pygments highlighting; heading ids and
the TOC.

Post bodies are parsed by markdown-it.rs (`block_parser`, through markdown-it-pyrs) or, where it
is missing or fails, by markdown-it-py (`content.fallback`), and written out by
`content.tree.Html` from either tree: the HTML is the same. Inline snippets (captions, author
lines) go through markdown-it-py (`render_inline`). `render()` returns the raw HTML (before
sanitizing), the headings it found and the body's plain text. Heading ids may be written by the
author as `## Title {#my-id}` (Hugo, Pandoc), otherwise they come from the text.
"""

from __future__ import annotations

import importlib
import logging
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt

try:  # an optional speed-up: wheels exist for CPython 3.9-3.12 (pyproject.toml)
    _pyrs: Any = importlib.import_module("markdown_it_pyrs")
except ImportError:  # pragma: no cover - CPython 3.13 and later
    _pyrs = None

from masthead.content import fallback
from masthead.content.text import PlainText
from masthead.content.tree import Html

log = logging.getLogger(__name__)


@lru_cache(maxsize=1)
def parser() -> MarkdownIt:
    """The markdown-it-py instance for inline Markdown (`render_inline`); bare URLs with a scheme
    become links (linkify-it-py), as in bodies."""
    md = MarkdownIt("commonmark", {"html": True, "linkify": True}).enable(
        ["strikethrough", "linkify"]
    )
    if md.linkify is None:  # linkify-it-py is a dependency: only a broken install lacks it
        raise ModuleNotFoundError("bare URLs as links need linkify-it-py")
    md.linkify.set({"fuzzy_link": False})
    return md


@lru_cache(maxsize=1)
def block_parser() -> Any:
    """The post-body parser: markdown-it.rs, CommonMark plus GFM tables, strikethrough, task
    lists, bare URLs with a scheme as links (`README.md` and `www.…` stay text), footnotes and
    definition lists. It gives a syntax tree, about 20
    times faster than markdown-it-py parses (docs/performance.md). None without
    markdown-it-pyrs (CPython 3.13+): then every body takes `content.fallback`."""
    if _pyrs is None:
        return None
    md = _pyrs.MarkdownIt("commonmark")
    md.enable_many(["table", "strikethrough", "linkify", "footnote", "tasklist", "deflist"])
    return md


class NestingError(ValueError):
    """A body whose inline Markdown nests deeper than Python's recursion limit allows (thousands
    of levels of emphasis: no real post); `parse_post` reports it as a content error."""


@dataclass(frozen=True)
class Rendered:
    """`html` (unsanitized), the `(level, id, text)` of every heading, and `text`: the body's
    plain text read from the syntax tree, or None when the body holds raw HTML, whose text only
    the sanitized HTML shows (`content.text.prose_and_code`)."""

    html: str
    headings: list[tuple[int, str, str]]
    text: PlainText | None = None


def render(markdown: str, labels: dict[str, str] | None = None) -> Rendered:
    """Render a post body; `labels` may give `footnotes_label`, `backref_label`, `code_label`
    and `table_label` in the post's language. One walk over the tree writes the HTML, the
    headings and the plain text. Raises `NestingError` for a body nested thousands deep."""
    out = Html(labels or {})
    try:
        out.run(_tree(markdown))
    except RecursionError:  # a tree deeper than the tests above let through
        out = Html(labels or {})
        try:
            out.run(fallback.tree(markdown))
        except RecursionError:
            raise NestingError("Markdown nested too deeply to render (emphasis or links)") from None
    return Rendered(out.html(), out.headings, out.plain())


_BACKTICKS = re.compile(r"`+")
_DEEP_PREFIX = re.compile(r"^[ \t>*+\-.)0-9]{100,}", re.M)
_DELIMITERS = 600  # `*`, `_`, `~` in a body; the k8s-blog's most is 106
_BRACKETS = 1000


def _needs_fallback(markdown: str) -> bool:
    """True for the bodies markdown-it.rs 0.6 must not parse: it panics on an unclosed `[`
    followed by a lone backtick (some length of backtick run occurs an odd number of times); it
    has no nesting limit, so that a line starting with a long run of container markers (`>`,
    list markers, indentation: 100 characters or more) can overflow its stack (a segfault, not
    an exception) and a long run of emphasis delimiters or brackets nests deeper than Python's
    recursion limit allows the writer; and emphasis bombs (`*a _b ` × 8,000) take it seconds.
    markdown-it-py stops nesting at 20 levels. Cheap tests (a few microseconds a post) that err
    on the side of the fallback; the `except` in `_tree` catches what they miss."""
    if sum(markdown.count(c) for c in "*_~") > _DELIMITERS or markdown.count("[") > _BRACKETS:
        return True
    if _DEEP_PREFIX.search(markdown):
        return True
    if "[" not in markdown or "`" not in markdown:
        return False
    runs = Counter(len(run) for run in _BACKTICKS.findall(markdown))
    return any(count % 2 for count in runs.values())


def _tree(markdown: str) -> Any:
    rust = block_parser()
    if rust is None or _needs_fallback(markdown):
        return fallback.tree(markdown)
    try:
        return rust.tree(markdown)
    except BaseException as exc:  # a Rust panic is a BaseException (pyo3's PanicException)
        if type(exc).__name__ != "PanicException":
            raise
        # Rust has printed its panic message on stderr; say what became of the body
        log.info("markdown-it.rs failed on a body (%s); markdown-it-py parsed it", exc)
        return fallback.tree(markdown)  # the same CommonMark tree, from markdown-it-py


def render_inline(markdown: str) -> str:
    """Inline Markdown (captions, author lines) to HTML, unsanitized."""
    return parser().renderInline(markdown)
