"""The allowlist for HTML bodies (nh3, the Rust `ammonia` sanitizer), and the rewriting of the URLs
in them on parsed attributes.

Policy (DESIGN.md, case C18, issue 9): every body passes `clean` as the last step on its way to a
page, a feed or the database, and `marks_only` on its way into a search result. Benign formatting
(`kbd`, `mark`, `details`/`summary`, `sup`, tables, figures…) survives; `script`, `style`,
`iframe`, forms, event attributes (`on*`) and `style` attributes are removed; an `<input>` can only
be a disabled checkbox (task lists); links get `rel="noopener noreferrer"`.

URLs are only ever read and rewritten on attributes the HTML parser has parsed (never by a pattern
over the markup), through nh3's `attribute_filter`: every `href`, `src`, `cite`, `poster` and each
candidate of a `srcset` is first checked, then passed to the caller's `rewrite` (relative links to
`/media/…` or `/_ref/…`, refs to permalinks, absolute URLs for feeds), then checked again. A URL
survives only when it is relative or its scheme is `http`, `https` or `mailto` (schemes read as
the WHATWG URL standard does: tabs and newlines inside are ignored, case too), so `javascript:`,
`vbscript:` and `data:` URLs never reach an attribute.

`trusted=True` is the `raw_html = true` setting: the site trusts its authors, and their HTML is
kept as written (scripts, styles, iframes, forms, event handlers, any attribute and the common URL
schemes, `javascript:` included, and comments), but it still passes the same parser, so the link
rewriting is the same. What a trusted pass loses: elements that are not HTML, SVG or MathML
(custom elements are unwrapped, their content kept), document-level elements (`html`, `head`,
`body`, `base`, `link`, `meta`) and URLs of uncommon schemes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from contextvars import ContextVar

import nh3

from masthead.content import math

Rewrite = Callable[[str], str]
"""Maps one URL (as parsed: entities decoded, surrounding spaces stripped) to the URL to write."""

URL_ATTRIBUTES = frozenset({"href", "src", "cite", "poster"})
SAFE_SCHEMES = frozenset({"http", "https", "mailto"})

_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "caption", "cite", "code", "col", "colgroup", "dd",
    "del", "details", "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "h1", "h2", "h3",
    "h4", "h5", "h6", "hr", "i", "img", "input", "ins", "kbd", "label", "li", "mark", "ol", "p",
    "pre", "q", "s", "samp", "section", "small", "span", "strong", "sub", "summary", "sup", "table",
    "tbody", "td", "tfoot", "th", "thead", "time", "tr", "u", "ul", "var", "wbr", "aside",
    "center",
}  # fmt: skip
_COMMON = {"class", "id", "title", "lang", "dir", "role", "aria-label", "aria-hidden"}
_ATTRS = {
    "*": _COMMON,
    "a": {"href", "hreflang"},
    "img": {
        "src",
        "srcset",
        "sizes",
        "alt",
        "width",
        "height",
        "loading",
        "decoding",
        "fetchpriority",
    },
    "input": {"checked"},  # task lists; type and disabled are set below
    "td": {"colspan", "rowspan"},
    "th": {"colspan", "rowspan", "scope"},
    "ol": {"start", "reversed", "type"},
    "li": {"value"},
    "time": {"datetime"},
    "details": {"open"},
    "q": {"cite"},
    "pre": {"data-lang", "tabindex"},  # code blocks: focusable to scroll by keyboard
    "div": {"data-lang", "tabindex"},  # the code block's frame; a wide table's scroll frame
    "blockquote": {"cite"},
    "del": {"cite", "datetime"},
    "ins": {"cite", "datetime"},
}
# `<input>` exists for task-list checkboxes only: never a text or password box in a post. One
# attribute per pass: ammonia adds a tag's set attributes in hash order, random per process, so
# two in one map would make a page's bytes (and ETag) differ between processes and workers.
_SET_ATTRS = {"input": {"type": "checkbox"}}
_SET_ATTRS_AGAIN = {"input": {"disabled": ""}}
_ATTRS_AGAIN = {**_ATTRS, "input": {*_ATTRS["input"], "type"}}  # the type the first pass set

# raw_html: every element of HTML, SVG and MathML, every attribute (the empty prefix), and the
# URL schemes people link to
_TRUSTED_TAGS = {
    "a", "abbr", "address", "area", "article", "aside", "audio", "b", "bdi", "bdo", "blockquote",
    "br", "button", "canvas", "caption", "center", "cite", "code", "col", "colgroup", "data",
    "datalist", "dd", "del", "details", "dfn", "dialog", "div", "dl", "dt", "em", "embed",
    "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
    "header", "hgroup", "hr", "i", "iframe", "img", "input", "ins", "kbd", "label", "legend", "li",
    "main", "map", "mark", "menu", "meter", "nav", "noscript", "object", "ol", "optgroup",
    "option", "output", "p", "picture", "pre", "progress", "q", "rp", "rt", "ruby", "s", "samp",
    "script", "search", "section", "select", "slot", "small", "source", "span", "strong",
    "style", "sub", "summary", "sup", "table", "tbody", "td", "template", "textarea", "tfoot",
    "th", "thead", "time", "tr", "track", "u", "ul", "var", "video", "wbr",
    # SVG
    "svg", "g", "defs", "symbol", "use", "path", "rect", "circle", "ellipse", "line", "polyline",
    "polygon", "text", "tspan", "textPath", "title", "desc", "image", "clipPath", "mask",
    "pattern", "marker", "linearGradient", "radialGradient", "stop", "filter", "foreignObject",
    "animate", "animateMotion", "animateTransform", "set", "view", "switch", "metadata",
    "feBlend", "feColorMatrix", "feComposite", "feFlood", "feGaussianBlur", "feImage", "feMerge",
    "feMergeNode", "feMorphology", "feOffset", "feTurbulence", "feDisplacementMap",
    # MathML
    "math", "mi", "mn", "mo", "ms", "mtext", "mrow", "msup", "msub", "msubsup", "mfrac", "msqrt",
    "mroot", "mover", "munder", "munderover", "mtable", "mtr", "mtd", "mspace", "mstyle",
    "semantics", "annotation", "mpadded", "mphantom", "menclose", "mmultiscripts", "mprescripts",
}  # fmt: skip
_TRUSTED_SCHEMES = {
    "http", "https", "mailto", "tel", "sms", "ftp", "sftp", "ssh", "git", "irc", "ircs", "xmpp",
    "matrix", "geo", "magnet", "webcal", "feed", "news", "nntp", "sip", "sips", "bitcoin",
    "data", "javascript", "vbscript", "file", "blob",
}  # fmt: skip

_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")
_TAB_NEWLINE = str.maketrans("", "", "\t\n\r")
_C0_SPACE = "".join(chr(c) for c in range(0x21))


def scheme(url: str) -> str:
    """The lower-case scheme of `url` as a browser reads it (WHATWG URL: leading and trailing C0
    controls and spaces stripped, tabs and newlines removed), or "" for a relative URL."""
    m = _SCHEME.match(url.strip(_C0_SPACE).translate(_TAB_NEWLINE))
    return m.group(1).lower() if m else ""


def is_safe_url(url: str) -> bool:
    """True for a relative URL or one whose scheme is in `SAFE_SCHEMES`."""
    found = scheme(url)
    return not found or found in SAFE_SCHEMES


def srcset_candidates(value: str) -> list[tuple[str, str]]:
    """`(url, descriptor)` pairs of a `srcset` value, as the HTML standard's "parse a srcset
    attribute" splits them (a URL is a run of non-spaces; a trailing comma ends it)."""
    out: list[tuple[str, str]] = []
    pos, end = 0, len(value)
    while pos < end:
        while pos < end and (value[pos].isspace() or value[pos] == ","):
            pos += 1
        start = pos
        while pos < end and not value[pos].isspace():
            pos += 1
        url = value[start:pos]
        descriptor = ""
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            start, depth = pos, 0
            while pos < end and (value[pos] != "," or depth):
                depth += {"(": 1, ")": -1}.get(value[pos], 0)
                pos += 1
            descriptor = " ".join(value[start:pos].split())
        if url:
            out.append((url, descriptor))
    return out


