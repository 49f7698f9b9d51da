"""Lengths and previews of readers' text, safe for emoji and other astral characters (C36).

Lengths are counted in Unicode code points (Python's `len`, JavaScript's `[...s].length`). Text
is stored as typed, without Unicode normalization (NFC or other), except that line breaks become
LF, as an HTML `<textarea>` gives them to its script, and control characters other than tab and
line feed are removed (`normalize`: no feed, mail or page can carry them). Previews cut on
extended grapheme cluster boundaries (Unicode UAX #29, through the `regex` module's `\\X`), so a
family emoji, a flag, a skin tone or a letter with a combining accent is kept whole or left out
whole, never halved.
"""

from __future__ import annotations

import html
import unicodedata

import regex

ELLIPSIS = "…"
_GRAPHEME = regex.compile(r"\X")
_NEWLINES = regex.compile(r"\r\n?")
_CONTROLS = regex.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_SURROGATE = regex.compile(r"[\ud800-\udfff]")
_TAG = regex.compile(r"<[^>]*>")
_HREF = regex.compile(r'\shref="([^"]*)"')  # nh3 writes every attribute double-quoted


def length(text: str) -> int:
    """The length of `text` in code points: the unit of every comment limit (`rules.LIMITS`)."""
    return len(text)


def newlines(text: str) -> str:
    """`text` with CRLF and lone CR line breaks as LF (a form submits a textarea's LF as CRLF)."""
    return _NEWLINES.sub("\n", text)


def normalize(text: str) -> str:
    """A comment's text as stored: `newlines`, then C0 controls but tab and LF, and DEL,
    removed. Everything else is kept exactly (no Unicode normalization)."""
    return _CONTROLS.sub("", newlines(text))


def is_text(text: str) -> bool:
    """False when `text` holds a lone UTF-16 surrogate (JSON's `"\\ud800"`): no UTF-8 text
    can store it."""
    return _SURROGATE.search(text) is None


def graphemes(text: str) -> list[str]:
    """The extended grapheme clusters of `text` (UAX #29), in order; joined, they are `text`."""
    return _GRAPHEME.findall(text)


def preview(text: str, n: int, ellipsis: str = ELLIPSIS) -> str:
    """`text` in at most `n` code points (the unit of `length`), whitespace runs and line breaks
    read as one space, cut at the last grapheme cluster boundary that fits and followed by
    `ellipsis` when something was cut: for mail subjects, dashboard lists and feed titles. A
    cluster that does not fit whole is left out whole: never half an emoji, never U+FFFD."""
    flat = " ".join(text.split())
    if len(flat) <= n:
        return flat
    kept: list[str] = []
    used = 0
    for cluster in graphemes(flat):
        if used + len(cluster) > n:
            break
        kept.append(cluster)
        used += len(cluster)
    return "".join(kept).rstrip() + ellipsis


def initials(name: str, n: int = 2) -> str:
    """Up to `n` initials of `name`: the first grapheme cluster of each of its first words,
    upper-cased where the script has case ("Zoë 👩🏽‍💻" → "Z👩🏽‍💻", "张伟" → "张"). For locally
    drawn avatars; "" for an empty name."""
    out = []
    for word in name.split()[:n]:
        first = graphemes(word)[0]
        out.append(first.upper() if len(first.upper()) == len(first) else first)
    return "".join(out)


def fold(text: str) -> str:
    """`text` in its caseless form, for comparing in any script: Unicode's canonical caseless
    match (The Unicode Standard, section 3.13: NFD, full case folding, NFD again), so `Иван`
    and `иван`, `MÜLLER` and `müller`, a precomposed `é` and `e` with a combining accent fold
    alike. For search only: stored text is never changed."""
    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", text).casefold())


def html_text(sanitized: str) -> str:
    """What a reader sees of a comment's sanitized HTML (`body_html`), for search: its text
    with entities decoded and tags as spaces (never the markup's own words, `strong`, `href`),
    then the addresses its links point to (a moderator looks for a spam link by its host)."""
    hrefs = " ".join(_HREF.findall(sanitized))
    return html.unescape(_TAG.sub(" ", sanitized) + " " + hrefs)
