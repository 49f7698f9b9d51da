"""Hugo shortcodes (https://gohugo.io/content-management/shortcodes/) in Markdown bodies.

Runs before Markdown: each shortcode becomes Markdown or HTML that the sanitizer then checks.
`figure`, `note`, `tip`, `info`, `caution`, `warning`, `alert`, `youtube`, `mermaid`, `ref` and
`relref` are rendered; Hugo's `highlight` becomes a fenced code block with its options
(`content.highlight.options`); `gist`, `tweet`/`x`, `vimeo` and `instagram` become plain links
to the content they embed (no third-party script or frame on the page); `param` is the value of
a front-matter key, else of the site's `params`. Any other shortcode is replaced by its inner
text (never raw braces) and reported as a warning. `{{</* x */>}}` is Hugo's escape and shows
`{{< x >}}` literally.
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
EMBEDS = ("gist", "tweet", "x", "vimeo", "instagram")
KNOWN = frozenset({*BLOCKS, *EMBEDS, "figure", "youtube", "ref", "relref", "highlight", "param"})
_ID = re.compile(r"^[\w-]+$")


@dataclass(frozen=True)
class Call:
    name: str
    closing: bool
    args: dict[str, str]
    positional: list[str]
    start: int
    end: int
    raw: str


class Escaped(str):
    """The text an escaped shortcode (`{{</* x */>}}`) shows, remembering how it was written:
    the body of a paired shortcode is expanded again as written, where it is still escaped."""

    raw: str

    def __new__(cls, shown: str, raw: str) -> Escaped:
        text = super().__new__(cls, shown)
        text.raw = raw
        return text


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
            shown = re.sub(r"\s*\*/\s*(?=[>%]\}\})", " ", inner).replace("  ", " ")
            out.append(Escaped(shown, m.group(0)))
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


def _arg(call: Call, name: str, index: int) -> str:
    """Named argument `name`, else positional argument `index`, else ""."""
    if name in call.args:
        return call.args[name]
    return call.positional[index] if len(call.positional) > index else ""


def _embed(call: Call, text: Callable[[str], str]) -> tuple[str, str | None]:
    """A link to what `gist`, `tweet`, `x`, `vimeo` or `instagram` would embed, or a warning
    when its arguments name nothing (`("", reason)`)."""
    name = call.name
    if name == "gist":
        user, gist, file = _arg(call, "user", 0), _arg(call, "id", 1), _arg(call, "file", 2)
        url = f"https://gist.github.com/{user}/{gist}"
        if file:
            url += "#file-" + re.sub(r"[^\w-]", "-", file.lower())
        ok, label, cls = bool(_ID.match(user) and _ID.match(gist)), text("embed_gist"), "embed-link"
    elif name in ("tweet", "x"):
        user, post = _arg(call, "user", 0), _arg(call, "id", 1)
        if not post and user.isdigit():  # Hugo's old form: {{< tweet 1453110110599868418 >}}
            user, post = "i", user
        url = f"https://x.com/{user}/status/{post}"
        ok, label, cls = bool(_ID.match(user) and post.isdigit()), text("embed_x"), "embed-link"
    elif name == "vimeo":
        video = _arg(call, "id", 0)
        url = f"https://vimeo.com/{video}"
        label = call.args.get("title") or text("embed_vimeo")
        ok, cls = video.isdigit(), "video-link"
    else:
        post = _arg(call, "id", 0)
        url = f"https://www.instagram.com/p/{post}/"
        ok, label, cls = bool(_ID.match(post)), text("embed_instagram"), "embed-link"
    if not ok:
        return "", f"shortcode '{name}' names no {name} (missing or odd id); left out"
    mark = "▶ " if cls == "video-link" else ""
    return f'<a class="{cls}" href="{_attr(url)}">{mark}{html.escape(label)}</a>', None


def _highlight(call: Call, inner: str) -> str:
    """`{{< highlight LANG "OPTIONS" >}}code{{< /highlight >}}` as a fenced block whose info
    string carries the options in braces, as a Hugo fence does."""
    lang = _arg(call, "lang", 0)
    given = call.positional[1:] if len(call.positional) > 1 else []
    given += [f"{k}={v}" for k, v in call.args.items() if k != "lang"]
    opts = ",".join(
        f'{k.strip()}="{v.strip()}"' if eq else k.strip()
        for k, eq, v in (item.partition("=") for item in ",".join(given).split(","))
        if k.strip()
    )  # Hugo's "hl_lines=2 4-5,linenos=table" as a fence's {hl_lines="2 4-5",linenos="table"}
    code = inner.strip("\n")
    runs = [len(r) for r in re.findall(r"`+", code)]
    fence = "`" * max(3, max(runs, default=0) + 1)
    info = f"{lang} {{{opts}}}" if opts else lang
    return f"\n\n{fence}{info}\n{code}\n{fence}\n\n"


def _param(call: Call, param: Callable[[str], object]) -> tuple[str, str | None]:
    """The text of a `param` value (escaped), or a warning when no key has it."""
    key = _arg(call, "key", 0)
    value = param(key) if key else None
    if value is None or isinstance(value, dict | list):
        return "", f"shortcode 'param': no front-matter key or site param {key!r}; left out"
    if isinstance(value, bool):
        value = "true" if value else "false"
    return html.escape(str(value)), None


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
    param: Callable[[str], object] = lambda key: None,
) -> tuple[str, list[tuple[int, str]]]:
    """Replace shortcodes in `body` and return `(markdown, warnings)`.

    `ref(name, path)` gives what stands for a `ref`/`relref` call (`name`) to `path`, in a link
    or in text (`content.refs.Refs.token`); `inline(md)` renders inline Markdown
    (figure captions); `text(key)` gives interface text in the post's language; `param(key)`
    the value of a page or site param (None when there is none).
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
                "".join(_raw(x) for x in items[i:close]),
                ref=ref,
                inline=inline,
                text=text,
                param=param,
            )
            warnings.extend((item.start + off, why) for off, why in inner[1])
            i = close + 1
            if item.name == "highlight":
                out.append(_highlight(item, inner[0]))
            elif item.name in BLOCKS:
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
        elif item.name in EMBEDS or item.name == "param":
            made, why = _param(item, param) if item.name == "param" else _embed(item, text)
            out.append(made)
            if why:
                warnings.append((item.start, why))
        elif item.name in ("ref", "relref"):
            target = item.args.get("path", item.positional[0] if item.positional else "")
            out.append(ref(item.name, target))
        elif item.name in BLOCKS or item.name == "highlight":
            warnings.append((item.start, f"shortcode '{item.name}' is never closed"))
        else:
            warnings.append((item.start, f"unknown shortcode '{item.name}' left out"))
    return "".join(out), warnings


def _raw(item: Call | str) -> str:
    if isinstance(item, Escaped):
        return item.raw
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
