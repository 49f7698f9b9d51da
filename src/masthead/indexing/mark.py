"""`masthead translation mark-current PATH`: record that a translation is up to date with its
original now. Its front matter gets `translation_of: HASH`, the hash of the original's body
as the file has it now (content/translations.py), and the index keeps that body, so that the
dashboard can show what changes in the original after this (store/translations.py).

The index is brought up to date first (the translation may be new, its group just changed),
and again after the file is written."""

from __future__ import annotations

import math
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from masthead.config import Site
from masthead.content import translations
from masthead.content.urls import MARKDOWN_SUFFIXES
from masthead.errors import MastheadError
from masthead.indexing.indexer import index_site
from masthead.indexing.originals import body_on_disk
from masthead.store import translations as store
from masthead.store.db import Database


class MarkError(MastheadError):
    """The translation cannot be marked: no such file, no original, a file that changed."""


@dataclass(frozen=True)
class Marked:
    """What `mark_current` did: the translation and original (site-relative paths), the hash
    written, and whether the file changed (False: it named that hash already)."""

    translation: str
    original: str
    digest: str
    changed: bool


def mark_current(site: Site, db: Database, path: Path) -> Marked:
    """Mark the translation in content file `path` (as given, or relative to the site or its
    content folder) current with its original. Raises MarkError."""
    found = _content_file(site, path)
    rel = found.relative_to(site.content_dir.resolve()).as_posix()
    source = f"{site.settings.content_dir}/{rel}"
    index_site(site, db)
    conn = db.read()
    row = store.by_source(conn, source)
    if row is None:
        raise MarkError(f"{source}: not indexed (masthead check says why)")
    others = [
        m
        for m in store.group(conn, row.translation_key, row.kind, math.inf, True)
        if m.id != row.id
    ]
    original = translations.original_of(
        others, site.settings.default_language, [m.date_ts for m in others]
    )
    if original is None:
        raise MarkError(
            f"{source}: no original to mark it current with (no other post of its translation "
            "group lacks translation_of; give both files one translationKey)"
        )
    body = body_on_disk(site, original.source)
    if body is None:
        raise MarkError(f"{original.source}: cannot be read; fix it first")
    digest = translations.body_hash(body)
    with db.write() as writer:
        store.keep(writer, digest, original.source, translations.normalised(body), time.time())
    raw = found.read_bytes()
    marked = translations.with_translation_of(raw, digest)
    if marked is None:
        raise MarkError(f"{source}: the end of its front matter was not found; not changed")
    if marked != raw:
        _replace(found, marked)
        index_site(site, db)
    return Marked(source, original.source, digest, marked != raw)


def _content_file(site: Site, path: Path) -> Path:
    content = site.content_dir.resolve()
    for candidate in (path, site.root / path, site.content_dir / path):
        try:
            resolved = candidate.resolve()
        except (OSError, ValueError):
            continue
        if resolved.is_file():
            if not resolved.is_relative_to(content) or not resolved.name.lower().endswith(
                MARKDOWN_SUFFIXES
            ):
                raise MarkError(f"{path}: not a Markdown file in {site.content_dir}")
            return resolved
    raise MarkError(f"{path}: no such file")


def _replace(path: Path, data: bytes) -> None:
    """Replace `path` by `data` in one rename (an editor or the watcher never reads half of
    it), its permission bits kept."""
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.chmod(name, path.stat().st_mode & 0o7777)
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
