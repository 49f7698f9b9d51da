"""A thread's comments as the tree readers see: pure, no store or web imports.

`build(rows, depth=, order=, per_page=, page=)` takes a thread's rows (anything with the
attributes of `store.comments.Comment` that it reads: `id`, `parent_id`, `status`,
`author_name`, `created`) and returns a `ThreadView`:

- every reply hangs under its real parent (never moved to the top level, C39);
- a row that is not `approved` (removed, held, spam, a `deleted` placeholder) is drawn as a
  placeholder (`Node.removed`: no name, no text) when approved replies hang under it, and left
  out when none do; a parent missing from `rows` altogether (hard-deleted) gets a placeholder
  too, so no reply is ever orphaned or says "in reply to" nobody;
- nesting is drawn to `depth` levels (WordPress's `thread_comments_depth`): the replies below
  the last level are drawn at that level, depth first, each with `reply_to`, the name it
  answers (C40), or `reply_to_removed` when it answers a placeholder;
- top-level comments in `order` (`"oldest"` or `"newest"` first), replies oldest first;
  pages of `per_page` top-level comments; `page` is 1-based.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


class Row(Protocol):
    """What `build` reads of a comment (`store.comments.Comment` has it)."""

    @property
    def id(self) -> int: ...
    @property
    def parent_id(self) -> int | None: ...
    @property
    def status(self) -> str: ...
    @property
    def author_name(self) -> str: ...
    @property
    def created(self) -> float: ...


@dataclass
class Node:
    """One comment as drawn. `level` is 1 for a top-level comment, at most the depth cap;
    `comment` is the row (None for a placeholder of a parent missing from the rows);
    `removed`: drawn as "comment removed", with no name and no text; `reply_to`: the name of
    the comment it answers when it is not drawn nested under it (below the depth cap);
    `reply_to_removed`: likewise when that comment is a placeholder; `replies`: drawn under it."""

    id: int
    parent_id: int | None
    level: int
    comment: Any
    removed: bool
    reply_to: str | None = None
    reply_to_removed: bool = False
    replies: list[Node] = field(default_factory=list)


@dataclass(frozen=True)
class ThreadView:
    """A page of a thread: `nodes` (its top-level comments, replies nested), `page` (1-based),
    `pages` (at least 1), `total` (approved comments in the whole thread: what readers see),
    `top_level` (top-level nodes in the whole thread, placeholders included), `depth` (the cap)."""

    nodes: list[Node]
    page: int
    pages: int
    total: int
    top_level: int
    depth: int

    def walk(self) -> Iterable[Node]:
        """Every node of this page, depth first, in drawing order."""
        stack = list(reversed(self.nodes))
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.replies))


class PageOutOfRange(ValueError):
    """`page` is below 1 or past the last page of the thread."""


def build(
    rows: Sequence[Row],
    *,
    depth: int = 5,
    order: str = "oldest",
    per_page: int = 50,
    page: int = 1,
    nearest: bool = False,
) -> ThreadView:
    """The tree of `rows` (one thread, any order) as described in the module docstring.

    Raises `ValueError` for `depth` or `per_page` below 1 or an unknown `order`, and
    `PageOutOfRange` for a `page` outside 1..pages (page 1 of an empty thread exists); with
    `nearest`, such a page is the nearest one the thread has instead (the view's `page`)."""
    if depth < 1 or per_page < 1 or order not in ("oldest", "newest"):
        raise ValueError(f"bad thread options: depth={depth} per_page={per_page} order={order}")
    by_id = {r.id: r for r in rows}
    children: dict[int | None, list[int]] = {}
    missing: dict[int, tuple[float, int]] = {}  # a hard-deleted parent: its first reply
    for r in sorted(rows, key=lambda r: (r.created, r.id)):
        parent = r.parent_id
        if parent is not None and parent not in by_id and parent not in missing:
            missing[parent] = (r.created, r.id)
        children.setdefault(parent, []).append(r.id)
    roots = children.get(None, []) + list(missing)
    first = {cid: (by_id[cid].created, cid) if cid in by_id else missing[cid] for cid in roots}
    roots.sort(key=first.__getitem__, reverse=order == "newest")
    shown = _shown(by_id, children, roots)
    tree = _Tree(by_id, children, shown, depth)
    groups = [tree.draw(cid, None, 1) for cid in roots if cid in shown]
    pages = max(1, math.ceil(len(groups) / per_page))
    if nearest:
        page = min(max(page, 1), pages)
    elif page < 1 or page > pages:
        raise PageOutOfRange(f"page {page} of {pages}")
    nodes = [n for g in groups[(page - 1) * per_page : page * per_page] for n in g]
    total = sum(1 for cid in shown if cid in by_id and by_id[cid].status == "approved")
    return ThreadView(nodes, page, pages, total, len(groups), depth)


def _shown(
    by_id: dict[int, Row], children: dict[int | None, list[int]], roots: list[int]
) -> set[int]:
    """Ids drawn: approved rows reachable from `roots`, and every row (or missing id) above
    one. Iterative: a chain of any length is fine."""
    order: list[int] = []
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        cid = stack.pop()
        if cid in seen:
            continue
        seen.add(cid)
        order.append(cid)
        stack.extend(children.get(cid, []))
    shown: set[int] = set()
    for cid in reversed(order):  # every child before its parent
        row = by_id.get(cid)
        if (row is not None and row.status == "approved") or any(
            k in shown for k in children.get(cid, [])
        ):
            shown.add(cid)
    return shown


@dataclass
class _Tree:
    by_id: dict[int, Row]
    children: dict[int | None, list[int]]
    shown: set[int]
    depth: int

    def node(self, cid: int, parent: Node | None, level: int) -> Node:
        row = self.by_id.get(cid)
        return Node(
            cid,
            parent.id if parent else None,
            level,
            row,
            row is None or row.status != "approved",
        )

    def kids(self, cid: int) -> list[int]:
        return [k for k in self.children.get(cid, []) if k in self.shown]

    def draw(self, cid: int, parent: Node | None, level: int) -> list[Node]:
        """The nodes drawn at `level` for comment `cid`: itself, its replies nested under it
        while `level` is below the cap; at the cap, itself and then every descendant."""
        node = self.node(cid, parent, level)
        if level < self.depth:
            node.replies = [n for k in self.kids(cid) for n in self.draw(k, node, level + 1)]
            return [node]
        out = [node]
        stack = [(k, node) for k in reversed(self.kids(cid))]
        while stack:  # depth first, each naming the comment it answers
            kid, above = stack.pop()
            child = self.node(kid, above, level)
            if above.removed:
                child.reply_to_removed = True
            else:
                child.reply_to = above.comment.author_name
            out.append(child)
            stack.extend((g, child) for g in reversed(self.kids(kid)))
        return out
