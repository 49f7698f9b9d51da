"""Which files under the content folder are posts or pages, and what their paths say.

A file's path gives its kind (`pages/…` after an optional language folder is a page, anything else
a post), its language (a `name.LANG.md` suffix, else a configured language folder), its slug
(`2024-05-02-name.md` → `name`; `name/index.md` → `name`) and its translation base (the same path
in every language folder or without the language suffix).
Editor droppings (swap, backup and temporary files) are never content.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from masthead.config import Site

_DATE_PREFIX = re.compile(r"^\d{4}-\d{2}-\d{2}-")
MARKDOWN_SUFFIXES = (".md", ".markdown")


def is_ignored(name: str) -> bool:
    """True for hidden files, Hugo section files (`_index.md`) and editor temporaries
    (`.#x`, `x~`, `x.swp`, `4913`, JetBrains `x___jb_tmp___`)."""
    return (
        name.startswith((".", "_", "#"))
        or name.endswith(("~", ".swp", ".swx", ".swo", ".tmp", "___"))
        or "___jb_" in name
        or name == "4913"
    )


def is_content_file(rel: str) -> bool:
    """True when the content-relative path `rel` names a Markdown post or page."""
    parts = rel.split("/")
    return rel.lower().endswith(MARKDOWN_SUFFIXES) and not any(is_ignored(p) for p in parts)


def walk(content_dir: Path) -> Iterator[str]:
    """Content-relative POSIX paths of every Markdown file, sorted, skipping ignored folders."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(content_dir):
        dirnames[:] = [d for d in dirnames if not is_ignored(d)]
        rel_dir = os.path.relpath(dirpath, content_dir).replace(os.sep, "/")
        for name in filenames:
            rel = name if rel_dir == "." else f"{rel_dir}/{name}"
            if is_content_file(rel):
                found.append(rel)
    yield from sorted(found)


@dataclass(frozen=True)
class PathInfo:
    """What a content-relative path says about its file."""

    rel: str
    kind: str  # "post" or "page"
    lang: str | None  # from the file suffix, else the language folder
    slug: str
    base: str  # translation base
    folder: str  # content-relative folder of the file (relative links resolve from here)


def classify(site: Site, rel: str) -> PathInfo:
    """Read kind, language, slug and translation base from a content-relative path."""
    parts = rel.split("/")
    folder_lang: str | None = None
    if len(parts) > 1:
        for lang in site.languages.values():
            if lang.folder and parts[0] == lang.folder:
                folder_lang = lang.code
                parts = parts[1:]
                break
    kind = "page" if len(parts) > 1 and parts[0] == "pages" else "post"
    name = parts[-1]
    stem = name.rsplit(".", 1)[0]
    suffix_lang: str | None = None
    if "." in stem:
        head, tail = stem.rsplit(".", 1)
        resolved = site.resolve_language(tail)
        if resolved is not None and not tail.isdigit():
            suffix_lang, stem = resolved.code, head
    if stem == "index" and len(parts) > 1:
        stem = parts[-2]
        base_parts = parts[:-1]
    else:
        base_parts = [*parts[:-1], stem]
    slug = _DATE_PREFIX.sub("", stem).lower().replace(" ", "-")
    folder = "/".join(rel.split("/")[:-1])
    return PathInfo(
        rel=rel,
        kind=kind,
        lang=suffix_lang or folder_lang,
        slug=slug,
        base="/".join(base_parts),
        folder=folder,
    )
