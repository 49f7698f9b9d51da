"""HTML, headings and plain text of a post body from markdown-it.rs's syntax tree, in one walk.

The HTML is markdown-it's (CommonMark's reference output, with the line breaks of
markdown-it's `renderToken`), plus the product's markup: code blocks in a labelled frame
(`content.highlight`), tables in a focusable scroll frame with alignment as classes (a
`style-src 'self'` CSP blocks `style`), heading ids (explicit `{#id}` or from the text, unique,
never an id the author's raw HTML already uses), footnotes numbered in order of first
reference (`fn:N`, `fnref:N`, `fnref:N:K` for the K-th repeat, as mdit-py-plugins writes them)
and task-list checkboxes inside a `<label>` with the item's text. The text is one line per block,
for search, excerpts and word counts (`content.text.PlainText`); Hugo's summary divider
`<!--more-->` is not written, and the text before it is the excerpt.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from linkify_it import LinkifyIt

from masthead.content import diagrams
from masthead.content.headings import is_reserved, slugify, unique_ids
from masthead.content.highlight import code_block
from masthead.content.text import PlainText, lines, table_lines

Node = Any  # markdown_it_pyrs.Node: name, attrs, meta, children

_EXPLICIT_ID = re.compile(r"\s*\{#([\w:.-]+)\}\s*$", re.UNICODE)
_RAW_ID = re.compile(r"""(?<![\w-])\s*id\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))""", re.I)
_BLOCK = frozenset({
    "paragraph", "heading", "lheading", "blockquote", "bullet_list", "ordered_list", "list_item",
    "fence", "code_block", "html_block", "hr", "table", "thead", "tbody", "trow", "tcell",
    "definition_list", "definition_term", "definition_description", "footnote_container",
    "footnote_def", "footnote_ref_anchor", "todo_checkbox", "definition",
})  # fmt: skip
MORE = "<!--more-->"  # Hugo's summary divider
_SIMPLE = {"em": "em", "strong": "strong", "strikethrough": "s"}
_CHECKBOX = '<input class="task-list-item-checkbox"{} disabled="disabled" type="checkbox">'


def escape(text: str) -> str:
    """markdown-it's `escapeHtml`: `& < > "` as entities (text and attribute values)."""
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    if '"' in text:
        text = text.replace('"', "&quot;")
    return text


def _plain(nodes: Sequence[Node]) -> str:
    """Heading text: text and code, breaks as spaces, links' and images' text; no raw HTML."""
    out: list[str] = []
    for node in nodes:
        name = node.name
        if name in ("text", "text_special"):
            out.append(node.meta["content"])
        elif name in ("softbreak", "hardbreak"):
            out.append(" ")
        elif name != "html_inline":
            out.append(_plain(node.children))
    return "".join(out)


def _alt(nodes: Sequence[Node]) -> str:
    """An image's `alt`: CommonMark's plain content (markdown-it's `renderInlineAsText`)."""
    out: list[str] = []
    for node in nodes:
        name = node.name
        if name in ("text", "text_special", "html_inline"):
            out.append(node.meta["content"])
        elif name in ("softbreak", "hardbreak"):
            out.append("\n")
        else:
            out.append(_alt(node.children))
    return "".join(out)


