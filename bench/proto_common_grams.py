#!/usr/bin/env python3
"""Prototype, not product code: a "common grams" FTS5 table that answers quoted phrases with a
frequent word exactly, with the same bm25 as `search_fts`, measured on a copy of an indexed
database. A plain script; it changes only the copy it makes:

    python bench/proto_common_grams.py DB [--common 0.6] [--work /tmp/grams.db]

Why: a phrase with a word in most posts (`"the local archive"`) costs FTS5 two passes over that
word's position lists (one to match, one for bm25's idf), 7-8 ms at 10,000 posts whatever the
query around it (the old BENCHMARKS.md, "Issue 14, item 2, fifth round").

The table (the idea of Lucene's CommonGramsFilter, without its stacked tokens, which FTS5 offers
only to tokenizers written in C): each column holds the same token stream as `search_fts` (the
terms FTS5's `porter unicode61 remove_diacritics 2` makes of the text, one per position), except
that a common term (in more than --common of the posts) is written joined to the term after it
(`the` + U+E000 + `local`; U+E000 is a private-use character, a token character for unicode61).
A phrase `q1 … qn` is then the phrase over the same positions with each common qi replaced by
its pair, ending after a pair that names the last term. Every position still holds one token,
so a row's and a column's token counts, the rows matching a phrase and the instances in each
column are those of `search_fts`: bm25 gives the same values, which this script checks.

The terms of the text are FTS5's own: each distinct whitespace-separated chunk of the text is
written once into a temporary FTS5 table with the same tokenizer and its terms read back in
order (`fts5vocab` 'instance'); unicode61 treats every whitespace as a separator, so the stream
of a text is the concatenation of its chunks' terms, with no tokenizer of our own to get wrong.
A phrase ending in a common term after a rare one would need a prefix (`"harbor the" *`): far
slower than `search_fts`, so such phrases stay on `search_fts`.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

COLS = ("title", "tags", "categories", "excerpt", "body", "code", "extra", "bigrams")
WEIGHTS = "10.0, 5.0, 4.0, 2.0, 1.0, 0.3, 0.8, 0.2"
JOIN = "\ue000"
PHRASES = (
    ("the", "local", "archive"),
    ("quiet", "harbor"),
    ("local", "archive"),
    ("the", "harbor"),
    ("harbor", "the"),
)


# English function words as FTS5's porter terms (`this` is `thi`, `was` is `wa`)
STOPWORD_TERMS = [
    "a",
    "about",
    "after",
    "all",
    "also",
    "an",
    "and",
    "ar",
    "as",
    "at",
    "be",
    "been",
    "but",
    "by",
    "can",
    "could",
    "do",
    "for",
    "from",
    "had",
    "ha",
    "have",
    "he",
    "her",
    "hi",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "it",
    "more",
    "my",
    "no",
    "not",
    "of",
    "on",
    "on",
    "or",
    "our",
    "out",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "thei",
    "thi",
    "to",
    "up",
    "wa",
    "we",
    "were",
    "what",
    "when",
    "which",
    "who",
    "will",
    "with",
    "would",
    "you",
    "your",
]


def _varints(blob: bytes) -> list[int]:
    """SQLite varints (big-endian, 7 bits a byte): FTS5's docsize record."""
    out, value = [], 0
    for byte in blob:
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            out.append(value)
            value = 0
    return out


def chunk_terms(conn: sqlite3.Connection, chunks: dict[str, int]) -> dict[str, tuple[str, ...]]:
    """FTS5's terms of each chunk, in order."""
    conn.execute(
        "CREATE VIRTUAL TABLE temp.tok USING fts5(x, "
        "tokenize = 'porter unicode61 remove_diacritics 2')"
    )
    conn.executemany(
        "INSERT INTO temp.tok(rowid, x) VALUES (?, ?)", ((i, c) for c, i in chunks.items())
    )
    conn.execute("CREATE VIRTUAL TABLE temp.inst USING fts5vocab(temp, tok, 'instance')")
    found: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for term, doc, offset in conn.execute("SELECT term, doc, offset FROM temp.inst"):
        found[doc].append((offset, term))
    return {c: tuple(t for _, t in sorted(found.get(i, ()))) for c, i in chunks.items()}


def stream(text: str, terms: dict[str, tuple[str, ...]], common: set[str]) -> str:
    toks = [t for c in text.split() for t in terms[c]]
    return " ".join(
        t + JOIN + (toks[i + 1] if i + 1 < len(toks) else "") if t in common else t
        for i, t in enumerate(toks)
    )


def gram_phrase(toks: list[str], common: set[str]) -> str | None:
    """The grams table's phrase for the terms `toks`, or None when it would need a prefix."""
    out = []
    for i, t in enumerate(toks):
        if t not in common:
            out.append(t)
        elif i + 1 < len(toks):
            out.append(t + JOIN + toks[i + 1])
        elif i and toks[i - 1] in common:
            break  # the pair before names it
        else:
            return None
    return '"' + " ".join(out) + '"'


