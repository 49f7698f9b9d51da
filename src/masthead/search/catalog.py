"""The search catalog: every searchable post held in memory as bit masks (languages, terms,
years, dates), and the set operations a search makes on them. Pure: the search service builds
it from the store's rows and keeps it per index generation."""

from __future__ import annotations

import bisect
import re
from array import array
from dataclasses import dataclass, field
from itertools import compress, islice
from typing import Any

from masthead.search.query import Query, Term

_FLAGS = bytes.maketrans(b"01", b"\x00\x01")  # a mask's bits as text → one byte per id
BLOCK = 128  # posts per precomputed date-order prefix mask (`Catalog.dated`)


_BITS = bytes.maketrans(b"\x00\x01", b"01")


def raw_mask(ids: list[int]) -> int:
    """The mask with bit `i` set for each id of `ids` (any non-negative ints)."""
    if not ids:
        return 0
    flags = bytearray(max(ids) + 1)
    for i in ids:  # a plain loop: cheaper than map() over flags.__setitem__
        flags[i] = 1
    return int(flags[::-1].translate(_BITS), 2)


@dataclass(frozen=True)
class Postings:
    """What the search needs of one frequent word (see the module docstring)."""

    hits: int
    strong: int
    champions: array | None  # catalog ids, best first; None when `strong` is above the cap
    scored: array | None = None  # the rows of `strong`, ascending (with `champions`)
    scores: array | None = None  # their bm25 (lower is better), in the same order


@dataclass
class Frequent:
    """The frequent words of one index generation: `Term.fts()` → `Postings`."""

    generation: int
    words: dict[str, Postings] = field(default_factory=dict)

    def get(self, term: Term) -> Postings | None:
        """The postings of `term` when it is a frequent word (any case), else None."""
        key = term.fts()
        found = self.words.get(key)
        if found is None and key.isascii():
            found = self.words.get(key.lower())  # FTS5's unicode61 folds ASCII case alike
        return found


