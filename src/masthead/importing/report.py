"""What an import did, for the person running it: counts, files kept, and every warning with
the id of the item it is about, so nothing is lost without a word."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from masthead.importing.files import KEPT, NEW, UNCHANGED, UPDATED


@dataclass
class Report:
    """Filled in by an importer; `lines()` is what the command prints."""

    source: str  # "WordPress", "Ghost"
    dry_run: bool = False
    counts: Counter[str] = field(default_factory=Counter)  # "posts", "drafts", "pages", ...
    skipped: Counter[str] = field(default_factory=Counter)  # why -> how many
    not_imported: Counter[str] = field(default_factory=Counter)  # members, newsletters, ...
    files: Counter[str] = field(default_factory=Counter)  # NEW, UPDATED, UNCHANGED, KEPT
    kept: list[str] = field(default_factory=list)  # files edited since the last import
    warnings: list[tuple[str, str]] = field(default_factory=list)  # (item, message)
    missing: dict[str, list[str]] = field(default_factory=dict)  # file -> items that need it
    unknown_shortcodes: Counter[str] = field(default_factory=Counter)
    comments: list[str] = field(default_factory=list)  # the comment import's own report
    notes: list[str] = field(default_factory=list)  # settings the import added, ...

    def warn(self, item: str, message: str) -> None:
        self.warnings.append((item, message))

    def wrote(self, rel: str, outcome: str) -> None:
        self.files[outcome] += 1
        if outcome == KEPT:
            self.kept.append(rel)

    def need(self, file: str, item: str) -> None:
        """`item` refers to `file`, which could not be found."""
        items = self.missing.setdefault(file, [])
        if item not in items:
            items.append(item)

    def merge(self, other: Report) -> None:
        """Add what `other` (one worker's part of the same import) found."""
        self.counts.update(other.counts)
        self.skipped.update(other.skipped)
        self.unknown_shortcodes.update(other.unknown_shortcodes)
        self.warnings += other.warnings
        for file, items in other.missing.items():
            for item in items:
                self.need(file, item)

    def lines(self) -> list[str]:
        head = f"{self.source} import" + (" (dry run: nothing written)" if self.dry_run else "")
        out = [head + ":"]
        order = {k: i for i, k in enumerate(_ORDER)}
        counts = dict(sorted(self.counts.items(), key=lambda kv: order.get(kv[0], len(order))))
        out.append("  " + _counted(Counter(counts)) if counts else "  nothing imported")
        if self.skipped:
            out.append("  skipped: " + _counted(self.skipped))
        if self.not_imported:
            out.append("  not imported (counted only): " + _counted(self.not_imported))
        files = ", ".join(
            f"{self.files[k]} {k}" for k in (NEW, UPDATED, UNCHANGED, KEPT) if self.files[k]
        )
        if files:
            out.append(f"  files: {files}")
        out += [f"  {note}" for note in self.notes]
        for rel in self.kept:
            out.append(f"  kept (edited since the last import, not overwritten): {rel}")
        if self.unknown_shortcodes:
            out.append("  shortcodes shown as text: " + _counted(self.unknown_shortcodes))
        for file, items in self.missing.items():
            out.append(f"  missing file {file}, needed by {', '.join(items)}")
        out += [f"  {line}" for line in self.comments]
        out += [f"  warning: {item}: {message}" for item, message in self.warnings]
        return out

    @property
    def exit_code(self) -> int:
        """1 when something needs the user's attention (a kept file, a missing file), else 0."""
        return 1 if self.kept or self.missing else 0


_ORDER = ("posts", "scheduled posts", "drafts", "pages", "authors", "images", "URLs kept")


def _counted(counter: Counter[str]) -> str:
    return ", ".join(f"{n} {what}" for what, n in counter.items())
