"""HTML to Markdown for imported bodies (markdownify), with what blogs put in their HTML.

- An image's `src` (and a link to an image file) goes through `image`, the importer's hook that
  copies the file into the post's bundle and gives the new link.
- `<figure>` with an image (WordPress's image block, Ghost's image card) becomes a `figure`
  shortcode with its caption; a figure with several images (a gallery) one per image.
- An `<iframe>`, `<video>` or `<audio>` becomes a plain link to what it showed (no third-party
  frame or player on the page); Ghost's bookmark, button, file and embed cards likewise.
- Ghost's callout card becomes a `note` shortcode, its toggle card a `details` one.
- `<pre>` keeps its language from `class="language-x"` (or `lang-x`, or WordPress's
  `brush: x`) as the fence's info string.
- A body the converter fails on (HTML nested deeper than its recursion goes, a bug) is the
  importer's to keep as it was (`kept_as_html`) and name (`not_converted`).
- `blocks`: Markdown put in place beforehand by the importer (a shortcode it translated, the
  `<!--more-->` divider), each standing in the HTML as a token (`Blocks.token`).

The HTML is parsed into `_Tag`s: markdownify asks every element whether it is inside a `<pre>`
(`find_parent("pre")`), which Beautiful Soup answers through its general search machinery;
`_Tag` walks the parents instead, the same answer for a fifth of the conversion's time.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from bs4 import Tag
from markdownify import ATX, MarkdownConverter

_LANG_CLASS = re.compile(r"^(?:language|lang)-([\w+#.-]+)$")
_BRUSH = re.compile(r"brush:\s*([\w+#.-]+)")
_IMAGE_FILE = re.compile(r"\.(?:jpe?g|png|gif|webp|avif|svg)$", re.IGNORECASE)
_TOKEN = re.compile(r"MHXTOKEN(\d+)Z")
_UNSAFE = re.compile(r"^\s*(?!https?:|mailto:|tel:|ftp:)[a-z][a-z0-9+.-]*:", re.IGNORECASE)


class Blocks:
    """Markdown kept aside while the HTML around it is converted."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def token(self, markdown: str, block: bool = True) -> str:
        """A stand-in for `markdown` to put in the HTML (as its own paragraph if `block`)."""
        self.parts.append(markdown)
        word = f"MHXTOKEN{len(self.parts) - 1}Z"
        return f"\n<p>{word}</p>\n" if block else word

    def restore(self, text: str) -> str:
        return _TOKEN.sub(lambda m: self.parts[int(m.group(1))], text)


def quote_arg(value: str) -> str:
    """A shortcode argument in double quotes (the way `content.shortcodes` reads them back)."""
    value = " ".join(value.split()).replace(">}}", "> }}")  # never the shortcode's end
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def figure(src: str, caption: str = "", alt: str = "") -> str:
    args = [f"src={quote_arg(src)}"]
    if alt:
        args.append(f"alt={quote_arg(alt)}")
    if caption:
        args.append(f"caption={quote_arg(caption)}")
    return "{{< figure " + " ".join(args) + " >}}"


def link(url: str, text: str = "") -> str:
    url = url.strip()
    shown = " ".join(text.split()) or url
    return f"[{shown.replace(']', '')}]({url.replace(' ', '%20').replace(')', '%29')})"


class _Tag(Tag):
    """A Beautiful Soup tag whose `find_parent(name)` walks the parents (same result)."""

    def find_parent(  # type: ignore[override]
        self, name: Any = None, attrs: Any = None, **kwargs: Any
    ) -> Tag | None:
        if isinstance(name, str) and not attrs and not kwargs:
            node = self.parent
            while node is not None:
                if node.name == name:
                    return node
                node = node.parent
            return None
        return super().find_parent(name, attrs, **kwargs)


_SOUP: Any = {  # markdownify types bs4_options as the parser name only
    "features": "html.parser",
    "element_classes": {Tag: _Tag},
}