def timed(conn: sqlite3.Connection, sql: str, arg: str, n: int = 11) -> tuple[float, list]:
    times, rows = [], []
    for _ in range(n):
        t = time.perf_counter()
        rows = conn.execute(sql, (arg,)).fetchall()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times), rows


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("db", type=Path)
    ap.add_argument(
        "--common", type=float, default=0.6, help="share of posts above which a term is common"
    )
    ap.add_argument(
        "--stopwords", action="store_true", help="common: a fixed English stopword list instead"
    )
    ap.add_argument("--work", type=Path, default=Path("/tmp/proto-common-grams.db"))
    a = ap.parse_args()
    shutil.copyfile(a.db, a.work)
    conn = sqlite3.connect(a.work)
    n = conn.execute("SELECT count(*) FROM search_docs").fetchone()[0]
    conn.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, search_fts, 'row')")
    common = {t for (t,) in conn.execute("SELECT term FROM temp.v WHERE doc > ?", (a.common * n,))}
    if a.stopwords:
        common = set(STOPWORD_TERMS)
    rows = conn.execute(f"SELECT post_id, {', '.join(COLS)} FROM search_docs").fetchall()

    t = time.perf_counter()
    chunks: dict[str, int] = {}
    for r in rows:
        for text in r[1:]:
            for c in text.split():
                chunks.setdefault(c, len(chunks) + 1)
    terms = chunk_terms(conn, chunks)
    t_terms = time.perf_counter() - t
    t = time.perf_counter()
    grams = [(r[0], *(stream(x, terms, common) for x in r[1:])) for r in rows]
    t_stream = time.perf_counter() - t
    t = time.perf_counter()
    conn.execute(
        f"CREATE VIRTUAL TABLE search_grams USING fts5({', '.join(COLS)}, content = '', "
        "tokenize = 'unicode61 remove_diacritics 0')"
    )
    conn.execute("INSERT INTO search_grams(search_grams, rank) VALUES ('automerge', 0)")
    marks = ", ".join("?" * (len(COLS) + 1))
    conn.executemany(f"INSERT INTO search_grams(rowid, {', '.join(COLS)}) VALUES ({marks})", grams)
    conn.execute("INSERT INTO search_grams(search_grams) VALUES ('optimize')")
    conn.commit()
    t_grams = time.perf_counter() - t
    t = time.perf_counter()
    conn.execute("INSERT INTO search_fts(search_fts, rank) VALUES ('automerge', 0)")
    conn.execute("INSERT INTO search_fts(search_fts) VALUES ('rebuild')")
    conn.execute("INSERT INTO search_fts(search_fts) VALUES ('optimize')")
    conn.commit()
    t_main = time.perf_counter() - t

    # exact by construction: every row's token count per column is FTS5's own (its docsize)
    sizes = dict(conn.execute("SELECT id, sz FROM search_fts_docsize"))
    differ = sum(
        [len(c.split()) for c in g[1:]] != _varints(sizes[g[0]]) for g in grams if g[0] in sizes
    )

    def size(prefix: str) -> float:
        q = "SELECT sum(pgsize) FROM dbstat WHERE name LIKE ?"
        return conn.execute(q, (prefix + "%",)).fetchone()[0] / 1e6

    print(
        f"{n} posts, {len(common)} common terms "
        f"({'stopwords' if a.stopwords else f'in > {a.common:.0%} of posts'}), "
        f"{len(chunks)} distinct chunks"
    )
    print(
        f"chunk terms from FTS5 {t_terms:.2f} s; grams streams {t_stream:.2f} s (Python, one core)"
    )
    print(
        f"search_grams insert + optimize {t_grams:.2f} s, {size('search_grams'):.1f} MB; "
        f"search_fts rebuild + optimize {t_main:.2f} s, {size('search_fts'):.1f} MB"
    )
    print(f"rows whose token counts per column differ from search_fts_docsize: {differ}")
    print("| phrase | search_fts ms | search_grams ms | rows | same bm25 |")
    print("|---|---:|---:|---:|---|")
    for words in PHRASES:
        toks = [t for w in words for t in terms.get(w) or (w,)]
        main_m = '"' + " ".join(words) + '"'
        g = gram_phrase(toks, common)
        m_ms, m_rows = timed(
            conn,
            f"SELECT rowid, bm25(search_fts, {WEIGHTS}) FROM search_fts WHERE search_fts MATCH ?",
            main_m,
        )
        if g is None:
            print(f"| `{main_m}` | {m_ms:.2f} | (stays on search_fts) | {len(m_rows)} | |")
            continue
        g_ms, g_rows = timed(
            conn,
            f"SELECT rowid, bm25(search_grams, {WEIGHTS}) FROM search_grams "
            "WHERE search_grams MATCH ?",
            g,
        )
        print(
            f"| `{main_m}` | {m_ms:.2f} | {g_ms:.2f} | {len(m_rows)} | "
            f"{sorted(m_rows) == sorted(g_rows)} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
