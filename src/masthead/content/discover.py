"""Which files under the content folder are posts or pages, and what their paths say.

A file's path gives its kind (`pages/…` after an optional language folder is a page, `authors/…`
an author's bio, anything else a post), its language (a `name.LANG.md` suffix, else a configured
language folder), its slug
(`2024-05-02-name.md` → `name`; `name/index.md` → `name`) and its translation base (the same path
in every language folder or without the language suffix).
What is never content follows Hugo (`source.SourceSpec.IgnoreFile`): hidden names (`.git/`,
`.post.md.swp`), names starting with `#` or ending with `~`; and editor droppings Hugo does not
know (`x.swp`, `x.tmp`, Vim's `4913`, JetBrains' `x___jb_tmp___`). Hugo's section list pages
(`_index.md`, `_index.zh.md`) are not posts: masthead builds list pages itself. Any other name
starting with `_` is content, as in Hugo (`content/en/blog/_posts/x.md` is a post). `skipped`
lists what is left out, for `masthead check`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from masthead.config import Site
from masthead.content import urls

_DATE_PREFIX = re.compile(r"^\d{4}-\d{2}-\d{2}-")
MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdown")  # Hugo's Markdown suffixes


# content formats Hugo renders (https://gohugo.io/content-management/formats/) and masthead does
# not: left out, and a `check` warning (their text would be missing from the site)
OTHER_FORMATS = (
    ".html", ".htm", ".org", ".adoc", ".asciidoc", ".ad", ".rst", ".pandoc", ".pdc",
)  # fmt: skip
_SECTION_PAGE = re.compile(r"^_index(?:\.[^.]+)?\.(?:md|markdown|mdown)$", re.IGNORECASE)


def ignore_reason(name: str) -> str | None:
    """Why a file or folder called `name` is never content, or None if it may be.

    Hidden names, editor temporaries and backups (`.#x`, `#x#`, `x~`, `x.swp`, `x.tmp`, `4913`,
    JetBrains `x___jb_tmp___`), and Hugo section list pages (`_index.md`, `_index.zh.md`).
    """
    if name.startswith("."):
        return "hidden (the name starts with a dot)"
    if (
        name.startswith("#")
        or name.endswith(("~", ".swp", ".swx", ".swo", ".tmp", "___"))
        or "___jb_" in name
        or name == "4913"
    ):
        return "an editor's temporary or backup file"
    if _SECTION_PAGE.match(name):
        return "a Hugo section list page (_index.md); masthead builds its list pages itself"
    return None


def is_ignored(name: str) -> bool:
    """True for a file or folder name that is never content (see `ignore_reason`)."""
    return ignore_reason(name) is not None


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
class Skipped:
    """A file or folder under the content folder that is not published as content.

    `rel` is content-relative (a folder ends with `/`); `surprising` is True when its author
    probably meant it to be published (a content format masthead does not render).
    """

    rel: str
    reason: str
    surprising: bool = False


def skipped(content_dir: Path) -> Iterator[Skipped]:
    """Every ignored file and folder (a folder once, not what is in it) and every file in a
    content format masthead does not render, sorted. Files beside posts (images, PDFs) are not
    listed: they are served under `/media/`."""
    found: list[Skipped] = []
    for dirpath, dirnames, filenames in os.walk(content_dir):
        rel_dir = os.path.relpath(dirpath, content_dir).replace(os.sep, "/")
        at = "" if rel_dir == "." else rel_dir + "/"
        kept = []
        for name in dirnames:
            reason = ignore_reason(name)
            if reason is None:
                kept.append(name)
            else:
                found.append(Skipped(at + name + "/", reason))
        dirnames[:] = kept
        for name in filenames:
            reason = ignore_reason(name)
            if reason is not None:
                found.append(Skipped(at + name, reason))
            elif name.lower().endswith(OTHER_FORMATS):
                suffix = name.rsplit(".", 1)[-1]
                why = f"a .{suffix} file: masthead renders Markdown (.md, .markdown, .mdown) only"
                found.append(Skipped(at + name, why, surprising=True))
    yield from sorted(found, key=lambda s: s.rel)


@dataclass(frozen=True)
class PathInfo:
    """What a content-relative path says about its file."""

    rel: str
    kind: str  # "post", "page" or "author" (a bio under authors/)
    lang: str | None  # from the file suffix, else the language folder
    slug: str
    base: str  # translation base
    folder: str  # content-relative folder of the file (relative links resolve from here)
    section: str = ""  # first folder under the language folder, not a bundle's own (Hugo's)


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
    kind = "post"
    if len(parts) > 1 and parts[0] in ("pages", "authors"):  # authors: bios (content/authors.py)
        kind = "page" if parts[0] == "pages" else "author"
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
    slug = urls.segment(_DATE_PREFIX.sub("", stem)) or "untitled"
    folder = "/".join(rel.split("/")[:-1])
    sections = base_parts[:-1]  # the folders, less a bundle's own (`name/index.md`)
    return PathInfo(
        rel=rel,
        kind=kind,
        lang=suffix_lang or folder_lang,
        slug=slug,
        base="/".join(base_parts),
        folder=folder,
        section=urls.segment(sections[0]) if sections else "",
    )
