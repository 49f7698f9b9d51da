"""The dashboard's words for what the store keeps in English: a comment's moderation reason and
an audit row's JSON detail, in the interface language.

A comment's `reason` is stored as the rules (comments/rules.py), the dashboard, a reader's own
delete and an import wrote it: English parts joined by "; ". `reason_text` translates each part
it knows (`REASONS`: a catalog key and the pattern of the English text, with the values it
carries) and keeps a part it does not know (an imported export's own reason) as stored.

An audit row's `detail` is a JSON object whose shape depends on who wrote it (store/comments.py and
store/comment_moderation.py, accounts/service.py, the dashboard's and the API's bulk actions, the
comment submission's throttle, a refused POST). `detail_text` says each key it knows in words
("comments 11, 12; reason: …"), any other as `key: value`, and a detail that is not a JSON object as
its text; long lists and values are cut short. Both return plain text: the templates escape it."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable
from typing import Any

Translate = Callable[..., str]

_WORD = r"(?P<word>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")"  # Python's repr of a str
# (catalog key, the English text's pattern): every reason the code writes (rules.py's
# evaluate and recheck_edit, the dashboard's reply, a reader's delete, an import)
REASONS: tuple[tuple[str, str], ...] = (
    ("g_reason_duplicate", r"the same comment as #(?P<id>\d+)"),
    ("g_reason_honeypot", r"the hidden field was filled in"),
    (
        "g_reason_too_fast",
        r"sent (?P<elapsed>[\d.]+|nan|inf|-inf) s after the form was shown "
        r"\(at least (?P<least>[\d.]+) s\)",
    ),
    ("g_reason_all_held", r"every comment is held \(comments_moderation\)"),
    ("g_reason_staff_name", r"uses a staff name"),
    ("g_reason_staff_address", r"claims a staff address"),
    ("g_reason_first", r"first comment from this browser"),
    ("g_reason_links", r"(?P<links>\d+) links \(held at (?P<most>\d+) or more\)"),
    ("g_reason_moderation_word", r"contains the moderation word " + _WORD),
    ("g_reason_disallowed_word", r"contains the disallowed word " + _WORD),
    ("g_reason_staff", r"signed-in staff"),
    ("g_reason_known", r"known commenter"),
    ("g_reason_passed", r"passed every rule"),
    ("g_reason_editor_reply", r"a reply by a signed-in editor"),
    ("g_reason_author_deleted", r"deleted by its author"),
    ("g_reason_imported", r"imported from (?P<source>[\w.-]+) with status (?P<status>[\w-]+)"),
)
# the audit detail keys `detail_text` says in words; any other is shown as `key: value`
DETAIL_KEYS = (
    "ids",
    "skipped",
    "moves",
    "of",
    "reason",
    "previous",
    "user",
    "role",
    "count",
    "client",
    "rule",
    "thread",
    "ip_hash",
    "path",
    "why",
    "request",
    "comments",
    "reasons",
)
_EDITED = "edited: "
_PATTERNS = [(key, re.compile(pattern)) for key, pattern in REASONS]
MAX_ITEMS = 20  # ids listed before "… (N in all)"
MAX_VALUE = 120  # characters of a value before "…"


def _word(raw: str) -> str:
    try:
        value = ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        return raw
    return str(value)


def reason_parts(reason: str) -> list[tuple[str, dict[str, str]] | str]:
    """The parts of a stored reason: `(key, values)` for each one `REASONS` knows, the text
    itself for one it does not."""
    parts: list[tuple[str, dict[str, str]] | str] = []
    rest = reason.strip()
    while rest:
        edited = rest.startswith(_EDITED)
        body = rest[len(_EDITED) :] if edited else rest
        for key, pattern in _PATTERNS:
            found = pattern.match(body)
            if found and (found.end() == len(body) or body.startswith("; ", found.end())):
                values = {k: v for k, v in found.groupdict().items() if v is not None}
                if "word" in values:
                    values["word"] = _word(values["word"])
                if edited:
                    values = {"key": key, **values}
                parts.append(("g_reason_edited" if edited else key, values))
                rest = body[found.end() + 2 :].strip()
                break
        else:
            head, _, rest = rest.partition("; ")
            parts.append(head)
            rest = rest.strip()
    return parts


def reason_text(t: Translate, reason: str) -> str:
    """A stored reason in the interface language (module docstring)."""
    out = []
    for part in reason_parts(reason):
        if isinstance(part, str):
            out.append(part)
            continue
        key, values = part
        if key == "g_reason_edited":
            inner = {k: v for k, v in values.items() if k != "key"}
            out.append(t(key, reason=_status_words(t, values["key"], inner)))
        else:
            out.append(_status_words(t, key, values))
    return t("g_list_sep").join(out)


def _status_words(t: Translate, key: str, values: dict[str, str]) -> str:
    if "status" in values:
        values = {**values, "status": status_name(t, values["status"])}
    return t(key, **values)


def status_name(t: Translate, status: str) -> str:
    """A comment status in the interface language (the store's name when it has none)."""
    if status in ("pending", "approved", "spam", "trash"):
        return t("guanli_status_" + status)
    if status == "deleted":
        return t("g_removed")
    return status


def _cut(text: str) -> str:
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 1] + "…"


