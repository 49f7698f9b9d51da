#!/usr/bin/env python3
"""CPU time of a search request through the app's ASGI fast path, run on the event loop
against run in a worker thread, alternating in one process (a plain script, not a test):

    python bench/bench_search_hop.py SITE [--rounds 12] [--batch 50]

Builds the app of SITE (already indexed) without serving it, then for `--rounds` rounds sends
`--batch` requests each way, in turn (the order flips every round): `GET /api/search` with
`harbor OR qN` or `harbor after:YYYY-MM-DD` (every query text new, as bench_search_http.py), the
result cache off. "loop" is `web.routes.search._run` as it is; "thread" replaces it with one
that always hops to Starlette's thread pool (what every search did before). Prints the median
CPU time per request (time.process_time: every thread of the process) of each way, and each
round's figure. Both ways answer the same bytes (checked on the first request).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("site", type=Path)
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--batch", type=int, default=50)
    a = ap.parse_args()

    from starlette.concurrency import run_in_threadpool

    import masthead.web.routes.search as routes
    from masthead.config import load_site
    from masthead.web.app import create_app

    app = create_app(load_site(a.site), index=False)
    app.state.search.result_cache = 0
    app.state.search.ready()
    as_is = routes._run

    async def thread(_service: Any, _q: str, call: Any) -> Any:
        return await run_in_threadpool(call)

    rng = random.Random(1)

    def query() -> str:
        if rng.random() < 0.5:
            return f"harbor%20OR%20q{rng.randint(1, 10**9)}"
        return f"harbor%20after:19{rng.randint(0, 79):02d}-{rng.randint(1, 12):02d}-01"

    async def call(q: str) -> bytes:
        scope = {"type": "http", "method": "GET", "path": "/api/search",
                 "raw_path": b"/api/search", "query_string": f"q={q}".encode(),
                 "headers": [(b"host", b"bench")], "client": ("127.0.0.1", 5),
                 "server": ("bench", 80), "scheme": "http", "http_version": "1.1",
                 "root_path": "", "asgi": {"version": "3.0"}}  # fmt: skip
        body = []

        async def receive() -> dict:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict) -> None:
            if message["type"] == "http.response.body":
                body.append(message["body"])

        await app(scope, receive, send)
        return b"".join(body)

    def latency_free(body: bytes) -> bytes:
        head, _, tail = body.partition(b'"latency_ms":')
        return head + tail.partition(b",")[2]

    async def run() -> None:
        async with app.router.lifespan_context(app):
            routes._run = thread
            first = await call("harbor")
            routes._run = as_is
            assert latency_free(await call("harbor")) == latency_free(first)
            for _ in range(30):
                await call(query())
            ways = {"loop": as_is, "thread": thread}
            figures: dict[str, list[float]] = {name: [] for name in ways}
            for rnd in range(a.rounds):
                for name in sorted(ways, reverse=bool(rnd % 2)):
                    routes._run = ways[name]
                    batch = [query() for _ in range(a.batch)]
                    started = time.process_time()
                    for q in batch:
                        await call(q)
                    figures[name].append((time.process_time() - started) / a.batch * 1000)
            for name, values in figures.items():
                print(f"{name:6}: median {statistics.median(values):.2f} ms CPU a request;"
                      f" rounds {' '.join(f'{v:.2f}' for v in values)}")  # fmt: skip

    asyncio.run(run())
    return 0


if __name__ == "__main__":
    sys.exit(main())
