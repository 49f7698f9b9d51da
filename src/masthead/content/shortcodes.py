"""Hugo shortcodes (https://gohugo.io/content-management/shortcodes/) in Markdown bodies.

Runs before Markdown: each shortcode becomes Markdown or HTML that the sanitizer then checks.
`figure`, `note`, `tip`, `info`, `caution`, `warning`, `alert`, `youtube`, `mermaid`, `ref` and
`relref` are rendered; any other shortcode is replaced by its inner text (never raw braces) and
reported as a warning. `{{</* x */>}}` is Hugo's escape and shows `{{< x >}}` literally.
Shortcodes inside HTML comments are left alone (the comment is dropped later anyway).
"""

from __future__ import annotations

import html
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass

from masthead.content import diagrams

_TAG = re.compile(
    r"<!--.*?-->"
    r"|\{\{(?P<open>[<%])\s*(?P<esc>/\*)?\s*(?P<close>/)?\s*(?P<name>[\w./-]+)(?P<args>.*?)"
    r"\s*(?P<esc2>\*/)?\s*(?P=open_end)\}\}".replace("(?P=open_end)", "[>%]"),
    re.DOTALL,
)
ADMONITIONS = ("note", "tip", "info", "caution", "warning", "alert", "notice", "callout")
BLOCKS = (*ADMONITIONS, "mermaid", "details")
KNOWN = frozenset({*BLOCKS, "figure", "youtube", "ref", "relref"})


@dataclass(frozen=True)
class Call:
    name: str
    closing: bool
    args: dict[str, str]
    positional: list[str]
    start: int
    end: int
    raw: str


def _parse_args(text: str) -> tuple[dict[str, str], list[str]]:
    named: dict[str, str] = {}
    positional: list[str] = []
    try:
        parts = shlex.split(text.replace("\n", " "), posix=True)
    except ValueError:
        parts = text.split()
    for part in parts:
        key, eq, value = part.partition("=")
        if eq and re.fullmatch(r"[\w-]+", key):
            named[key.lower()] = value
        else:
            positional.append(part)
    return named, positional


def _calls(body: str) -> list[Call | str]:
    """Split `body` into literal strings and shortcode calls, in order."""
    out: list[Call | str] = []
    pos = 0
    for m in _TAG.finditer(body):
        if m.group(0).startswith("<!--"):
            continue
        out.append(body[pos : m.start()])
        if m.group("esc"):
            inner = m.group(0).replace("/*", "", 1)[::-1].replace("/*", "", 1)[::-1]
            out.append(re.sub(r"\s*\*/\s*(?=[>%]\}\})", " ", inner).replace("  ", " "))
        else:
            named, positional = _parse_args(m.group("args") or "")
            out.append(
                Call(
                    name=m.group("name").lower(),
                    closing=bool(m.group("close")),
                    args=named,
                    positional=positional,
                    start=m.start(),
                    end=m.end(),
                    raw=m.group(0),
                )
            )
        pos = m.end()
    out.append(body[pos:])
    return out


def _attr(value: str) -> str:
    return html.escape(value, quote=True)


def _figure(call: Call, inline: Callable[[str], str]) -> str:
    a = call.args
    src = a.get("src", call.positional[0] if call.positional else "")
    img = f'<img src="{_attr(src)}" alt="{_attr(a.get("alt", a.get("caption", "")))}"'
    for key in ("width", "height", "title"):
        if key in a:
            img += f' {key}="{_attr(a[key])}"'
    img += ' loading="lazy">'
    if a.get("link"):
        img = f'<a href="{_attr(a["link"])}">{img}</a>'
    caption = " ".join(x for x in (a.get("title", ""), a.get("caption", "")) if x)
    cap = f"<figcaption>{inline(caption)}</figcaption>" if caption else ""
    cls = f' class="{_attr(a["class"])}"' if a.get("class") else ""
    return f"<figure{cls}>{img}{cap}</figure>"


def _youtube(call: Call, label: str) -> str:
    vid = call.args.get("id", call.positional[0] if call.positional else "")
    title = call.args.get("title", label)
    url = f"https://www.youtube.com/watch?v={vid}"
    return f'<a class="video-link" href="{_attr(url)}">▶ {html.escape(title)}</a>'


def _block(call: Call, inner: str, text: Callable[[str], str]) -> str:
    if call.name == "mermaid":  # the same as a ```mermaid fence (content.diagrams)
        return diagrams.fence(inner)
    if call.name == "details":
        summary = html.escape(call.args.get("summary", call.args.get("title", "")))
        return f"\n\n<details><summary>{summary}</summary>\n\n{inner.strip()}\n\n</details>\n\n"
    kind = call.name
    if kind in ("alert", "notice", "callout"):
        color = call.args.get("color", call.positional[0] if call.positional else "")
        kind = {"danger": "warning", "warning": "warning", "info": "info"}.get(color, "note")
    title = call.args.get("title") or text(kind)
    return (
        f'\n\n<div class="admonition admonition-{kind}" role="note">'
        f'<p class="admonition-title">{html.escape(title)}</p>\n\n{inner.strip()}\n\n</div>\n\n'
    )


def expand(
    body: str,
    *,
    ref: Callable[[str, str], str],
    inline: Callable[[str], str],
    text: Callable[[str], str],
) -> tuple[str, list[tuple[int, str]]]:
    """Replace shortcodes in `body` and return `(markdown, warnings)`.

    `ref(name, path)` gives what stands for a `ref`/`relref` call (`name`) to `path`, in a link
    or in text (`content.refs.Refs.token`); `inline(md)` renders inline Markdown
    (figure captions); `text(key)` gives interface text in the post's language.
    Warnings are `(offset_in_body, reason)` pairs for unknown or unclosed shortcodes.
    """
    items = _calls(body)
    warnings: list[tuple[int, str]] = []
    out: list[str] = []
    i = 0
    while i < len(items):
        item = items[i]
        i += 1
        if isinstance(item, str):
            out.append(item)
            continue
        if item.closing:
            warnings.append((item.start, f"closing shortcode '{item.name}' without an opening one"))
            continue
        close = _find_close(items, i, item.name)
        if close is not None:
            inner = expand(
                "".join(_raw(x) for x in items[i:close]), ref=ref, inline=inline, text=text
            )
            warnings.extend((item.start + off, why) for off, why in inner[1])
            i = close + 1
            if item.name in BLOCKS:
                out.append(_block(item, inner[0], text))
            else:
                if item.name not in KNOWN:
                    warnings.append((item.start, f"unknown shortcode '{item.name}' shown as text"))
                out.append(inner[0])
            continue
        if item.name == "figure":
            out.append(_figure(item, inline))
        elif item.name == "youtube":
            out.append(_youtube(item, text("video")))
        elif item.name in ("ref", "relref"):
            target = item.args.get("path", item.positional[0] if item.positional else "")
            out.append(ref(item.name, target))
        elif item.name in BLOCKS:
            warnings.append((item.start, f"shortcode '{item.name}' is never closed"))
        else:
            warnings.append((item.start, f"unknown shortcode '{item.name}' left out"))
    return "".join(out), warnings


def _raw(item: Call | str) -> str:
    return item if isinstance(item, str) else item.raw


def _find_close(items: list[Call | str], start: int, name: str) -> int | None:
    depth = 0
    for j in range(start, len(items)):
        it = items[j]
        if isinstance(it, Call) and it.name == name:
            if not it.closing:
                depth += 1
            elif depth == 0:
                return j
            else:
                depth -= 1
    return None
