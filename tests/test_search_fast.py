"""Search speed (issue 14, item 2), its behaviour only (no timing): plain API searches are
answered by the fast path with the router's exact JSON, repeated searches come from the result
cache of the index generation (and are still logged), and a query matching more posts than
bm25 may rank is ordered in tiers while counts and facets cover every match."""

from __future__ import annotations

import asyncio
import json
import sqlite3

from masthead.search import service as service_module
from masthead.search.results import Options
from masthead.search.service import SearchService
from masthead.store.db import Database

from support.sites import post

FILES = {
    "posts/a.md": post(
        "Harbour lights", "2024-03-01", body="The harbour at night.\n", tags="[sea]"
    ),
    "posts/b.md": post("Town news", "2024-03-02", body="A harbour story.\n", tags="[sea, town]"),
    "posts/c.md": post("Harbour again", "2024-03-03", body="Harbour, harbour.\n"),
    "posts/d.md": post("Old boats", "2024-03-04", body="Boats in the harbour.\n"),
    "posts/e.md": post("Rain", "2024-03-05", body="Rain over the harbour.\n", tags="[town]"),
    "posts/f.zh.md": post("港口", "2024-03-06", body="调度器会优先。\n"),
}


def _answer(app, query: bytes, method: str = "GET", headers=(), path: str = "/api/search"):  # type: ignore[no-untyped-def]
    """Run the app's fast path alone on one request; whether it answered, and what it sent."""
    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "query_string": query,
        "headers": list(headers),
        "client": ("127.0.0.1", 5000),
    }
    answered = asyncio.run(app.fast_path.answer(scope, send))
    return answered, sent


def _plain(result: dict) -> dict:
    return {k: v for k, v in result.items() if k != "latency_ms"}


def test_plain_api_searches_take_the_fast_path_with_the_routers_json(make_site, serve):
    site = make_site(FILES)
    fast = serve(site)
    router = serve(site, dev=True)  # no fast path under --dev: every request is routed
    for params in (
        {"q": "harbour"},
        {"q": "harbour", "page": "2", "per_page": "2"},
        {"q": "调度器"},
        {"q": "librray"},
        {"q": ""},
        {"q": "harbour -rain"},
    ):
        a, b = fast.get("/api/search", params=params), router.get("/api/search", params=params)
        assert a.status_code == b.status_code == 200, params
        assert _plain(a.json()) == _plain(b.json()), params
        # the same app's router (an Origin header sends a request there): the same headers
        routed = fast.get("/api/search", params=params, headers={"Origin": "https://x.example"})
        assert _plain(routed.json()) == _plain(a.json())

        def headers(r):  # type: ignore[no-untyped-def]
            return sorted((k, v) for k, v in r.headers.items() if k != "content-length")

        assert headers(a) == headers(routed), params
    query = b"q=harbour&per_page=2"
    answered, sent = _answer(fast.app, query)
    assert answered and sent[0]["status"] == 200
    assert json.loads(sent[1]["body"])["total"] == 5
    # what the fast path leaves to the router, answered as before
    for query, status in (
        (b"q=harbour&lang=zh", None),
        (b"q=harbour&per_page=0", 422),
        (b"q=harbour&page=x", 422),
        (b"q=harbour&q=rain", None),
        (b"q=after:2025 before:2020", 422),
    ):
        answered, _sent = _answer(fast.app, query)
        assert not answered, query
        r = fast.get("/api/search?" + query.decode())
        assert r.status_code == (status or 200), query
    assert not _answer(fast.app, b"q=harbour", method="HEAD")[0]
    assert not _answer(fast.app, b"q=harbour", headers=[(b"origin", b"https://x.example")])[0]
    assert fast.head("/api/search?q=harbour").status_code == 200


def test_a_repeated_search_comes_from_the_result_cache_until_the_index_changes(make_site):
    from masthead.indexing.indexer import index_site

    site = make_site(FILES)
    db = Database(site.database_path)
    index_site(site, db)
    service = SearchService(site, db)
    statements: list[str] = []
    db.read().set_trace_callback(statements.append)
    first = service.search("harbour", Options())
    assert any("MATCH" in s for s in statements)
    statements.clear()
    again = service.search("harbour", Options())
    assert not any("MATCH" in s for s in statements), "no FTS5 pass for a kept result"
    assert _plain(again.as_dict()) == _plain(first.as_dict())
    uncached = SearchService(site, db, result_cache=0)
    statements.clear()
    assert _plain(uncached.search("harbour", Options()).as_dict()) == _plain(first.as_dict())
    assert any("MATCH" in s for s in statements), "result_cache=0: every search runs"
    uncached.close()

    (site.root / "content/posts/g.md").write_text(post("Harbour new", "2024-03-07"))
    index_site(site, db)  # a new generation: kept results are dropped
    assert service.search("harbour", Options()).total == first.total + 1
    service.log.flush(everything=True)
    logged = sqlite3.connect(site.database_path).execute("SELECT COUNT(*) FROM search_log")
    assert logged.fetchone()[0] >= 2, "cached searches are logged too"
    service.close()
    db.close()


