"""Copy Mermaid's ES module build from node_modules into the package's static files.

Mermaid (npm `mermaid`, MIT) draws the diagrams of posts in the reader's browser
(content/diagrams.py, static/js/diagrams.js). The site serves it itself: no CDN, no Node at run
time. Its ES module build is split into chunks that the entry module imports when a diagram of
their kind is drawn, so a page with one flowchart fetches a fraction of the library. Run after
`npm ci` when package.json's `mermaid` version changes, and commit `static/vendor/mermaid/`:

    python3 scripts/vendor_mermaid.py
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "node_modules" / "mermaid"
TARGET = ROOT / "src" / "masthead" / "web" / "static" / "vendor" / "mermaid"
ENTRY = "mermaid.esm.min.mjs"
CHUNKS = Path("chunks") / "mermaid.esm.min"
_SOURCE_MAP = re.compile(r"\n?//# sourceMappingURL=\S+\s*$")


def _copy(source: Path, target: Path, header: str = "") -> None:
    text = _SOURCE_MAP.sub("\n", source.read_text(encoding="utf-8"))  # the maps are not shipped
    target.write_text(header + text, encoding="utf-8")


def main() -> int:
    package = json.loads((SOURCE / "package.json").read_text(encoding="utf-8"))
    version, licence = package["version"], package["license"]
    if licence != "MIT":
        print(f"mermaid {version} is {licence}, not MIT: not vendored", file=sys.stderr)
        return 1
    shutil.rmtree(TARGET, ignore_errors=True)
    (TARGET / CHUNKS).mkdir(parents=True)
    header = f"/*! mermaid {version} | {licence} | https://github.com/mermaid-js/mermaid */\n"
    _copy(SOURCE / "dist" / ENTRY, TARGET / ENTRY, header)
    for chunk in sorted((SOURCE / "dist" / CHUNKS).glob("*.mjs")):
        _copy(chunk, TARGET / CHUNKS / chunk.name)
    shutil.copy(SOURCE / "LICENSE", TARGET / "LICENSE")
    (TARGET / "VERSION").write_text(version + "\n", encoding="utf-8")
    size = sum(p.stat().st_size for p in TARGET.rglob("*") if p.is_file())
    print(f"mermaid {version} ({licence}): {size / 1e6:.1f} MB in {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
