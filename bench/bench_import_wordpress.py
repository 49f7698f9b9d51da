#!/usr/bin/env python3
"""`masthead import wordpress` on a generated export of N posts (issue 30: 10,000 posts in under
2 minutes with under 500 MB), side by side with `masthead index --full` of the same posts, or
with the same import by another checkout (`--baseline`).

A plain script, not a test. Run from the repository root:

    .venv/bin/python bench/bench_import_wordpress.py --posts 10000 --rounds 2 [--workdir DIR]
    .venv/bin/python bench/bench_import_wordpress.py --rounds 3 --baseline OLD/src --workdir DIR

The export is made from `bench/make_corpus.py`'s posts (seed 1): each post's Markdown rendered
to HTML (markdown-it-py) and written as block-editor paragraphs, headings, lists and code, with
its categories, tags, an image from the uploads folder in every tenth post (a featured image in
every twentieth) and two comments (one a reply) on every fifth. Each round runs, alternating,
the import into a new site (files, index, comments) and the peer, a full index of the same
Markdown posts into a new site, each in a fresh process that reports its peak RSS and CPU (its
own, and its worker pools'), with the peak of the whole process tree's RSS (sampled every 50 ms)
and the load average. Output: Markdown, with the ratio import / peer per round.

With `--baseline SRC` (another checkout's `src/`, e.g. `git archive main src | tar -x -C
/tmp/old`) the peer is the same import run by that code, and each round, alternating which
goes first, also compares the two imported sites byte for byte (content, masthead.toml and the
import's manifest). With `--phases` each import also reports where its CPU went: the reads of
the export before the conversion, the conversion and writing of the posts, the index and the
comments (the main process and its workers' apart).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from html import escape
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
TOML = 'title = "Bench"\nbase_url = "https://bench.example"\ndefault_language = "en"\n'
TOML += '[languages.en]\nname = "English"\n[languages.zh]\nname = "中文"\nprefix = "zh"\n'

WRAPPER = """
import atexit, importlib, json, os, resource, sys, time
PHASES = {}
def usage():
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime, time.perf_counter()
def timed(name, fn):
    def run(*args, **kwargs):
        before = usage()
        try:
            return fn(*args, **kwargs)
        finally:
            spent = [b - a for a, b in zip(before, usage())]
            PHASES[name] = [x + y for x, y in zip(PHASES.get(name, [0, 0, 0]), spent)]
    return run
if os.environ.get("BENCH_PHASES"):  # the functions of a phase, where this checkout has them
    for name, module, attr in (
        ("reads before", "masthead.importing.wordpress", "_first_pass"),
        ("index", "masthead.importing.wordpress", "index_site"),
        ("comments", "masthead.comments.port.service", "import_file"),
    ):
        mod = importlib.import_module(module)
        if hasattr(mod, attr):
            setattr(mod, attr, timed(name, getattr(mod, attr)))
def report():
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    print("MEMORY " + json.dumps({
        "main_mib": own.ru_maxrss / 1024, "worker_mib": kids.ru_maxrss / 1024,
        "main_cpu": own.ru_utime + own.ru_stime, "worker_cpu": kids.ru_utime + kids.ru_stime,
        "phases": PHASES,
    }), file=sys.stderr)
atexit.register(report)
from masthead.cli import main
sys.argv = ["masthead", *sys.argv[1:]]
try:
    main()
except SystemExit as exc:
    if exc.code not in (0, 1, None):
        raise
