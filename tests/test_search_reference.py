"""Search results against a straightforward reference (issue 14, item 2): on a small generated
corpus, every query's count, facets and order (all pages) equal what plain SQL over the same
database gives, with the ranking rules of `SearchService.order` written out directly, both when
bm25 ranks every match and when the matches are too many and are ordered in tiers. The
catalog's masks, the LIMIT probe and the paging over tiers must not change a thing."""

from __future__ import annotations

import dataclasses
import json
import random
import sqlite3
from collections import Counter
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from masthead.content.meta import term_key
from masthead.indexing.indexer import index_site
from masthead.search import service as service_module
from masthead.search.query import parse
from masthead.search.results import Options
from masthead.search.service import SearchService
from masthead.store import search as store
from masthead.store.db import Database

from support.sites import post

WORDS = ["harbour", "bridge", "budget", "archive", "local", "the", "quiet", "translation",
         "translator", "transit", "museum", "rain"]  # fmt: skip
ZH = ["数据", "图书馆", "港口", "调度器"]
TAGS = ["sea", "town", "city", "art", "data"]
CATEGORIES = ["news", "science"]
AUTHORS = ["Ann Lee", "Chen Wei", "Bo Li"]
NOW = datetime(2024, 6, 1, tzinfo=ZoneInfo("Asia/Shanghai")).timestamp()


def corpus() -> dict[str, str]:
    """70 posts in two languages with tags, categories, authors; drafts and one scheduled."""
    rng = random.Random(14)
    files = {}
    for i in range(70):
        zh = i % 4 == 3
        words = rng.choices(WORDS, k=12) + (rng.choices(ZH, k=4) if zh else [])
        title = " ".join(rng.choices(WORDS + (ZH if zh else []), k=3))
        day = date(2023, 1, 1) + timedelta(days=i * 7 if i != 69 else 600)  # 69: scheduled
        meta = {
            "tags": "[" + ", ".join(rng.sample(TAGS, rng.randint(0, 3))) + "]",
            "categories": f"[{rng.choice(CATEGORIES)}]",
            "authors": f"[{rng.choice(AUTHORS)}]",
        }
        if i % 10 == 5:
            meta["draft"] = "true"
        body = " ".join(words) + ".\n\nThe local archive " + " ".join(rng.choices(WORDS, k=5))
        files[f"posts/p{i:02d}{'.zh' if zh else ''}.md"] = post(
            title, day.isoformat(), body=body + ".\n", **meta
        )
    return files


QUERIES = [
    "harbour", "the", "harbour bridge", "harbour OR budget", "harbour -bridge", "transl*",
    '"local archive"', '"the local archive"', "数据", "lang:zh 数据", "tag:sea harbour",
    "category:science the", "author:chen the", "after:2023-03-01 before:2023-06-30 harbour",
    "year:2023 budget", "tag:sea", "-harbour", "harbour lang:en", "tag:sea tag:town the",
    "nothing", "harbour OR 港口 -rain", "author:li", "harbour OR bridge", "museum rain",
    "quiet OR museum OR rain", "the OR q123", "Harbour OR nothing", "harbour the -quiet",
]  # fmt: skip


class Reference:
    """The answer to a search from plain SQL, the ordering rules written out."""

    def __init__(self, path: str, tz: ZoneInfo) -> None:
        self.conn = sqlite3.connect(path)
        self.tz = tz
        rows = self.conn.execute(
            "SELECT id, lang, date_ts, authors FROM posts WHERE kind = 'post' AND draft = 0 "
            "AND shadowed = 0 AND date_ts <= ?",
            (NOW,),
        )
        self.posts = {i: (lang, ts, " ".join(json.loads(a)).casefold()) for i, lang, ts, a in rows}
        self.terms: dict[int, set[tuple[str, str]]] = {i: set() for i in self.posts}
        for i, tax, key in self.conn.execute("SELECT post_id, taxonomy, key FROM post_terms"):
            if i in self.terms and tax in ("tags", "categories"):
                self.terms[i].add((tax, key))
        self.url = dict(self.conn.execute("SELECT id, url FROM posts"))

    def bm25(self, match: str) -> dict[int, float]:
        sql = f"SELECT rowid, {store._BM25} FROM search_fts WHERE search_fts MATCH ?"
        return dict(self.conn.execute(sql, (match,)))

    def _start(self, day: date) -> float:
        return datetime(day.year, day.month, day.day, tzinfo=self.tz).timestamp()

    def allowed(self, i: int, f: dict) -> bool:
        lang, ts, authors = self.posts[i]
        terms = self.terms[i]
        return (
            (f["lang"] is None or lang == f["lang"])
            and all(("tags", term_key(t)) in terms for t in f["tags"])
            and all(("categories", term_key(c)) in terms for c in f["categories"])
            and (not f["author"] or f["author"].casefold() in authors)
            and (f["after"] is None or ts >= self._start(f["after"]))
            and (f["before"] is None or ts < self._start(f["before"] + timedelta(days=1)))
        )

    def search(self, raw: str, filters: dict, limit: int) -> list[str]:
        """The URLs of every hit, in order."""
        query = parse(raw)
        match, exclusion = query.match(), query.exclusion()
        excluded = set(self.bm25(exclusion)) if exclusion else set()

        def kept(ids):  # type: ignore[no-untyped-def]
            return [i for i in ids if i in self.posts and i not in excluded and
                    self.allowed(i, filters)]  # fmt: skip

        def newest(i: int) -> tuple[float, int]:
            return (-self.posts[i][1], i)

        if match is None:
            return [self.url[i] for i in sorted(kept(self.posts), key=newest)]
        every = self.bm25(match)
        if len(every) <= limit:
            order = sorted(kept(every), key=lambda i: (every[i], *newest(i)))
        else:
            strong = self.bm25(store.strong(match))
            if len(strong) <= limit:
                first = sorted(kept(strong), key=lambda i: (strong[i], *newest(i)))
            else:
                first = sorted(kept(strong), key=newest)
            rest = sorted(set(kept(every)) - set(first), key=newest)
            order = first + rest
        return [self.url[i] for i in order]

    def facets(self, urls: list[str]) -> dict[str, list[tuple[str, int]]]:
        by_url = {u: i for i, u in self.url.items()}
        counts: dict[str, Counter[str]] = {"lang": Counter(), "tags": Counter(),
                                           "categories": Counter()}  # fmt: skip
        for u in urls:
            i = by_url[u]
            counts["lang"][self.posts[i][0]] += 1
            for tax, key in self.terms[i]:
                counts[tax][key] += 1
        return {
            name: sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[:15]
            for name, c in counts.items()
        }


