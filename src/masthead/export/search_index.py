"""Search in the exported files: the search index of an export with no masthead behind it.

An export without `api_url` has no server to ask, so `masthead build` writes a search index into
its files (`FOLDER`) and its search page reads that (`SiteState.self_contained`,
static/js/static-search.js).

The index is made from the live search's own full-text index (store/static_search.py): for every
term FTS5 stored (the Porter stems of the words, the Chinese words jieba cut and the bigrams of
every Han run, `search.segment`) the posts that hold it, so that the export's search finds what
the live search finds. Pagefind was the first choice; it fetched up to 13.7 MB for a frequent
word at 10,000 posts (its posting lists carry every position; docs/performance.md), and this
index fetches a few tens of KB. A query fetches only what its words need:

- `index.json`: the number of posts and of shards;
- `s/N.json`: shard N, the terms whose FNV-1a hash (of their UTF-8 bytes) is N modulo the number
  of shards, each with its posting list (`encode`), or `[term]` for a word as typed whose stem
  is another term (`running` → `run`: the browser has no Porter stemmer, so the words of the
  posts map to their stems; a term that is also such a word is keyed `=term`), or a number `n`
  when the list is long: it is then in `t/n.txt`;
- `d/N.json`: post N (oldest first): URL, title, date (as the post's language writes it),
  language, tags and the start of its text (`TEXT_BYTES`), for the hits shown and their snippet.

The language and tag filters are terms too (`lang:en`, `tag:` and the tag's name in lower case).

Incremental: the index is made again only when what it is made from changed (the content
files, the index generation, the published posts: a hash of them in `STAMP`); else the previous
build's files are kept as they are. A new index releases the old one's files first
(`Writer.release`), so that the build removes those it does not write again.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import sqlite3
from collections.abc import Collection
from datetime import datetime
from pathlib import Path
from typing import Protocol

import masthead
from masthead.config import Site
from masthead.content import urls
from masthead.i18n import long_date
from masthead.search.segment import HAN
from masthead.store import static_search

log = logging.getLogger(__name__)

FOLDER = "search-index"  # the index's folder in OUT, and its URL path /search-index/
META = "index.json"
STAMP = ".masthead-search.json"  # what the index was made from (a build's own file)
FORMAT = 1
SHARD_BYTES = 16_000  # about this much of inline posting lists per shard
LONG = 2_000  # a posting list of more characters is a file of its own
TEXT_BYTES = 12_000  # of a post's text in its d/N.json, for the snippet (UTF-8)
SHADOWED = "="  # before a term that is also a word leading to another term (see `_make`)
DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVabcdefghijklmnopqrstuvwxyz_-WXYZ"  # 32 last, 32 more


class Writer(Protocol):
    """Where the index files go: export.build.Output (written only when their bytes change,
    listed in the build's manifest)."""

    root: Path
    previous: set[str]

    def write(self, rel: str, data: bytes) -> None: ...

    def keep(self, rels: Collection[str]) -> None: ...

    def release(self, prefix: str) -> None: ...


def wanted(site: Site) -> bool:
    """Whether an export of `site` carries its own search: when it has no `api_url` (with one,
    its pages search on that masthead)."""
    return not site.settings.api_url


def page_urls(site: Site) -> list[str]:
    """The export's search page of each language (`/search/`, `/zh/search/`), or none."""
    if not wanted(site):
        return []
    return [urls.lang_path(lang.prefix, "/search/") for lang in site.languages.values()]


def fnv1a(text: str) -> int:
    """The 32-bit FNV-1a hash of `text`'s UTF-8 bytes (static-search.js computes the same)."""
    h = 0x811C9DC5
    for byte in text.encode("utf-8"):
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h


def encode(ids: list[int]) -> str:
    """Sorted post numbers as the gaps between them (the first from -1), each in base 32 with
    the digits of `DIGITS`: the last digit of a number from its first 32, the others from its
    last 32 (a gap under 32 is one character)."""
    out: list[str] = []
    last = -1
    for n in ids:
        gap = n - last
        last = n
        digits = [DIGITS[gap & 31]]
        gap >>= 5
        while gap:
            digits.append(DIGITS[32 + (gap & 31)])
            gap >>= 5
        out.extend(reversed(digits))
    return "".join(out)


def decode(text: str) -> list[int]:
    """The post numbers of `encode`'s text (what static-search.js does)."""
    out: list[int] = []
    last, gap = -1, 0
    for ch in text:
        d = DIGITS.index(ch)
        gap = gap * 32 + (d & 31)
        if d < 32:
            last += gap
            out.append(last)
            gap = 0
    return out


def files(meta: dict[str, int]) -> set[str]:
    """Every file (OUT-relative) the index described by `meta` (its index.json) is made of."""
    listed = {f"{FOLDER}/{META}"}
    listed |= {f"{FOLDER}/s/{n}.json" for n in range(meta["shards"])}
    listed |= {f"{FOLDER}/t/{n}.txt" for n in range(meta["long"])}
    listed |= {f"{FOLDER}/d/{n}.json" for n in range(meta["posts"])}
    return listed


def write(site: Site, output: Writer, now: float) -> int:
    """Write the index of the posts published at `now` into `OUT/FOLDER/` through `output`; the
    number of its files. Kept as it is when what it is made from did not change."""
    root = output.root
    conn = static_search.open_reader(site.database_path)
    try:
        locales = {code: lang.locale for code, lang in site.languages.items()}
        made_of = [FORMAT, masthead.__version__, locales, static_search.fingerprint(conn, now)]
        stamp = hashlib.sha256(json.dumps(made_of).encode()).hexdigest()
        kept = sorted(r for r in output.previous if r.startswith(FOLDER + "/"))
        meta = _meta(root / FOLDER / META)
        same = meta is not None and _read(root / STAMP) == stamp and set(kept) == files(meta)
        if same and all((root / r).is_file() for r in kept):
            output.keep(kept)
            output.write(STAMP, stamp.encode())
            return len(kept)
        output.release(FOLDER + "/")
        posts = static_search.posts(conn, now)
        written = _make(site, output, conn, posts, static_search.tags(conn, now), stamp[:16])
    finally:
        conn.close()
    output.write(STAMP, stamp.encode())
    return written


def _make(
    site: Site,
    output: Writer,
    conn: sqlite3.Connection,
    posts: list[static_search.Post],
    tags: list[tuple[int, str]],
    version: str,
) -> int:
    """Write the index (see the module) of `posts` (`static_search.posts`), tagged `tags`."""
    number = {post_id: n for n, (post_id, *_rest) in enumerate(posts)}
    tags_of: dict[int, list[str]] = {}
    for post_id, name in tags:
        if post_id in number:
            tags_of.setdefault(number[post_id], []).append(name)
    lists: dict[str, list[int]] = {}
    for term, post_ids in static_search.terms(conn):
        held = [number[i] for i in post_ids if i in number]
        if held:
            lists[term] = held
    for n, (_id, _url, _title, lang, *_rest) in enumerate(posts):
        lists.setdefault(f"lang:{lang}", []).append(n)
    for n, names in tags_of.items():
        for name in dict.fromkeys(t.lower() for t in names):
            lists.setdefault(f"tag:{name}", []).append(n)
    # a word as typed whose stem is another term leads there; where that word is a term too
    # (`container`, the stem of `containerization`, and a word whose stem is `contain`), the
    # term's list goes under `SHADOWED` and the word: a key no token can be
    typed = dict.fromkeys(static_search.words(conn))  # and the terms: `container`, typed, is
    typed.update((t, None) for t in lists if ":" not in t and not HAN.search(t))  # `contain`
    stemmed = static_search.stems(conn, typed)
    leads = {w: stem for w, stem in stemmed.items() if stem != w and stem in lists}

    def key(term: str) -> str:
        return SHADOWED + term if term in leads else term

    entries: dict[str, str | list[str] | int] = {}
    long: list[str] = []
    for term, ids in lists.items():
        ids.sort()
        text = encode(ids)
        if len(text) > LONG:
            entries[key(term)] = len(long)
            long.append(text)
        else:
            entries[key(term)] = text
    for word, stem in leads.items():
        entries[word] = [key(stem)]
    size = sum(len(k) + (len(v) if isinstance(v, str) else 8) for k, v in entries.items())
    shards = max(1, math.ceil(size / SHARD_BYTES))
    grouped: list[dict[str, str | list[str] | int]] = [{} for _ in range(shards)]
    for name in sorted(entries):
        grouped[fnv1a(name) % shards][name] = entries[name]
    counts = {"posts": len(posts), "shards": shards, "long": len(long)}
    meta = {"format": FORMAT, "version": version, **counts}
    out = output.write
    for n, shard in enumerate(grouped):
        out(f"{FOLDER}/s/{n}.json", _json(shard))
    for n, text in enumerate(long):
        out(f"{FOLDER}/t/{n}.txt", text.encode())
    for n, (_id, url, title, lang, date, text) in enumerate(posts):
        language = site.languages.get(lang)
        locale = language.locale if language else lang
        doc = {
            "url": url,
            "title": title,
            "date": long_date(datetime.fromisoformat(date), locale),
            "lang": lang,
            "tags": tags_of.get(n, []),
            "text": _cut(text.strip(), TEXT_BYTES),
        }
        out(f"{FOLDER}/d/{n}.json", _json(doc))
    out(f"{FOLDER}/{META}", _json(meta))
    log.info("search index: %d posts, %d terms, %d shards", len(posts), len(entries), shards)
    return len(files(counts))


def _cut(text: str, limit: int) -> str:
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    return data[:limit].decode("utf-8", "ignore")


def _json(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _meta(path: Path) -> dict[str, int] | None:
    """The counts of an index.json (`files`), or None."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    keys = ("posts", "shards", "long")
    if not isinstance(data, dict) or not all(isinstance(data.get(k), int) for k in keys):
        return None
    return {k: data[k] for k in keys}


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None
