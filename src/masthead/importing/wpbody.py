"""A WordPress post's body (`content:encoded`) as Markdown.

In order: the block editor's comments (`<!-- wp:paragraph -->`) are removed and `<!--more-->`
is kept as the summary divider; the classic shortcodes are translated (`[caption]` and
`[gallery]` to figures, `[embed]`, `[audio]` and `[video]` to links, `[code]`/`[sourcecode]`
with their language to fenced code blocks); a classic editor's body, which WordPress shows
through `wpautop` (blank lines are paragraphs, single newlines line breaks), gets its
paragraphs; then `tomarkdown` converts the HTML. An unknown shortcode (one with a closing tag
or with attributes) is left as the text it is, and named in `unknown`.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from masthead.importing.tomarkdown import Blocks, figure, link, to_markdown

_BLOCK_COMMENT = re.compile(r"<!--\s*/?wp:[^>]*?-->\n?")
_MORE = re.compile(r"<!--more(?:\s[^>]*)?-->", re.IGNORECASE)
_NEXTPAGE = re.compile(r"<!--nextpage-->", re.IGNORECASE)
_OPEN = re.compile(r"\[(?P<name>[A-Za-z][\w-]*)(?P<attrs>(?:\s[^\]]*)?)(?P<self>/)?\]")
_ATTR = re.compile(
    r"""([\w-]+)\s*=\s*"([^"]*)"|([\w-]+)\s*=\s*'([^']*)'|([\w-]+)\s*=\s*([^\s'"]+)"""
    r"""|"([^"]*)"|'([^']*)'|(\S+)"""
)
_BLOCK_TAG = re.compile(
    r"^\s*</?(?:p|div|h[1-6]|ul|ol|li|blockquote|pre|table|figure|hr|dl|form|address|section"
    r"|article|aside|header|footer|nav|iframe|video|audio|style|script)[\s>/]",
    re.IGNORECASE,
)
_PRE = re.compile(r"<pre[\s>].*?</pre>", re.IGNORECASE | re.DOTALL)
_IMG = re.compile(r"<img\s[^>]*>", re.IGNORECASE)
_SRC = re.compile(r"""\ssrc\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
_ALT = re.compile(r"""\salt\s*=\s*["']([^"']*)["']""", re.IGNORECASE)
_TAGS = re.compile(r"<[^>]+>")
_CODE = ("code", "sourcecode", "source")
_MEDIA_KEYS = ("src", "mp3", "m4a", "ogg", "wav", "mp4", "m4v", "webm", "ogv", "flv")
KNOWN = frozenset({"caption", "wp_caption", "gallery", "embed", "audio", "video", *_CODE})


@dataclass
class Body:
    """What converting one body found besides its Markdown."""

    unknown: list[str] = field(default_factory=list)  # shortcode names shown as text


def convert(
    raw: str,
    image: Callable[[str], str | None],
    gallery: Callable[[list[str]], list[str]],
    found: Body,
) -> str:
    """The Markdown of body `raw`. `image(url)` → the link to use (the file copied) or None;
    `gallery(ids)` → the image URLs of a `[gallery]` (its `ids`, else the post's attachments)."""
    blocks = Blocks()
    blocks_editor = "<!-- wp:" in raw
    text = _BLOCK_COMMENT.sub("", raw.replace("\r\n", "\n"))
    text = _MORE.sub(lambda m: blocks.token("<!--more-->"), text)
    text = _NEXTPAGE.sub("", text)
    text = shortcodes(text, blocks, image, gallery, found)
    if not blocks_editor:
        text = autop(text)
    return to_markdown(text, image, blocks)


def shortcodes(
    text: str,
    blocks: Blocks,
    image: Callable[[str], str | None],
    gallery: Callable[[list[str]], list[str]],
    found: Body,
) -> str:
    out: list[str] = []
    pos = 0
    while True:
        m = _OPEN.search(text, pos)
        if m is None:
            break
        name = m.group("name").lower()
        start, end = m.start(), m.end()
        if start > 0 and text[start - 1] == "[":  # `[[caption]]`: WordPress's escape
            out.append(text[pos : start - 1] + m.group(0))
            pos = end + (1 if text[end : end + 1] == "]" else 0)
            continue
        inner = None
        close = -1
        if not m.group("self"):
            close = text.lower().find(f"[/{name}]", end)
            if close >= 0:
                inner = text[end:close]
        attrs = _attrs(m.group("attrs"))
        after = close + len(name) + 3 if inner is not None else end
        if name in KNOWN:
            markdown = _known(name, attrs, inner, image, gallery)
            out.append(text[pos:start] + blocks.token(markdown))
            pos = after
            continue
        if inner is not None or any(k for k in attrs if not k.startswith("_")):
            found.unknown.append(name)
        out.append(text[pos:end])
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _attrs(text: str) -> dict[str, str]:
    attrs: dict[str, str] = {}
    for n, m in enumerate(_ATTR.finditer(text or "")):
        g = m.groups()
        if g[0] or g[2] or g[4]:
            key = (g[0] or g[2] or g[4]).lower()
            attrs[key] = g[1] if g[0] else g[3] if g[2] else g[5]
        else:
            attrs[f"_{n}"] = g[6] or g[7] or g[8] or ""
    return attrs


def _known(
    name: str,
    attrs: dict[str, str],
    inner: str | None,
    image: Callable[[str], str | None],
    gallery: Callable[[list[str]], list[str]],
) -> str:
    if name in _CODE:
        lang = attrs.get("language") or attrs.get("lang") or attrs.get("_0", "")
        code = html.unescape((inner or "").strip("\n"))
        fence = "````" if "```" in code else "```"
        return f"{fence}{lang}\n{code}\n{fence}"
    if name in ("caption", "wp_caption"):
        inner = inner or ""
        img = _IMG.search(inner)
        caption = attrs.get("caption") or html.unescape(_TAGS.sub("", inner)).strip()
        if img is None:
            return caption
        src_m, alt_m = _SRC.search(img.group(0)), _ALT.search(img.group(0))
        src = src_m.group(1) if src_m else ""
        return figure(image(src) or src, caption, html.unescape(alt_m.group(1)) if alt_m else "")
    if name == "gallery":
        ids = [i.strip() for i in attrs.get("ids", "").split(",") if i.strip()]
        return "\n\n".join(figure(image(u) or u) for u in gallery(ids))
    if name == "embed":
        url = (inner or attrs.get("src", "")).strip()
        return link(url) if url else ""
    for key in _MEDIA_KEYS:  # audio, video
        if attrs.get(key):
            return link(image(attrs[key]) or attrs[key])
    return ""


def autop(text: str) -> str:
    """WordPress's `wpautop`, simplified: text between blank lines becomes a paragraph (single
    newlines line breaks) unless it starts with a block-level tag; `<pre>` is left as it is."""
    kept: list[str] = []

    def keep(m: re.Match[str]) -> str:
        kept.append(m.group(0))
        return f"\n\nMHXPRE{len(kept) - 1}Z\n\n"

    text = _PRE.sub(keep, text)
    out = []
    for chunk in re.split(r"\n\s*\n", text.strip()):
        chunk = chunk.strip()
        if not chunk:
            continue
        if re.fullmatch(r"MHXPRE\d+Z", chunk):
            out.append(kept[int(chunk[6:-1])])
        elif _BLOCK_TAG.match(chunk):
            out.append(chunk)
        else:
            out.append("<p>" + chunk.replace("\n", "<br>\n") + "</p>")
    return "\n\n".join(out)