@pytest.mark.parametrize("frequent", [False, True], ids=["sql", "frequent-words"])
@pytest.mark.parametrize("limit", [1000, 6, 2])
def test_counts_facets_and_order_equal_a_reference_computed_in_sql(
    make_site, monkeypatch, limit, frequent
):
    """Both ways of ordering: FTS5 passes per search, and (`frequent`) the frequent words'
    masks and champion lists (search/frequent.py), made before the first query."""
    site = make_site(corpus())
    db = Database(site.database_path)
    index_site(site, db)
    monkeypatch.setattr(service_module, "BM25_ROWS", limit)
    service = SearchService(site, db, clock=lambda: NOW, result_cache=0, frequent=frequent)
    assert service.ready() is frequent
    if frequent and limit < 1000:
        words = service.catalog().frequent.words  # type: ignore[union-attr]
        assert '"harbour"' in words and '"the"' in words, sorted(words)
        assert any(p.champions is not None for p in words.values())
        assert any(p.champions is None for p in words.values())
    reference = Reference(str(site.database_path), ZoneInfo("Asia/Shanghai"))
    assert len(reference.posts) == 62, "7 drafts and one scheduled post are not searchable"
    totals = _compare(service, reference, QUERIES, limit)
    assert sum(t > 0 for t in totals) >= len(QUERIES) - 2, totals
    if limit < 1000:
        assert sum(t > limit for t in totals) >= 5, "the tiers were exercised"
    service.close()
    db.close()


def _compare(service: SearchService, reference: Reference, queries: list[str], limit: int):  # type: ignore[no-untyped-def]
    """Assert that every query's count, pages and facets equal the reference's; the totals."""
    totals = []
    for raw in queries:
        first = service.search(raw, Options(per_page=7), record=False)
        filters = service._merge(parse(raw), Options())
        expected = reference.search(raw, filters, limit)
        assert first.total == len(expected), raw
        pages = [service.search(raw, Options(page=p, per_page=7), record=False)
                 for p in range(1, first.pages + 1)]  # fmt: skip
        got = [h.url for page in pages for h in page.hits]
        assert got == expected, raw
        facets = {name: [(f.key, f.count) for f in fs] for name, fs in first.facets.items()}
        assert facets == (reference.facets(expected) if expected else {
            "lang": [], "tags": [], "categories": []}), raw  # fmt: skip
        assert first.as_dict() == dataclasses.asdict(first)
        totals.append(first.total)
    return totals


def titled(
    words: tuple[str, ...] = ("harbour", "bridge", "museum", "note", "rain", "quiet"),
    name: str = "posts/t{:02d}.md",
) -> dict[str, str]:
    """40 posts with `harbour` in every body; in the titles, `harbour` (posts 0–3), `bridge`
    (2–5, so both words rank 2 and 3) and `museum` (6): a head ranked by more than one word.
    `words` puts others in those places (with the filler title, the rain and the quiet)."""
    first, second, third, filler, rain, quiet = words
    files = {}
    for i in range(40):
        title = " ".join(w for w, on in ((first, i < 4), (second, 2 <= i < 6),
                                         (third, i == 6)) if on) or filler  # fmt: skip
        body = f"{first} " * (1 + i % 3) + (f"{second} {rain}. " if i % 2 else f"{quiet} {rain}. ")
        day = date(2023, 1, 1) + timedelta(days=i)
        files[name.format(i)] = post(f"{title} {i}", day.isoformat(), body=body + "\n")
    return files


