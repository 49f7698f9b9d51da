"""Bytes of a content file to text: UTF-8 only, BOM stripped, line endings normalised to LF.

Encodings are never guessed silently: a file that is not UTF-8 is rejected with the line and
column of the first bad byte and a hint of what it looks like (UTF-16, GBK/GB18030, Big5,
Shift_JIS, Latin-1/Windows-1252), so the author can re-save it. A file with NUL bytes is rejected
too (UTF-16 without a byte-order mark, or not a text file at all).

U+FEFF is removed wherever it occurs: as the byte-order mark Windows Notepad and PowerShell write
before the first `---`, and as the deprecated zero-width no-break space that concatenated files
carry in the middle. It never reaches a title, a slug, the HTML or the search index.
"""

from __future__ import annotations

import codecs
import re

from masthead.errors import ContentError

_CJK = re.compile(r"[\u3400-\u9fff]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_BOMS = (  # UTF-32 first: its little-endian mark begins with UTF-16's
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)


def _decodes(raw: bytes, encoding: str) -> str | None:
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError:
        return None


def _pair_shares(raw: bytes) -> tuple[float, float]:
    """Read `raw` as double-byte text (a byte >= 0x80 starts a pair) and return the share of pairs
    in the GB2312 block (both bytes 0xA1-0xFE, where nearly all Simplified Chinese text lives) and
    the share whose second byte is >= 0x80 too (high for every double-byte encoding, near zero
    for Latin-1 text, whose accented letters stand between ASCII letters and spaces)."""
    pairs = gb = high = i = 0
    while i < len(raw) - 1:
        if raw[i] < 0x80:
            i += 1
            continue
        pairs += 1
        gb += 0xA1 <= raw[i] <= 0xF7 and 0xA1 <= raw[i + 1] <= 0xFE
        high += raw[i + 1] >= 0x80
        i += 2
    return (gb / pairs, high / pairs) if pairs else (0.0, 0.0)


def _looks_like(raw: bytes) -> str:
    """A hint for the author: which encoding `raw` (not UTF-8) was probably saved in."""
    for bom, name in _BOMS:
        if raw.startswith(bom):
            return f"{name}: it starts with a {name} byte-order mark"
    if b"\x00" in raw:
        even, odd = raw[0::2].count(0), raw[1::2].count(0)
        if odd > 4 * even:
            return "UTF-16 little-endian without a byte-order mark"
        if even > 4 * odd:
            return "UTF-16 big-endian without a byte-order mark"
        return "a binary file, not text"
    gb2312, high = _pair_shares(raw)
    if high < 0.3:
        return "Latin-1 or Windows-1252"
    gbk = _decodes(raw, "gb18030")
    if gbk is not None and _CJK.search(gbk) and gb2312 >= 0.8:
        return "GBK/GB18030"
    sjis = _decodes(raw, "shift_jis")
    if sjis is not None and _KANA.search(sjis):
        return "Shift_JIS"
    big5 = _decodes(raw, "big5")
    if big5 is not None and _CJK.search(big5):
        return "Big5"
    return "Latin-1 or Windows-1252"


def _position(raw: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters of the valid text before it) of byte `offset`."""
    line_start = raw.rfind(b"\n", 0, offset) + 1
    before = raw[line_start:offset].decode("utf-8", errors="replace")
    return raw.count(b"\n", 0, offset) + 1, len(before) + 1


def decode(path: str, raw: bytes) -> str:
    """Return the text of `raw`: UTF-8, every U+FEFF removed, CRLF and CR turned into LF.

    Raises `ContentError(path, line, reason)` for bytes that are not UTF-8 text.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        # in a UTF-16/32 file the whole file is wrong, and its "lines" mean nothing: line 1
        wide = b"\x00" in raw or any(raw.startswith(bom) for bom, _ in _BOMS)
        offset = 0 if wide else exc.start
        line, col = _position(raw, offset)
        raise ContentError(
            path,
            line,
            f"file is not valid UTF-8 (column {col}; looks like {_looks_like(raw)}); "
            "re-save it as UTF-8",
        ) from None
    if "\x00" in text:
        line, col = _position(raw, raw.index(b"\x00"))
        raise ContentError(
            path,
            line,
            f"file contains NUL bytes (column {col}; looks like {_looks_like(raw)}); "
            "re-save it as UTF-8 text",
        )
    if "\ufeff" in text:
        text = text.replace("\ufeff", "")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text
