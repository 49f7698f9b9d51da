#!/usr/bin/env python3
"""What a saved post costs `masthead build --watch` (issue 31, item 3): the export of a site
built once, then one post edited `--rounds` times (its title, then its tags), each followed by
a build, in one process as the watch runs it. For each: wall and CPU time, pages fetched and
files written, against the full build. A plain script, not a test:

    PYTHONPATH=src .venv/bin/python bench/bench_build_edit.py SITE OUT [--rounds 2]

SITE is a site folder (bench/make_corpus.py's `plain` layout under content/posts, with
bench/bench_index.py's masthead.toml, say); OUT a folder for the export. The post edited is
the first Markdown file under content/posts (its quoted `title:` and block `tags:` rewritten,
and restored after).
"""

from __future__ import annotations

import argparse
import re
import resource
import time
from pathlib import Path

from masthead.config import load_site
from masthead.export.build import build


def cpu() -> float:
    used = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    return sum(u.ru_utime + u.ru_stime for u in used)


def timed(site, out: Path, now: float) -> tuple[float, float, int, int]:
    wall, used = time.perf_counter(), cpu()
    report = build(site, out, clock=lambda: now)
    return time.perf_counter() - wall, cpu() - used, report.fetched, report.written


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("site", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    site = load_site(args.site)
    now = time.time()
    path = sorted((site.content_dir / "posts").glob("*.md"))[0]
    original = path.read_text(encoding="utf-8")
    rows = [("first build (a full one unless OUT holds a build)", *timed(site, args.out, now))]
    try:
        for n in range(1, args.rounds + 1):
            text = re.sub(
                r'^title: "(.*)"$', rf'title: "\1 (edit {n})"', original, count=1, flags=re.M
            )
            path.write_text(text, encoding="utf-8")
            rows.append((f"title edited ({n})", *timed(site, args.out, now)))
            text = re.sub(r"^tags:\n", f"tags:\n  - edited{n}\n", text, count=1, flags=re.M)
            path.write_text(text, encoding="utf-8")
            rows.append((f"tag added ({n})", *timed(site, args.out, now)))
    finally:
        path.write_text(original, encoding="utf-8")
    print(f"Edited: {path.name}\n")
    print("| build | wall (s) | CPU (s) | pages fetched | files written |")
    print("|---|---:|---:|---:|---:|")
    for name, wall, used, fetched, written in rows:
        print(f"| {name} | {wall:.2f} | {used:.2f} | {fetched} | {written} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