def test_a_query_matching_more_than_bm25_ranks_is_ordered_in_tiers(make_site, monkeypatch):
    from masthead.indexing.indexer import index_site

    site = make_site(FILES)
    db = Database(site.database_path)
    index_site(site, db)
    service = SearchService(site, db, result_cache=0)
    exact = service.rank("harbour", Options())
    monkeypatch.setattr(service_module, "BM25_ROWS", 3)  # 5 matches, 2 in the title
    tiers = service.rank("harbour", Options())
    assert sorted(tiers.ids) == sorted(exact.ids), "every match, counted"
    conn = db.read()
    url = {
        i: conn.execute("SELECT url FROM posts WHERE id = ?", (i,)).fetchone()[0] for i in tiers.ids
    }
    order = [url[i] for i in tiers.ids]
    assert set(order[:2]) == {"/posts/a/", "/posts/c/"}, "title matches first, by bm25"
    assert order[2:] == ["/posts/e/", "/posts/d/", "/posts/b/"], "then the rest, newest first"
    facets = service.facets(tiers)
    assert {f.key: f.count for f in facets["tags"]} == {"sea": 2, "town": 2}
    monkeypatch.setattr(service_module, "BM25_ROWS", 1)  # even the title matches are too many
    order = [url[i] for i in service.rank("harbour", Options()).ids]
    assert order == ["/posts/c/", "/posts/a/", "/posts/e/", "/posts/d/", "/posts/b/"]
    service.close()
    db.close()


def test_plain_search_pages_take_the_fast_path_with_the_routers_html(make_site, serve):
    site = make_site(FILES)
    client = serve(site)

    def headers(r):  # type: ignore[no-untyped-def]
        return sorted((k, v) for k, v in r.headers.items())

    for path in ("/search", "/zh/search"):
        for query in ("q=harbour", "q=harbour&page=2", "q=%E8%B0%83%E5%BA%A6%E5%99%A8",
                      "q=librray", "q=", "page=3&q=harbour+-rain", "q=after:2025 before:2020",
                      "q=harbour&page=x", "q=harbour&page=999999999999"):  # fmt: skip
            answered, sent = _answer(client.app, query.encode(), path=path)
            assert answered, (path, query)
            fast = client.get(f"{path}?{query}")
            # a parameter given twice is left to the router (FastAPI keeps the last value)
            first = query.partition("&")[0]
            routed = client.get(f"{path}?{first}&{query}")
            assert _answer(client.app, f"{first}&{query}".encode(), path=path)[0] is False
            assert fast.status_code == routed.status_code == sent[0]["status"], (path, query)
            assert fast.content == routed.content == sent[1]["body"], (path, query)
            assert headers(fast) == headers(routed), (path, query)
    assert b"<mark>Harbour</mark> lights" in client.get("/search?q=harbour").content
    assert client.get("/search?q=harbour&page=x").status_code == 400
    # what the page's fast path leaves to the router, answered as before
    for query in (b"q=harbour&tag=sea", b"q=harbour&lang=zh", b"q=harbour&per_page=2"):
        assert not _answer(client.app, query, path="/search")[0], query
    assert not _answer(client.app, b"q=harbour", method="HEAD", path="/search")[0]
    tagged = client.get("/search?q=harbour&tag=town")
    assert tagged.status_code == 200 and tagged.text.count('<article class="hit">') == 2
    assert client.head("/search?q=harbour").status_code == 200