# the `rewrite` of the `clean` call running in this thread (or task): the cleaners below are built
# once (nh3 converts the allowlists at each `nh3.clean`, a quarter of its time on a post), so the
# per-call rewrite reaches their attribute filter through this variable
_REWRITE: ContextVar[Rewrite | None] = ContextVar("masthead_sanitize_rewrite", default=None)


def _filter(trusted: bool) -> Callable[[str, str, str], str | None]:
    def one(url: str) -> str | None:
        url = url.strip(_C0_SPACE)
        if not trusted and not is_safe_url(url):
            return None
        rewrite = _REWRITE.get()
        new = rewrite(url) if rewrite is not None else url
        return new if trusted or is_safe_url(new) else None

    def attribute(_tag: str, name: str, value: str) -> str | None:
        if name in URL_ATTRIBUTES:
            return one(value)
        if name == "tabindex" and not trusted:  # in the page's tab order, never ahead of it
            return "0"
        if name == "srcset":
            kept = []
            for url, descriptor in srcset_candidates(value):
                new = one(url)
                if new:
                    kept.append(f"{new} {descriptor}".strip())
            return ", ".join(kept) or None
        return value

    return attribute


_TRUSTED = nh3.Cleaner(
    tags=_TRUSTED_TAGS,
    clean_content_tags=set(),
    attributes={},
    generic_attribute_prefixes={""},
    attribute_filter=_filter(trusted=True),
    url_schemes=_TRUSTED_SCHEMES,
    link_rel=None,
    strip_comments=False,
)
_UNTRUSTED = nh3.Cleaner(
    tags=_TAGS,
    attributes=_ATTRS,
    attribute_filter=_filter(trusted=False),
    url_schemes=set(SAFE_SCHEMES),
    link_rel="noopener noreferrer",
    strip_comments=True,
    set_tag_attribute_values=_SET_ATTRS,
)
_UNTRUSTED_AGAIN = nh3.Cleaner(  # the same allowlist over clean HTML: only `disabled` is added
    tags=_TAGS,
    attributes=_ATTRS_AGAIN,
    url_schemes=set(SAFE_SCHEMES),
    link_rel="noopener noreferrer",
    strip_comments=True,
    set_tag_attribute_values=_SET_ATTRS_AGAIN,
)
# stored bodies (`mathml=True`): the same, plus the MathML of formulas (content/math.py), which
# is placed after the author's HTML has passed without it: an author's own <math> never survives
# (MathML in HTML is where mutation XSS lives: <math><mtext><table>…)
_MATH_TAGS = _TAGS | math.TAGS
_MATH_ATTRS = {**_ATTRS, **math.attributes()}
_UNTRUSTED_MATH = nh3.Cleaner(
    tags=_MATH_TAGS,
    attributes=_MATH_ATTRS,
    attribute_filter=_filter(trusted=False),
    url_schemes=set(SAFE_SCHEMES),
    link_rel="noopener noreferrer",
    strip_comments=True,
    set_tag_attribute_values=_SET_ATTRS,
)
_UNTRUSTED_MATH_AGAIN = nh3.Cleaner(
    tags=_MATH_TAGS,
    attributes={**_MATH_ATTRS, "input": _ATTRS_AGAIN["input"]},
    url_schemes=set(SAFE_SCHEMES),
    link_rel="noopener noreferrer",
    strip_comments=True,
    set_tag_attribute_values=_SET_ATTRS_AGAIN,
)
_MARKS = nh3.Cleaner(tags={"mark"}, attributes={}, link_rel=None, strip_comments=True)


