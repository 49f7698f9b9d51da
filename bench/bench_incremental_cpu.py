#!/usr/bin/env python3
"""CPU time of the incremental index passes (no change, one file edited) on an indexed site.

A plain script, not a test. CPU time (`time.process_time`) rather than wall time, so that old and
new code compare on a machine shared with other work. The site folder is copied first (its
`.masthead/` database included, which must exist: `masthead index SITE` once):

    .venv/bin/python bench/bench_incremental_cpu.py SITE /tmp/work-new 15
    PYTHONPATH=/tmp/old/src .venv/bin/python bench/bench_incremental_cpu.py SITE /tmp/work-old 15

Prints the min and median of N passes of each kind.
"""

import os
import shutil
import statistics
import sys
import time
from pathlib import Path

from masthead.config import load_site
from masthead.indexing.indexer import index_site
from masthead.store.db import Database

src_site, work, n = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
shutil.rmtree(work, ignore_errors=True)
shutil.copytree(src_site, work)
site = load_site(work)
db = Database(site.database_path)
index_site(site, db)  # settle
victim = sorted((site.content_dir / "posts").glob("*.md"))[500]
res: dict[str, list[float]] = {"no change": [], "1 edited": []}


def timed(kind: str, want: int) -> None:
    c = time.process_time()
    report = index_site(site, db)
    res[kind].append(time.process_time() - c)
    assert report.parsed == want, report


for k in range(n):
    timed("no change", 0)
    with open(victim, "a", encoding="utf-8") as f:
        f.write(f"\nEdit {k}.\n")
    timed("1 edited", 1)
shown = (
    f"{k}: min {min(v) * 1000:.1f} ms median {statistics.median(v) * 1000:.1f} ms CPU;"
    for k, v in res.items()
)
print(os.environ.get("PYTHONPATH", "this checkout"), " ".join(shown))
