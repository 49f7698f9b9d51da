#!/usr/bin/env python3
"""One serving worker's memory, step by step, and the first render of distinct post pages, in
one process on an existing site. A plain script, not a test.

    PYTHONPATH=src .venv/bin/python bench/bench_worker_memory.py SITE [--pages 10]

It builds the app as a worker does (`create_app`, no indexing; the database is migrated if it
is older), then prints the process's RSS (anonymous and file-backed, /proc/self/smaps_rollup)
after each step: the app; the search catalog (`SearchService.catalog`, which every worker builds
once per index generation) and the time it took; its frequent words (`SearchService.ready`);
then renders --pages distinct post pages (each a miss, through the app over ASGI) and prints
each one's wall and CPU time (the process's, render threads included) and the RSS after them.
Use a copy of the site: the database is opened for writing.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
import time
from pathlib import Path


def memory() -> str:
    values = {}
    for line in Path("/proc/self/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":", 1)
        values[name] = int(value.split()[0]) // 1024
    rss, anon = values["Rss"], values["Anonymous"]
    return f"RSS {rss} MiB (anonymous {anon}, files {rss - anon})"


async def render(app: object, urls: list[str]) -> None:
    import httpx

    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
        for url in urls:
            wall, cpu = time.perf_counter(), time.process_time()
            response = await client.get(url)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            print(f"  {url}: {response.status_code}, {wall * 1000:.0f} ms wall, "
                  f"{cpu * 1000:.0f} ms CPU")  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("site", type=Path)
    ap.add_argument("--pages", type=int, default=10)
    args = ap.parse_args()
    from masthead.config import load_site
    from masthead.web.app import create_app

    site = load_site(args.site.resolve())
    print(f"imports: {memory()}")
    app = create_app(site, index=False)
    print(f"app: {memory()}")
    search = app.state.search
    started = time.perf_counter()
    search.catalog()
    print(f"catalog: {memory()}, built in {time.perf_counter() - started:.2f} s")
    search.ready()
    print(f"frequent words: {memory()}")
    with sqlite3.connect(site.database_path) as db:
        urls = [
            url
            for (url,) in db.execute(
                "SELECT url FROM posts WHERE kind = 'post' AND draft = 0 ORDER BY id "
                "LIMIT ? OFFSET (SELECT COUNT(*) / 2 FROM posts)",
                (args.pages,),
            )
        ]
    print(f"{len(urls)} distinct post pages, each rendered once:")
    asyncio.run(render(app, urls))
    print(f"after them: {memory()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
