"""Split a post into front matter and Markdown body, and load the front matter safely.

Front matter is in one of Hugo's three formats (https://gohugo.io/content-management/front-matter/):
YAML, whose first line is `---` and whose block ends at the next line that is `---` or `...`
(YAML's document end marker, accepted on purpose); TOML, between `+++` lines; or JSON, an object
at the top of the file (`content.toml_json`). The body follows.

YAML is read with YAML 1.2 core rules (https://yaml.org/spec/1.2.2/#103-core-schema): only
`true`/`false` are booleans, no base-60 numbers, no `0123` octals, no timestamps. The text fields
(`TEXT_KEYS`) go further: their scalars keep exactly the characters the author typed, so
`title: No` is "No", `slug: 0123` is "0123" and `translationKey: 1.10` is "1.10". Elsewhere
`0123` is the integer 123. A plain empty value, `~` or `null` means the key is absent. Known
keys are read whatever their case, as Hugo reads them (`Title: x` is `title`: `canonical`).

Every problem is a `ContentError` with a line (and column when YAML gives one): an unclosed
block, a block that is not a mapping (a thematic break at the top of a post is not front matter),
invalid YAML, a key given twice, or a value that does not fit its explicit `!!tag`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml

from masthead.content import toml_json
from masthead.errors import ContentError

try:  # the C loader is several times faster; the pure one behaves the same
    _BaseLoader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _BaseLoader = yaml.SafeLoader

TEXT_KEYS = frozenset(
    {
        "title", "slug", "author", "authors", "category", "categories", "tags", "lang",
        "translationKey", "excerpt", "summary", "description", "cover", "image", "date",
        "updated", "lastmod", "aliases", "canonical", "canonicalUrl", "linkTitle", "url",
        "series", "translation_of",
    }
)  # fmt: skip

# Hugo reads front-matter keys case-insensitively (`Title`, `Date`, `Tags`): these known keys
# are read under their own spelling whatever the case written; other keys stay as written
CANONICAL = {
    k.lower(): k
    for k in TEXT_KEYS
    | {"draft", "comments", "toc", "noindex", "menu", "menus", "headless", "build", "_build"}
}


def canonical(key: str) -> str:
    """`key` spelt as masthead knows it (`Title` is `title`, `translationkey` is
    `translationKey`); an unknown key as written."""
    return CANONICAL.get(key.lower(), key)


_DELIM = re.compile(r"^(---|\.\.\.)[ \t]*$")
_TOML_DELIM = re.compile(r"^\+\+\+[ \t]*$")


class _CoreLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """SafeLoader with YAML 1.2 core implicit types instead of YAML 1.1's."""


_CoreLoader.yaml_implicit_resolvers = {}
for _tag, _regexp, _first in [
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    (
        "tag:yaml.org,2002:float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        "-+0123456789.",
    ),
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
]:
    _CoreLoader.add_implicit_resolver(_tag, re.compile(_regexp), list(_first))


def _core_int(loader: Any, node: yaml.ScalarNode) -> int:
    """YAML 1.2 integers: `0123` is 123 (YAML 1.1 read it as octal 83), `0o17`, `0x1F`."""
    text = str(loader.construct_scalar(node)).strip()
    sign, digits = (-1, text[1:]) if text[:1] == "-" else (1, text.lstrip("+"))
    if digits[:2] in ("0o", "0O"):
        return sign * int(digits[2:], 8)
    if digits[:2] in ("0x", "0X"):
        return sign * int(digits[2:], 16)
    return sign * int(digits, 10)


_CoreLoader.add_constructor("tag:yaml.org,2002:int", _core_int)


@dataclass(frozen=True)
class FrontMatter:
    """Raw front matter: `data` (keys as written), `lines` (1-based line of each key), the body
    and the 1-based line the body starts on."""

    data: dict[str, Any]
    lines: dict[str, int]
    body: str
    body_line: int


