#!/usr/bin/env python3
"""Static export benchmark: `masthead build` against `hugo` on one generated corpus, in one run.

A plain script, not a test. Run from the repository root (Debian's hugo on PATH:
`apt-get install -y hugo`):

    PYTHONPATH=src python bench/bench_build.py                # 5,000 posts, 3 alternating rounds
    PYTHONPATH=src python bench/bench_build.py --posts 500 --runs 1

The corpus is bench/make_corpus.py's, one seed: its `hugo` layout for Hugo (with the generator's
minimal theme) and its `plain` layout (the same posts, `category` instead of `categories`) for
masthead. Per round, alternating:
  hugo         `hugo --quiet --destination OUT` into a new folder
  cold build   `masthead build SITE OUT --base-url …` with no database and a new OUT: the full
               index plus the export
  export       the same with the database left from the cold build and a new OUT: the export alone
  no change    a second `masthead build` into the same OUT (every file compared, none written)
Each figure is the wall time of the whole command (process start included), measured with
time.perf_counter around subprocess.run; peak RSS from the children's getrusage.
Output: a Markdown table on stdout; progress on stderr.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))  # run as a script: its siblings import
from bench_index import GENERATED_TOML as SITE_TOML  # noqa: E402  (base_url bench.example.org)
from bench_index import log  # noqa: E402

REPO = BENCH_DIR.parent
MAKE_CORPUS = BENCH_DIR / "make_corpus.py"
BASE = "https://bench.example.org"  # the base_url of SITE_TOML


def timed(cmd: list[str], **kw) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, **kw)
    return time.perf_counter() - start


def corpus(out: Path, posts: int, seed: int, layout: str) -> None:
    subprocess.run(
        [sys.executable, str(MAKE_CORPUS), str(out), str(posts), str(seed), "--layout", layout],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def old_hugo_layout(site: Path) -> None:
    """Debian 12's Hugo (0.111) looks up templates under `layouts/_default/` and reads
    `paginate`; the generator writes the flat layout and `[pagination]` of Hugo 0.146+. Both
    are written, so every Hugo version renders every page."""
    default = site / "layouts" / "_default"
    default.mkdir(exist_ok=True)
    for template in (site / "layouts").glob("*.html"):
        shutil.copy(template, default / template.name)
    toml = site / "hugo.toml"
    toml.write_text("paginate = 10\n" + toml.read_text(encoding="utf-8"), encoding="utf-8")


def count_files(folder: Path) -> int:
    return sum(1 for p in folder.rglob("*") if p.is_file())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--posts", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    if shutil.which("hugo") is None:
        raise SystemExit("hugo is not on PATH (apt-get install -y hugo)")
    work = Path(tempfile.mkdtemp(prefix="bench-build-"))
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    masthead = [sys.executable, "-m", "masthead"]
    try:
        hugo_site = work / "hugo"
        corpus(hugo_site, args.posts, args.seed, "hugo")
        old_hugo_layout(hugo_site)
        site = work / "site"
        (site / "content").mkdir(parents=True)
        (site / "masthead.toml").write_text(SITE_TOML, encoding="utf-8")
        corpus(site / "content" / "posts", args.posts, args.seed, "plain")
        db = site / ".masthead"
        times: dict[str, list[float]] = {}
        files: dict[str, int] = {}
        for rnd in range(args.runs):
            dest = work / f"hugo-out-{rnd}"
            t = timed(["hugo", "--quiet", "--destination", str(dest)], cwd=hugo_site)
            times.setdefault("hugo", []).append(t)
            files["hugo"] = count_files(dest)
            shutil.rmtree(dest)
            log(f"round {rnd + 1}: hugo {t:.1f} s")

            shutil.rmtree(db, ignore_errors=True)
            out = work / f"out-{rnd}"
            build = [*masthead, "build", str(site), str(out), "--base-url", BASE]
            t = timed(build, env=env)
            times.setdefault("cold build", []).append(t)
            files["cold build"] = count_files(out)
            log(f"round {rnd + 1}: masthead cold build {t:.1f} s")
            t = timed(build, env=env)
            times.setdefault("no change", []).append(t)
            log(f"round {rnd + 1}: masthead no-change build {t:.1f} s")
            shutil.rmtree(out)
            t = timed(build, env=env)
            times.setdefault("export", []).append(t)
            log(f"round {rnd + 1}: masthead export (indexed) {t:.1f} s")
            shutil.rmtree(out)
        hugo_version = subprocess.run(["hugo", "version"], capture_output=True, text=True)
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"### `bench/bench_build.py --posts {args.posts}`\n")
        print(
            f"Machine: {os.cpu_count()} CPUs, Python {platform.python_version()}, "
            f"{hugo_version.stdout.strip()}; "
            f"largest child peak RSS {rss:.0f} MiB.\n"
        )
        print("| command | runs (s) | median (s) | × hugo | files |")
        print("|---|---|---|---|---|")
        base = statistics.median(times["hugo"])
        for name, runs in times.items():
            med = statistics.median(runs)
            shown = ", ".join(f"{r:.1f}" for r in runs)
            print(f"| {name} | {shown} | {med:.1f} | {med / base:.2f} | {files.get(name, '')} |")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
