"""Heading ids and the table of contents.

Ids are Unicode, lower-case and readable (`使用-docker-部署`, `1-setup`, `हिन्दी`), depend only on
the heading's own text, and are unique on the page: a repeated heading gets the first free `-N`
suffix that is not also the id of a real heading. Ids the product puts on a page itself are never
given to a heading: everything starting with `mh-` (templates, comments; `RESERVED` lists the
current ones) and the footnote ids `fn:N` and `fnref:N`. Ids the author wrote in raw HTML are
avoided too. In the TOC, links are percent-encoded (`#%E5%AE%89%E8%A3%85`); browsers decode them
to find the Unicode id.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import quote

RESERVED = frozenset(
    {
        "mh-main", "mh-toc", "mh-toc-sheet", "mh-toc-title", "mh-toc-sheet-title",
        "mh-footnotes", "mh-comments", "mh-top",
    }
)  # fmt: skip
_PRODUCT = re.compile(r"^(?:mh-|fn:|fnref:)")


def is_reserved(hid: str) -> bool:
    """True for ids the product uses itself (`mh-…`, footnotes' `fn:N`/`fnref:N`)."""
    return hid in RESERVED or _PRODUCT.match(hid) is not None


def _keep(ch: str) -> str:
    if ch.isspace() or ch in "-_":
        return "-"
    # letters, combining marks (Hindi, Thai and Arabic vowel signs) and digits stay
    return ch if unicodedata.category(ch)[0] in "LMN" else ""


def slugify(text: str) -> str:
    """A heading's base id: NFKC, lower-case, punctuation and symbols removed, spaces to `-`;
    never empty."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = "".join(_keep(ch) for ch in text)
    text = re.sub(r"-{2,}", "-", text).strip("-")
    return text or "section"


def unique_ids(bases: list[str], explicit: list[bool], taken: Iterable[str] = ()) -> list[str]:
    """Give each heading a unique id from its base id.

    `explicit[i]` marks ids the author wrote (`{#id}`), which are kept as written when free.
    The first occurrence of a base keeps it; later ones get `-2`, `-3`… skipping every base id
    on the page, so a suffixed id never equals a real heading's id. `taken` are ids already on
    the page (the author's raw HTML); a base the product reserves becomes `h-BASE`.
    """
    all_bases = Counter(bases)
    used: set[str] = set(taken)
    out: list[str] = []
    for raw_base, _is_explicit in zip(bases, explicit, strict=True):
        base = "h-" + raw_base if is_reserved(raw_base) else raw_base
        if base not in used:
            out.append(base)
            used.add(base)
            continue
        n = 2
        while f"{base}-{n}" in used or f"{base}-{n}" in all_bases:
            n += 1
        out.append(f"{base}-{n}")
        used.add(out[-1])
    return out


@dataclass
class TocNode:
    level: int
    id: str
    text: str
    children: list[TocNode] = field(default_factory=list)


def build_toc(headings: list[tuple[int, str, str]], lowest: int, highest: int) -> list[TocNode]:
    """Nest `(level, id, text)` headings into a tree for the `toc_levels` setting [lowest, highest].

    Headings above `lowest` (the h1 when lowest is 2) stay out. A heading becomes the child of
    the nearest earlier heading of a smaller level, so skipped levels nest correctly (an h4 right
    under an h2 is its child; an h3 before any h2 is a top-level entry) and no heading is dropped
    or promoted. The TOC keeps `highest - lowest + 1` levels of *nesting*: an h4 right under an h2
    counts as the second level, as an h3 there would, so the setting behaves the same whether or
    not the author skipped a level.
    """
    depth = highest - lowest + 1
    root: list[TocNode] = []
    stack: list[TocNode] = []
    for level, hid, text in headings:
        if level < lowest:
            continue
        node = TocNode(level, hid, text)
        while stack and stack[-1].level >= level:
            stack.pop()
        if len(stack) < depth:
            (stack[-1].children if stack else root).append(node)
        stack.append(node)
    return root


def render_toc(nodes: list[TocNode]) -> str:
    """A well-formed nested `<ol>`: every nested list sits inside an `<li>`. Empty → ""."""
    if not nodes:
        return ""
    parts = ["<ol>"]
    for node in nodes:
        href = "#" + html.escape(quote(node.id, safe=":"), quote=True)
        parts.append(f'<li><a href="{href}">{html.escape(node.text)}</a>')
        parts.append(render_toc(node.children))
        parts.append("</li>")
    parts.append("</ol>")
    return "".join(parts)