def _hint(message: str, line_text: str, context: str = "", column: int = -1) -> str:
    """What to do about YAML error `message` (its `context`, PyYAML's "while ..." words) found
    at 0-based `column` of `line_text`."""
    value = line_text.split(":", 1)[1].strip() if ":" in line_text else line_text.strip()
    indent = line_text[: len(line_text) - len(line_text.lstrip())]
    if "\t" in indent:
        return "YAML does not allow tabs for indentation; indent with spaces"
    if context.startswith("while scanning a quoted scalar"):
        return "the quote opened here is never closed; close it on this line"
    if value[:1] in ("[", "{") and value[-1:] not in ("]", "}"):
        return "a value starting with [ or { is read as a list or map; quote the whole value"
    if value[:1] in ("@", "`", "%"):
        return "a value cannot start with @, ` or %; quote it"
    if "mapping values are not allowed" in message and indent and column == line_text.find(":"):
        # the key's own colon: the line continues the value above instead of starting a key
        return "this key is indented more than the one above; indent the keys of one mapping alike"
    if "mapping values are not allowed" in message:
        return "quote values that contain ': ', e.g. title: \"Release notes: spring\""
    return "check the quotes and brackets on this line, or quote the value"


# Errors PyYAML notices only past the construct at fault (an unclosed `[`, `{` or quote, a key
# without its `:`), at the next line or the end of the block: its `context_mark` is where that
# construct starts, the place to show the author.
_OPENED_EARLIER = (
    "while parsing a flow",
    "while scanning a quoted scalar",
    "while scanning a simple key",
)


def _error_mark(exc: yaml.YAMLError) -> Any:
    """The mark (0-based line and column in the YAML block) of the line to fix for `exc`:
    `problem_mark` (where PyYAML stopped), or `context_mark` when the problem is an
    unclosed construct that started on an earlier line (see `_OPENED_EARLIER`)."""
    problem = getattr(exc, "problem_mark", None)
    context = getattr(exc, "context_mark", None)
    said = getattr(exc, "context", None) or ""
    if context is not None and (
        problem is None or (context.line < problem.line and said.startswith(_OPENED_EARLIER))
    ):
        return context
    return problem


def _yaml_error(path: str, exc: yaml.YAMLError, block: str, first_line: int) -> ContentError:
    """`exc` as a ContentError on the file's line (`first_line` is the block's first line in
    the file, 1-based; PyYAML's marks are 0-based within the block)."""
    mark = _error_mark(exc)
    row = mark.line if mark is not None else 0
    rows = block.split("\n")
    line_text = rows[row] if row < len(rows) else ""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    col = f", column {mark.column + 1}" if mark is not None else ""
    context = getattr(exc, "context", None) or ""
    hint = _hint(str(exc), line_text, context, mark.column if mark is not None else -1)
    return ContentError(path, first_line + row, f"invalid front matter{col}: {problem} ({hint})")


def _text(node: yaml.Node) -> Any:
    """A node's value with every scalar kept as the typed text (quotes already removed).

    A plain `~`, `null` or empty value is None (the key counts as absent). Plain style is None in
    PyYAML's Python loader but "" in its C loader, hence `not node.style`.
    """
    if isinstance(node, yaml.ScalarNode):
        if node.tag == "tag:yaml.org,2002:null" and not node.style and node.value in (
            "", "~", "null", "Null", "NULL",
        ):  # fmt: skip
            return None
        return node.value
    if isinstance(node, yaml.SequenceNode):
        return [_text(item) for item in node.value]
    if isinstance(node, yaml.MappingNode):
        return {str(_text(k)): _text(v) for k, v in node.value}
    return None  # pragma: no cover


def _load(path: str, block: str, first_line: int) -> tuple[Any, dict[str, int]]:
    loader = _CoreLoader(block)
    try:
        node = loader.get_single_node()
        if node is None:
            return {}, {}
        if not isinstance(node, yaml.MappingNode):
            return _text(node), {}  # a scalar or a list: `split` reports it
        data: dict[str, Any] = {}
        lines: dict[str, int] = {}
        for key_node, value_node in node.value:
            key = canonical(str(_text(key_node)))
            line = first_line + key_node.start_mark.line
            if key in lines:
                raise ContentError(
                    path,
                    line,
                    f"invalid front matter: key '{key}' is given twice (lines {lines[key]} and "
                    f"{line}); keep one",
                )
            lines[key] = line
            if key in TEXT_KEYS:
                data[key] = _text(value_node)
                continue
            try:
                data[key] = loader.construct_object(value_node, deep=True)
            except (ValueError, TypeError, LookupError, AttributeError) as exc:
                # an explicit tag with a value it cannot hold (`count: !!int many`): PyYAML's
                # constructors raise plain Python errors there, not YAMLError
                mark = value_node.start_mark
                raise ContentError(
                    path,
                    first_line + mark.line,
                    f"invalid front matter, column {mark.column + 1}: the value of '{key}' does "
                    f"not fit its explicit tag ({exc}) (remove the !!tag or quote the value)",
                ) from None
        return data, lines
    except yaml.YAMLError as exc:
        raise _yaml_error(path, exc, block, first_line) from None
    finally:
        loader.dispose()