def clean(
    html: str, rewrite: Rewrite | None = None, *, trusted: bool = False, mathml: bool = False
) -> str:
    """`html` through the allowlist above (comments dropped), every URL checked and passed to
    `rewrite`. `trusted=True` (the `raw_html` setting) keeps the author's HTML (see above).
    `mathml=True` for a stored body, whose formulas (content/math.py) are MathML: never for
    the author's HTML itself."""
    token = _REWRITE.set(rewrite)
    try:
        if trusted:
            return _TRUSTED.clean(html)
        out = (_UNTRUSTED_MATH if mathml else _UNTRUSTED).clean(html)
    finally:
        _REWRITE.reset(token)
    if "<input" not in out:
        return out
    return (_UNTRUSTED_MATH_AGAIN if mathml else _UNTRUSTED_AGAIN).clean(out)


def urls_in(html: str) -> list[str]:
    """Every URL in `html`'s URL attributes and `srcset` candidates, in document order, as the
    HTML parser reads them (entities decoded). For checks: whatever the page would link to."""
    found: list[str] = []

    def keep(url: str) -> str:
        found.append(url)
        return url

    clean(html, keep, trusted=True)
    return found


def marks_only(html: str) -> str:
    """Search-result HTML: its text, escaped, and `<mark>` elements without attributes; nothing
    else survives (case C21)."""
    return _MARKS.clean(html)


_SEPARATOR = "<br>"
_MARKS_AND_BREAKS = nh3.Cleaner(
    tags={"mark", "br"}, attributes={}, link_rel=None, strip_comments=True
)
_MARK_TAGS = re.compile(r"<(/?)mark>")
_OTHER_TAG = re.compile(r"<(?!/?mark>)")


def _self_contained(fragment: str) -> bool:
    """Whether `fragment` is escaped text with `<mark>`/`</mark>` in turn, all closed: no
    parser state (an open element, a comment, raw text) can then run past its end."""
    if _OTHER_TAG.search(fragment):
        return False
    closing = [m.group(1) for m in _MARK_TAGS.finditer(fragment)]
    return closing == ["", "/"] * (len(closing) // 2) and len(closing) % 2 == 0


def marks_only_each(fragments: list[str]) -> list[str]:
    """`marks_only` of each fragment, the same strings, in one pass of the sanitizer when
    every fragment is self-contained (as search snippets are: escaped text and balanced
    `<mark>`s), since most of its cost is per call and a search page has twenty fragments.
    They are joined by `<br>`, the one other element let through, and split again; any other
    input is sanitized a fragment at a time."""
    if not all(map(_self_contained, fragments)):
        return [marks_only(f) for f in fragments]
    joined = _MARKS_AND_BREAKS.clean(_SEPARATOR.join(fragments))
    parts = joined.split(_SEPARATOR)
    if len(parts) != len(fragments):  # not expected for such input; never guess
        return [marks_only(f) for f in fragments]
    return parts