def test_a_failing_search_on_the_fast_path_gets_the_sites_error_answer(make_site) -> None:  # type: ignore[no-untyped-def]
    """A real fault (the search index dropped under a running server): the fast path steps
    aside and the router answers with the site's error page or JSON error, never a bare 500."""
    from starlette.testclient import TestClient

    from masthead.web.app import create_app

    site = make_site({"posts/a.md": post("Harbor", body="harbor text here")})
    with TestClient(create_app(site), raise_server_exceptions=False) as client:
        assert client.get("/api/search?q=harbor").status_code == 200
        conn = sqlite3.connect(site.database_path)
        conn.execute("DROP TABLE search_fts")
        conn.commit()
        conn.close()
        api = client.get("/api/search?q=other")
        assert api.status_code == 500
        assert api.json() == {"error": {"status": 500, "message": "internal error"}}
        page = client.get("/search?q=other")
        assert page.status_code == 500
        assert page.headers["content-type"].startswith("text/html")
        assert "<title>Error" in page.text


def test_repeated_terms_are_searched_once_with_the_same_results(make_site) -> None:  # type: ignore[no-untyped-def]
    """`x x` matches what `x` does: the parser keeps one copy of a repeated term or group, so
    FTS5 neither evaluates nor snippet()-scores each copy (32 copies of a frequent word took
    about a second at 10,000 posts)."""
    from masthead.search.query import parse

    assert parse("harbour Harbour harbour").match() == parse("harbour").match()
    assert parse("rain OR rain harbour harbour").match() == parse("rain harbour").match()
    assert parse("x -y -Y").exclusion() == parse("x -y").exclusion()
    assert parse("straße strasse").match() == '"straße" AND "strasse"'  # not the same to FTS5
    # a repeat is not counted against MAX_TERMS: the word after 32 copies still applies
    assert parse("harbour " * 32 + "zzz").match() == '"harbour" AND "zzz"'
    assert parse("-rain " * 32 + "harbour").match() == '"harbour"'
    assert parse("har* " * 4 + "rai* boa*").match() == '"har" * AND "rai" * AND "boa" *'
    from masthead.indexing.indexer import index_site

    site = make_site(FILES)
    db = Database(site.database_path)
    index_site(site, db)
    service = SearchService(site, db, result_cache=0)
    try:
        once = service.search("harbour", Options(), record=False)
        many = service.search(" ".join(["harbour"] * 32), Options(), record=False)
        assert many.total == once.total > 0
        assert [h.url for h in many.hits] == [h.url for h in once.hits]
        assert [h.snippet_html for h in many.hits] == [h.snippet_html for h in once.hits]
    finally:
        service.close()
        db.close()


def test_a_fast_path_search_runs_on_the_event_loop_only_when_it_builds_nothing(make_site):  # type: ignore[no-untyped-def]
    """`_run`: a search whose catalog is built and whose query has no prefix runs on the event
    loop's thread (a thread hop costs more than it saves); a first search (the catalog to
    build) or a prefix query goes to a worker thread, so a long one never blocks the loop."""
    import threading

    from masthead.indexing.indexer import index_site
    from masthead.web.routes.search import _run

    site = make_site(FILES)
    db = Database(site.database_path)
    index_site(site, db)
    service = SearchService(site, db, result_cache=0)
    loop_thread = threading.current_thread()

    def where(q: str) -> threading.Thread:
        async def go() -> threading.Thread:
            return await _run(service, q, threading.current_thread)

        return asyncio.run(go())

    try:
        assert where("harbour") is not loop_thread  # no catalog yet: it would build one
        service.catalog()
        assert where("harbour") is loop_thread
        assert where("harb*") is not loop_thread
        with db.write() as conn:
            conn.execute("UPDATE site_state SET value = value + 1 WHERE key = 'generation'")
        assert where("harbour") is not loop_thread  # a new generation: its catalog to build
    finally:
        service.close()
        db.close()


def test_a_prefix_needs_three_letters_and_a_query_has_at_most_three(make_site) -> None:  # type: ignore[no-untyped-def]
    """`a*` expands to every indexed word starting with a (48 ms at 10,000 posts; 26 such
    prefixes 0.7 s; `th*` 19 ms): a prefix of one or two letters is the plain word, and so is
    every prefix after the third. The search answers either way."""
    from masthead.indexing.indexer import index_site
    from masthead.search.query import parse

    assert parse("h*").match() == parse("h").match() == '"h"'
    assert parse("ha*").match() == '"ha"'
    assert parse("har*").match() == '"har" *'
    many = parse("har* rai* boa* old* tow*")
    assert [t.prefix for g in many.groups for t in g] == [True, True, True, False, False]
    assert parse("-har* rai* boa* old*").exclusion() == '"har" *'
    assert [t.prefix for g in parse("-har* rai* boa* old*").groups for t in g] == [
        True, True, False]  # fmt: skip
    site = make_site(FILES)
    db = Database(site.database_path)
    index_site(site, db)
    service = SearchService(site, db, result_cache=0)
    try:
        assert service.search("har*", Options(), record=False).total == 5
        assert service.search("ha*", Options(), record=False).total == 0  # the word `ha`
        assert service.search("h* harbou*", Options(), record=False).total == 0  # `h` itself
    finally:
        service.close()
        db.close()


