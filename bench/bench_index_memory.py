#!/usr/bin/env python3
"""Peak memory of `masthead index SITE --full` into a new database: the main process (the one
writer) apart from its pool workers (issue 14, item 1: under 300 MiB, flat as the site grows).

A plain script, not a test. Run from the repository root on an existing site folder (e.g. one
made by bench/bench_scale.py); the folder is only read: the database goes to a temporary file
(`MASTHEAD_DATABASE`), removed after each run.

    .venv/bin/python bench/bench_index_memory.py SITE [--baseline /tmp/old/src] [--rounds 2]

Each run is a fresh `python -c` that runs the masthead CLI and, at exit, reports its own peak
RSS (`getrusage(RUSAGE_SELF).ru_maxrss`) and the largest of its waited-for children (the pool's
workers, `RUSAGE_CHILDREN`), with the CPU seconds of each. With `--baseline SRC` (another
checkout's src/, e.g. `git archive COMMIT src | tar -x -C /tmp/old`) the code before runs
first in every round, so that a change in the machine's load hits both alike. Output: Markdown.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

WRAPPER = """
import atexit, json, resource, sys
def report():
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    print("MEMORY " + json.dumps({
        "main_mib": own.ru_maxrss / 1024, "worker_mib": kids.ru_maxrss / 1024,
        "main_cpu": own.ru_utime + own.ru_stime, "worker_cpu": kids.ru_utime + kids.ru_stime,
    }), file=sys.stderr)
atexit.register(report)
from masthead.cli import main
sys.argv = ["masthead", "index", sys.argv[1], "--full"]
main()
"""


def run(site: Path, src: Path) -> dict[str, float]:
    """One full index of `site` with the code in `src` into a new database."""
    with tempfile.TemporaryDirectory(prefix="bench-mem-") as tmp:
        env = {**os.environ, "PYTHONPATH": str(src), "MASTHEAD_DATABASE": f"{tmp}/site.db"}
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", WRAPPER, str(site)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            check=True,
        )
        wall = time.perf_counter() - start
    line = next(x for x in done.stderr.splitlines() if x.startswith("MEMORY "))
    return {**json.loads(line.removeprefix("MEMORY ")), "wall": wall}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("site", type=Path)
    ap.add_argument("--baseline", type=Path, help="src/ of the code to compare with (before)")
    ap.add_argument("--rounds", type=int, default=1)
    a = ap.parse_args()
    files = sum(1 for _ in (a.site / "content").rglob("*.md"))
    print(f"{files} Markdown files in {a.site}; load before {os.getloadavg()[0]:.1f}\n")
    print("| code | round | main peak RSS (MiB) | largest worker (MiB) | main CPU (s) "
          "| workers' CPU (s) | wall (s) |\n|---|---:|---:|---:|---:|---:|---:|")  # fmt: skip
    codes = ([("before", a.baseline.resolve())] if a.baseline else []) + [("after", REPO / "src")]
    for rnd in range(1, a.rounds + 1):
        for name, src in codes:
            r = run(a.site, src)
            cells = [r["main_mib"], r["worker_mib"], r["main_cpu"], r["worker_cpu"], r["wall"]]
            print(f"| {name} | {rnd} | " + " | ".join(f"{x:.1f}" for x in cells) + " |", flush=True)
    print(f"\nload after {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
