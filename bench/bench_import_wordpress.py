#!/usr/bin/env python3
"""`masthead import wordpress` on a generated export of N posts (issue 30: 10,000 posts in under
2 minutes with under 500 MB), side by side with `masthead index --full` of the same posts.

A plain script, not a test. Run from the repository root:

    .venv/bin/python bench/bench_import_wordpress.py --posts 10000 --rounds 2 [--workdir DIR]

The export is made from `bench/make_corpus.py`'s posts (seed 1): each post's Markdown rendered
to HTML (markdown-it-py) and written as block-editor paragraphs, headings, lists and code, with
its categories, tags, an image from the uploads folder in every tenth post (a featured image in
every twentieth) and two comments (one a reply) on every fifth. Each round runs, alternating,
the import into a new site (files, index, comments) and the peer, a full index of the same
Markdown posts into a new site, each in a fresh process that reports its peak RSS and CPU (its
own, and its index pool's workers'). Output: Markdown, with the ratio import / index per round.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from html import escape
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TOML = 'title = "Bench"\nbase_url = "https://bench.example"\ndefault_language = "en"\n'
TOML += '[languages.en]\nname = "English"\n[languages.zh]\nname = "中文"\nprefix = "zh"\n'

WRAPPER = """
import atexit, json, resource, sys
def report():
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    print("MEMORY " + json.dumps({
        "main_mib": own.ru_maxrss / 1024, "worker_mib": kids.ru_maxrss / 1024,
        "main_cpu": own.ru_utime + own.ru_stime, "worker_cpu": kids.ru_utime + kids.ru_stime,
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


def run(args: list[str]) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", WRAPPER, *args],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - start
    line = next(x for x in done.stderr.splitlines() if x.startswith("MEMORY "))
    return {**json.loads(line.removeprefix("MEMORY ")), "wall": wall, "load": os.getloadavg()[0]}


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
        "| round | run | wall (s) | main CPU (s) | workers' CPU (s) | main peak RSS (MiB) "
        "| largest worker (MiB) | load after |\n|---:|---|---:|---:|---:|---:|---:|---:|"
    )
    for rnd in range(1, a.rounds + 1):
        site = fresh_site(work / "imported")
        imp = run(["import", "wordpress", str(site), str(export), "--uploads", str(uploads)])
        peer_site = fresh_site(work / "indexed", corpus)
        idx = run(["index", str(peer_site), "--full"])
        for name, r in (("import wordpress", imp), ("index --full (peer)", idx)):
            cells = [r["wall"], r["main_cpu"], r["worker_cpu"], r["main_mib"], r["worker_mib"]]
            cells.append(r["load"])
            print(f"| {rnd} | {name} | " + " | ".join(f"{x:.1f}" for x in cells) + " |")
        print(
            f"| {rnd} | import / index | {imp['wall'] / idx['wall']:.2f} | "
            f"{imp['main_cpu'] / max(idx['main_cpu'], 0.01):.2f} | | | | |",
            flush=True,
        )
    print(f"\nload after {os.getloadavg()[0]:.1f}; work folder {work}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
