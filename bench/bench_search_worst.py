#!/usr/bin/env python3
"""The costliest queries a reader can type, timed on an existing database, for comparing
checkouts in one run (a plain script, not a test; masthead from PYTHONPATH, as
bench_search_db.py):

    PYTHONPATH=src python bench/bench_search_worst.py SITE DB [--repeat 3]

Each query of `QUERIES` (short prefixes, many prefixes, one word repeated, stop words, a
phrase with a stop word matching more posts than bm25 ranks) through `SearchService.search`,
result cache off, once to warm up and then `--repeat` times; prints the hits and the median
wall time. A search that takes a second holds a worker that long.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

QUERIES = [
    "a*",
    "th*",
    "the*",
    "t* OR s* OR c* OR d*",
    " OR ".join(f"{c}*" for c in "abcdefghijklmnopqrstuvwxyz"),
    "a* b* c* d* e* f* g* h*",
    "tr* an* co*",
    "tra* ano* con*",
    " ".join(["the"] * 32),
    '"the the the the"',
    '"the harbor"',
    "the OR a OR of OR and OR to OR in",
    "h* -harbor",
    "-the -a",
    "的 是 了 在",
    "qqq OR " * 15 + "harbor",
]


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("site", type=Path)
    ap.add_argument("db", type=Path)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()

    import masthead
    from masthead.config import load_site
    from masthead.search.results import Options
    from masthead.search.service import SearchService
    from masthead.store.db import Database

    site = load_site(a.site, {"database": str(a.db.resolve())})
    db = Database(site.database_path)
    service = SearchService(site, db, result_cache=0)
    service.catalog()
    if getattr(service, "ready", None) is not None:
        service.ready()
    print(f"masthead from {Path(masthead.__file__).parent}")
    print("| query | hits | wall median (ms) |\n|---|---:|---:|")
    for q in QUERIES:
        service.search(q, Options(), "127.0.0.1", record=False)
        times = []
        for _ in range(a.repeat):
            started = time.perf_counter()
            result = service.search(q, Options(), "127.0.0.1", record=False)
            times.append((time.perf_counter() - started) * 1000)
        shown = q if len(q) <= 40 else q[:37] + "…"
        print(f"| `{shown}` | {result.total} | {statistics.median(times):.1f} |")
    service.close()
    db.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
