#!/usr/bin/env python3
"""Where a cold `masthead build`'s CPU time goes, by phase, in one process (`--jobs 1`).

    PYTHONPATH=src .venv/bin/python bench/build_phases.py SITE OUT [--profile FILE]

Runs `masthead build SITE OUT --jobs 1` in this process (the database beside SITE is removed
first: a cold build) with each phase's function wrapped in a CPU timer (`time.process_time`,
this process's threads). Phases nest (a share card is drawn while its post page renders, a
page is written after it renders): each phase is charged its own time only, the time of the
phases inside it going to them, so the figures add up to the build's. A page's render is
charged by the kind of its URL (post pages, their comment feeds, term listings…). Prints one
line of JSON: `{"total": s, "wall": s, "phases": {name: [cpu seconds, calls]}}`; with
`--profile FILE`, a cProfile of the whole build in FILE too.

`bench_build.py --phases` runs it for this checkout (and `--baseline`'s), alternating, and
prints the table side by side. The wrapped functions are found by name; a name the checkout
lacks is left unwrapped (its time falls in "rest").
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import importlib
import inspect
import json
import re
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

PHASES: dict[str, list[float]] = {}  # name: [own CPU seconds, calls]
_STACK: list[list[Any]] = []  # [name, started, time of the phases inside]

_LANG = re.compile(r"^/[a-z]{2}(?:-[A-Za-z]+)?(?=/)")
_TERM = re.compile(r"^/(tags|categories|authors)/[^/]+/(?:page/\d+/)?$")
_HOME = re.compile(r"^/(?:page/\d+/)?$")


def kind(url: str) -> str:
    """The phase a page's render is charged to, by its URL."""
    if url.startswith("/cards/"):
        return "write: cards copied"
    if url.startswith("/thumbs/"):
        return "write: thumbnails copied"
    last = url.rsplit("/", 1)[-1]
    if url.startswith(("/static/", "/media/")) or ("." in last and not last.endswith(".xml")):
        return "static files"  # and robots.txt, the site's files at the root
    if url.startswith("/sitemap"):
        return "sitemap"
    if url.endswith(("/comments.xml", "/comments-atom.xml")):
        return "render: comment feeds (per post)"
    path = _LANG.sub("", url, count=1)
    if path.endswith((".xml", ".txt")):
        return "render: feeds (home, term, site comments)"
    if _TERM.match(path):
        return "render: term listings"
    if _HOME.match(path):
        return "render: home listings"
    if path.startswith(("/tags/", "/categories/", "/authors/", "/archive/", "/search/")):
        return "other pages"
    return "render: post pages"


def _enter(name: str) -> None:
    _STACK.append([name, time.process_time(), 0.0])


def _leave() -> None:
    name, started, inner = _STACK.pop()
    spent = time.process_time() - started
    own = PHASES.setdefault(name, [0.0, 0])
    own[0] += spent - inner
    own[1] += 1
    if _STACK:
        _STACK[-1][2] += spent


def timed(name: str | Callable[..., str], fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` charging its own CPU time to phase `name` (or `name(*args)`)."""
    label = name if callable(name) else (lambda *a, **k: name)
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def run_async(*args: Any, **kwargs: Any) -> Any:
            _enter(label(*args, **kwargs))
            try:
                return await fn(*args, **kwargs)
            finally:
                _leave()

        return run_async

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        _enter(label(*args, **kwargs))
        try:
            return fn(*args, **kwargs)
        finally:
            _leave()

    return run


def _wrap(module: str, attr: str, name: str | Callable[..., str]) -> None:
    where, _, member = attr.partition(".")
    mod = importlib.import_module(module)
    owner = getattr(mod, where, None) if member else mod
    fn = getattr(owner, member or where, None) if owner is not None else None
    if fn is not None:
        setattr(owner, member or where, timed(name, fn))


def install() -> None:
    """Wrap every phase's function (those this checkout has)."""
    build = "masthead.export.build"
    _wrap(build, "_index", "index (parse Markdown, write SQLite)")
    _wrap(build, "_states", "index (parse Markdown, write SQLite)")
    _wrap("masthead.export.search_index", "write", "search index")
    _wrap(build, "_fetch", lambda fetcher, url, *a, **k: kind(url))
    _wrap(build, "Output.write", "write files")
    _wrap(build, "shared_cards", "write: cards copied")
    _wrap(build, "page_urls", "enumerate URLs")
    _wrap(build, "_open", "start the app")
    cards = "masthead.content.cards"
    _wrap(cards, "draw", "share cards: draw")
    _wrap(cards, "_write", "share cards: PNG")
    _wrap(cards, "encode", "share cards: PNG")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("site", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--base-url", default="https://bench.example.org")
    ap.add_argument("--profile", type=Path, help="also write a cProfile of the build here")
    args = ap.parse_args()
    shutil.rmtree(args.site / ".masthead", ignore_errors=True)
    shutil.rmtree(args.out, ignore_errors=True)
    cpu, wall = time.process_time(), time.perf_counter()
    install()
    _wrap("masthead.export.build", "build", "rest")  # the build itself: what no phase holds
    from masthead.cli import main as cli

    profiler = cProfile.Profile() if args.profile else None
    if profiler:
        profiler.enable()
    sys.argv = ["masthead", "build", str(args.site), str(args.out), "--jobs", "1"]
    sys.argv += ["--base-url", args.base_url]
    try:
        cli()
    except SystemExit as exc:
        if exc.code not in (0, None):
            raise
    if profiler:
        profiler.disable()
        profiler.dump_stats(args.profile)
    total, wall = time.process_time() - cpu, time.perf_counter() - wall
    PHASES["start (imports)"] = [total - sum(own for own, _ in PHASES.values()), 1]
    print(json.dumps({"total": total, "wall": wall, "phases": PHASES}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
