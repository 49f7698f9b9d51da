"""Readers' text made safe to show: the comment Markdown subset, imported comment HTML, the
author's website and name (C33, C35).

- `render`: the Markdown source is never touched (it is stored exactly as submitted, C35); it is
  rendered by markdown-it-py (CommonMark) with raw HTML off and only paragraphs, line breaks,
  emphasis, strikethrough, links, code spans and blocks, lists and blockquotes on (no headings,
  no images, no tables), then cleaned by nh3 as the very last step.
- `clean`: the same allowlist for HTML that arrives as HTML (WordPress and Disqus imports).
- Every link keeps only an `http`, `https` or `mailto` URL (schemes read as a browser reads them,
  `masthead.content.sanitize.scheme`) and gets `rel="nofollow ugc noopener noreferrer"`.
- `website`: an author's website is kept only when it is an http(s) URL with a host.
- `name`: an author's name is plain text on one line; templates, feeds and mails escape it.
"""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit, urlunsplit

import nh3
from markdown_it import MarkdownIt

from masthead.content.sanitize import SAFE_SCHEMES, scheme

LINK_REL = "nofollow ugc noopener noreferrer"
TAGS = frozenset(
    {
        "a", "abbr", "b", "blockquote", "br", "cite", "code", "del", "em", "i", "li", "ol", "p",
        "pre", "q", "s", "strong", "ul",
    }
)  # fmt: skip
ATTRIBUTES = {"a": {"href", "title"}, "abbr": {"title"}, "ol": {"start"}}

# CommonMark's block and inline rules a comment may use; the rest (heading, lheading, hr, image,
# html_block, html_inline, reference definitions stay: they are how links are written) are off
_BLOCK_OFF = ["heading", "lheading", "hr", "html_block"]
_INLINE_OFF = ["image", "html_inline"]
# C0 and C1 controls and DEL: never part of a URL or a name (a tab inside `java\tscript:` too)
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# directional overrides and isolates, line and paragraph separators: a name cannot reorder or
# break the text around it
_INVISIBLE = re.compile(r"[\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_BARE_URL = re.compile(r"(?i)(?:\bhttps?://|\bwww\.)[^\s<>]")
# characters percent-encoded in a stored website: the WHATWG URL path and query sets plus the
# quotes and backslash, so no stored URL can end an attribute, quoted or not
_URL_SAFE = "/%:@!$&()*+,;=-._~[]"


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "breaks": True, "linkify": False})
    md.enable("strikethrough")
    md.disable(_BLOCK_OFF + _INLINE_OFF)
    return md


_MD = _parser()


def _href(_tag: str, name: str, value: str) -> str | None:
    if name == "href":
        found = scheme(value)
        return value if found in SAFE_SCHEMES else None  # relative URLs go too
    return value


def clean(html: str) -> str:
    """`html` through the comment allowlist (`TAGS`, `ATTRIBUTES`): anything else is removed
    (script and style with their content, other elements unwrapped), comments dropped, every
    link an http(s) or mailto URL with `rel` set to `LINK_REL`. nh3 (ammonia) does the work."""
    return nh3.clean(
        html,
        tags=set(TAGS),
        attributes={k: set(v) for k, v in ATTRIBUTES.items()},
        attribute_filter=_href,
        url_schemes=set(SAFE_SCHEMES),
        link_rel=LINK_REL,
        strip_comments=True,
    )


def render(markdown: str) -> str:
    """The HTML of a comment's Markdown (see the module docstring), sanitized last by `clean`.
    `<…>` inside code spans and blocks is shown literally, escaped once (C35)."""
    return clean(_MD.render(markdown))


def count_links(markdown: str) -> int:
    """How many links a comment's Markdown holds: written links and autolinks, plus bare
    `http(s)://` and `www.` addresses in its text (readers' software links those; spammers
    count on it). Text inside code is not counted. For the `comments_max_links` rule."""
    count = 0
    for block in _MD.parse(markdown):
        inside = 0  # a link's own text is not another link
        for token in block.children or []:
            if token.type == "link_open":
                count += 1
                inside += 1
            elif token.type == "link_close":
                inside -= 1
            elif token.type == "text" and not inside:
                count += len(_BARE_URL.findall(token.content))
    return count


def website(raw: str) -> str:
    """The author's website as stored and linked, or "" when `raw` is not an http(s) URL with a
    host (C33): control characters removed, surrounding spaces trimmed, the scheme compared
    case-insensitively and written in lower case, as is the host; no user name or password
    (`https://example.com@evil.example`); spaces, quotes, `<`, `>` and other characters that
    are not URL characters percent-encoded (UTF-8, RFC 3986)."""
    url = _CONTROLS.sub("", raw).strip()
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:  # a bad port or an unbalanced IPv6 bracket
        return ""
    host = parts.hostname or ""
    if parts.scheme.lower() not in ("http", "https") or not host or "@" in parts.netloc:
        return ""
    if not re.fullmatch(r"[\w.-]+|\[[0-9A-Fa-f:.]+\]|[0-9A-Fa-f:.]+", host):
        return ""
    host = f"[{host}]" if ":" in host else host
    netloc = host.lower() + (f":{port}" if port is not None else "")
    return urlunsplit(
        (
            parts.scheme.lower(),
            netloc,
            quote(parts.path, safe=_URL_SAFE) or "/",
            quote(parts.query, safe=_URL_SAFE + "?"),
            quote(parts.fragment, safe=_URL_SAFE + "?#"),
        )
    )


def name(raw: str) -> str:
    """An author's name as stored: one line of plain text (control characters, directional
    overrides and line separators removed, runs of spaces and line breaks read as one space,
    trimmed). Markup in it stays text: every place that shows it escapes it."""
    return " ".join(_INVISIBLE.sub("", _CONTROLS.sub(" ", raw)).split())


def email(raw: str) -> str:
    """An email address as stored: control characters removed, trimmed, case kept as typed
    (comparisons trim and case-fold)."""
    return _CONTROLS.sub("", raw).strip()