def levenshtein(a: str, b: str, limit: int) -> int:
    """Edit distance of `a` and `b`, or `limit + 1` as soon as it must exceed `limit`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        if min(current) > limit:
            return limit + 1
        previous = current
    return previous[-1]


@dataclass
class Catalog:
    """Every searchable post of one index generation, in memory (a few MB at 10,000 posts), so
    that a search needs one FTS5 pass and filters, counts and facets cost no further SQL.

    Sets of posts are **masks**: Python ints with bit `id` set for each post id (1.25 KB at
    10,000 posts), so that filters, exclusions and tiers are `&`/`~` and a count is
    `bit_count()`, all in C over machine words."""

    generation: int
    # id → what `author:` matches a substring of (the names and their keys, case-folded), for
    # every searchable post: the catalog's entries
    authors: dict[int, str]
    names: dict[tuple[str, str], str]  # (taxonomy, key) → name as first written
    # (taxonomy, key) → the language of every post having it, when they share one
    term_lang: dict[tuple[str, str], str] = field(default_factory=dict)
    newest: float = 0.0  # the latest date_ts: when it is past, every entry is published
    neg_date: dict[int, float] = field(default_factory=dict)  # id → -date_ts, for ordering
    by_date: list[int] = field(default_factory=list)  # every id, newest first (ties: id)
    # id → its facet values as numbers (indexes into `facet_values`, each `(facet, key)`):
    # small ints hash at no cost, so `facets` counts them in one C-level pass
    facet_keys: dict[int, tuple[int, ...]] = field(default_factory=dict)
    facet_values: list[tuple[str, str]] = field(default_factory=list)
    facet_masks: list[int] = field(default_factory=list)  # facet number → mask of its posts
    # (facet, key) → the mask of the posts having it, so that filters are intersections
    having: dict[tuple[str, str], int] = field(default_factory=dict)
    dates: list[float] = field(default_factory=list)  # -date_ts of `by_date`, ascending
    size: int = 0  # the largest id + 1: masks have no bit at or above it
    members: int = 0  # the mask of every entry
    prefixes: list[int] = field(default_factory=list)  # k → mask of by_date[: k * BLOCK]
    # the frequent words' postings (search/frequent.py), once a background thread made them
    frequent: Frequent | None = None

    def mask(self, ids: list[int]) -> int:
        """The mask of the `ids` that are entries (FTS5 rows of drafts, pages and posts newer
        than this generation are not)."""
        size = self.size
        if not size:
            return 0
        if ids and max(ids) >= size:
            ids = [i for i in ids if i < size]
        return raw_mask(ids) & self.members

    def flags(self, mask: int) -> bytes:
        """One byte per id (index `id`: 1 if in `mask`, else 0), `size + 1` long."""
        return format(mask, f"0{self.size + 1}b").encode("ascii")[::-1].translate(_FLAGS)

    def newest_first(self, mask: int, start: int = 0, stop: int | None = None) -> list[int]:
        """The ids of `mask`, newest first (ties: id), sliced `[start:stop]`."""
        if not mask or (stop is not None and stop <= start):
            return []
        flags = self.flags(mask)
        found = compress(self.by_date, map(flags.__getitem__, self.by_date))
        return list(islice(found, start, stop))

    def dated(self, start: float | None, end: float | None) -> int:
        """The mask of the posts dated in [start, end) (seconds; None: unbounded): a slice of
        `by_date`, found by bisection, made of precomputed prefix masks and at most two
        blocks' worth of ids."""
        lo = 0 if end is None else bisect.bisect_right(self.dates, -end)
        hi = len(self.dates) if start is None else bisect.bisect_right(self.dates, -start)
        if lo >= hi:
            return 0
        if lo == 0 and hi == len(self.dates):
            return self.members
        a, b = -(-lo // BLOCK), hi // BLOCK  # the whole blocks inside [lo, hi)
        if a >= b:
            return self.mask(self.by_date[lo:hi])
        inside = self.prefixes[b] ^ self.prefixes[a]
        return inside | self.mask(self.by_date[lo : a * BLOCK] + self.by_date[b * BLOCK : hi])

    def facet_counts(self, mask: int) -> dict[int, int]:
        """Facet number → how many posts of `mask` have it (only those with some)."""
        counts = {}
        for number, having in enumerate(self.facet_masks):
            n = (having & mask).bit_count()
            if n:
                counts[number] = n
        return counts


@dataclass
class Ranked:
    """The ordered hits of one query, after filters: `head` (ids in that order), then the
    posts of each mask of `tiers` (disjoint, and none in `head`), each newest first."""

    query: Query
    filters: dict[str, Any]
    shown_filters: dict[str, Any]
    head: list[int] = field(default_factory=list)
    tiers: tuple[int, ...] = ()
    ran: bool = True
    catalog: Catalog | None = None  # the one the hits came from: facets count over the same

    @property
    def total(self) -> int:
        return len(self.head) + sum(t.bit_count() for t in self.tiers)

    def slice(self, start: int, stop: int | None) -> list[int]:
        """The ids of hits `[start:stop]` in order (0-based)."""
        out = self.head[start:stop]
        catalog = self.catalog
        if catalog is None:  # only a search that ran nothing has none, and no tiers
            return out
        start = max(0, start - len(self.head))
        if stop is not None:
            stop -= len(self.head)
        for tier in self.tiers:
            if stop is not None and stop <= 0:
                break
            count = tier.bit_count()
            if start < count:
                out += catalog.newest_first(tier, start, stop)
            start = max(0, start - count)
            if stop is not None:
                stop -= count
        return out

    @property
    def ids(self) -> list[int]:
        """Every hit, in order."""
        return self.slice(0, None)


def best_first(ranked: list[tuple[int, float]], neg_date: dict[int, float]) -> list[int]:
    """The ids of `(id, bm25)` rows in the catalog (`neg_date`), by rank, then newest first."""
    hits = [(rank, neg_date[i], i) for i, rank in ranked if i in neg_date]
    hits.sort()
    return [i for _r, _d, i in hits]


def ids_of(mask: int) -> list[int]:
    """The ids of `mask`, ascending (the regex scans in C: 5× faster than a Python loop over
    each bit for a few hundred ids in 10,000)."""
    return [m.start() for m in _ONE.finditer(format(mask, "b")[::-1])]


_ONE = re.compile("1")


def combine(groups: list[list[Term]], postings: list[list[Any]], mask: Any) -> int:
    """AND over the groups of the OR of `mask(term, postings)` of their terms."""
    combined = -1
    for group, found in zip(groups, postings, strict=True):
        either = 0
        for term, p in zip(group, found, strict=True):
            either |= mask(term, p)
        combined &= either
        if not combined:
            return 0
    return max(combined, 0)


def kept(ids: list[int], catalog: Catalog, keep: int) -> list[int]:
    """The `ids` in the mask `keep`, in their order."""
    flags = catalog.flags(keep)
    size = catalog.size
    return [i for i in ids if i < size and flags[i]]
