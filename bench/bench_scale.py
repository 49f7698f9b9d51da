#!/usr/bin/env python3
"""Scale of index and search: one corpus size per run, in a fresh process. A plain script.

    PYTHONPATH=src nice -n 19 python bench/bench_scale.py 50000 [--workdir DIR] [--repeat 5]

Generates N posts with bench/make_corpus.py (seed 1, plain layout, en + zh as
bench/bench_search.py), indexes them in full into a new database and prints one JSON line:
  index_s / index_cpu_s   wall clock and CPU time (user + system, this process and its children)
                          of `index_site(full=True)`; on a shared machine CPU time is the steadier
  db_mb, search_mb        the database file once closed, and its `search_*` tables (dbstat)
  index_rss_mb            peak resident memory of this process after the index (ru_maxrss)
  catalog_ms, rss_mb      building the search catalog, and peak memory after the searches
  search p50/p95 (wall and CPU, ms): `SearchService.search` (result cache off) over
                          bench_search.QUERIES, once to warm up, then --repeat times
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import resource
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def _pct(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    s = sorted(values)
    return s[max(1, min(len(s), math.ceil(q / 100 * len(s)))) - 1]


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("posts", type=int)
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/masthead-scale"))
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()

    spec = importlib.util.spec_from_file_location("bench_search", BENCH / "bench_search.py")
    assert spec and spec.loader
    bench_search = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_search)

    from masthead.config import load_site
    from masthead.indexing.indexer import index_site
    from masthead.search.results import Options
    from masthead.search.service import SearchService
    from masthead.store.db import Database

    site_dir = a.workdir / f"site-{a.posts}"
    posts = site_dir / "content" / "posts"
    if not posts.is_dir():
        posts.mkdir(parents=True)
        (site_dir / "masthead.toml").write_text(bench_search.GENERATED_TOML, encoding="utf-8")
        subprocess.run(
            [sys.executable, str(BENCH / "make_corpus.py"), str(posts), str(a.posts), "1"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    db_path = a.workdir / f"scale-{a.posts}.db"
    for suffix in ("", "-wal", "-shm"):
        Path(str(db_path) + suffix).unlink(missing_ok=True)
    site = load_site(site_dir, {"database": str(db_path)})
    db = Database(site.database_path)
    t0, c0 = time.perf_counter(), _cpu()
    report = index_site(site, db, full=True)
    out: dict = {
        "posts": report.parsed,
        "errors": len(report.errors),
        "index_s": time.perf_counter() - t0,
        "index_cpu_s": _cpu() - c0,
        "index_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "load_after_index": os.getloadavg()[0],
    }
    db.close()
    out["db_mb"] = db_path.stat().st_size / 1e6
    raw = sqlite3.connect(db_path)
    tables = dict(raw.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"))
    raw.close()
    out["search_mb"] = sum(v for k, v in tables.items() if k.startswith("search_")) / 1e6

    db = Database(site.database_path)
    service = SearchService(site, db, result_cache=0)
    t0 = time.perf_counter()
    service.catalog()
    out["catalog_ms"] = (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    ready = getattr(service, "ready", None)  # older checkouts have no frequent words
    if ready is not None:
        ready()  # the frequent words' postings, made in a background thread
    out["frequent_ms"] = (time.perf_counter() - t0) * 1000
    texts = [q for q, _ in bench_search.QUERIES]
    wall: list[float] = []
    cpu: list[float] = []
    for rep in range(a.repeat + 1):
        for q in texts:
            t0, c0 = time.perf_counter(), time.process_time()
            service.search(q, Options(), "127.0.0.1")
            if rep:
                wall.append((time.perf_counter() - t0) * 1000)
                cpu.append((time.process_time() - c0) * 1000)
    out.update(
        search_p50_ms=_pct(wall, 50),
        search_p95_ms=_pct(wall, 95),
        search_cpu_p50_ms=_pct(cpu, 50),
        search_cpu_p95_ms=_pct(cpu, 95),
        samples=len(wall),
        rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        load_after_search=os.getloadavg()[0],
    )
    service.close()
    db.close()
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
