"""Bytes of a content file to text: UTF-8 only, BOM stripped, line endings normalised to LF.

Encodings are never guessed silently: a file that is not UTF-8 is rejected with the line of the
first bad byte and a hint of what it looks like (GBK/GB18030, Latin-1), so the author can re-save it.
"""

from __future__ import annotations

import re

from masthead.errors import ContentError

_CJK = re.compile(r"[\u3400-\u9fff]")


def _looks_like(raw: bytes) -> str:
    try:
        text = raw.decode("gb18030")
    except UnicodeDecodeError:
        return "Latin-1 or Windows-1252"
    return "GBK/GB18030" if _CJK.search(text) else "Latin-1 or Windows-1252"


def decode(path: str, raw: bytes) -> str:
    """Return the text of `raw`: UTF-8, one leading U+FEFF removed, CRLF and CR turned into LF.

    Raises `ContentError(path, line, reason)` for bytes that are not UTF-8.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise ContentError(
            path,
            line,
            f"file is not valid UTF-8 (looks like {_looks_like(raw)}); re-save it as UTF-8",
        ) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text
