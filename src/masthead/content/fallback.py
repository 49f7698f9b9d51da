"""markdown-it-py's syntax tree in the shape of markdown-it.rs's, for the bodies markdown-it.rs
cannot parse.

markdown-it.rs 0.6 (markdown-it-pyrs 0.4) panics on an unclosed `[` followed by a lone
backtick in the same paragraph (`Press [Ctrl]+[\\`]`, `[a\\``). Both parsers are CommonMark, so
such a body is parsed by markdown-it-py instead and written by the same `content.tree.Html`:
`tree(markdown)` gives nodes with the `name`, `attrs`, `meta` and `children` that `Html` reads
(tight lists' hidden paragraphs and `inline` containers spliced into their parent, task-list
checkboxes as `todo_checkbox`, footnote references numbered by `def_id`/`ref_id`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode
from mdit_py_plugins.deflist import deflist_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.tasklists import tasklists_plugin

_RENAME = {
    "tr": "trow", "th": "tcell", "td": "tcell", "dl": "definition_list",
    "dt": "definition_term", "dd": "definition_description",
    "footnote_block": "footnote_container", "footnote": "footnote_def",
    "footnote_anchor": "footnote_ref_anchor", "s": "strikethrough",
}  # fmt: skip
_ALIGN = re.compile(r"text-align:(left|center|right)")
_REF = 1_000_000  # ref_id = footnote id * _REF + its repeat number: unique per reference


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    md = (
        MarkdownIt("commonmark", {"html": True, "linkify": True})
        .enable(["table", "strikethrough", "linkify"])
        .use(footnote_plugin)
        .use(tasklists_plugin)
        .use(deflist_plugin)
    )
    if md.linkify is None:  # linkify-it-py is a dependency: only a broken install lacks it
        raise ModuleNotFoundError("bare URLs as links need linkify-it-py")
    md.linkify.set({"fuzzy_link": False})
    return md


class Node:
    """One node: `name`, `attrs` (HTML attributes kept: `class`), `meta`, `children`."""

    __slots__ = ("attrs", "children", "meta", "name")

    def __init__(
        self, name: str, meta: dict[str, Any], children: list[Node], cls: str = ""
    ) -> None:
        self.name = name
        self.meta = meta
        self.children = children
        self.attrs = {"class": cls} if cls else {}


def tree(markdown: str) -> Node:
    """The body's tree (root node) from markdown-it-py."""
    tokens = _parser().parse(markdown, {})
    return Node("root", {}, _children(SyntaxTreeNode(tokens)))


def _children(node: SyntaxTreeNode) -> list[Node]:
    out: list[Node] = []
    for child in node.children:
        kind = child.type
        if kind == "inline" or (kind == "paragraph" and child.hidden):
            out.extend(_children(child))
        else:
            out.append(_convert(child))
    return out


def _convert(node: SyntaxTreeNode) -> Node:
    kind = node.type
    meta: dict[str, Any] = {}
    cls = str(node.attrs.get("class", "")) if node.attrs else ""
    if kind in ("text", "html_inline", "html_block", "code_block"):
        meta["content"] = node.content
    elif kind == "fence":
        meta.update(content=node.content, info=node.info)
    elif kind == "code_inline":
        return Node(kind, {}, [Node("text", {"content": node.content}, [])])
    elif kind == "heading":
        meta["level"] = int(node.tag[1])
    elif kind == "ordered_list":
        meta["start"] = int(node.attrs.get("start", 1))
    elif kind in ("link", "image"):
        meta["url"] = str(node.attrs.get("href" if kind == "link" else "src", ""))
        if node.attrs.get("title"):
            meta["title"] = str(node.attrs["title"])
    elif kind == "table":
        meta["alignments"] = _alignments(node)
    elif kind == "footnote":
        meta["def_id"] = node.meta["id"]
    elif kind == "footnote_ref":
        fid = node.meta["id"]
        meta.update(def_id=fid, ref_id=fid * _REF + node.meta.get("subId", 0))
    elif kind == "footnote_anchor":
        meta["ref_ids"] = [node.meta["id"] * _REF + node.meta.get("subId", 0)]
    children = _children(node)
    if kind == "list_item" and "task-list-item" in cls:
        children = _checkbox(children)
    return Node(_RENAME.get(kind, kind), meta, children, cls)


def _checkbox(children: list[Node]) -> list[Node]:
    """The plugin's `<input>` (raw HTML in the item's first paragraph) as a `todo_checkbox`."""
    holder = children
    if children and children[0].name == "paragraph":
        holder = children[0].children
    if holder and holder[0].name == "html_inline":
        box = holder.pop(0)
        checked = 'checked="checked"' in box.meta["content"]
        children.insert(0, Node("todo_checkbox", {"checked": checked}, []))
    return children


def _alignments(table: SyntaxTreeNode) -> list[str]:
    for section in table.children:
        for row in section.children:
            return [_cell_align(cell) for cell in row.children]
    return []


def _cell_align(cell: SyntaxTreeNode) -> str:
    m = _ALIGN.fullmatch(str(cell.attrs.get("style", "")))
    return m.group(1) if m else "none"
