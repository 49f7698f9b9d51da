#!/usr/bin/env python3
"""Chinese recall of masthead's search on the Kubernetes corpus (tests/data/k8s-blog, CC BY 4.0).

A plain script, not a test. It imports masthead from PYTHONPATH, so the same script measures any
checkout ("before" = another tree's src/):

    PYTHONPATH=src python bench/bench_zh_recall.py                 # this checkout
    PYTHONPATH=/work/main/src python bench/bench_zh_recall.py      # another one (before)
    PYTHONPATH=src python bench/bench_zh_recall.py --words 500 --show 20

Method
  index   the corpus is copied to a temporary folder and indexed in full into a new database;
          its size once closed, and the search tables' share (`search_*`, from dbstat)
  words   jieba (rjieba, precise mode) over the searchable posts' text (title, tags, categories,
          excerpt, body, code); every word of two or more characters, all Han; the N most
          frequent (by occurrences, ties by the word) are the query set
  truth   the searchable posts (`store.search.catalog`) whose text contains the word as a
          substring, in any of those fields
  found   `SearchService.rank(word, Options()).ids`: every hit, before paging
  recall  per word |found ∩ truth| / |truth|; reported: words at 100%, the mean, and the
          (word, post) pairs found of all pairs; `extra` counts hits outside the truth set
Output: Markdown on stdout; the words missed most, with the posts they are missed in.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "data" / "k8s-blog"


def _texts(conn: sqlite3.Connection, ids: set[int]) -> dict[int, str]:
    """The searchable text of each post: its fields joined by newlines (no run spans two)."""
    out: dict[int, list[str]] = {}
    rows = conn.execute("SELECT id, title, excerpt, body_text, code_text FROM posts")
    for post_id, *fields in rows:
        if post_id in ids:
            out[post_id] = [f or "" for f in fields]
    for post_id, name in conn.execute("SELECT post_id, name FROM post_terms"):
        if post_id in out:
            out[post_id].append(name)
    return {i: "\n".join(parts) for i, parts in out.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--words", type=int, default=500, help="query set size (default 500)")
    ap.add_argument("--show", type=int, default=15, help="missed words listed (default 15)")
    ap.add_argument("--corpus", type=Path, default=CORPUS, help="a masthead site folder")
    args = ap.parse_args(argv)

    import rjieba

    import masthead
    from masthead.config import load_site
    from masthead.indexing.indexer import index_site
    from masthead.search.results import Options
    from masthead.search.segment import HAN
    from masthead.search.service import SearchService
    from masthead.store.db import Database

    print(
        f"<!-- masthead from {Path(masthead.__file__).parent}, SQLite {sqlite3.sqlite_version} -->"
    )
    with tempfile.TemporaryDirectory(prefix="masthead-zh-recall-") as tmp:
        root = Path(tmp) / "site"
        shutil.copytree(args.corpus, root)
        site = load_site(root, {"database": str(Path(tmp) / "site.db")})
        db = Database(site.database_path)
        t0 = time.perf_counter()
        report = index_site(site, db, full=True)
        index_s = time.perf_counter() - t0
        db.close()
        db_bytes = sum(
            p.stat().st_size for p in Path(tmp).iterdir() if p.is_file() and "site.db" in p.name
        )
        raw = sqlite3.connect(site.database_path)
        try:
            tables = dict(raw.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"))
        except sqlite3.Error:
            tables = {}
        finally:
            raw.close()
        search_bytes = sum(v for k, v in tables.items() if k.startswith("search_"))
        fts_bytes = sum(v for k, v in tables.items() if k.startswith("search_fts"))

        db = Database(site.database_path)
        service = SearchService(site, db)
        catalog = service.catalog()
        texts = _texts(db.read(), set(catalog.entries))
        counts: Counter[str] = Counter()
        for text in texts.values():
            for run in HAN.findall(text):
                counts.update(w for w in rjieba.cut(run) if len(w) >= 2 and HAN.fullmatch(w))
        words = [w for w, _n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
        words = words[: args.words]

        pairs = found_pairs = extra = full = 0
        ratios: list[float] = []
        missed: list[tuple[int, str, int, list[str]]] = []
        t0 = time.perf_counter()
        for word in words:
            truth = {i for i, text in texts.items() if word in text}
            hits = set(service.rank(word, Options()).ids)
            got = truth & hits
            pairs += len(truth)
            found_pairs += len(got)
            extra += len(hits - truth)
            ratios.append(len(got) / len(truth))
            full += got == truth
            if got != truth:
                lost = sorted(
                    r[0] for r in db.read().execute(
                        f"SELECT url FROM posts WHERE id IN ({','.join(map(str, truth - got))})"
                    )
                )  # fmt: skip
                missed.append((len(truth - got), word, len(truth), lost))
        search_s = time.perf_counter() - t0
        service.close()
        db.close()

    print(f"\n#### Chinese recall, {len(words)} most frequent jieba words (≥ 2 characters)\n")
    print(
        "| posts indexed | full index | DB file | search tables | of which search_fts "
        "| words at 100% | mean recall | (word, post) pairs found | hits outside truth |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    print(
        f"| {report.parsed} | {index_s:.1f} s | {db_bytes / 1e6:.2f} MB | "
        f"{search_bytes / 1e6:.2f} MB | {fts_bytes / 1e6:.2f} MB | {full}/{len(words)} | "
        f"{100 * sum(ratios) / len(ratios):.2f}% | {found_pairs}/{pairs} "
        f"({100 * found_pairs / pairs:.2f}%) | {extra} |"
    )
    print(f"\n{len(words)} searches in {search_s:.1f} s.")
    if missed:
        print(f"\nMissed most ({len(missed)} words miss at least one post):\n")
        for n, word, of, lost in sorted(missed, reverse=True)[: args.show]:
            print(f"- `{word}`: missed in {n} of the {of} posts containing it, e.g. {lost[:3]}")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