def _ids(t: Translate, values: Any) -> str:
    if not isinstance(values, list):
        return _cut(_plain(values))
    shown = ", ".join(_plain(v) for v in values[:MAX_ITEMS])
    if len(values) > MAX_ITEMS:
        shown += " " + t("g_d_more", n=len(values))
    return shown


def _plain(value: Any) -> str:
    """Any JSON value as short text: a string as itself, anything else as compact JSON."""
    if isinstance(value, str):
        return _cut(value)
    return _cut(json.dumps(value, ensure_ascii=False, separators=(", ", ": ")))


def _moves(t: Translate, moves: Any) -> str:
    """`{"11": ["pending", "approved"], …}` as "pending → approved: 11, 12"."""
    if not isinstance(moves, dict):
        return _plain(moves)
    groups: dict[tuple[str, str], list[Any]] = {}
    for comment_id, move in moves.items():
        if isinstance(move, list) and len(move) == 2:
            pair = (status_name(t, str(move[0])), status_name(t, str(move[1])))
        else:
            pair = ("?", _plain(move))
        groups.setdefault(pair, []).append(comment_id)
    return t("g_list_sep").join(f"{a} → {b}: {_ids(t, ids)}" for (a, b), ids in groups.items())


_FIELDS = {
    "body": "g_comment",
    "author_name": "comment_name",
    "author_email": "comment_email",
    "author_url": "comment_website",
}


def _previous(t: Translate, previous: Any) -> str:
    if not isinstance(previous, dict):
        return _plain(previous)
    said = []
    for field, value in previous.items():
        label = t(_FIELDS[field]) if field in _FIELDS else field
        said.append(f"{label} “{_plain(value)}”")
    return t("g_d_previous", values=t("g_list_sep").join(said))


def detail_text(t: Translate, raw: str | None) -> str:
    """An audit row's JSON detail in words (module docstring); '' for an empty one."""
    if not raw:
        return ""
    try:
        detail = json.loads(raw)
    except ValueError:
        return _cut(raw)
    if not isinstance(detail, dict):
        return _plain(detail)
    said: list[str] = []
    for key, value in detail.items():
        if key == "ids":
            n = len(value) if isinstance(value, list) else 2
            said.append(t("g_d_ids", ids=_ids(t, value), n=n) if value else t("g_d_no_ids"))
        elif key == "skipped":
            if value:
                said.append(t("g_d_skipped", ids=_ids(t, value)))
        elif key == "moves":
            if value:
                said.append(_moves(t, value))
        elif key == "of":
            said.append(t("g_d_of", id=_plain(value)))
        elif key == "reason":
            said.append(t("g_d_reason", reason=reason_text(t, str(value))))
        elif key == "previous":
            said.append(_previous(t, value))
        elif key == "count" and isinstance(value, int) and not isinstance(value, bool):
            said.append(t("g_d_count", n=value))
        elif key in ("user", "role", "client", "rule", "thread", "ip_hash", "path"):
            shown = _plain(value)
            if key in ("client", "ip_hash") and isinstance(value, str):
                shown = value[:12]
            said.append(t("g_d_" + key, value=shown))
        elif key == "why":
            said.append(t("g_d_why", value=_plain(value)))
        elif key == "reasons":
            pass  # the skipped ids are said once, under `skipped`
        elif key == "request":
            if value is not None:
                said.append(t("g_d_request", value=_plain(value)))
        elif key == "comments" and isinstance(value, int) and not isinstance(value, bool):
            said.append(t("g_d_comments", n=value))
        else:
            said.append(f"{_cut(str(key))}: {_plain(value)}")
    return t("g_list_sep").join(said)
