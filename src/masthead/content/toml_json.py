"""Front matter in TOML (`+++` … `+++`) and JSON (an object at the top of the file): Hugo's other
two formats (https://gohugo.io/content-management/front-matter/), read with the standard library
(`tomllib`, `json`).

Both give what the YAML reader gives (`frontmatter.FrontMatter`): the keys as written, the line of
each key, the body and its first line; and every problem as a `ContentError` with the line (and
column) in the file and a hint. The text fields (`frontmatter.TEXT_KEYS`) keep the characters the
author typed where the format lets a value be typed otherwise: a number keeps its digits
(`translationKey = 1.10` is "1.10", not 1.1), `true` is "true". TOML's dates and times stay dates
(`date = 2024-05-02T06:30:00` is read in the site's zone, as a YAML date without an offset is).
"""

from __future__ import annotations

import json
import re
import tomllib
from datetime import date, datetime, time
from typing import Any

from masthead.errors import ContentError

_TOO_DEEP = "invalid front matter: lists or tables nested too deeply to read"
DATE_KEYS = frozenset({"date", "updated", "lastmod", "publishDate", "expiryDate"})


class Number(float):
    """A float that remembers how it was written (`1.10`), for the text fields."""

    text: str

    def __new__(cls, text: str) -> Number:
        value = super().__new__(cls, float(text))
        value.text = text
        return value


def as_text(value: Any, key: str) -> Any:
    """`value` of text field `key` as the text the author typed; dates of the date keys stay
    dates; lists item by item; a table stays a table (the model refuses it with the key named)."""
    if value is None or isinstance(value, str | dict):
        return value
    if isinstance(value, list):
        return [as_text(item, key) for item in value]
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Number):
        return value.text
    if isinstance(value, datetime | date | time):
        return value if key in DATE_KEYS else value.isoformat()
    return str(value)


def plain(value: Any) -> Any:
    """`value` with every `Number` a plain float (the keys that are no text fields)."""
    if isinstance(value, Number):
        return float(value)
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


# --- TOML -----------------------------------------------------------------------------------

_TOML_KEY = re.compile(r"""^[ \t]*(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_-]+))[ \t]*[.=]""")
_TOML_TABLE = re.compile(r"""^[ \t]*\[\[?[ \t]*(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_-]+))""")
_TOML_AT = re.compile(r"\(at line (\d+), column (\d+)\)|\(at end of document\)")


def toml_key_lines(block: str, first_line: int) -> tuple[dict[str, int], list[tuple[str, int]]]:
    """The file line of each top-level key of a TOML `block` (a dotted key `a.b = 1` and a
    table `[a]` count for `a`), and the keys written twice at the top level with the line of the
    second. Read line by line: a line inside a multi-line string may be taken for a key, so
    this only places keys the parser has already found."""
    lines: dict[str, int] = {}
    twice: list[tuple[str, int]] = []
    in_table = False
    for number, line in enumerate(block.split("\n"), start=first_line):
        table = _TOML_TABLE.match(line)
        found = table or (None if in_table else _TOML_KEY.match(line))
        if found is None:
            continue
        key = next(g for g in found.groups() if g is not None)
        if table:
            in_table = True
        elif key in lines and not line.split("=", 1)[0].strip().count("."):
            twice.append((key, number))
        lines.setdefault(key, number)
    return lines, twice


def _toml_hint(message: str, line_text: str) -> str:
    value = line_text.split("=", 1)[1].strip() if "=" in line_text else ""
    if message.startswith("Expected '=' after a key") and ":" in line_text:
        return "TOML writes key = value; a block of key: value lines is YAML, between '---' lines"
    if message.startswith("Invalid value") and value and value[0] not in "\"'[{0123456789-+tfin":
        return 'TOML strings are quoted: title = "…"'
    if message.startswith("Unterminated string") or "Illegal character" in message:
        return "close the quote on the line it opens, or use ''' … ''' for several lines"
    if "Expected newline or end of document" in message and value[:1] == "0":
        return 'TOML numbers have no leading zeros; quote it as text: slug = "0123"'
    return "check the quotes, brackets and the = on this line"