def test_the_page_says_which_words_the_search_did_not_use_as_typed(make_site, serve) -> None:  # type: ignore[no-untyped-def]
    """A `*` word searched as a plain word (too short, or after the third prefix) and the words
    after the first MAX_TERMS are named on the page and in the API, never dropped silently; a
    filter after the cut still applies."""
    from masthead.search.query import MAX_TERMS, parse

    q = parse("h* har* rai* boa* old* tow*")
    assert q.as_words == ["h*", "old*", "tow*"] and q.unsearched == []
    words = [f"w{i}" for i in range(MAX_TERMS)]
    cut = parse(" ".join(words) + " harbour lang:zh")
    assert cut.unsearched == ["harbour"] and cut.filters.lang == "zh"
    assert "harbour" not in (cut.match() or "")

    client = serve(make_site(FILES))
    api = client.get("/api/search", params={"q": "ha* harbou*"}).json()
    assert api["as_words"] == ["ha*"] and api["unsearched"] == []
    assert client.get("/api/search", params={"q": "harbour"}).json()["as_words"] == []
    page = client.get("/search", params={"q": "ha* <i>* harbou*"})
    assert page.status_code == 200
    assert "Searched as plain words, not prefixes: ha* &lt;i&gt;*" in page.text
    assert "<i>*" not in page.text  # the words are escaped like any query text
    zh = client.get("/zh/search", params={"q": " ".join(words) + " harbour"})
    assert "未搜索：harbour" in zh.text
    assert "Searched as plain words" not in client.get("/search", params={"q": "harbou*"}).text


def test_a_filter_it_cannot_use_is_named_and_did_you_mean_keeps_prefixes_and_filters(
    make_site, serve
) -> None:  # type: ignore[no-untyped-def]
    """`after:2023-13` is searched as a plain word and the page says so; "did you mean"
    corrects plain words only: a prefix (`harbou*`), a filter's value (`tag:harbuor`) and a
    filter searched as a word (`year:0`) stay as typed."""
    from masthead.search.query import parse

    q = parse("harbour after:2023-13 year:0 tag:sea")
    assert q.not_filters == ["after:2023-13", "year:0"] and q.filters.tags == ["sea"]
    assert q.correctable == ["harbour"]
    client = serve(make_site(FILES))

    def suggested(q: str) -> list[str]:
        return client.get("/api/search", params={"q": q}).json()["suggestions"]

    assert suggested("harbuor") == ["harbour"]
    assert suggested("harbou* rian") == ["harbou* rain"]
    assert suggested("rian year:0") == ["rain year:0"]
    assert suggested("tag:rian rian") == ["tag:rian rain"]
    api = client.get("/api/search", params={"q": "harbour after:2023-13"}).json()
    assert api["not_filters"] == ["after:2023-13"] and api["total"] == 0
    page = client.get("/search", params={"q": "harbour after:2023-13"}).text
    assert "Searched as plain words, not filters: after:2023-13" in page
    assert "not filters" not in client.get("/search", params={"q": "harbour after:2023-12"}).text


def test_author_matches_the_authors_key_as_well_as_the_name(make_site) -> None:  # type: ignore[no-untyped-def]
    """`/authors/elena-marsh/` is the author's page: `author:elena-marsh` finds her posts,
    as `author:"Elena Marsh"` and `author:marsh` do."""
    from masthead.indexing.indexer import index_site

    files = {
        "posts/a.md": post("Harbour", "2024-03-01", authors='["Elena Marsh"]'),
        "posts/b.md": post("Harbour too", "2024-03-02", authors='["Li Wei"]'),
    }
    site = make_site(files)
    db = Database(site.database_path)
    index_site(site, db)
    service = SearchService(site, db, result_cache=0)
    try:
        for q in ('author:"Elena Marsh" harbour', "author:elena-marsh harbour", "author:marsh"):
            assert service.search(q, Options(), record=False).total == 1, q
        assert service.search("author:li-wei", Options(), record=False).total == 1
    finally:
        service.close()
        db.close()