"""


def make_export(corpus: Path, out: Path, uploads: Path) -> int:
    """The WXR file `out` from the Markdown posts in `corpus`; how many posts."""
    import yaml
    from markdown_it import MarkdownIt
    from PIL import Image

    md = MarkdownIt("commonmark").enable("table")
    (uploads / "2024/01").mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (64, 48), (30, 90, 150)).save(uploads / "2024/01/photo.jpg")
    files = sorted(corpus.glob("*.md"))
    with open(out, "w", encoding="utf-8") as f:
        f.write(
            '<?xml version="1.0" encoding="UTF-8" ?>\n<rss version="2.0" '
            'xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/" '
            'xmlns:content="http://purl.org/rss/1.0/modules/content/" '
            'xmlns:dc="http://purl.org/dc/elements/1.1/" '
            'xmlns:wp="http://wordpress.org/export/1.2/">\n<channel>\n'
            "<title>Bench</title><link>https://old.example</link>\n"
            "<wp:author><wp:author_login>ed</wp:author_login>"
            "<wp:author_display_name>Ed Itor</wp:author_display_name></wp:author>\n"
            "<item><title>photo</title><wp:post_id>1</wp:post_id><wp:post_type>attachment"
            "</wp:post_type><wp:attachment_url>https://old.example/wp-content/uploads/2024/01/"
            "photo.jpg</wp:attachment_url></item>\n"
        )
        comment_id = 1
        for n, path in enumerate(files, start=2):
            _, front, body = path.read_text(encoding="utf-8").split("---\n", 2)
            meta = yaml.safe_load(front)
            blocks = "".join(
                f"<!-- wp:paragraph -->\n{chunk}\n<!-- /wp:paragraph -->\n\n"
                for chunk in md.render(body).split("\n\n")
            )
            if n % 10 == 0:
                blocks += (
                    '<!-- wp:image --><figure class="wp-block-image"><img src="https://old.'
                    'example/wp-content/uploads/2024/01/photo-300x200.jpg" alt="A photo"/>'
                    "<figcaption>A photo</figcaption></figure><!-- /wp:image -->"
                )
            date = str(meta["date"]).replace("T", " ")[:19]
            terms = f'<category domain="category"><![CDATA[{meta["category"]}]]></category>'
            terms += "".join(
                f'<category domain="post_tag" nicename="t"><![CDATA[{t}]]></category>'
                for t in meta.get("tags", [])
            )
            if meta.get("lang") == "zh":
                terms += '<category domain="language" nicename="zh">中文</category>'
            slug = path.name.removesuffix(".md").removesuffix(".zh") + (
                "-zh" if ".zh." in path.name else ""
            )
            thumb = (
                "<wp:postmeta><wp:meta_key>_thumbnail_id</wp:meta_key><wp:meta_value>1"
                "</wp:meta_value></wp:postmeta>"
                if n % 20 == 0
                else ""
            )
            comments = ""
            if n % 5 == 0:
                for parent in (0, comment_id):
                    comments += (
                        f"<wp:comment><wp:comment_id>{comment_id}</wp:comment_id>"
                        "<wp:comment_author>Reader</wp:comment_author>"
                        "<wp:comment_author_email>r@example.com</wp:comment_author_email>"
                        f"<wp:comment_date_gmt>{date}</wp:comment_date_gmt>"
                        "<wp:comment_content>A thoughtful comment.</wp:comment_content>"
                        "<wp:comment_approved>1</wp:comment_approved>"
                        f"<wp:comment_parent>{parent}</wp:comment_parent></wp:comment>"
                    )
                    comment_id += 1
            f.write(
                f"<item><title>{escape(str(meta['title']))}</title>"
                f"<link>https://old.example/{date[:4]}/{date[5:7]}/{slug}/</link>"
                "<dc:creator>ed</dc:creator>"
                f"<content:encoded><![CDATA[{blocks}]]></content:encoded>"
                f"<excerpt:encoded><![CDATA[{meta.get('excerpt', '')}]]></excerpt:encoded>"
                f"<wp:post_id>{n}</wp:post_id><wp:post_date_gmt>{date}</wp:post_date_gmt>"
                f"<wp:post_name>{escape(slug)}</wp:post_name><wp:status>publish</wp:status>"
                f"<wp:post_type>post</wp:post_type>{terms}{thumb}{comments}</item>\n"
            )
        f.write("</channel>\n</rss>\n")
    return len(files)


def run(args: list[str], src: Path, phases: bool = False) -> dict[str, Any]:
    """One `masthead` command by the code in `src`, in a fresh process: its wall time, CPU and
    peak RSS (its own and its children's, from `getrusage`), the peak RSS of its whole process
    tree at once (`tree_mib`, sampled), the load average after it."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    if phases:
        env["BENCH_PHASES"] = "1"
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(
            [sys.executable, "-c", WRAPPER, *args], env=env, stdout=subprocess.DEVNULL, stderr=err
        )
        tree = TreeMemory(proc.pid)
        tree.start()
        code = proc.wait()
        wall = time.perf_counter() - start
        tree.stop.set()
        tree.join()
        err.seek(0)
        stderr = err.read()
    line = next((x for x in stderr.splitlines() if x.startswith("MEMORY ")), None)
    if code not in (0, 1) or line is None:
        raise SystemExit(f"{' '.join(args)}: exit {code}\n{stderr[-3000:]}")
    found = json.loads(line.removeprefix("MEMORY "))
    return {**found, "wall": wall, "load": os.getloadavg()[0], "tree_mib": tree.peak / 1024}


class TreeMemory(threading.Thread):
    """Samples the summed RSS (KiB) of process `pid` and its descendants every 50 ms."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak = 0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(0.05):
            self.peak = max(self.peak, sum(_rss_kib(p) for p in _descendants(self.pid)))


def _descendants(pid: int) -> list[int]:
    parents: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", encoding="ascii", errors="replace") as f:
                    parents[int(entry.name)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(c for c, parent in parents.items() if parent == p)
    return out


def _rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def differences(a: Path, b: Path) -> tuple[int, list[str]]:
    """How many files the site folder `a` holds (content, masthead.toml, the import's
    manifest) and those that differ from `b`'s, byte for byte (or exist in one only)."""

    def files(root: Path) -> dict[str, Path]:
        found = {str(p.relative_to(root)): p for p in (root / "content").rglob("*") if p.is_file()}
        for name in ("masthead.toml", ".masthead-import.json"):
            if (root / name).exists():
                found[name] = root / name
        return found

    fa, fb = files(a), files(b)
    differ = sorted(
        rel
        for rel in fa.keys() | fb.keys()
        if rel not in fa or rel not in fb or fa[rel].read_bytes() != fb[rel].read_bytes()
    )
    return len(fa), differ


def fresh_site(root: Path, posts: Path | None = None) -> Path:
    shutil.rmtree(root, ignore_errors=True)
    (root / "content").mkdir(parents=True)
    (root / "masthead.toml").write_text(TOML, encoding="utf-8")
    if posts is not None:
        shutil.copytree(posts, root / "content" / "posts")
    return root


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--posts", type=int, default=10000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--workdir", type=Path, help="where the corpus and sites go (default: tmp)")
    ap.add_argument("--baseline", type=Path, help="src/ of the code to compare with (before)")
    ap.add_argument("--phases", action="store_true", help="where each import's CPU went")
    a = ap.parse_args()
    work = a.workdir or Path(tempfile.mkdtemp(prefix="bench-import-"))
    corpus, export, uploads = work / "corpus", work / "export.xml", work / "uploads"
    if not export.exists():
        subprocess.run(
            [sys.executable, str(REPO / "bench/make_corpus.py"), str(corpus), str(a.posts), "1"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        make_export(corpus, export, uploads)
    size = export.stat().st_size / 2**20
    print(f"{a.posts} posts, export {size:.1f} MiB; load before {os.getloadavg()[0]:.1f}\n")
    print(
        "| round | run | wall (s) | main CPU (s) | workers' CPU (s) | all CPU (s) "
        "| main peak RSS (MiB) | largest worker (MiB) | process tree peak (MiB) | load after |"
        "\n|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    )
    src, phases, same = REPO / "src", [], []
    # (name, code, site folder): each round runs these, alternating which goes first
    plan = [("import wordpress", src, "imported")]
    if a.baseline:
        plan.append(("import wordpress (baseline)", a.baseline.resolve(), "imported-base"))
    else:
        plan.append(("index --full (peer)", src, "indexed"))
    for rnd in range(1, a.rounds + 1):
        runs: list[tuple[str, dict[str, Any]]] = []
        for name, code, folder in plan if rnd % 2 or not a.baseline else plan[::-1]:
            if folder == "indexed":
                site = fresh_site(work / folder, corpus)
                runs.append((name, run(["index", str(site), "--full"], code)))
                continue
            site = fresh_site(work / folder)
            args = ["import", "wordpress", str(site), str(export), "--uploads", str(uploads)]
            runs.append((name, run(args, code, a.phases)))
        for name, r in sorted(runs, key=lambda x: x[0] != "import wordpress"):
            cpu = r["main_cpu"] + r["worker_cpu"]
            cells = [r["wall"], r["main_cpu"], r["worker_cpu"], cpu, r["main_mib"]]
            cells += [r["worker_mib"], r["tree_mib"], r["load"]]
            print(f"| {rnd} | {name} | " + " | ".join(f"{x:.1f}" for x in cells) + " |")
            if r["phases"]:
                phases.append((rnd, name, r))
        imp, peer = (r for _, r in sorted(runs, key=lambda x: x[0] != "import wordpress"))
        ratios = [imp["wall"] / peer["wall"], imp["main_cpu"] / max(peer["main_cpu"], 0.01)]
        ratios.append(imp["worker_cpu"] / max(peer["worker_cpu"], 0.01))
        all_cpu = (imp["main_cpu"] + imp["worker_cpu"]) / (peer["main_cpu"] + peer["worker_cpu"])
        print(
            f"| {rnd} | import / peer | "
            + " | ".join(f"{x:.2f}" for x in [*ratios, all_cpu])
            + f" | | | {imp['tree_mib'] / max(peer['tree_mib'], 1):.2f} | |",
            flush=True,
        )
        if a.baseline:
            same.append(differences(work / "imported", work / "imported-base"))
    if phases:
        print("\n| round | run | phase | wall (s) | main CPU (s) | workers' CPU (s) |")
        print("|---:|---|---|---:|---:|---:|")
        for rnd, name, r in phases:
            rest = [r["wall"], r["main_cpu"], r["worker_cpu"]]
            for phase, (main_cpu, kids, wall) in r["phases"].items():
                print(f"| {rnd} | {name} | {phase} | {wall:.1f} | {main_cpu:.1f} | {kids:.1f} |")
                rest = [rest[0] - wall, rest[1] - main_cpu, rest[2] - kids]
            print(
                f"| {rnd} | {name} | the rest (conversion, writing, start) | "
                + " | ".join(f"{x:.1f}" for x in rest)
                + " |"
            )
    for rnd, (count, differ) in enumerate(same, 1):
        shown = ", ".join(differ[:10]) + (" …" if len(differ) > 10 else "")
        verdict = "byte for byte the same" if not differ else f"{len(differ)} differ: {shown}"
        print(f"\nround {rnd}: the two imported sites ({count} files): {verdict}")
    print(f"\nload after {os.getloadavg()[0]:.1f}; work folder {work}")
    return 1 if any(differ for _, differ in same) else 0


if __name__ == "__main__":
    raise SystemExit(main())
