#!/usr/bin/env python3
"""CPU time of the index's one writer alone: the transactions of a full index, without the pool.

A plain script, not a test. It parses every content file of SITE once (in a process pool, as
`masthead index` does), keeps the results, then writes them as `index_site` does into a new
database, in batches of `indexer.BATCH` with the FTS5 bulk load and the final `optimize`,
`--runs` times. Reported per run: the CPU time of this thread (user + system,
`time.thread_time`), so that two checkouts compare on a machine shared with other work, and the
wall time. Run from the repository root:

    PYTHONPATH=src .venv/bin/python bench/bench_writer.py SITE [--runs 3]
    PYTHONPATH=/tmp/old/src .venv/bin/python bench/bench_writer.py SITE    # the code before

SITE: a site folder (e.g. bench/make_corpus.py's `plain` layout with bench_index.py's
masthead.toml). Output: one Markdown row per run and the median.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from masthead.config import load_site
from masthead.content.discover import walk
from masthead.indexing import indexer
from masthead.store import search as search_store
from masthead.store.db import Database


def write_all(changes: list[indexer.Change]) -> tuple[float, float]:
    """Write `changes` into a new database as a full index does; (CPU s, wall s)."""
    with tempfile.TemporaryDirectory(prefix="bench-writer-") as tmp:
        db = Database(Path(tmp) / "site.db")
        cpu, wall = time.thread_time(), time.perf_counter()
        with db.write() as conn:
            search_store.bulk_load(conn, True)
        for start in range(0, len(changes), indexer.BATCH):
            indexer.commit(db, changes[start : start + indexer.BATCH], [], [])
        with db.write() as conn:
            search_store.optimize(conn)
            search_store.bulk_load(conn, False)
        db.close()
        return time.thread_time() - cpu, time.perf_counter() - wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    site = load_site(args.site)
    files = list(walk(site.content_dir))
    print(f"parsing {len(files)} files…", file=sys.stderr)
    changes = [c for c in indexer.parse_files(site, files, indexer.workers_for(len(files))) if c]
    print(f"writer of `{indexer.__file__}`, {len(changes)} posts\n")
    print("| run | writer CPU (s) | wall (s) | CPU per post (ms) |\n|---|---:|---:|---:|")
    cpus = []
    for run in range(1, args.runs + 1):
        cpu, wall = write_all(changes)
        cpus.append(cpu)
        print(f"| {run} | {cpu:.2f} | {wall:.2f} | {cpu / len(changes) * 1000:.2f} |")
    print(f"| median | {statistics.median(cpus):.2f} | | |")


if __name__ == "__main__":
    main()
