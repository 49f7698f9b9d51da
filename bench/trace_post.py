"""Where a post's main-thread time goes on first load, in Chromium's own trace (issue 13 item 3).

Serves a fresh copy of the bundled demo (`masthead serve --no-watch --workers 1`), then for each
variant launches a new headless Chromium (a cold renderer, as each Lighthouse run is), emulates a
phone (412x823, CPU slowed 4x as Lighthouse's mobile preset), loads the page once with tracing on
(`devtools.timeline`) and sums the renderer main thread's events by name. Variants change the
page before it reaches the browser (the HTML response is rewritten; CSP bypassed for the
injected `<style>`), so one stylesheet change at a time is measured against the same page:

    base       the page as served
    nowbr      the `<wbr>`s of web/render/linebreak.py removed
    nobalance  `text-wrap: balance` and `pretty` off (`wrap`)
    nostrict   `line-break: strict` and `word-break: keep-all` off
    onefont    every element in the generic `sans-serif` (no per-language font stacks)
    linuxcjk   the CJK stacks end with WenQuanYi Zen Hei (shipped since session 2)
    oldfonts   the Latin stacks as they were before session 3 (7 names each, not 4)
    cvprose    `content-visibility: auto` on the body's blocks after the 3rd, and what follows
    cv         `content-visibility: auto` on what follows the body (links, comments, footer)
    lh2fonts   the font stacks before LH3 (no Linux font first; WenQuanYi last)
    nocv       no `content-visibility: auto` (LH3's skipped blocks laid out at load)

"longest task" is wall time (what Lighthouse's simulation multiplies by 4); the other figures are
CPU time (`tdur`, thread time, ms), which another process's load moves less, and counts of font
calls, which it does not move. Each variant runs `--runs` times (median printed); `nowbr` and a
style combine with `+` (`linuxcjk+cvprose`). Nothing here is a test.

    .venv/bin/python bench/trace_post.py [--path /zh/posts/typography-for-long-reads/]
        [--runs 3] [--variants base,nowbr,...] [--throttle 1] [--masthead OTHER/.venv/bin/masthead]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from playwright.sync_api import Route, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
STYLES = {
    "base": "",
    "nowbr": "",
    "nobalance": "*{text-wrap:wrap!important}",
    "nostrict": "*{line-break:auto!important;word-break:normal!important}",
    "onefont": "*{font-family:sans-serif!important}",
    "linuxcjk": (
        ':root{--serif-cjk:"Source Han Serif SC","Noto Serif CJK SC","Songti SC",STSong,SimSun,'
        '"WenQuanYi Zen Hei";--sans-cjk:"PingFang SC","Hiragino Sans GB","Microsoft YaHei",'
        '"Source Han Sans SC","Noto Sans CJK SC","WenQuanYi Zen Hei"}'
    ),
    "oldfonts": (  # the Latin stacks before LH trimmed them (session 3)
        ':root{--serif-latin:"Iowan Old Style",Charter,"Bitstream Charter","Sitka Text",Cambria,'
        'Georgia,"Noto Serif";--sans-latin:-apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,'
        '"Helvetica Neue","Noto Sans",Arial;--mono:ui-monospace,"SF Mono","Cascadia Code",'
        '"JetBrains Mono",Menlo,Consolas,monospace}'
    ),
    "cvprose": (
        ".prose>:nth-child(n+4),.post-nav,.related,.comments,.comment-form-section,.site-footer"
        "{content-visibility:auto;contain-intrinsic-size:auto 300px}"
    ),
    "lh2fonts": (  # the stacks before LH3 put the fonts Chromium draws on Linux first
        ':root{--serif-latin:"Iowan Old Style",Charter,"Sitka Text",Georgia;'
        '--serif-cjk:"Source Han Serif SC","Noto Serif CJK SC","Songti SC",STSong,SimSun,'
        '"WenQuanYi Zen Hei";--sans-latin:-apple-system,BlinkMacSystemFont,"Segoe UI",Roboto;'
        '--mono:ui-monospace,"Cascadia Code",Menlo,Consolas,monospace}'
    ),
    "nocv": "*{content-visibility:visible!important}",  # every block laid out at load
    "cv": (
        ".post-nav,.related,.comments,.comment-form-section,.site-footer"
        "{content-visibility:auto;contain-intrinsic-size:auto 600px}"
    ),
}
CATEGORIES = ["toplevel", "devtools.timeline", "disabled-by-default-devtools.timeline", "fonts"]
FONT_CALLS = {
    "FontDataManager::onMatchFamilyStyle": "family look-ups",  # a sync IPC to the browser each
    "FontCache::FallbackFontForCharacter": "per-character fallbacks",
    # a sync IPC per typeface, size and style: the hinting and antialiasing to draw it with
    "WebSandboxSupportLinux::GetWebFontRenderStyleForStrike": "strike look-ups",
}
WATCH = ("Layout", "UpdateLayoutTree", "ParseHTML", "ParseAuthorStyleSheet", "Paint",
         "PrePaint", "Layerize", "EvaluateScript", "FunctionCall", "HitTest")  # fmt: skip


def serve(port: int, masthead: str) -> tuple[subprocess.Popen[bytes], Path]:
    site = Path(tempfile.mkdtemp()) / "demo"
    shutil.copytree(ROOT / "src/masthead/demo", site, ignore=shutil.ignore_patterns(".masthead"))
    proc = subprocess.Popen(
        [masthead, "serve", str(site), "--port", str(port),
         "--no-watch", "--workers", "1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    for _ in range(150):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)  # nosec B310
            return proc, site
        except OSError:
            time.sleep(0.2)
    proc.kill()
    sys.exit("the demo did not start")


def main_thread(events: list[dict[str, Any]]) -> tuple[int, int]:
    """(pid, tid) of the renderer main thread that ran the page (the most Layout time)."""
    names = {
        (e["pid"], e["tid"]): e["args"]["name"]
        for e in events
        if e.get("ph") == "M" and e.get("name") == "thread_name"
    }
    best: dict[tuple[int, int], float] = {}
    for e in events:
        key = (e.get("pid"), e.get("tid"))
        if e.get("name") == "Layout" and names.get(key) == "CrRendererMain":  # type: ignore[arg-type]
            best[key] = best.get(key, 0) + e.get("dur", 0)  # type: ignore[index]
    return max(best, key=best.__getitem__)  # type: ignore[arg-type]


def one_run(url: str, variant: str, throttle: float) -> dict[str, float]:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        context = browser.new_context(
            viewport={"width": 412, "height": 823}, device_scale_factor=1.75, bypass_csp=True
        )
        page = context.new_page()

        def rewrite(route: Route) -> None:
            response = route.fetch()
            body = response.text()
            parts = variant.split("+")  # variants combine: linuxcjk+cv
            if "nowbr" in parts:
                body = body.replace("<wbr>", "")
            css = "".join(STYLES[part] for part in parts)
            if css:
                body = body.replace("</head>", f"<style>{css}</style></head>", 1)
            route.fulfill(response=response, body=body)

        page.route(url, rewrite)
        cdp = context.new_cdp_session(page)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
        browser.start_tracing(page=page, categories=CATEGORIES)
        page.goto(url, wait_until="load")
        page.wait_for_timeout(1500)
        trace = json.loads(browser.stop_tracing())
        browser.close()
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    pid, tid = main_thread(events)
    mine = [e for e in events if e.get("pid") == pid and e.get("tid") == tid and e.get("ph") == "X"]
    out = {name: 0.0 for name in WATCH}
    for e in mine:
        if e["name"] in out:
            out[e["name"]] += e.get("tdur", e.get("dur", 0)) / 1000
    tasks = [e for e in mine if e["name"] == "RunTask"]
    cpu = [e.get("tdur", e["dur"]) / 1000 for e in tasks]
    longest = max(tasks, key=lambda e: e["dur"])
    out["longest task"] = longest["dur"] / 1000  # wall: what Lighthouse multiplies by 4
    out["its CPU"] = longest.get("tdur", longest["dur"]) / 1000
    out["blocking (>50 ms)"] = sum(t - 50 for t in cpu if t > 50)
    out["main thread"] = sum(cpu)
    # the parser's runs (it yields after 10 ms; a layout may draw what it has parsed so far)
    out["parser pumps"] = sum(1 for e in mine if e["name"] == "ParseHTML" and e["dur"] > 500)
    for name, label in FONT_CALLS.items():  # counts: the same on a loaded machine
        out[label] = sum(1 for e in mine if e["name"] == name)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--path", default="/zh/posts/typography-for-long-reads/")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--variants", default=",".join(STYLES))
    ap.add_argument("--throttle", type=float, default=1)
    ap.add_argument("--port", type=int, default=8766)
    ap.add_argument(
        "--masthead",
        default=str(ROOT / ".venv/bin/masthead"),
        help="the masthead to serve the demo with (another checkout's, for before/after)",
    )
    args = ap.parse_args()
    proc, site = serve(args.port, args.masthead)
    try:
        url = f"http://127.0.0.1:{args.port}{args.path}"
        print(f"{url}, {args.runs} runs, CPU x{args.throttle}, load {os.getloadavg()[0]:.2f}")
        rows = {}
        for variant in args.variants.split(","):
            runs = [one_run(url, variant, args.throttle) for _ in range(args.runs)]
            rows[variant] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
            rows[variant]["longest (all runs)"] = ",".join(f"{r['longest task']:.0f}" for r in runs)  # type: ignore[assignment]
        keys = ["longest task", "its CPU", "main thread", "Layout", "UpdateLayoutTree", "ParseHTML",
                "parser pumps", "Paint", "EvaluateScript", *FONT_CALLS.values()]  # fmt: skip
        print("| variant | " + " | ".join(keys) + " | longest task, each run |")
        print("| --- |" + " ---: |" * (len(keys) + 1))
        for variant, row in rows.items():
            cells = " | ".join(f"{row[k]:.0f}" for k in keys)
            print(f"| {variant} | {cells} | {row['longest (all runs)']} |")
        print(f"load after: {os.getloadavg()[0]:.2f}")
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(site.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
