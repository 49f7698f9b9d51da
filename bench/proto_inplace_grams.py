#!/usr/bin/env python3
"""Prototype, not product code: common words written as "bucketed grams" in `search_fts` itself,
measured on copies of an indexed database. A plain script; it changes only the copies it makes:

    python bench/proto_inplace_grams.py DB [--work /tmp/inplace] [--repeat 21]

Why: a quoted phrase with a word in most posts (`"the local archive"`) costs FTS5 two passes
over that word's position lists, one to match and one for bm25's idf (the old BENCHMARKS.md, "Issue
14, item 2, fifth round"). `bench/proto_common_grams.py` answered it from a second FTS5 table,
which costs about one more `search_fts` to write. This one adds no table and no token: each
common word (`COMMON`, a fixed list) is written joined to the first character of the token
after it (`the local` -> `the` U+E001 `l local`; U+E001 is a private-use character, a token
character for unicode61), so that its postings are split into about 40 smaller lists. A
phrase `the local archive` is then the phrase `the\\ue001l local archive` over the same
positions: the same rows, the same instances per column, the same row sizes, so bm25 gives
the same values (checked below). FTS5 folds case and accents of the whole token and stems it,
the same way at index and query time, so the bucket needs no folding of its own.

The cost it shows: the text transform in Python (per post), the FTS5 rebuild with the split
postings, and a common word searched alone or at a phrase's end, which becomes the prefix
`"the\\ue001" *` that FTS5 expands by merging every bucket's doclist at each statement.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sqlite3
import statistics
import time
from pathlib import Path

COMMON = (
    "the", "of", "and", "a", "an", "to", "in", "is", "it", "that", "for", "on", "as", "with", "by",
    "at", "from", "this", "be", "are", "was", "or", "not", "but", "which", "its", "has", "have",
    "were", "will",
)  # fmt: skip
MARK = "\ue001"
_PUA = "\ue000-\uf8ff\U000f0000-\U0010fffd"
# runs of what unicode61 (categories L* N* Co) treats as separators: `_` is one, Co is not
_SPLIT = re.compile(rf"((?:(?![{_PUA}])[\W_])+)")
_COMMON = frozenset(COMMON)
COLUMNS = ("title", "tags", "categories", "excerpt", "body", "code", "extra")  # not the bigrams
W = "10.0, 5.0, 4.0, 2.0, 1.0, 0.3, 0.8, 0.2"  # store.search.WEIGHTS


def transform(text: str) -> str:
    """`text` with each common word followed by MARK and the next token's first character."""
    parts = _SPLIT.split(text)
    n = len(parts)
    for i in range(0, n, 2):
        word = parts[i]
        if len(word) <= 5 and word.lower() in _COMMON:
            parts[i] = word + MARK + (parts[i + 2][:1] if i + 2 < n else "")
    return "".join(parts)


def rebuild(db: Path) -> float:
    """CPU seconds of FTS5's 'rebuild' and 'optimize' of `search_fts` in `db`."""
    conn = sqlite3.connect(db)
    started = time.process_time()
    conn.execute("INSERT INTO search_fts(search_fts) VALUES('rebuild')")
    conn.execute("INSERT INTO search_fts(search_fts) VALUES('optimize')")
    conn.commit()
    spent = time.process_time() - started
    conn.close()
    return spent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("db", type=Path)
    ap.add_argument("--work", type=Path, default=Path("/tmp/inplace"))
    ap.add_argument("--repeat", type=int, default=21)
    a = ap.parse_args()
    a.work.mkdir(parents=True, exist_ok=True)
    old, new = a.work / "old.db", a.work / "new.db"
    shutil.copyfile(a.db, old)
    shutil.copyfile(a.db, new)
    conn = sqlite3.connect(new)
    rows = conn.execute(f"SELECT post_id, {', '.join(COLUMNS)} FROM search_docs").fetchall()
    started = time.process_time()
    changed = [(*(transform(v or "") for v in r[1:]), r[0]) for r in rows]
    per_post = (time.process_time() - started) / max(1, len(rows)) * 1000
    sets = ", ".join(f"{c} = ?" for c in COLUMNS)
    conn.executemany(f"UPDATE search_docs SET {sets} WHERE post_id = ?", changed)
    conn.commit()
    conn.close()
    print(f"posts {len(rows)}; transform {per_post:.3f} ms CPU a post (all seven columns)")
    for label in ("first", "second"):  # alternating: the machine is shared
        spent = rebuild(old), rebuild(new)
        print(f"rebuild + optimize CPU, {label}: old {spent[0]:.2f} s, new {spent[1]:.2f} s")
    print(f"database: old {old.stat().st_size / 1e6:.1f} MB, new {new.stat().st_size / 1e6:.1f} MB")
    m = MARK
    pairs = [
        ('"the local archive"', f'"the{m}l local archive"'),
        ('"the harbor"', f'"the{m}h harbor"'),
        ('"quiet harbor"', '"quiet harbor"'),
        ("the", f'"the{m}" *'),
        ("the budget", f'"the{m}" * AND budget'),
        ('"harbor the"', f'"harbor the{m}" *'),
    ]
    a_conn = sqlite3.connect(f"file:{old}?mode=ro", uri=True)
    b_conn = sqlite3.connect(f"file:{new}?mode=ro", uri=True)
    print("| query (old / new expression) | statement | old ms | new ms | rows | same |")
    print("|---|---|---:|---:|---:|---|")
    for before, after in pairs:
        for label, sql in (
            ("match", "SELECT rowid, 0 FROM search_fts WHERE search_fts MATCH ?"),
            ("bm25", f"SELECT rowid, bm25(search_fts, {W}) FROM search_fts "
                     "WHERE search_fts MATCH ? LIMIT 1001"),
        ):  # fmt: skip
            ta, tb = [], []
            for _ in range(a.repeat):
                s = time.process_time()
                ra = a_conn.execute(sql, (before,)).fetchall()
                ta.append((time.process_time() - s) * 1000)
                s = time.process_time()
                rb = b_conn.execute(sql, (after,)).fetchall()
                tb.append((time.process_time() - s) * 1000)
            same = [(i, round(r, 9)) for i, r in sorted(ra)] == [
                (i, round(r, 9)) for i, r in sorted(rb)
            ]
            print(
                f"| `{before}` | {label} | {statistics.median(ta):.2f} | "
                f"{statistics.median(tb):.2f} | {len(ra)} / {len(rb)} | {same} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
