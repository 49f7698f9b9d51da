"""SQL for the search index of an export (`masthead.export.search_index`), read-only.

The index is made from the live search's own full-text index: the terms FTS5 stored for each
post (`search_fts`: Porter stems of the words, Chinese words cut by jieba and the bigrams of
every Han run, `search.segment`), read through an `fts5vocab` table, so that the export's search
finds what the live search finds. The connection is opened read-only (`mode=ro`) but may make
tables of its own in `temp` (the vocabulary view, and the words to stem).
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import unicodedata
from collections.abc import Iterable, Iterator
from pathlib import Path

Post = tuple[int, str, str, str, str, str]  # id, url, title, lang, date, text (`posts`)
_SEARCHABLE = "kind = 'post' AND draft = 0 AND shadowed = 0 AND date_ts <= :now"
_WORD = re.compile(r"[^\W_]+")  # a unicode61 token, near enough: `stems` says what FTS5 makes
_STEMMER = "porter unicode61 remove_diacritics 2"  # search_fts's tokenizer (store/migrations.py)


def open_reader(path: Path) -> sqlite3.Connection:
    """A read-only connection to the database at `path`, free to make `temp` tables."""
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 10000")
    return conn


def posts(conn: sqlite3.Connection, now: float) -> list[Post]:
    """Every post the live search finds at `now` (as `store.search.catalog`, without drafts or
    future posts), oldest first: `(id, url, title, lang, date, text)`, `date` ISO 8601 and
    `text` the excerpt and the body's text."""
    rows = conn.execute(
        "SELECT id, url, title, lang, date, excerpt || char(10) || body_text FROM posts "
        f"WHERE {_SEARCHABLE} ORDER BY date_ts, id",
        {"now": now},
    )
    return [tuple(r) for r in rows]


def tags(conn: sqlite3.Connection, now: float) -> list[tuple[int, str]]:
    """`(post id, tag name)` of the posts of `posts`, in each post's order."""
    rows = conn.execute(
        "SELECT t.post_id, t.name FROM post_terms t JOIN posts p ON p.id = t.post_id "
        "WHERE t.taxonomy = 'tags' AND p.kind = 'post' AND p.draft = 0 AND p.shadowed = 0 "
        "AND p.date_ts <= :now "
        "ORDER BY t.post_id, t.position",
        {"now": now},
    )
    return [(r[0], r[1]) for r in rows]


def terms(conn: sqlite3.Connection) -> Iterator[tuple[str, list[int]]]:
    """Every term of the full-text index with the ids of the posts holding it (in any column:
    title, tags, categories, excerpt, body, code, the search-mode words and the bigrams)."""
    conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.static_search_vocab "
        "USING fts5vocab(main, search_fts, 'instance')"
    )
    rows = conn.execute(
        "SELECT term, group_concat(doc) FROM "
        "(SELECT DISTINCT term, doc FROM temp.static_search_vocab) GROUP BY term"
    )
    for term, docs in rows:
        yield term, [int(d) for d in docs.split(",")]


def words(conn: sqlite3.Connection) -> list[str]:
    """The words of the posts as typed (lower case, without diacritics; not stemmed): those of
    `search_words` (every column but the code), then those of the code."""
    found = [r[0] for r in conn.execute("SELECT term FROM search_vocab")]
    seen = set(found)
    for (code,) in conn.execute("SELECT code FROM search_docs WHERE code != ''"):
        for word in _WORD.findall(_folded(code)):
            if word not in seen:
                seen.add(word)
                found.append(word)
    return found


def stems(conn: sqlite3.Connection, words: Iterable[str]) -> dict[str, str]:
    """Each of `words` → the term the live search's tokenizer makes of it (its Porter stem), for
    the words it makes one term of."""
    listed = list(words)
    conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.static_search_words "
        f"USING fts5(word, tokenize = '{_STEMMER}')"
    )
    conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.static_search_stems "
        "USING fts5vocab(temp, static_search_words, 'instance')"
    )
    conn.execute("DELETE FROM temp.static_search_words")
    conn.executemany(
        "INSERT INTO temp.static_search_words (rowid, word) VALUES (?, ?)", enumerate(listed)
    )
    made: dict[int, list[str]] = {}
    for term, doc in conn.execute("SELECT term, doc FROM temp.static_search_stems"):
        made.setdefault(doc, []).append(term)
    return {listed[i]: t[0] for i, t in made.items() if len(t) == 1}


def fingerprint(conn: sqlite3.Connection, now: float) -> str:
    """A hash of what the index of the posts published at `now` is made from: the content
    files (their SHA-256), the index generation, and which posts are published (id, URL,
    date), so that a scheduled post coming due changes it. Cheap: no text is read."""
    h = hashlib.sha256()
    for row in conn.execute("SELECT path, sha256 FROM sources ORDER BY path"):
        h.update(f"{row[0]}\0{row[1]}\n".encode())
    generation = conn.execute("SELECT value FROM site_state WHERE key = 'generation'").fetchone()
    h.update(f"generation {generation[0] if generation else 0}\n".encode())
    rows = conn.execute(
        f"SELECT id, url, date_ts FROM posts WHERE {_SEARCHABLE} ORDER BY id", {"now": now}
    )
    for row in rows:
        h.update(f"{row[0]}\0{row[1]}\0{row[2]}\n".encode())
    return h.hexdigest()


def _folded(text: str) -> str:
    """Lower case without diacritics, as unicode61's `remove_diacritics` reads it."""
    decomposed = unicodedata.normalize("NFD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))