class Converter(MarkdownConverter):
    """markdownify's converter with the rules above; `image(url)` → new link or None."""

    def __init__(self, image: Callable[[str], str | None], **options: Any) -> None:
        self.image = image
        super().__init__(
            heading_style=ATX,
            bullets="-",
            escape_misc=False,
            code_language_callback=_language,
            **{"bs4_options": _SOUP, **options},
        )

    def _src(self, url: str) -> str:
        return (self.image(url) if url else None) or url

    def convert_img(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        src = self._src(str(el.get("src") or ""))
        if not src:
            return ""
        alt = " ".join(str(el.get("alt") or "").split()).replace("]", "")
        return f"![{alt}]({src.replace(' ', '%20')})"

    def convert_a(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        href = str(el.get("href") or "")
        if _UNSAFE.match(href):  # javascript:, data:, vbscript:…: the text without the link
            return text
        if href and _IMAGE_FILE.search(href.split("?")[0]):
            el["href"] = self._src(href)
        return str(super().convert_a(el, text, parent_tags))  # type: ignore[misc]

    def convert_figure(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        images = el.find_all("img")
        caption_el = el.find("figcaption")
        caption = caption_el.get_text(" ", strip=True) if caption_el else ""
        if images:
            out = []
            for i, img in enumerate(images):
                src = self._src(str(img.get("src") or ""))
                if src:
                    last = i == len(images) - 1
                    out.append(figure(src, caption if last else "", str(img.get("alt") or "")))
            return "\n\n" + "\n\n".join(out) + "\n\n"
        classes = _classes(el)
        if "kg-bookmark-card" in classes:
            return self._bookmark(el)
        if "wp-block-embed" in classes:  # WordPress's embed block: the URL, shown as a link
            wrapper = el.find(class_="wp-block-embed__wrapper")
            url = wrapper.get_text(strip=True) if isinstance(wrapper, Tag) else ""
            if url.startswith(("http://", "https://")):
                return "\n\n" + link(url, caption) + "\n\n"
        return text if text.strip() else ""

    def _bookmark(self, el: Tag) -> str:
        a = el.find("a")
        href = str(a.get("href") or "") if isinstance(a, Tag) else ""
        title_el = el.find(class_="kg-bookmark-title")
        desc_el = el.find(class_="kg-bookmark-description")
        title = title_el.get_text(" ", strip=True) if title_el else href
        out = link(href, title) if href else title
        if desc_el:
            out += "\n\n" + desc_el.get_text(" ", strip=True)
        return "\n\n" + out + "\n\n"

    def convert_div(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        classes = _classes(el)
        if "kg-callout-card" in classes:
            body = el.find(class_="kg-callout-text")
            inner = self.convert(str(body)) if body else text
            return "\n\n{{< note >}}\n" + inner.strip() + "\n{{< /note >}}\n\n"
        if "kg-toggle-card" in classes:
            head = el.find(class_="kg-toggle-heading-text") or el.find(["h4", "h3", "h2"])
            body = el.find(class_="kg-toggle-content")
            summary = head.get_text(" ", strip=True) if head else ""
            inner = self.convert(str(body)).strip() if body else ""
            head_code = "{{< details summary=" + quote_arg(summary) + " >}}"
            return f"\n\n{head_code}\n{inner}\n{{{{< /details >}}}}\n\n"
        if "kg-button-card" in classes or "kg-file-card" in classes:
            a = el.find("a")
            if isinstance(a, Tag) and a.get("href"):
                return "\n\n" + link(str(a["href"]), a.get_text(" ", strip=True)) + "\n\n"
        return str(super().convert_div(el, text, parent_tags))  # type: ignore[misc]

    def convert_pre(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        if "mh-markdown" in _classes(el):  # a Markdown card (importing.lexical): as it is
            return "\n\n" + el.get_text() + "\n\n"
        return str(super().convert_pre(el, text, parent_tags))  # type: ignore[misc]

    def convert_iframe(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        src = str(el.get("src") or "")
        if src.startswith("//"):
            src = "https:" + src
        title = str(el.get("title") or "")
        return "\n\n" + link(src, title) + "\n\n" if src.startswith("http") else ""

    def convert_video(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        src = str(el.get("src") or "")
        source = el.find("source")
        if not src and isinstance(source, Tag):
            src = str(source.get("src") or "")
        if not src:
            return ""
        src = self._src(src)
        return "\n\n" + link(src) + "\n\n"

    convert_audio = convert_video


def _classes(el: Tag) -> list[str]:
    value: Any = el.get("class") or []
    return value.split() if isinstance(value, str) else list(value)


def _language(el: Tag) -> str | None:
    """The language of a `<pre>` (or of its `<code>`), from its class."""
    for node in (el, el.find("code")):
        if not isinstance(node, Tag):
            continue
        for cls in _classes(node):
            m = _LANG_CLASS.match(cls)
            if m:
                return m.group(1)
        m = _BRUSH.search(" ".join(_classes(node)))
        if m:
            return m.group(1)
    return None


def kept_as_html(html: str) -> str:
    """A body the converter failed on, as it was: an HTML code block (a fence longer than any
    run of backticks in it), for the user to rewrite."""
    runs = [len(run) for run in re.findall(r"`{3,}", html)]
    fence = "`" * max([3, *(n + 1 for n in runs)])
    return f"{fence}html\n{html.strip()}\n{fence}\n"


def not_converted(exc: Exception) -> str:
    """The warning for a body the converter failed on (`exc`), kept by `kept_as_html`."""
    reason = "nested too deep" if isinstance(exc, RecursionError) else type(exc).__name__
    return f"body not converted ({reason}): kept as HTML in a draft"


def to_markdown(html: str, image: Callable[[str], str | None], blocks: Blocks) -> str:
    """`html` as Markdown, images through `image`, `blocks`' tokens put back."""
    text = Converter(image).convert(html)
    text = blocks.restore(text)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"
