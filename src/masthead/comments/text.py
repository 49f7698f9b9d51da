"""Lengths and previews of readers' text, safe for emoji and other astral characters (C36).

Lengths are counted in Unicode code points (Python's `len`, JavaScript's `[...s].length`); text is
stored as typed, without normalization (NFC or other), except that line breaks become LF as an
HTML `<textarea>` gives them to its script. Previews cut on extended grapheme cluster boundaries
(Unicode UAX #29, through the `regex` module's `\\X`), so a family emoji, a flag, a skin tone or a
letter with a combining accent is kept whole or left out whole, never halved.
"""

from __future__ import annotations

import regex

ELLIPSIS = "…"
_GRAPHEME = regex.compile(r"\X")
_NEWLINES = regex.compile(r"\r\n?")


def length(text: str) -> int:
    """The length of `text` in code points: the unit of every comment limit (`rules.LIMITS`)."""
    return len(text)


def newlines(text: str) -> str:
    """`text` with CRLF and lone CR line breaks as LF (a form submits a textarea's LF as CRLF)."""
    return _NEWLINES.sub("\n", text)


def graphemes(text: str) -> list[str]:
    """The extended grapheme clusters of `text` (UAX #29), in order; joined, they are `text`."""
    return _GRAPHEME.findall(text)


def preview(text: str, n: int, ellipsis: str = ELLIPSIS) -> str:
    """At most `n` grapheme clusters of `text` (whitespace runs, line breaks included, read as one
    space), followed by `ellipsis` when something was cut: for mail subjects, dashboard lists and
    feed titles. Never a half emoji, never U+FFFD. `n` < 1 gives just the ellipsis (or "")."""
    flat = " ".join(text.split())
    clusters = graphemes(flat)
    if len(clusters) <= n:
        return flat
    return "".join(clusters[: max(n, 0)]).rstrip() + ellipsis


def initials(name: str, n: int = 2) -> str:
    """Up to `n` initials of `name`: the first grapheme cluster of each of its first words,
    upper-cased where the script has case ("Zoë 👩🏽‍💻" → "Z👩🏽‍💻", "张伟" → "张"). For locally
    drawn avatars; "" for an empty name."""
    out = []
    for word in name.split()[:n]:
        first = graphemes(word)[0]
        out.append(first.upper() if len(first.upper()) == len(first) else first)
    return "".join(out)
