#!/usr/bin/env python3
"""CPU time per post of parsing a site's content files, by stage (issue 14, item 1).

A plain script, not a test. CPU time (`time.process_time`) in one process, so that two checkouts
compare on a machine shared with other work; each stage runs over every file once (no repeats,
so the highlighting cache only helps where a corpus repeats a block). Run from the repository
root on an existing site folder (e.g. one made by bench/make_corpus.py, or tests/data/k8s-blog):

    PYTHONPATH=src .venv/bin/python bench/bench_parse.py SITE [--files 1000]
    PYTHONPATH=/tmp/old/src .venv/bin/python bench/bench_parse.py SITE    # the code before

Stages (the ones a checkout has): the markdown-it.rs tree, the markdown-it-py tree of the
fallback, the HTML writer without highlighting, Pygments over the bodies' fenced blocks, nh3, then
`parse_post` and `build_change` (parse_post plus search values) in all, and `parse_post` again
with markdown-it.rs turned off (every body on markdown-it-py, as on CPython 3.13+, where
markdown-it-pyrs has no wheel). Output: Markdown rows.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from masthead.config import load_site
from masthead.content.frontmatter import split
from masthead.content.post import parse_post
from masthead.indexing.indexer import build_change


def per_post(items: Sequence[Any], fn: Callable[[Any], Any]) -> float:
    """Milliseconds of CPU per item of `fn` over `items`."""
    start = time.process_time()
    for item in items:
        fn(item)
    return (time.process_time() - start) / max(1, len(items)) * 1000


def stages(bodies: list[str]) -> list[tuple[str, float]]:
    """The markdown-it.rs stages, where this checkout has them."""
    try:
        from masthead.content import fallback, highlight, markdown, sanitize, tree
    except ImportError:  # the code before markdown-it.rs
        return []
    rust = markdown.block_parser()
    rows: list[tuple[str, float]] = []
    if rust is not None:
        rows.append(("markdown-it.rs tree", per_post(bodies, rust.tree)))
    rows.append(("markdown-it-py tree (the fallback)", per_post(bodies, fallback.tree)))
    trees = [markdown._tree(b) for b in bodies]
    real = tree.code_block
    tree.code_block = lambda code, info, label="Code": "<pre></pre>\n"  # type: ignore[assignment]
    try:
        rows.append(("HTML writer, no highlighting", per_post(trees, _write)))
    finally:
        tree.code_block = real
    blocks: list[tuple[str, str]] = []
    for t in trees:
        _fences(t, blocks)
    raw = highlight._highlighted.__wrapped__
    start = time.process_time()
    for code, info in blocks:
        raw(code, (info.split() or [""])[0].lower())
    took = (time.process_time() - start) / max(1, len(bodies)) * 1000
    rows.append((f"Pygments ({len(blocks)} blocks)", took))
    htmls = [markdown.render(b).html for b in bodies]
    rows.append(("nh3", per_post(htmls, sanitize.clean)))
    return rows


def _without_rust(site: Any, jobs: list[tuple[str, bytes]]) -> list[tuple[str, float]]:
    """`parse_post` with every body on markdown-it-py, as on CPython 3.13+ (no markdown-it-pyrs
    wheel), where this checkout has both parsers."""
    try:
        from masthead.content import markdown
    except ImportError:  # pragma: no cover - the code before markdown-it.rs
        return []
    if getattr(markdown, "_pyrs", None) is None:
        return []
    real = markdown._pyrs
    markdown._pyrs = None
    markdown.block_parser.cache_clear()
    try:
        took = per_post(jobs, lambda j: parse_post(site, *j))
    finally:
        markdown._pyrs = real
        markdown.block_parser.cache_clear()
    return [("parse_post, every body on markdown-it-py (as on 3.13+)", took)]


def _write(t: Any) -> str:
    from masthead.content.tree import Html

    out = Html({})
    out.run(t)
    return out.html()


def _fences(node: Any, out: list[tuple[str, str]]) -> None:
    if node.name == "fence":
        out.append((node.meta.get("content", ""), node.meta.get("info", "")))
    for child in node.children:
        _fences(child, out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("site", type=Path)
    ap.add_argument("--files", type=int, default=1000)
    a = ap.parse_args()
    site = load_site(a.site)
    files = sorted(site.content_dir.rglob("*.md"))[: a.files]
    jobs = [(f.relative_to(site.content_dir).as_posix(), f.read_bytes()) for f in files]
    bodies = [split(str(f), f.read_text(encoding="utf-8")).body for f in files]
    rows = stages(bodies)
    rows.append(("parse_post in all", per_post(jobs, lambda j: parse_post(site, *j))))
    rows.append(
        ("build_change (+ search values)", per_post(jobs, lambda j: build_change(site, *j, 0, 0)))
    )
    rows += _without_rust(site, jobs)
    src = os.environ.get("PYTHONPATH", "installed masthead")
    print(f"{len(jobs)} files of {a.site}, {src}, load {os.getloadavg()[0]:.1f}", file=sys.stderr)
    print("| stage | CPU per post (ms) |\n|---|---:|")
    for name, ms in rows:
        print(f"| {name} | {ms:.2f} |")


if __name__ == "__main__":
    main()
