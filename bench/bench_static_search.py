#!/usr/bin/env python3
"""Recall and bytes per query of an export's own search (export/search_index.py), against the
live search.

A plain script, not a test. It imports masthead from PYTHONPATH:

    PYTHONPATH=src .venv/bin/python bench/bench_static_search.py --posts 10000   # make_corpus.py
    PYTHONPATH=src .venv/bin/python bench/bench_static_search.py                # the real posts

Method
  site     `--posts N`: N posts of bench/make_corpus.py (seed 1, as bench_search.py); else the
           Kubernetes corpus (tests/data/k8s-blog, CC BY 4.0: the project's real English and
           Chinese posts)
  export   `masthead build` (export.build.build) of that site with no api_url, so it carries its
           own search index (/search-index/); its wall time and the index's size on disk
  queries  en: bench_search.py's queries that the export's search box takes (plain words, two
           words, lang: and tag: filters), then the --words most frequent English words of the
           posts; zh: bench_zh_recall.py's set, the --words most frequent jieba words (rjieba,
           two or more characters, all Han)
  live     `SearchService.rank(q, Options())`: every hit of the live search, as URLs
  static   the export served by http.server, opened in headless Chromium; in its search page,
           static/js/static-search.js's own search (`mastheadStaticSearch`): every result, as
           URLs (the posts' d/N.json files on disk name them)
  recall   per language: (query, post) pairs of the live search also found by the export, of
           all the live search's pairs; `extra`: pairs only the export found
  bytes    for the first --sample queries of each language and the --sample with the most
           hits (the frequent words: the worst case), a new browser context each (cold cache):
           the search page loaded with ?q=, until its first hits are drawn (the network idle);
           the bytes of every response under /search-index/ and of static-search.js (what a
           query fetches), median and maximum; and of the whole page (HTML, CSS, fonts too)
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import re
import shutil
import socketserver
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from functools import partial
from pathlib import Path
from urllib.parse import quote, unquote

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
CORPUS = REPO / "tests" / "data" / "k8s-blog"
WORD = re.compile(r"[a-z]{3,}")
STOP = frozenset(
    {
        "the",
        "and",
        "for",
        "are",
        "but",
        "not",
        "you",
        "all",
        "any",
        "can",
        "had",
        "her",
        "was",
        "one",
        "our",
        "out",
        "day",
        "get",
        "has",
        "him",
        "his",
        "how",
        "man",
        "new",
        "now",
        "old",
        "see",
        "two",
        "way",
        "who",
        "boy",
        "did",
        "its",
        "let",
        "put",
        "say",
        "she",
        "too",
        "use",
        "that",
        "with",
        "this",
        "from",
        "they",
        "will",
        "have",
        "what",
        "when",
        "your",
        "which",
        "their",
        "there",
        "been",
        "were",
        "into",
        "than",
        "then",
        "them",
        "these",
    }
)

# what a query fetches: the index's files and the script that reads them
SEARCH_FILES = re.compile(r"/search-index/|/static-search\.js")
# Runs in the export's search page: static-search.js's own search (`mastheadStaticSearch`), with
# the query's lang: and tag: words as its filters; every result's id (its fragment's name).
SEARCH_ALL = """async (queries) => {
  while (!window.mastheadStaticSearch) await new Promise((r) => setTimeout(r, 20));
  const out = [];
  for (const q of queries) {
    const filters = {};
    const words = [];
    for (const w of q.match(/\\S+:"[^"]*"|"[^"]*"|\\S+/g) || []) {
      const m = /^(lang|tag):(.+)$/i.exec(w);
      if (m) filters[m[1].toLowerCase()] = m[2].replace(/^"|"$/g, "");
      else words.push(w);
    }
    const found = await window.mastheadStaticSearch(words.join(" "), filters);
    out.push(found);
  }
  return out;
}"""


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def serve(folder: Path) -> tuple[socketserver.TCPServer, str]:
    """`python3 -m http.server` over `folder`, in a thread; (server, base URL)."""
    handler = partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def search_only(site, out: Path):  # type: ignore[no-untyped-def]
    """What `build` writes for the search alone: the search pages and the static files (through
    the same app, `export=True`), then the index (export/search_index.py, made from the
    database: it reads no page)."""
    import asyncio

    from masthead.export import search_index
    from masthead.export.build import BuildReport, Client, asset_urls, file_for
    from masthead.indexing.indexer import index_site
    from masthead.store.db import Database
    from masthead.web.app import create_app

    now = time.time()
    db = Database(site.database_path)
    index_site(site, db)
    db.close()

    class Files:
        def __init__(self) -> None:
            self.root, self.kept = out, set()
            self.previous: set[str] = set()

        def write(self, rel: str, data: bytes) -> None:
            path = out / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            self.kept.add(rel)

        def keep(self, rels) -> None:  # type: ignore[no-untyped-def]
            self.kept.update(rels)

        def release(self, prefix: str) -> None:
            pass

    async def run() -> None:
        app = create_app(site, clock=lambda: now, send_mail=False, export=True)
        app.state.masthead.compressed = False
        client = Client(app, site.settings.base_url)
        async with app.router.lifespan_context(app):
            for url in search_index.page_urls(site) + asset_urls(site):
                rel = file_for(url)
                status, body = await client.get(url)
                if rel is not None and status == 200:
                    files.write(rel, body)

    files = Files()
    asyncio.run(run())
    search_index.write(site, files, now)
    return BuildReport(written=len(files.kept))


def post_urls(out: Path) -> dict[int, str]:
    """The index's post number → the post's URL (its d/N.json)."""
    urls = {}
    for path in (out / "search-index" / "d").glob("*.json"):
        urls[int(path.stem)] = json.loads(path.read_bytes())["url"]
    return urls


def queries(texts: dict[int, str], langs: dict[int, str], n: int) -> dict[str, list[str]]:
    import rjieba
    from bench_search import QUERIES

    from masthead.search.segment import HAN

    plain = [
        q
        for q, kind in QUERIES
        if kind in ("word", "two words", "two zh words", "zh 2-char word", "zh 3-char word")
        or kind.startswith(("lang filter", "tag filter", "mixed", "miss", "zh miss"))
    ]
    en_words: Counter[str] = Counter()
    zh_words: Counter[str] = Counter()
    for post, text in texts.items():
        if langs[post] == "en":
            en_words.update(w for w in WORD.findall(text.lower()) if w not in STOP)
        for run in HAN.findall(text):
            zh_words.update(w for w in rjieba.cut(run) if len(w) >= 2 and HAN.fullmatch(w))
    top = partial(sorted, key=lambda kv: (-kv[1], kv[0]))
    zh_plain = [q for q in plain if HAN.search(q)]
    return {
        "en": [q for q in plain if not HAN.search(q)] + [w for w, _ in top(en_words.items())][:n],
        "zh": zh_plain + [w for w, _ in top(zh_words.items())][:n],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--posts", type=int, default=0, help="make_corpus.py posts (0: the k8s corpus)")
    ap.add_argument("--corpus", type=Path, default=CORPUS, help="a site folder (without --posts)")
    ap.add_argument("--words", type=int, default=300, help="frequent words per language")
    ap.add_argument("--sample", type=int, default=15, help="queries per language for bytes")
    ap.add_argument("--show", type=int, default=10, help="missed queries listed")
    ap.add_argument("--jobs", type=int, default=1, help="build processes (masthead build --jobs)")
    ap.add_argument(
        "--search-only",
        action="store_true",
        help="export only what the search needs (its pages, /static/, the index), not the "
        "posts, lists and feeds: the same index, sooner",
    )
    ap.add_argument(
        "--work", type=Path, help="keep the site, database and export here (a rerun continues)"
    )
    args = ap.parse_args(argv)

    import masthead
    from masthead.config import load_site
    from masthead.export.build import build
    from masthead.search.results import Options
    from masthead.search.service import SearchService
    from masthead.store.db import Database

    sys.path.insert(0, str(REPO / "tests"))
    from playwright.sync_api import sync_playwright

    from support.browser import chromium_path

    print(f"<!-- masthead from {Path(masthead.__file__).parent} -->")
    with tempfile.TemporaryDirectory(prefix="masthead-static-search-") as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        if args.posts:
            from bench_search import make_site

            root = work / f"site-{args.posts}"
            if not root.is_dir():
                root = make_site(args.posts, work, 1)
            what = f"{args.posts:,} posts of make_corpus.py (seed 1)"
        else:
            root = work / "site"
            if not root.is_dir():
                shutil.copytree(args.corpus, root)
            what = f"{args.corpus.name} (real posts)"
        site = load_site(
            root, {"database": str(work / "site.db"), "base_url": "https://bench.example.org"}
        )
        out = work / "public"
        log(f"building {what} ...")
        t0 = time.perf_counter()
        report = search_only(site, out) if args.search_only else build(site, out, jobs=args.jobs)
        build_s = time.perf_counter() - t0
        ids = post_urls(out)
        index = [p for p in (out / "search-index").rglob("*") if p.is_file()]
        bundle = sum(p.stat().st_size for p in index)

        db = Database(site.database_path)
        service = SearchService(site, db)
        conn = db.read()
        rows = conn.execute("SELECT id, url, lang, title, excerpt, body_text, code_text FROM posts")
        url_of, langs, texts = {}, {}, {}
        for post_id, url, lang, *fields in rows:
            url_of[post_id], langs[post_id] = url, lang
            texts[post_id] = "\n".join(f or "" for f in fields)
        for post_id, name in conn.execute("SELECT post_id, name FROM post_terms"):
            texts[post_id] += "\n" + name
        searchable = set(service.catalog().authors)
        texts = {k: v for k, v in texts.items() if k in searchable}
        sets = queries(texts, langs, args.words)
        live = {
            q: {unquote(url_of[i]) for i in service.rank(q, Options()).ids}
            for qs in sets.values()
            for q in qs
        }
        service.close()
        db.close()

        server, base = serve(out)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(
                    executable_path=chromium_path(), args=["--no-sandbox", "--disable-gpu"]
                )
                page = browser.new_page()
                page.goto(base + "/search/")
                found: dict[str, set[str]] = {}
                for qs in sets.values():
                    t0 = time.perf_counter()
                    got = page.evaluate(SEARCH_ALL, qs)
                    log(f"{len(qs)} queries in {time.perf_counter() - t0:.1f} s")
                    for q, hits in zip(qs, got, strict=True):
                        found[q] = {unquote(ids[h]) for h in hits}
                fetched: dict[str, list[tuple[int, int, str]]] = {}
                for lang, qs in sets.items():
                    fetched[lang] = []
                    hit = [q for q in qs if live[q]]
                    most = sorted(hit, key=lambda q: -len(live[q]))[: args.sample]
                    sample = list(dict.fromkeys(hit[: args.sample] + most))
                    for q in sample:
                        context = browser.new_context()
                        tab = context.new_page()
                        sizes: list[tuple[str, int]] = []
                        tab.on(
                            "requestfinished",
                            lambda r, s=sizes: s.append((r.url, r.sizes()["responseBodySize"])),
                        )
                        prefix = "/zh" if lang == "zh" else ""
                        tab.goto(f"{base}{prefix}/search/?q={quote(q)}")
                        tab.wait_for_selector(".search-results:not([hidden])", timeout=60_000)
                        tab.wait_for_load_state("networkidle")
                        search = sum(n for url, n in sizes if SEARCH_FILES.search(url))
                        fetched[lang].append((search, sum(n for _, n in sizes), q))
                        context.close()
                browser.close()
        finally:
            server.shutdown()

    print(f"\n#### Static search against the live search: {what}\n")
    print(
        f"Export: {report.files:,} files in {build_s:.1f} s; "
        f"the search index {bundle / 1e6:.1f} MB in {len(index):,} files.\n"
    )
    print(
        "| queries | language | (query, post) pairs of the live search | found by the export "
        "| recall | queries at 100% | pairs only the export found | bytes per query, median "
        "| max | the whole page, max |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    missed: list[tuple[int, str, int]] = []
    for lang, qs in sets.items():
        pairs = sum(len(live[q]) for q in qs)
        got = sum(len(live[q] & found[q]) for q in qs)
        extra = sum(len(found[q] - live[q]) for q in qs)
        full = sum(live[q] <= found[q] for q in qs)
        sizes = [s for s, _, _ in fetched[lang]]
        worst = max(fetched[lang])
        print(
            f"| {len(qs)} | {lang} | {pairs:,} | {got:,} | {100 * got / max(pairs, 1):.2f}% "
            f"| {full}/{len(qs)} | {extra:,} | {statistics.median(sizes) / 1e3:.0f} KB "
            f"| {worst[0] / 1e3:.0f} KB (`{worst[2]}`) "
            f"| {max(t for _, t, _ in fetched[lang]) / 1e3:.0f} KB |"
        )
        missed += [(len(live[q] - found[q]), q, len(live[q])) for q in qs if live[q] - found[q]]
    if missed:
        print("\nMissed most:\n")
        for n, q, of in sorted(missed, reverse=True)[: args.show]:
            print(f"- `{q}`: {n} of the live search's {of} posts not found")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
