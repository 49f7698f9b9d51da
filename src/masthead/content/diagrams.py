"""Mermaid diagrams (https://mermaid.js.org/): ```` ```mermaid ```` fences and the `mermaid`
shortcode (which becomes such a fence, `content.shortcodes`).

A diagram is its source in an ordinary code block (`content.highlight.code_block`, language
`mermaid`) inside `<figure class="diagram diagram-mermaid">`: without JavaScript the reader sees
the source, as in any code block. A page that has one loads `static/js/diagrams.js` (post.html),
which loads Mermaid's own library from the site's static files (`static/vendor/mermaid.min.js`,
the npm package's build) when a diagram comes near the screen, draws each diagram in the page's
theme, hides its source, and draws it again when the theme changes. Nothing comes from another
host, and the CSP stays `script-src 'self'`.
"""

from __future__ import annotations

import re

from masthead.content.highlight import code_block

CLASS = "diagram diagram-mermaid"
MARKER = "diagram-mermaid"  # in a body's HTML: the page has a diagram (post.html)
_LONGEST_FENCE = re.compile(r"`{3,}")


def is_diagram(info: str) -> bool:
    """Whether a fence's info string makes it a Mermaid diagram."""
    return info.strip().split(" ", 1)[0].lower() == "mermaid"


def figure(source: str, label: str) -> str:
    """The HTML of a diagram whose Mermaid source is `source`; `label` names its code block."""
    return f'<figure class="{CLASS}">\n{code_block(source, "mermaid", label)}</figure>\n'


def fence(source: str) -> str:
    """`source` as a ```` ```mermaid ```` fence, longer than any backtick run inside it."""
    longest = max((len(m) for m in _LONGEST_FENCE.findall(source)), default=2)
    ticks = "`" * max(3, longest + 1)
    return f"\n\n{ticks}mermaid\n{source.strip(chr(10))}\n{ticks}\n\n"
