"""What a new app costs until it has answered its first requests: `create_app` on a copy of the
bundled demo (already indexed) and one request to each of a few routes, in this process, CPU
time. masthead's apps take the shared route objects themselves (web/app.py `_route`); with
`include_router` (FastAPI's own way, the other variant here) FastAPI 0.165 analyses every
endpoint of the included routers again on each app's first request. The two variants run in
alternating rounds (the machine is shared and noisy: compare each round's ratio).

    PYTHONPATH=src .venv/bin/python bench/bench_app.py [--apps 30 --rounds 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from fastapi import APIRouter, FastAPI
from starlette.testclient import TestClient

from masthead.config import load_site
from masthead.indexing.indexer import index_site
from masthead.store.db import Database
from masthead.web import app as web_app

DEMO = Path(web_app.__file__).parents[1] / "demo"
PATHS = ("/", "/healthz", "/search?q=x", "/zh/", "/feed.xml", "/no-such-page/")


def include_router(app: FastAPI, router: APIRouter) -> None:
    app.include_router(router)


def apps(site_root: Path, count: int, route: Callable[[FastAPI, APIRouter], None]) -> float:
    """CPU seconds per app: made, then asked each of PATHS once."""
    shared = web_app._route
    web_app._route = route  # type: ignore[assignment]
    try:
        site = load_site(site_root)
        started = time.process_time()
        for _ in range(count):
            with TestClient(web_app.create_app(site)) as client:
                for path in PATHS:
                    client.get(path)
        return (time.process_time() - started) / count
    finally:
        web_app._route = shared  # type: ignore[assignment]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apps", type=int, default=30, help="apps made a round and variant")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        root = Path(shutil.copytree(DEMO, Path(work) / "demo"))
        site = load_site(root)
        db = Database(site.database_path)
        index_site(site, db)
        db.close()
        apps(root, 2, web_app._route)  # the route table built, the templates compiled
        for n in range(1, args.rounds + 1):
            shared = apps(root, args.apps, web_app._route)
            included = apps(root, args.apps, include_router)
            print(
                f"round {n}: shared routes {shared * 1000:.0f} ms, include_router "
                f"{included * 1000:.0f} ms an app, ratio {included / shared:.2f}, "
                f"load {os.getloadavg()[0]:.1f}"
            )


if __name__ == "__main__":
    main()
