"""Translations that fall behind their original: body hashes and the paragraph-level diff.

A translation names, in front matter `translation_of: HASH`, the `body_hash` of its original's
body when it was last brought up to date (`masthead translation mark-current` writes it, and
`masthead new --translation-of` on creation). When the original's body hash differs now, the
translation is behind. Only the Markdown body counts: a new tag or `updated` date in the
original's front matter does not make its translations stale, nor do trailing spaces, line
endings or blank lines at either end.

Which post of a translation group is the original (`original_of`): the one without
`translation_of`; among several, the one in the site's default language, then the oldest.

Pure: text in, values out.
"""

from __future__ import annotations

import codecs
import difflib
import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

HASH_LENGTH = 16  # hex digits of SHA-256 kept: 64 bits, short enough to read in front matter
_BLANK = re.compile(r"\n[ \t]*\n")


def normalised(body: str) -> str:
    """`body` with LF line ends, no trailing spaces on any line and no blank lines at its ends."""
    lines = body.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(line.rstrip() for line in lines).strip("\n")


def body_hash(body: str) -> str:
    """The content hash of a Markdown body (`normalised`), `HASH_LENGTH` hex digits."""
    return hashlib.sha256(normalised(body).encode("utf-8")).hexdigest()[:HASH_LENGTH]


def paragraphs(body: str) -> list[str]:
    """The blocks of a Markdown body, split at blank lines (a paragraph, a list, a heading…)."""
    return [p.strip("\n") for p in _BLANK.split(normalised(body)) if p.strip()]


@dataclass(frozen=True)
class Change:
    """One step of a paragraph diff: `kind` is "same" (`old` == `new`, or several unchanged
    paragraphs summed up in `skipped`), "removed" (`old` only), "added" (`new` only) or
    "changed" (`old` became `new`)."""

    kind: str
    old: str = ""
    new: str = ""
    skipped: int = 0


def paragraph_diff(old: str, new: str, context: int = 1) -> list[Change]:
    """What changed from body `old` to body `new`, paragraph by paragraph. Unchanged paragraphs
    are kept only `context` around a change; longer runs become one "same" step with
    `skipped`, the number left out. Paragraphs replaced one for one are "changed" pairs."""
    a, b = paragraphs(old), paragraphs(new)
    out: list[Change] = []
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    for i, (tag, i1, i2, j1, j2) in enumerate(ops):
        if tag == "equal":
            same = a[i1:i2]
            head = same[:context] if i > 0 else []
            tail = same[-context:] if i < len(ops) - 1 and context else []
            if len(same) <= len(head) + len(tail):
                out += [Change("same", p, p) for p in same]
                continue
            out += [Change("same", p, p) for p in head]
            out.append(Change("same", skipped=len(same) - len(head) - len(tail)))
            out += [Change("same", p, p) for p in tail]
        elif tag == "replace":
            pairs = min(i2 - i1, j2 - j1)
            out += [Change("changed", a[i1 + k], b[j1 + k]) for k in range(pairs)]
            out += [Change("removed", old=p) for p in a[i1 + pairs : i2]]
            out += [Change("added", new=p) for p in b[j1 + pairs : j2]]
        elif tag == "delete":
            out += [Change("removed", old=p) for p in a[i1:i2]]
        else:
            out += [Change("added", new=p) for p in b[j1:j2]]
    return out


class Member(Protocol):
    """What `original_of` reads of a post of a translation group."""

    @property
    def lang(self) -> str: ...
    @property
    def translation_of(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def body_hash(self) -> str: ...


M = TypeVar("M", bound=Member)


def original_of(members: Sequence[M], default_lang: str, dates: Sequence[float]) -> M | None:
    """The original among the posts of one translation group (one kind), `dates` their dates
    in seconds: the post without `translation_of`; among several, the one in `default_lang`,
    then the oldest, then by path. None when every post names an original hash (no original)."""
    candidates = [(m, d) for m, d in zip(members, dates, strict=True) if not m.translation_of]
    if not candidates:
        return None
    best = min(candidates, key=lambda md: (md[0].lang != default_lang, md[1], md[0].source))
    return best[0]


def behind(group: Sequence[M], default_lang: str, dates: Sequence[float]) -> list[tuple[M, M]]:
    """(translation, original) for each translation of one group (`original_of`) whose
    `translation_of` is not its original's body hash now."""
    original = original_of(group, default_lang, dates)
    if original is None:
        return []
    return [
        (m, original)
        for m in group
        if m.translation_of and m is not original and m.translation_of != original.body_hash
    ]


KEY = "translation_of"  # the front-matter key
_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n|$)")
_CLOSE = re.compile(rb"(?:---|\.\.\.)[ \t]*")  # frontmatter._DELIM, on bytes
_KEY_LINE = re.compile(rb"translation_of[ \t]*:")


def with_translation_of(raw: bytes, digest: str) -> bytes | None:
    """`raw` (a content file whose YAML front matter parsed) with `translation_of: "digest"`:
    the line that has the key replaced, else one line added just before the line that closes
    the front matter, ended as the file's first line is; every other byte kept. None when the
    front matter's end is not found."""
    start = len(codecs.BOM_UTF8) if raw.startswith(codecs.BOM_UTF8) else 0
    lines = [m for m in _LINE.finditer(raw, start) if m.group()]
    first = lines[0].group() if lines else b""
    newline = first[len(first.rstrip(b"\r\n")) :] or b"\n"
    for match in lines[1:]:
        text = match.group()
        ending = text[len(text.rstrip(b"\r\n")) :] or newline
        line = f"{KEY}: {json.dumps(digest)}".encode() + ending
        if _KEY_LINE.match(text):
            return raw[: match.start()] + line + raw[match.end() :]
        if _CLOSE.fullmatch(text.rstrip(b"\r\n")):
            return raw[: match.start()] + line + raw[match.start() :]
    return None
