#!/usr/bin/env python3
"""What `masthead build --watch` does after a moderated comment (issue 31, item 2): the build
that follows an approved comment, in one process as the watch runs it (imports done).

A plain script, not a test. Run from the repository root over a site already built into OUT
(e.g. bench/make_corpus.py's posts, `masthead build SITE OUT --base-url …` once):

    PYTHONPATH=src .venv/bin/python bench/bench_build_refresh.py SITE OUT [--comments 3]

It builds once (nothing changed), then per round stores an approved comment on another post
(as the dashboard does, from its own connection) and builds again. Output: wall and CPU
seconds, pages fetched and files written, per build. It adds comments to SITE's database.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from masthead.config import load_site
from masthead.export.build import build
from masthead.store import comments as comment_store
from masthead.store import posts as store
from masthead.store.comments import NewComment
from masthead.store.db import Database


def approve(site_db: Path, lang: str, offset: int) -> str:
    """An approved comment on the post at `offset` of `lang`'s list; its URL."""
    db = Database(site_db)
    try:
        rows, _total = store.list_posts(
            db.read(), lang=lang, now=time.time(), limit=1, offset=offset
        )
        row = store.post_by_url(db.read(), rows[0].url, time.time())
        assert row is not None
        text = f"bench {time.time()}"
        new = NewComment(
            thread=row.translation_key, post_url=row.url, parent_id=None, lang=lang,
            status="approved", author_name="Ann", author_email="ann@example.com",
            author_url="", body=text, body_html=f"<p>{text}</p>", created=time.time(),
            fingerprint=text,
        )  # fmt: skip
        comment_store.add(db, new, "reader")
        return row.url
    finally:
        db.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("site", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--comments", type=int, default=3)
    args = ap.parse_args()
    site = load_site(args.site)
    print("| build | wall (s) | CPU (s) | fetched | written |\n|---|---:|---:|---:|---:|")
    for n in range(args.comments + 1):
        name = "nothing changed"
        if n:
            name = f"comment on {approve(site.database_path, site.default_language.code, n * 7)}"
        wall, cpu = time.perf_counter(), time.process_time()
        report = build(site, args.out)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(f"| {name} | {wall:.2f} | {cpu:.2f} | {report.fetched} | {report.written} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
