"""A post file as an import writes it: YAML front matter (keys in a fixed order, empty values
left out) and the Markdown body."""

from __future__ import annotations

import re
from typing import Any

import yaml

try:  # the C emitter is several times faster; the pure one writes the same
    _Dumper: type = yaml.CSafeDumper
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _Dumper = yaml.SafeDumper


def render(meta: dict[str, Any], body: str) -> bytes:
    """`---`, the front matter of `meta` (None, '', [] and False left out), `---`, the body."""
    kept = {k: v for k, v in meta.items() if v not in (None, "", [], (), False)}
    front = yaml.dump(kept, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=1000)
    return ("---\n" + front + "---\n\n" + body.strip() + "\n").encode("utf-8")


class Folders:
    """A bundle folder for each imported post, unique within a run: `posts/{slug}`, then
    `posts/{slug}-{lang}`, then `posts/{slug}-{id}` (the same item gets the same one each run
    as long as the export keeps its order)."""

    def __init__(self) -> None:
        self.taken: set[str] = set()

    def allocate(self, section: str, slug: str, lang: str, item_id: str) -> str:
        slug = segment(slug) or segment(item_id) or "untitled"
        for name in (slug, f"{slug}-{lang}" if lang else "", f"{slug}-{item_id}"):
            folder = f"{section}/{name}"
            if name and folder.lower() not in self.taken:
                self.taken.add(folder.lower())
                return folder
        n = 2
        while f"{section}/{slug}-{item_id}-{n}".lower() in self.taken:
            n += 1
        self.taken.add(f"{section}/{slug}-{item_id}-{n}".lower())
        return f"{section}/{slug}-{item_id}-{n}"


_UNSAFE = re.compile(r'[\x00-\x1f\x7f/\\?#%<>"*|:]+')


def segment(text: str) -> str:
    """`text` as one safe folder name: no slash, control character or leading dot (an export
    is untrusted: `../../x` must not lead out of the content folder)."""
    return _UNSAFE.sub("-", text).strip(" .-")[:200]
