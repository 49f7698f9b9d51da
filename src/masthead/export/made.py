"""What an export was made from, so that the next build renders only what may have changed.

A page's bytes depend on the index (its generation), on the clock only through scheduled posts
(a post becoming due), on the comments it shows (one thread's version, or the site-wide
comments version: `Page.mark`), and on what is not in the database: the code, the settings and
base URL, the templates, the static files and the media files beside posts. The last group is
summed up in a `fingerprint` (names, sizes and modification times, never contents: a build
with nothing changed reads no file it does not need; and not where the folders are: a site
folder moved with its OUT, its files' times kept, builds as incrementally as before).

The build's manifest keeps a `Made`: the fingerprint, the generation, the date of the next
scheduled post then, for every file that shows comments the URL it was fetched from, its
mark and the version it showed, the state of every post (export/changes.py) and the alias
pages written. When the fingerprint and the generation are the same and no
post has become due, a page can only have changed with the comments it shows: those whose
thread (or the site-wide version) moved are fetched again, and nothing else is rendered.
When only the generation moved (posts saved), the posts whose state changed say which pages
to render (export/changes.py). Anything else makes a full build, which still writes only the
files whose bytes changed.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import masthead
from masthead.config import Site
from masthead.content.discover import MARKDOWN_SUFFIXES
from masthead.store import comment_threads
from masthead.store import posts as store

PACKAGE = Path(masthead.__file__).resolve().parent  # its code, templates, static files, texts


@dataclass(frozen=True)
class Versions:
    """What the pages of the site depend on in the database: the index generation, the date of
    the next scheduled post (None: none), the site-wide comments version and every thread's
    version (absent: 0)."""

    generation: int
    due: float | None
    comments: int
    threads: dict[str, int]

    @classmethod
    def read(cls, conn: Any, now: float) -> Versions:
        return cls(
            store.generation(conn),
            store.next_scheduled(conn, now),
            comment_threads.comments_version(conn),
            comment_threads.thread_versions(conn),
        )


# a file's record in `Made.marks`: [url, "thread", KEY, version], [url, "threads", KEY…,
# [version…]] or [url, "site", version]
Mark = list[Any]


@dataclass
class Made:
    """See the module. `marks`: OUT-relative file → its record (files showing comments)."""

    fingerprint: str = ""
    generation: int = -1
    due: float | None = None
    marks: dict[str, Mark] = field(default_factory=dict)
    posts: dict[str, Any] = field(default_factory=dict)  # export/changes.py: dump_states
    aliases: list[str] = field(default_factory=list)  # the alias pages written (OUT-relative)

    @classmethod
    def load(cls, data: Any) -> Made:
        """From the manifest's `made` (anything unexpected: a `Made` that matches nothing)."""
        if not isinstance(data, dict):
            return cls()
        try:
            due = data.get("due")
            marks = data.get("marks") or {}
            return cls(
                fingerprint=str(data.get("fingerprint", "")),
                generation=int(data.get("generation", -1)),
                due=float(due) if due is not None else None,
                marks={str(k): list(v) for k, v in marks.items() if _valid(v)},
                posts=dict(data.get("posts") or {}),
                aliases=[str(a) for a in data.get("aliases") or []],
            )
        except (TypeError, ValueError, AttributeError):
            return cls()

    def dump(self) -> dict[str, Any]:
        return {
            "fingerprint": self.fingerprint,
            "generation": self.generation,
            "due": self.due,
            "marks": self.marks,
            "posts": self.posts,
            "aliases": self.aliases,
        }

    def same_pages(self, fingerprint: str, seen: Versions, now: float) -> bool:
        """Whether every page is as this build made it, but for the comments they show."""
        due_passed = self.due is not None and now >= self.due
        return (
            bool(self.fingerprint)
            and self.fingerprint == fingerprint
            and self.generation == seen.generation
            and not due_passed
        )

    def same_files(self, fingerprint: str, now: float) -> bool:
        """Whether everything but the database is as this build found it, and no post has
        become due since (the posts' states then say what changed: export/changes.py)."""
        due_passed = self.due is not None and now >= self.due
        return bool(self.fingerprint) and self.fingerprint == fingerprint and not due_passed

    def stale(self, seen: Versions) -> list[tuple[str, str]]:
        """`(file, url)` of every file whose comments moved since (see `record`)."""
        return [
            (rel, mark[0])
            for rel, mark in self.marks.items()
            if mark[-1] != _version(mark[1:-1], seen)
        ]


def _valid(mark: Any) -> bool:
    return (
        isinstance(mark, list)
        and len(mark) >= 3
        and isinstance(mark[0], str)
        and mark[1] in ("thread", "threads", "site")
    )


def _version(scope: list[Any] | tuple[Any, ...], seen: Versions) -> int | list[int]:
    """The version of the comments of `scope` in `seen` (a list of them for several threads,
    as JSON keeps it)."""
    if scope[0] == "thread":
        return seen.threads.get(str(scope[1]), 0)
    if scope[0] == "threads":
        return [seen.threads.get(str(key), 0) for key in scope[1:]]
    return seen.comments


def record(url: str, mark: tuple[str, ...], seen: Versions) -> Mark | None:
    """The record of a file fetched from `url` showing the comments of `mark` (`()`: none,
    `("thread", KEY)`, `("site",)`) at the versions `seen`; None when it shows none."""
    if not mark:
        return None
    return [url, *mark, _version(mark, seen)]


def fingerprint(site: Site, base_url: str) -> str:
    """A digest of what pages depend on beyond the database (see the module)."""
    digest = hashlib.sha256()
    digest.update(f"{masthead.__version__}\n{base_url}\n".encode())
    digest.update(site.settings.model_dump_json().encode())
    root = site.root
    folders = {  # named, not by path: a site folder moved (its files' times kept) is the same
        "package": PACKAGE,
        "templates": root / site.settings.templates_dir,
        "static": root / site.settings.static_dir,
    }
    for name, folder in folders.items():
        _add(digest, name, _walk(folder, lambda rel: "__pycache__" not in rel))
    # the files beside posts (the posts themselves are in the index)
    others = _walk(site.content_dir, lambda rel: not rel.lower().endswith(MARKDOWN_SUFFIXES))
    _add(digest, "content", others)
    return digest.hexdigest()


def _add(digest: Any, name: str, stats: Iterable[tuple[str, os.stat_result]]) -> None:
    digest.update(f"\n{name}\n".encode())
    for rel, st in stats:
        digest.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())


def _walk(folder: Path, keep: Any) -> list[tuple[str, os.stat_result]]:
    """`(relative path, stat)` of the files under `folder` that `keep(relative path)`, sorted;
    links followed, hidden folders skipped."""
    out: list[tuple[str, os.stat_result]] = []
    if not folder.is_dir():
        return out
    for top, dirs, names in os.walk(folder, followlinks=True):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        rel_top = os.path.relpath(top, folder)
        for name in sorted(names):
            rel = name if rel_top == "." else f"{rel_top}/{name}"
            if keep(rel):
                try:
                    out.append((rel, os.stat(os.path.join(top, name))))
                except OSError:
                    continue
    return out
