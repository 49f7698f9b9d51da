#!/usr/bin/env python3
"""Whole-search latency on an existing database, for comparing checkouts in one run. A plain
script, not a test; it imports masthead from PYTHONPATH (so `PYTHONPATH=OTHER/src` measures
another checkout on its own database):

    PYTHONPATH=src python bench/bench_search_db.py SITE DB [--repeat 10] [--profile]

`SearchService.search(q, Options(), "127.0.0.1")` (rank, count, facets, the first page with its
snippets, suggestions, the log) for every query of bench_search.QUERIES, once to warm up, then
--repeat times, with the result cache off where the checkout has one (`--cache`: on). Prints
p50/p95/max of the wall clock and p50/p95 of the CPU time (time.process_time: on a shared
machine the steadier)
over all samples, then per query. `--profile`: cProfile of 5 passes instead, by own time.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.util
import inspect
import math
import os
import pstats
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def _pct(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    s = sorted(values)
    return s[max(1, min(len(s), math.ceil(q / 100 * len(s)))) - 1]


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("site", type=Path)
    ap.add_argument("db", type=Path)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--cache", action="store_true", help="keep the result cache (the default)")
    a = ap.parse_args()
    spec = importlib.util.spec_from_file_location("bench_search", BENCH / "bench_search.py")
    assert spec and spec.loader
    bench_search = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_search)

    import masthead
    from masthead.config import load_site
    from masthead.search.results import Options
    from masthead.search.service import SearchService
    from masthead.store.db import Database

    site = load_site(a.site, {"database": str(a.db.resolve())})
    db = Database(site.database_path)
    params = inspect.signature(SearchService).parameters
    off = "result_cache" in params and not a.cache
    service = SearchService(site, db, **({"result_cache": 0} if off else {}))
    service.catalog()
    if getattr(service, "ready", None) is not None:  # the frequent words (search/frequent.py)
        service.ready()
    texts = [q for q, _ in bench_search.QUERIES]
    for q in texts:
        service.search(q, Options(), "127.0.0.1")
    print(f"masthead from {Path(masthead.__file__).parent}; load {os.getloadavg()[0]:.1f}")
    if a.profile:
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(5):
            for q in texts:
                service.search(q, Options(), "127.0.0.1")
        profile.disable()
        pstats.Stats(profile).sort_stats("tottime").print_stats(25)
        return 0
    wall: dict[str, list[float]] = {q: [] for q in texts}
    cpu: dict[str, list[float]] = {q: [] for q in texts}
    totals = {}
    for _ in range(a.repeat):
        for q in texts:
            t0, c0 = time.perf_counter(), time.process_time()
            totals[q] = service.search(q, Options(), "127.0.0.1").total
            wall[q].append((time.perf_counter() - t0) * 1000)
            cpu[q].append((time.process_time() - c0) * 1000)
    every = [x for v in wall.values() for x in v]
    every_cpu = [x for v in cpu.values() for x in v]
    print(
        f"all {len(every)} searches: wall p50 {_pct(every, 50):.2f} ms, p95 {_pct(every, 95):.2f}"
        f", max {max(every):.2f}; CPU p50 {_pct(every_cpu, 50):.2f}, p95 "
        f"{_pct(every_cpu, 95):.2f}; load {os.getloadavg()[0]:.1f}"
    )
    print("| query | hits | wall p50 | wall p95 | CPU p50 | CPU p95 |")
    print("|---|---:|---:|---:|---:|---:|")
    for q in texts:
        print(
            f"| `{q}` | {totals[q]} | {_pct(wall[q], 50):.2f} | {_pct(wall[q], 95):.2f} | "
            f"{_pct(cpu[q], 50):.2f} | {_pct(cpu[q], 95):.2f} |"
        )
    service.close()
    db.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