class Html:
    """One body's rendering: call `run(tree)`, then read `html()`, `headings` and `plain()`.

    `labels` gives the accessible names in the post's language: `code_label`, `table_label`,
    `footnotes_label`, `backref_label`.
    """

    def __init__(self, labels: Mapping[str, str]) -> None:
        self.labels = labels
        self.out: list[str] = []
        self.headings: list[tuple[int, str, str]] = []
        self._heads: list[tuple[int, int, str, bool, str]] = []  # part, level, base, explicit
        self._raw_ids: set[str] = set()
        self._html_blocks: list[int] = []  # parts that are raw HTML blocks (for table frames)
        self._after_hidden = False  # the last token was a tight list's hidden paragraph close
        self._fn_number: dict[int, int] = {}  # def_id -> number, in order of first reference
        self._fn_refs: dict[int, list[int]] = {}  # def_id -> its ref_ids, in order
        self._prose: list[str] = []
        self._code: list[str] = []
        self._excerpt = ""
        self._raw = False  # raw HTML met: the text must come from the sanitized HTML
        self._more: int | None = None  # where `<!--more-->` divides the summary (in _prose)
        self._links = 0  # depth of links around the current inline node

    # -- results ---------------------------------------------------------------------------

    def html(self) -> str:
        return "".join(self.out)

    def plain(self) -> PlainText | None:
        if self._raw:
            return None
        if self._more is not None:
            summary = lines(self._prose[: self._more]).replace("\n", " ")
            if summary:
                return PlainText(lines(self._prose), lines(self._code), summary, divided=True)
        return PlainText(lines(self._prose), lines(self._code), self._excerpt)

    def _divider(self, content: str) -> bool:
        """Whether raw HTML `content` is Hugo's summary divider, `<!--more-->` (noted, not
        written: it is no part of the page)."""
        if content.strip() != MORE:
            return False
        if self._more is None:
            self._more = len(self._prose)
        return True

    def run(self, root: Node) -> None:
        self._blocks(root.children)
        self._finish_headings()
        self._frame_raw_tables()

    # -- blocks ----------------------------------------------------------------------------

    def _open(self, tag: str, attrs: str = "", *, lf: bool = True) -> None:
        """markdown-it's renderToken for an opening block tag: a line break before it after a
        hidden paragraph, and after it unless inline content follows."""
        if self._after_hidden:
            self.out.append("\n")
            self._after_hidden = False
        self.out.append(f"<{tag}{attrs}>\n" if lf else f"<{tag}{attrs}>")
        self._prose.append("\n")

    def _close(self, tag: str) -> None:
        self._after_hidden = False
        self.out.append(f"</{tag}>\n")
        self._prose.append("\n")

    def _container(self, tag: str, attrs: str, children: Sequence[Node]) -> None:
        """A block holding blocks; in a tight list item or definition, runs of inline nodes
        are its hidden paragraphs (no `<p>`)."""
        first = next((c.name for c in children if c.name != "todo_checkbox"), "")
        lf = first in _BLOCK
        self._open(tag, attrs, lf=lf)
        self._blocks(children, tight=True)
        self._close(tag)

    def _blocks(self, nodes: Sequence[Node], *, tight: bool = False) -> None:
        run: list[Node] = []
        checkbox: Node | None = None
        for node in nodes:
            name = node.name
            if name == "todo_checkbox":
                checkbox = node
            elif name not in _BLOCK:
                run.append(node)
            else:
                if run:
                    self._hidden_paragraph(run, checkbox)
                    run, checkbox = [], None
                if checkbox is not None and name == "paragraph":
                    self._paragraph(node, checkbox)
                    checkbox = None
                else:
                    self._block(node)
        if run or checkbox is not None:
            self._hidden_paragraph(run, checkbox)

    def _hidden_paragraph(self, nodes: Sequence[Node], checkbox: Node | None) -> None:
        self._prose.append("\n")
        self._after_hidden = False
        self._inline_content(nodes, checkbox)
        self._prose.append("\n")
        self._after_hidden = True

    def _paragraph(self, node: Node, checkbox: Node | None = None) -> None:
        self._open("p", lf=False)
        start = len(self._prose)
        self._inline_content(node.children, checkbox)
        if not self._excerpt:
            text = " ".join("".join(self._prose[start:]).split())
            if len(text) >= 20:  # as excerpt_from_html counts: one character per break
                self._excerpt = text
        self._close("p")

    def _inline_content(self, nodes: Sequence[Node], checkbox: Node | None) -> None:
        if checkbox is None:
            self._inline(nodes)
            return
        checked = ' checked="checked"' if checkbox.meta.get("checked") else ""
        self.out.append("<label>" + _CHECKBOX.format(checked))
        self._inline(nodes)
        self.out.append("</label>")

    def _block(self, node: Node) -> None:
        name = node.name
        if name == "paragraph":
            self._paragraph(node)
        elif name in ("heading", "lheading"):
            self._heading(node)
        elif name in ("fence", "code_block"):
            meta = node.meta
            content = meta.get("content", "")
            info = meta.get("info", "") if name == "fence" else ""
            self._after_hidden = False
            label = self.labels.get("code_label", "Code")
            if diagrams.is_diagram(info):  # a Mermaid diagram: its source, drawn by script
                self.out.append(diagrams.figure(content, label))
            else:
                self.out.append(code_block(content, info, label))
            self._code.append("\n" + content + "\n")
        elif name == "html_block" and self._divider(node.meta.get("content", "")):
            self._after_hidden = False
        elif name == "html_block":
            self._raw = True
            self._after_hidden = False
            self._html_blocks.append(len(self.out))
            self.out.append(self._raw_html(node.meta.get("content", "")))
        elif name == "hr":
            if self._after_hidden:
                self.out.append("\n")
            self._after_hidden = False
            self.out.append("<hr />\n")
            self._prose.append("\n")
        elif name == "blockquote":
            self._container("blockquote", "", node.children)
        elif name in ("bullet_list", "ordered_list"):
            self._list(node)
        elif name == "list_item":
            self._container("li", _class(node), node.children)
        elif name == "table":
            self._table(node)
        elif name == "definition_list":
            self._container("dl", "", node.children)
        elif name == "definition_term":
            self._open("dt", lf=False)
            self._inline(node.children)
            self._close("dt")
        elif name == "definition_description":
            self._container("dd", "", node.children)
        elif name == "footnote_container":
            self._footnotes(node)
        elif name == "definition":  # a link reference definition: no output
            pass
        elif name == "footnote_ref_anchor":  # after a footnote's last block, not in a paragraph
            self._backrefs(node)
        else:  # a node kind this version does not know: its content, never lost
            self._blocks(node.children)

    def _heading(self, node: Node) -> None:
        level = int(node.meta.get("level", 1))
        children = list(node.children)
        explicit = ""
        if children and children[-1].name == "text":
            last = children[-1].meta["content"]
            m = _EXPLICIT_ID.search(last)
            if m:
                explicit = m.group(1)
                children[-1] = _Text(_EXPLICIT_ID.sub("", last))
        text = " ".join(_plain(children).split())
        if self._after_hidden:
            self.out.append("\n")
            self._after_hidden = False
        self._heads.append((len(self.out), level, explicit or slugify(text), bool(explicit), text))
        self.out.append("")  # the opening tag, once every id is known
        self._prose.append("\n")
        self._inline(children)
        self._close(f"h{level}")

    def _finish_headings(self) -> None:
        heads = self._heads
        ids = unique_ids([h[2] for h in heads], [h[3] for h in heads], self._raw_ids)
        for (part, level, _base, _explicit, text), hid in zip(heads, ids, strict=True):
            self.out[part] = f'<h{level} id="{escape(hid)}">'
            self.headings.append((level, hid, text))

    def _list(self, node: Node) -> None:
        attrs = _class(node)
        if node.name == "ordered_list":
            start = int(node.meta.get("start", 1))
            tag = "ol"
            if start != 1:
                attrs += f' start="{start}"'
        else:
            tag = "ul"
        self._container(tag, attrs, node.children)

    def _table(self, node: Node) -> None:
        label = escape(self.labels.get("table_label", "Table"))
        frame = f'<div class="table-scroll" tabindex="0" role="group" aria-label="{label}">\n'
        self.out.append(frame)
        aligns = list(node.meta.get("alignments", ()))
        self._open("table")
        head: list[str] = []
        rows: list[list[str]] = []
        for section in node.children:
            tag = "thead" if section.name == "thead" else "tbody"
            cell = "th" if tag == "thead" else "td"
            self._open(tag)
            for row in section.children:
                self._open("tr")
                texts = []
                for i, td in enumerate(row.children):
                    align = aligns[i] if i < len(aligns) else "none"
                    attrs = (
                        f' class="align-{align}"' if align in ("left", "center", "right") else ""
                    )
                    self._open(cell, attrs, lf=False)
                    start = len(self._prose)
                    self._inline(td.children)
                    texts.append(" ".join("".join(self._prose[start:]).split()))
                    del self._prose[start:]  # the text goes in by rows, below
                    self._close(cell)
                self._close("tr")
                if tag == "thead" and not head:
                    head = texts
                else:
                    rows.append(texts)
            self._close(tag)
        self._close("table")
        self.out.append("</div>\n")
        self._prose.append("\n" + "\n".join(table_lines(head, rows)) + "\n")

    def _frame_raw_tables(self) -> None:
        """An author's `<table>` in raw HTML gets the same scroll frame as a Markdown table,
        when its HTML blocks (one, or several split by blank lines) open and close it."""
        label = escape(self.labels.get("table_label", "Table"))
        blocks = self._html_blocks
        out = self.out
        for i, part in enumerate(blocks):
            if not out[part].lstrip().lower().startswith("<table"):
                continue
            end = next(
                (b for b in blocks[i:] if out[b].rstrip().lower().endswith("</table>")), None
            )
            if end is None:
                continue
            frame = f'<div class="table-scroll" tabindex="0" role="group" aria-label="{label}">\n'
            out[part] = frame + out[part]
            out[end] = out[end].rstrip() + "\n</div>\n"

    # -- footnotes -------------------------------------------------------------------------

    def _fn_ref(self, node: Node) -> None:
        meta = node.meta
        def_id, ref_id = int(meta["def_id"]), int(meta["ref_id"])
        number = self._fn_number.setdefault(def_id, len(self._fn_number) + 1)
        refs = self._fn_refs.setdefault(def_id, [])
        sub = len(refs)
        refs.append(ref_id)
        ident = f":{number}:{sub}" if sub else f":{number}"
        caption = f"[{number}:{sub}]" if sub else f"[{number}]"
        self.out.append(
            f'<sup class="footnote-ref"><a href="#fn:{number}" id="fnref{ident}">{caption}</a>'
            "</sup>"
        )  # not in the text: "[1]" in an excerpt, a description or a snippet is noise

    def _footnotes(self, node: Node) -> None:
        defs = [d for d in node.children if d.name == "footnote_def"]
        for d in defs:  # defined but first referenced from another footnote
            self._fn_number.setdefault(int(d.meta["def_id"]), len(self._fn_number) + 1)
        defs.sort(key=lambda d: self._fn_number[int(d.meta["def_id"])])
        label = escape(self.labels.get("footnotes_label", "Footnotes"))
        self._after_hidden = False
        self.out.append(
            f'<section class="footnotes" id="mh-footnotes" aria-label="{label}">\n'
            '<ol class="footnotes-list">\n'
        )
        self._prose.append("\n")
        for d in defs:
            def_id = int(d.meta["def_id"])
            self.out.append(f'<li id="fn:{self._fn_number[def_id]}" class="footnote-item">')
            self._prose.append("\n")
            self._blocks(d.children)
            self._close("li")
        self.out.append("</ol>\n</section>\n")
        self._prose.append("\n")

    def _backrefs(self, node: Node) -> None:
        label = escape(self.labels.get("backref_label", "Back to content"))
        for ref_id in node.meta.get("ref_ids", ()):
            def_id = next((d for d, refs in self._fn_refs.items() if ref_id in refs), None)
            if def_id is None:
                continue
            number, sub = self._fn_number[def_id], self._fn_refs[def_id].index(ref_id)
            ident = f":{number}:{sub}" if sub else f":{number}"
            self.out.append(
                f' <a href="#fnref{ident}" class="footnote-backref" aria-label="{label}">'
                "\u21a9\ufe0e</a>"
            )

    # -- inline ----------------------------------------------------------------------------

    def _inline(self, nodes: Sequence[Node]) -> None:
        out, prose = self.out, self._prose
        for node in nodes:
            name = node.name
            if name in ("text", "text_special"):
                content = node.meta["content"]
                out.append(
                    _emails(content) if self._links == 0 and "@" in content else escape(content)
                )
                prose.append(content)
            elif name == "softbreak":
                out.append("\n")
                prose.append(" ")
            elif name == "hardbreak":
                out.append("<br />\n")
                prose.append("\n")
            elif name in _SIMPLE:
                tag = _SIMPLE[name]
                out.append(f"<{tag}>")
                self._inline(node.children)
                out.append(f"</{tag}>")
            elif name == "code_inline":
                text = _plain(node.children)
                out.append(f"<code>{escape(text)}</code>")
                prose.append(text)
            elif name in ("link", "autolink", "linkify"):
                meta = node.meta
                title = meta.get("title")
                title_attr = f' title="{escape(title)}"' if title else ""
                out.append(f'<a href="{escape(meta.get("url", ""))}"{title_attr}>')
                self._links += 1
                self._inline(node.children)
                self._links -= 1
                out.append("</a>")
            elif name == "image":
                meta = node.meta
                title = meta.get("title")
                title_attr = f' title="{escape(title)}"' if title else ""
                alt = escape(_alt(node.children))
                out.append(f'<img src="{escape(meta.get("url", ""))}" alt="{alt}"{title_attr} />')
            elif name == "html_inline" and self._divider(node.meta.get("content", "")):
                pass
            elif name == "html_inline":
                self._raw = True
                out.append(self._raw_html(node.meta.get("content", "")))
            elif name == "footnote_ref":
                self._fn_ref(node)
            elif name == "footnote_ref_anchor":
                self._backrefs(node)
            else:  # footnote_inline and kinds this version does not know: their content
                self._inline(node.children)

    def _raw_html(self, content: str) -> str:
        """The author's raw HTML with every id the product reserves (`mh-…`, `fn:N`) or an
        earlier element already has removed, so that ids on the page stay unique."""
        if "id" not in content.lower():
            return content

        def keep_first(m: re.Match[str]) -> str:
            value = next((g for g in m.groups() if g is not None), "")
            if not value or value in self._raw_ids or is_reserved(value):
                return ""
            self._raw_ids.add(value)
            return m.group(0)

        return _RAW_ID.sub(keep_first, content)


class _Text:
    """A text node with other content (a heading's text without its `{#id}`)."""

    name = "text"
    children: tuple[()] = ()

    def __init__(self, content: str) -> None:
        self.meta = {"content": content}


_LINKIFY = LinkifyIt().set({"fuzzy_link": False})


def _emails(text: str) -> str:
    """Escaped `text` with bare e-mail addresses as `mailto:` links (linkify-it's fuzzy e-mail
    rule, as markdown-it-py's linkify; markdown-it.rs links only URLs)."""
    out, at = [], 0
    for m in _LINKIFY.match(text) or ():
        if not m.url.startswith("mailto:"):
            continue
        out.append(escape(text[at : m.index]))
        out.append(f'<a href="{escape(m.url)}">{escape(m.text)}</a>')
        at = m.last_index
    out.append(escape(text[at:]))
    return "".join(out)


def _class(node: Node) -> str:
    cls = node.attrs.get("class")
    return f' class="{escape(cls)}"' if cls else ""
