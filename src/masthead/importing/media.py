"""Images an import copies into a post's bundle folder: found under the folder the user gave
(a copy of WordPress's `wp-content/uploads` or Ghost's `content`), and the new link to give in
the post. `Media.bring` finds the file and notes the copy to make (`copies`: source file and
where it goes); `Media.copy_all` writes them through the `Writer`, so a re-run copies nothing
twice. The finding may run in a worker process, the writing only in the importing one."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from masthead.importing.files import Writer
from masthead.importing.report import Report

_SIZED = re.compile(r"-\d+x\d+(?=\.[A-Za-z0-9]+$)")  # WordPress's `photo-300x200.jpg`
_SCALED = re.compile(r"-scaled(?=\.[A-Za-z0-9]+$)")  # WordPress 5.3's big-image copy
_GHOST_SIZE = re.compile(r"(^|/)images/size/[wh]\d+(?:h\d+)?/")  # Ghost's resized copies


class Media:
    """Finds the files a post refers to under `source` (None: none given); `marker` is the
    URL path part before a file's relative path (`/wp-content/uploads/`)."""

    def __init__(self, source: Path | None, marker: str, report: Report) -> None:
        self.source = source
        self.marker = marker
        self.report = report
        self.hosts: set[str] = set()  # the old site's hosts (empty: any host)
        self.copies: list[tuple[str, str]] = []  # (source file, destination relative path)

    def relative(self, url: str) -> str | None:
        """The file's path under the source folder for an URL of the old site, else None."""
        parts = urlsplit(url.strip())
        if parts.netloc and self.hosts and parts.netloc.lower() not in self.hosts:
            return None  # another site's file: left as a link to it
        path = unquote(parts.path)
        at = path.find(self.marker)
        if at >= 0:
            path = path[at + len(self.marker) :]
        elif not (parts.netloc and parts.netloc.lower() in self.hosts):
            return None  # not one of the old site's files
        rel = posixpath.normpath(path.lstrip("/"))
        return None if rel.startswith("..") or rel in (".", "") else rel

    def bring(self, url: str, bundle: str, item: str) -> str | None:
        """Note the copy of the file `url` names into the folder `bundle` (relative to the
        content folder); return the link to write in the post (the file's name), or None when
        `url` is not one of the old site's files or cannot be found (listed in the report)."""
        rel = self.relative(url)
        if rel is None:
            return None
        found = self._find(rel)
        if found is None:
            self.report.need(rel, item)
            return None
        self.copies.append((str(found), f"{bundle}/{found.name}"))
        return found.name

    def _find(self, rel: str) -> Path | None:
        """`rel` under the source folder, else the original of a resized copy (WordPress's
        `x-300x200.jpg`, `x-scaled.jpg`; Ghost's `images/size/w600/x.jpg`)."""
        if self.source is None:
            return None
        unsized = _GHOST_SIZE.sub(r"\1images/", rel)
        for candidate in (rel, unsized, _SIZED.sub("", rel), _SCALED.sub("", _SIZED.sub("", rel))):
            path = self.source / candidate
            if path.is_file():
                return path
        return None


def copy_all(copies: list[tuple[str, str]], writer: Writer, report: Report) -> None:
    """Make the `copies` (source file, destination) through `writer`, each destination once."""
    for source, rel in copies:
        if rel in writer.outcomes:
            continue
        report.wrote(rel, writer.write(rel, Path(source).read_bytes()))
        report.counts["images"] += 1
