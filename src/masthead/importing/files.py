"""Writing imported files without losing an edit: the manifest of what the last import wrote.

`Writer.write(rel, data)` puts `data` at `rel` (relative to the site folder) unless the file
there was changed since an import wrote it. The manifest (`MANIFEST`, in the site folder) keeps
the SHA-256 of every file an import wrote; a file whose content is that hash is the import's own
and may be replaced; any other content is the user's (an edit, or a file an import never wrote)
and is kept, its path listed. A file that would be written with the content it has already is
left alone (not rewritten: its time stays), so a second run of the same import changes nothing.
Under `dry_run` nothing is written but every outcome is the same.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

MANIFEST = ".masthead-import.json"
NEW, UPDATED, UNCHANGED, KEPT = "new", "updated", "unchanged", "kept"


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class Writer:
    """Writes files under `root` (the content folder), each at most once per run, keeping the
    manifest in the file `manifest` (in the site folder, outside the content)."""

    root: Path
    manifest: Path
    dry_run: bool = False
    written: dict[str, str] = field(default_factory=dict)  # rel path -> sha256 (the manifest)
    outcomes: dict[str, str] = field(default_factory=dict)  # rel path -> what happened this run

    def __post_init__(self) -> None:
        try:
            data = json.loads(self.manifest.read_text(encoding="utf-8"))
            self.written = {str(k): str(v) for k, v in data.get("files", {}).items()}
        except FileNotFoundError:
            self.written = {}
        except (ValueError, AttributeError):  # a damaged manifest: every existing file is kept
            self.written = {}

    def write(self, rel: str, data: bytes) -> str:
        """Write `data` at `rel` (a relative path with `/`); return NEW, UPDATED, UNCHANGED or
        KEPT (the file there is the user's: not touched)."""
        if rel in self.outcomes:
            return self.outcomes[rel]
        parts = rel.split("/")
        if rel.startswith("/") or any(p in ("", ".", "..") for p in parts):
            raise ValueError(f"{rel!r}: not a path inside the content folder")
        path = self.root / rel
        try:
            current: bytes | None = path.read_bytes()
        except FileNotFoundError:
            current = None
        if current is None:
            outcome = NEW
        elif current == data:
            outcome = UNCHANGED
        elif self.written.get(rel) == digest(current):
            outcome = UPDATED
        else:
            outcome = KEPT
        if outcome in (NEW, UPDATED) and not self.dry_run:
            _atomic_write(path, data)
        if outcome != KEPT:
            self.written[rel] = digest(data)
        self.outcomes[rel] = outcome
        return outcome

    def exists(self, rel: str) -> bool:
        return rel in self.outcomes or (self.root / rel).exists()

    def save(self) -> None:
        """Write the manifest (not under `dry_run`)."""
        if self.dry_run:
            return
        text = json.dumps({"version": 1, "files": dict(sorted(self.written.items()))}, indent=0)
        _atomic_write(self.manifest, text.encode("utf-8"))


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_bytes(data)
    os.replace(partial, path)
