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
from masthead.indexer import index_site
from masthead.store.db import Database

src_site, work, n = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
shutil.rmtree(work, ignore_errors=True)
shutil.copytree(src_site, work)
site = load_site(work)
db = Database(site.database_path)
index_site(site, db)  # settle
victim = sorted((site.content_dir / "posts").glob("*.md"))[500]
res = {"no change": [], "1 edited": []}
for k in range(n):
    c = time.process_time()
    r = index_site(site, db)
    res["no change"].append(time.process_time() - c)
    assert r.parsed == 0
    with open(victim, "a") as f:
        f.write(f"\nEdit {k}.\n")
    c = time.process_time()
    r = index_site(site, db)
    res["1 edited"].append(time.process_time() - c)
    assert r.parsed == 1, r
print(
    os.environ.get("PYTHONPATH", "new"),
    " ".join(
        f"{k}: min {min(v) * 1000:.1f} ms median {statistics.median(v) * 1000:.1f} ms CPU;"
        for k, v in res.items()
    ),
)