def _missing(lines: list[str]) -> str:
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    reason = (
        "missing front matter: a post starts with a '---' line, then YAML, then '---' "
        "(or TOML between '+++' lines, or a JSON object)"
    )
    if first is None:
        return reason + " (the file is empty)"
    if first > 0 and lines[first].strip() in ("---", "+++"):
        mark = lines[first].strip()
        return reason + f" (the '{mark}' on line {first + 1} must be the very first line)"
    return reason


def _is_json(text: str) -> bool:
    """Whether `text` opens with a JSON object (not a shortcode's `{{`)."""
    head = text.lstrip()
    return head.startswith("{") and not head.startswith(("{{", "{%"))


def _typed(
    path: str, data: dict[str, Any], lines: dict[str, int]
) -> tuple[dict[str, Any], dict[str, int]]:
    """TOML or JSON keys and values as the YAML reader gives them: known keys in their own
    spelling (`canonical`), text fields as typed text; and the lines under those keys."""
    out: dict[str, Any] = {}
    where: dict[str, int] = {}
    for written, value in data.items():
        k = canonical(written)
        line = lines.get(written, 1)
        if k in out:
            raise ContentError(
                path,
                line,
                f"invalid front matter: key '{k}' is given twice (lines {where[k]} and {line}); "
                "keep one",
            )
        out[k] = toml_json.as_text(value, k) if k in TEXT_KEYS else toml_json.plain(value)
        where[k] = line
    return out, where


def _split_toml(path: str, lines: list[str]) -> FrontMatter:
    end = next((i for i in range(1, len(lines)) if _TOML_DELIM.match(lines[i])), None)
    if end is None:
        raise ContentError(
            path, 1, "front matter opened on line 1 is never closed (add a '+++' line after it)"
        )
    data, key_lines = _typed(path, *toml_json.load_toml(path, "\n".join(lines[1:end]), 2))
    body = "\n".join(lines[end + 1 :])
    return FrontMatter(data=data, lines=key_lines, body=body, body_line=end + 2)


def _split_json(path: str, text: str) -> FrontMatter:
    raw, raw_lines, at = toml_json.load_json(path, text)  # an object: the text opens with {
    data, key_lines = _typed(path, raw, raw_lines)
    body_line = text.count("\n", 0, at) + 1
    return FrontMatter(data=data, lines=key_lines, body=text[at:], body_line=body_line)


def split(path: str, text: str) -> FrontMatter:
    """Split decoded `text` (LF line endings) into front matter and body.

    Raises `ContentError` when there is no front matter, when it is never closed, when it is not
    valid YAML, TOML or JSON (with line, column and a hint), or when it is not a mapping of keys
    to values.
    """
    lines = text.split("\n")
    if _TOML_DELIM.match(lines[0]):
        return _split_toml(path, lines)
    if _is_json(text):
        return _split_json(path, text)
    if not _DELIM.match(lines[0]) or lines[0].startswith("..."):
        raise ContentError(path, 1, _missing(lines))
    end = next((i for i in range(1, len(lines)) if _DELIM.match(lines[i])), None)
    if end is None:
        raise ContentError(
            path, 1, "front matter opened on line 1 is never closed (add a '---' line after it)"
        )
    data, key_lines = _load(path, "\n".join(lines[1:end]), 2)
    if not isinstance(data, dict):
        raise ContentError(
            path,
            1,
            f"missing front matter: the block on lines 1-{end + 1} is not a YAML mapping of "
            "keys to values (a '---' at the top of a file always opens front matter)",
        )
    body = "\n".join(lines[end + 1 :])
    return FrontMatter(data=data, lines=key_lines, body=body, body_line=end + 2)
