"""Text colours that meet WCAG's contrast minimum on a given background.

Contrast ratio and relative luminance as WCAG 2.2 defines them
(https://www.w3.org/TR/WCAG22/#dfn-contrast-ratio, #dfn-relative-luminance), with sRGB
`#rrggbb` colours. `readable()` keeps a colour's hue and moves it toward black or white (whichever
the background is farther from) just far enough to reach the ratio.
"""

from __future__ import annotations

import re

AA = 4.5  # WCAG 2.2 SC 1.4.3, normal text


def _rgb(color: str) -> tuple[int, int, int]:
    value = color.lstrip("#")
    if len(value) == 3:
        value = "".join(c * 2 for c in value)
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)


def luminance(color: str) -> float:
    """Relative luminance of `#rgb` or `#rrggbb`, 0 (black) to 1 (white)."""

    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in _rgb(color))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ratio(a: str, b: str) -> float:
    """The contrast ratio of two colours, 1 to 21."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def readable(color: str, background: str, minimum: float = AA) -> str:
    """`color`, or the nearest colour on its way to black or white (the one farther from
    `background`) whose contrast with `background` is at least `minimum`."""
    if ratio(color, background) >= minimum:
        return color
    target = 0 if luminance(background) > 0.18 else 255
    r, g, b = _rgb(color)
    for step in range(1, 101):
        t = step / 100
        mixed = tuple(round(c + (target - c) * t) for c in (r, g, b))
        candidate = "#{:02x}{:02x}{:02x}".format(*mixed)
        if ratio(candidate, background) >= minimum:
            return candidate
    return "#000000" if target == 0 else "#ffffff"


def readable_css(css: str, background: str, minimum: float = AA) -> str:
    """`css` with every `color:` declaration of a `.highlight` token rule made `readable` on
    `background`, or on the rule's own `background-color` when it has one (line-number rules
    are left as they are)."""
    out = []
    for line in css.splitlines():
        if line.startswith(".highlight .") and "color:" in line:
            own = re.search(r"background-color: (#[0-9a-fA-F]{3,6})", line)
            line = _readable_line(line, own.group(1) if own else background, minimum)
        out.append(line)
    return "\n".join(out)


def _readable_line(line: str, background: str, minimum: float) -> str:
    def fix(match: re.Match[str]) -> str:
        return f"color: {readable(match.group(1), background, minimum)}"

    return re.sub(r"(?<![-\w])color: (#[0-9a-fA-F]{3,6})", fix, line)
