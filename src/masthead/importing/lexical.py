"""Ghost's editor documents as HTML, for posts that carry no `html` in their export: `lexical`
(Ghost 5 and 6) and `mobiledoc` (Ghost 1 to 4). Cards are drawn as Ghost draws them (the same
`kg-*` classes), so `tomarkdown` turns them into Markdown the same way; a node or card it does
not know is named in `unknown`."""

from __future__ import annotations

import html
import json
from typing import Any

_FORMATS = ((1, "strong"), (2, "em"), (4, "s"), (8, "u"), (16, "code"))


def e(value: Any) -> str:
    return html.escape(str(value or ""), quote=True)


def lexical_html(document: str, unknown: list[str]) -> str:
    """The HTML of a `lexical` JSON document."""
    try:
        root = json.loads(document).get("root", {})
    except (ValueError, AttributeError):
        unknown.append("lexical (not JSON)")
        return ""
    return _children(root, unknown)


def _children(node: dict[str, Any], unknown: list[str]) -> str:
    return "".join(_node(c, unknown) for c in node.get("children", []) if isinstance(c, dict))


def _node(n: dict[str, Any], unknown: list[str]) -> str:
    t = n.get("type", "")
    inner = _children(n, unknown)
    if t in ("text", "extended-text"):
        text = e(n.get("text", ""))
        for bit, tag in _FORMATS:
            if int(n.get("format") or 0) & bit:
                text = f"<{tag}>{text}</{tag}>"
        return text
    if t == "linebreak":
        return "<br>"
    if t in ("paragraph", "extended-paragraph"):
        return f"<p>{inner}</p>"
    if t in ("heading", "extended-heading"):
        tag = (
            n.get("tag", "h2") if str(n.get("tag", "")) in {f"h{i}" for i in range(1, 7)} else "h2"
        )
        return f"<{tag}>{inner}</{tag}>"
    if t in ("quote", "aside", "extended-quote"):
        return f"<blockquote>{inner}</blockquote>"
    if t == "list":
        tag = "ol" if n.get("listType") == "number" else "ul"
        return f"<{tag}>{inner}</{tag}>"
    if t == "listitem":
        return f"<li>{inner}</li>"
    if t in ("link", "autolink"):
        return f'<a href="{e(n.get("url"))}">{inner}</a>'
    if t == "horizontalrule":
        return "<hr>"
    if t in ("codeblock", "code"):
        code = (
            n.get("code")
            if "code" in n
            else "".join(
                c.get("text", "") if c.get("type") != "linebreak" else "\n"
                for c in n.get("children", [])
            )
        )
        lang = e(n.get("language"))
        return f'<pre><code class="language-{lang}">{e(code)}</code></pre>'
    if t == "image":
        return _figure([n], n.get("caption", ""))
    if t == "gallery":
        return _figure(n.get("images", []), n.get("caption", ""))
    if t == "bookmark":
        meta = n.get("metadata") or {}
        return (
            f'<figure class="kg-card kg-bookmark-card"><a class="kg-bookmark-container" '
            f'href="{e(n.get("url"))}"><div class="kg-bookmark-title">{e(meta.get("title"))}'
            f'</div><div class="kg-bookmark-description">{e(meta.get("description"))}</div>'
            "</a></figure>"
        )
    if t == "callout":
        return (
            '<div class="kg-card kg-callout-card"><div class="kg-callout-text">'
            f"{n.get('calloutText', '')}</div></div>"
        )
    if t == "toggle":
        return (
            '<div class="kg-card kg-toggle-card"><div class="kg-toggle-heading-text">'
            f'{n.get("heading", "")}</div><div class="kg-toggle-content">'
            f"{n.get('content', '')}</div></div>"
        )
    if t == "button":
        return (
            f'<div class="kg-card kg-button-card"><a href="{e(n.get("buttonUrl"))}">'
            f"{e(n.get('buttonText'))}</a></div>"
        )
    if t == "embed":
        url = n.get("url", "")
        return f'<p><a href="{e(url)}">{e(url)}</a></p>' if url else ""
    if t in ("video", "audio", "file"):
        shown = n.get("title") or n.get("fileName") or n.get("src")
        return f'<p><a href="{e(n.get("src"))}">{e(shown)}</a></p>'
    if t == "markdown":
        return _markdown_block(n.get("markdown", ""))
    if t == "html":
        return str(n.get("html", ""))
    if t == "paywall":
        return ""
    unknown.append(t or "node without a type")
    return inner


def _figure(images: list[dict[str, Any]], caption: str) -> str:
    imgs = "".join(
        f'<img src="{e(i.get("src"))}" alt="{e(i.get("alt"))}">' for i in images if i.get("src")
    )
    cap = f"<figcaption>{caption}</figcaption>" if caption else ""
    return f'<figure class="kg-card kg-image-card">{imgs}{cap}</figure>' if imgs else ""


def _markdown_block(markdown: str) -> str:
    """A Markdown card: kept as Markdown (a `<pre>` marked for the importer to unwrap)."""
    return f'<pre class="mh-markdown">{e(markdown)}</pre>'


def mobiledoc_html(document: str, unknown: list[str]) -> str:
    """The HTML of a `mobiledoc` document: its markup sections (text, with links and marks)
    and its cards (markdown, html, image, code, bookmark...)."""
    try:
        doc = json.loads(document)
    except ValueError:
        unknown.append("mobiledoc (not JSON)")
        return ""
    markups = doc.get("markups", [])
    cards = doc.get("cards", [])
    out = []
    for section in doc.get("sections", []):
        kind = section[0] if section else None
        if kind == 1:  # markup section: [1, tag, markers]
            out.append(f"<{section[1]}>{_markers(section[2], markups)}</{section[1]}>")
        elif kind == 3:  # list: [3, tag, items]
            items = "".join(f"<li>{_markers(i, markups)}</li>" for i in section[2])
            out.append(f"<{section[1]}>{items}</{section[1]}>")
        elif kind == 10:  # card: [10, index]
            name, payload = cards[section[1]]
            out.append(_card(name, payload, unknown))
    return "".join(out)


def _markers(markers: list[Any], markups: list[Any]) -> str:
    out, open_tags = [], []
    for marker in markers:
        _, opens, closes, text = marker[:4]
        for index in opens:
            tag, attrs = markups[index][0], markups[index][1] if len(markups[index]) > 1 else []
            pairs = dict(zip(attrs[::2], attrs[1::2], strict=False))
            attr = f' href="{e(pairs["href"])}"' if "href" in pairs else ""
            out.append(f"<{tag}{attr}>")
            open_tags.append(tag)
        out.append(e(text))
        for _ in range(closes):
            out.append(f"</{open_tags.pop()}>")
    return "".join(out)


def _card(name: str, payload: dict[str, Any], unknown: list[str]) -> str:
    node = {"type": {"card-markdown": "markdown", "code": "codeblock"}.get(name, name), **payload}
    if name == "image":
        node = {"type": "image", "src": payload.get("src"), "caption": payload.get("caption", "")}
    return _node(node, unknown)