def load_toml(path: str, block: str, first_line: int) -> tuple[dict[str, Any], dict[str, int]]:
    """The TOML `block` (its first line is line `first_line` of the file): keys and lines."""
    lines, twice = toml_key_lines(block, first_line)
    try:
        data = tomllib.loads(block, parse_float=Number)
    except RecursionError:
        raise ContentError(path, first_line, _TOO_DEEP) from None
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        if twice and ("Cannot overwrite" in message or "Cannot declare" in message):
            key, line = twice[0]
            raise ContentError(
                path,
                line,
                f"invalid front matter: key '{key}' is given twice (lines {lines[key]} and "
                f"{line}); keep one",
            ) from None
        at = _TOML_AT.search(message)
        rows = block.split("\n")
        row = int(at.group(1)) - 1 if at and at.group(1) else len(rows) - 1
        while not at or not at.group(1):  # "at end of document": the last line with text
            if row <= 0 or rows[row].strip():
                break
            row -= 1
        col = f", column {at.group(2)}" if at and at.group(2) else ""
        problem = _TOML_AT.sub("", message).strip()
        hint = _toml_hint(problem, rows[row] if 0 <= row < len(rows) else "")
        raise ContentError(
            path, first_line + row, f"invalid TOML front matter{col}: {problem} ({hint})"
        ) from None
    return data, lines


# --- JSON -----------------------------------------------------------------------------------

_JSON_HINTS = (
    ("Expecting property name", "JSON keys take double quotes, and no comma follows the last item"),
    ("Expecting ',' delimiter", "separate items with commas; strings take double quotes"),
    ("Expecting value", 'strings take double quotes ("…"); true, false, null are lower case'),
    ("Invalid control character", "a string cannot hold a line break; write \\n"),
)


def load_json(path: str, text: str) -> tuple[dict[str, Any], dict[str, int], int]:
    """The JSON object at the top of `text` (the whole file, LF endings): its keys, the line of
    each top-level key, and the offset in `text` where the body starts (the line after the
    object's closing brace)."""
    twice: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in items:
            if key in out:
                twice.append(key)
            out[key] = value
        return out

    start = len(text) - len(text.lstrip())
    decoder = json.JSONDecoder(object_pairs_hook=pairs, parse_float=Number)
    try:
        data, end = decoder.raw_decode(text, start)
    except RecursionError:
        raise ContentError(path, 1, _TOO_DEEP) from None
    except json.JSONDecodeError as exc:
        if exc.pos >= len(text.rstrip()):
            opened = text.count("\n", 0, start) + 1
            raise ContentError(
                path,
                opened,
                f"JSON front matter opened on line {opened} is never closed (its '{{' has no "
                "matching '}')",
            ) from None
        hint = next((h for m, h in _JSON_HINTS if exc.msg.startswith(m)), "check this line")
        raise ContentError(
            path,
            exc.lineno,
            f"invalid JSON front matter, column {exc.colno}: {exc.msg} ({hint})",
        ) from None
    lines = {key: _json_line(text, key, start, end) for key in data}
    if twice:
        key = twice[0]
        where = [m.start() for m in re.finditer(re.escape(json.dumps(key)) + r"\s*:", text[:end])]
        second = text.count("\n", 0, where[1]) + 1 if len(where) > 1 else lines.get(key, 1)
        raise ContentError(
            path,
            second,
            f"invalid front matter: key '{key}' is given twice (lines {lines.get(key, 1)} and "
            f"{second}); keep one",
        )
    newline = text.find("\n", end)
    return data, lines, len(text) if newline < 0 else newline + 1


def _json_line(text: str, key: str, start: int, end: int) -> int:
    """The file line where `"key":` is first written between `start` and `end`."""
    found = re.search(re.escape(json.dumps(key)) + r"\s*:", text[start:end])
    if found is None:
        found = re.search(re.escape(json.dumps(key, ensure_ascii=False)) + r"\s*:", text[start:end])
    return text.count("\n", 0, start + (found.start() if found else 0)) + 1
