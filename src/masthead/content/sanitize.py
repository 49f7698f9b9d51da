"""The allowlist for rendered post HTML (nh3, the Rust `ammonia` sanitizer).

Policy (DESIGN.md, case C18): by default every post passes this allowlist. Benign formatting
(`kbd`, `mark`, `details`/`summary`, `sup`, tables, figures…) survives; `script`, `style`,
`iframe`, forms, event attributes (`on*`) and `javascript:`/`data:` URLs are removed; an `<input>`
can only be a disabled checkbox (task lists); links get `rel="noopener noreferrer"`. Sites that
trust their authors set `raw_html = true`.
"""

from __future__ import annotations

import nh3

_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "caption", "cite", "code", "col", "colgroup", "dd",
    "del", "details", "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "h1", "h2", "h3",
    "h4", "h5", "h6", "hr", "i", "img", "input", "ins", "kbd", "li", "mark", "ol", "p", "pre",
    "q", "s", "samp", "section", "small", "span", "strong", "sub", "summary", "sup", "table",
    "tbody", "td", "tfoot", "th", "thead", "time", "tr", "u", "ul", "var", "wbr", "aside",
    "center",
}  # fmt: skip
_COMMON = {"class", "id", "title", "lang", "dir", "role", "aria-label", "aria-hidden"}
_ATTRS = {
    "*": _COMMON,
    "a": {"href", "hreflang"},
    "img": {"src", "alt", "width", "height", "loading"},
    "input": {"checked"},  # task lists; type and disabled are set below
    "td": {"colspan", "rowspan", "style"},
    "th": {"colspan", "rowspan", "scope", "style"},
    "ol": {"start", "reversed", "type"},
    "li": {"value"},
    "time": {"datetime"},
    "details": {"open"},
    "q": {"cite"},
    "pre": {"data-lang"},
    "blockquote": {"cite"},
}
# `<input>` exists for task-list checkboxes only: never a text or password box in a post
_SET_ATTRS = {"input": {"type": "checkbox", "disabled": ""}}
_STYLE_PROPS = {"text-align"}  # markdown-it writes table alignment as style="text-align:…"


def clean(html: str) -> str:
    """Sanitize rendered post HTML by the allowlist above; comments are dropped."""
    return nh3.clean(
        html,
        tags=_TAGS,
        attributes=_ATTRS,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer",
        strip_comments=True,
        filter_style_properties=_STYLE_PROPS,
        set_tag_attribute_values=_SET_ATTRS,
    )