def _capped(site, monkeypatch, frequent: bool):  # type: ignore[no-untyped-def]
    """`site`'s database, indexed; a search service with bm25 capped at 7 rows (with or
    without the frequent words' postings, made before it returns); the plain-SQL reference."""
    db = Database(site.database_path)
    index_site(site, db)
    monkeypatch.setattr(service_module, "BM25_ROWS", 7)
    service = SearchService(site, db, clock=lambda: NOW, result_cache=0, frequent=frequent)
    assert service.ready() is frequent
    return db, service, Reference(str(site.database_path), ZoneInfo("Asia/Shanghai"))


@pytest.mark.parametrize("frequent", [False, True], ids=["sql", "frequent-words"])
def test_a_head_ranked_by_several_words_is_not_one_words_champion_list(
    make_site, monkeypatch, frequent
):
    db, service, reference = _capped(make_site(titled()), monkeypatch, frequent)
    queries = ["harbour OR bridge", "harbour OR museum", "harbour OR q1", "Harbour",
               "harbour rain", "harbour OR bridge OR museum",
               "bridge OR harbour -quiet"]  # fmt: skip
    totals = _compare(service, reference, queries, 7)
    assert totals[:3] == [40, 40, 40], totals
    service.close()
    db.close()


def titled_zh() -> dict[str, str]:
    """`titled` in Chinese: 数据 in every body, in the titles 数据 (posts 0–3), 港口 (2–5) and
    图书馆 (6). A Chinese word is two phrases (the word, or its bigrams in their own column),
    of which only the word can match in a title."""
    return titled(("数据", "港口", "图书馆", "笔记", "下雨", "安静"), "posts/z{:02d}.zh.md")


@pytest.mark.parametrize("frequent", [False, True], ids=["sql", "frequent-words"])
def test_a_head_ranked_by_several_chinese_words_comes_from_their_postings(
    make_site, monkeypatch, frequent
):
    """The same order as plain SQL; with the frequent words' postings, without a bm25 pass: a
    Chinese word's bigram alternative adds 0.0 to bm25 over the title, tags and categories."""
    db, service, reference = _capped(make_site(titled_zh()), monkeypatch, frequent)
    queries = ["数据 OR 港口", "数据 OR 图书馆", "数据", "数据 下雨", "数据 OR 港口 OR 图书馆",
               "港口 OR 数据 -安静"]  # fmt: skip
    totals = _compare(service, reference, queries, 7)
    assert totals[:2] == [40, 40], totals
    statements: list[str] = []
    db.read().set_trace_callback(statements.append)
    service.search("数据 OR 港口", Options(), record=False)
    db.read().set_trace_callback(None)
    ranked = [s for s in statements if "bm25(" in s]
    assert bool(ranked) is not frequent, ranked
    service.close()
    db.close()


def test_authors_are_not_counted_as_categories(make_site, serve):
    """Authors are a taxonomy too (post_terms 'authors'); the category facet lists only
    categories, and `category:` does not find an author."""
    client = serve(make_site(corpus()))
    result = client.get("/api/search", params={"q": "the"}).json()
    assert {f["key"] for f in result["facets"]["categories"]} == set(CATEGORIES)
    assert client.get("/api/search", params={"q": "category:chen-wei"}).json()["total"] == 0
    assert client.get("/api/search", params={"q": "author:chen"}).json()["total"] > 0


def test_frequent_words_follow_the_index_generation(make_site, monkeypatch):
    """After the index changes, searches use the new generation's frequent words (made again
    in the background), never the last generation's: the same results as without them."""
    site = make_site(titled())
    db = Database(site.database_path)
    index_site(site, db)
    monkeypatch.setattr(service_module, "BM25_ROWS", 7)
    fast = SearchService(site, db, clock=lambda: NOW, result_cache=0)
    plain = SearchService(site, db, clock=lambda: NOW, result_cache=0, frequent=False)
    queries = ["harbour OR bridge", "harbour", "bridge OR museum", "rain"]

    def hits(service: SearchService) -> list[list[str]]:
        return [[h.url for h in service.search(q, Options(per_page=50), record=False).hits]
                for q in queries]  # fmt: skip

    assert fast.ready()
    before = fast.catalog().frequent
    assert hits(fast) == hits(plain)
    for i in range(10, 30):  # `bridge` moves into twenty more titles; `harbour` leaves four
        (site.content_dir / f"posts/t{i:02d}.md").write_text(
            post(f"bridge {i}", f"2023-02-{i - 9:02d}", body="bridge quiet rain.\n"), "utf-8"
        )
    for i in range(4):
        (site.content_dir / f"posts/t{i:02d}.md").write_text(
            post(f"note {i}", "2023-01-01", body="rain.\n"), "utf-8"
        )
    index_site(site, db)
    assert fast.ready()
    after = fast.catalog().frequent
    assert after is not None and before is not None and after.generation > before.generation
    assert after.words['"bridge"'].hits != before.words['"bridge"'].hits
    assert hits(fast) == hits(plain)
    fast.close()
    plain.close()
    db.close()
