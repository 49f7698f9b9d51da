"""TOML text for a settings file an import writes: tables, arrays of tables, and values (strings,
numbers, booleans, dates, arrays, inline tables), with comment lines where the importer wants
to say something. The output is read back with `tomllib` by the import's tests."""

from __future__ import annotations

import json
import re
from datetime import date, datetime, time
from typing import Any

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def key(name: str) -> str:
    """A TOML key: bare when it can be, else a basic string."""
    return name if _BARE.match(name) else json.dumps(name, ensure_ascii=False)


def value(item: Any) -> str:
    """One TOML value. JSON's string escapes are TOML's basic-string escapes."""
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, int | float):
        return json.dumps(item)
    if isinstance(item, datetime | date | time):
        return item.isoformat()
    if isinstance(item, list | tuple):
        return "[" + ", ".join(value(v) for v in item) + "]"
    if isinstance(item, dict):
        return "{" + ", ".join(f"{key(str(k))} = {value(v)}" for k, v in item.items()) + "}"
    return json.dumps(str(item), ensure_ascii=False)


def _is_table_array(item: Any) -> bool:
    return isinstance(item, list) and bool(item) and all(isinstance(v, dict) for v in item)


def table(name: str, data: dict[str, Any]) -> list[str]:
    """The lines of table `name` ("" for the top level): its plain keys first, then its
    sub-tables and arrays of tables."""
    lines: list[str] = []
    plain = {k: v for k, v in data.items() if not isinstance(v, dict) and not _is_table_array(v)}
    if name and (plain or not data):
        lines.append(f"\n[{name}]")
    lines += [f"{key(str(k))} = {value(v)}" for k, v in plain.items() if v is not None]
    for k, v in data.items():
        inner = f"{name}.{key(str(k))}" if name else key(str(k))
        if isinstance(v, dict):
            lines += table(inner, v)
        elif _is_table_array(v):
            for entry in v:
                lines.append(f"\n[[{inner}]]")
                lines += [f"{key(str(a))} = {value(b)}" for a, b in entry.items() if b is not None]
    return lines
