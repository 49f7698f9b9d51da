"""What share cards cost the index: the same generated corpus with `[share_cards] enabled` on
and off, side by side in alternating rounds (the machine is shared and noisy: compare the ratio
of each round, not absolute times), one worker, CPU time of this process:

- a first index from scratch (many files: cards are left to the pages, indexing/indexer.py);
- an edit of `--edits` posts (fewer than PARALLEL_MIN: each edited post's card is drawn);
- `index --full` again (many files: no card drawn; an existing one costs a hash and a stat).

    PYTHONPATH=src .venv/bin/python bench/bench_cards.py [--posts 200 --edits 10 --rounds 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from masthead.config import load_site
from masthead.indexing.indexer import index_site
from masthead.store.db import Database

TOML = """title = "Bench"
base_url = "https://example.com"
[languages.en]
name = "English"
[languages.zh]
name = "中文"
prefix = "zh"
hreflang = "zh-Hans"
[share_cards]
enabled = {enabled}
"""


def run(root: Path, fresh: bool) -> float:
    """CPU seconds of one full index of the site at `root` (from scratch when `fresh`)."""
    if fresh:
        shutil.rmtree(root / ".masthead", ignore_errors=True)
    site = load_site(root)
    db = Database(site.database_path)
    started = time.process_time()
    index_site(site, db, full=True, workers=1)
    spent = time.process_time() - started
    db.close()
    return spent


def edit(root: Path, count: int, round_: int) -> float:
    """CPU seconds of the incremental index after retitling `count` posts."""
    posts = sorted((root / "content" / "posts").glob("*.md"))[:count]
    for path in posts:
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("title: ", f"title: R{round_} ", 1), encoding="utf-8")
    site = load_site(root)
    db = Database(site.database_path)
    started = time.process_time()
    index_site(site, db, workers=1)
    spent = time.process_time() - started
    db.close()
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--posts", type=int, default=200)
    parser.add_argument("--edits", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-cards-"))
    here = Path(__file__).parent
    for name, enabled in (("on", "true"), ("off", "false")):
        (work / name / "content" / "posts").mkdir(parents=True)
        (work / name / "masthead.toml").write_text(TOML.format(enabled=enabled))
        subprocess.run(
            [sys.executable, str(here / "make_corpus.py"), str(work / name / "content" / "posts"),
             str(args.posts), "1", "--layout", "plain"],
            check=True, capture_output=True,
        )  # fmt: skip
    print(f"{args.posts} posts, one worker, CPU seconds; load average {os.getloadavg()}")
    phases = [
        ("first index", lambda root, n: run(root, True)),
        (f"edit of {args.edits} posts", lambda root, n: edit(root, args.edits, n)),
        ("full re-index", lambda root, n: run(root, False)),
    ]
    for label, step in phases:
        for n in range(1, args.rounds + 1):
            order = ("on", "off") if n % 2 else ("off", "on")
            spent = {name: step(work / name, n) for name in order}
            ratio = spent["on"] / spent["off"]
            print(f"{label} round {n}: on {spent['on']:.2f} s, off {spent['off']:.2f} s, "
                  f"ratio {ratio:.2f}, load {os.getloadavg()[0]:.1f}")  # fmt: skip
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
