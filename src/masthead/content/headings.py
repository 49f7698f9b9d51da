"""Heading ids and the table of contents.

Ids are Unicode, lower-case and readable (`使用-docker-部署`, `1-setup`), depend only on the
heading's own text, and are unique on the page: a repeated heading gets the first free `-N` suffix
that is not also the id of a real heading, and ids the page uses itself (`RESERVED`) are skipped.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field

RESERVED = frozenset(
    {"mh-main", "mh-toc", "mh-toc-sheet", "mh-toc-title", "mh-footnotes", "mh-comments", "mh-top"}
)
_DROP = re.compile(r"[^\w\s-]", re.UNICODE)


def slugify(text: str) -> str:
    """A heading's base id: NFKC, lower-case, punctuation removed, spaces to `-`; never empty."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = _DROP.sub("", text)
    text = re.sub(r"[\s_]+", "-", text).strip("-")
    text = re.sub(r"-{2,}", "-", text)
    return text or "section"


def unique_ids(bases: list[str], explicit: list[bool]) -> list[str]:
    """Give each heading a unique id from its base id.

    `explicit[i]` marks ids the author wrote (`{#id}`), which are kept as written when free.
    The first occurrence of a base keeps it; later ones get `-2`, `-3`… skipping every base id
    on the page, so a suffixed id never equals a real heading's id.
    """
    all_bases = Counter(bases)
    taken: set[str] = set(RESERVED)
    out: list[str] = []
    for base, _is_explicit in zip(bases, explicit, strict=True):
        if base not in taken:
            out.append(base)
            taken.add(base)
            continue
        n = 2
        while f"{base}-{n}" in taken or f"{base}-{n}" in all_bases:
            n += 1
        out.append(f"{base}-{n}")
        taken.add(out[-1])
    return out


@dataclass
class TocNode:
    level: int
    id: str
    text: str
    children: list[TocNode] = field(default_factory=list)


def build_toc(headings: list[tuple[int, str, str]], lowest: int, highest: int) -> list[TocNode]:
    """Nest `(level, id, text)` headings with levels in [lowest, highest] into a tree.

    A heading becomes the child of the nearest earlier heading of a smaller level, so skipped
    levels nest correctly (h2 → h4 is a child) and no heading is dropped or promoted.
    """
    root: list[TocNode] = []
    stack: list[TocNode] = []
    for level, hid, text in headings:
        if not lowest <= level <= highest:
            continue
        node = TocNode(level, hid, text)
        while stack and stack[-1].level >= level:
            stack.pop()
        (stack[-1].children if stack else root).append(node)
        stack.append(node)
    return root


def render_toc(nodes: list[TocNode]) -> str:
    """A well-formed nested `<ol>`: every nested list sits inside an `<li>`. Empty → ""."""
    if not nodes:
        return ""
    parts = ["<ol>"]
    for node in nodes:
        href = "#" + html.escape(node.id, quote=True)
        parts.append(f'<li><a href="{href}">{html.escape(node.text)}</a>')
        parts.append(render_toc(node.children))
        parts.append("</li>")
    parts.append("</ol>")
    return "".join(parts)
