"""A site whose one post has what technical writers write (issue 32): math, a Mermaid diagram,
photos and a table; and what a phone downloads to read it.

    python3 bench/technical_post.py write DIR [--photos 6]
        writes the site folder DIR (masthead.toml, content/) for bench/lighthouse.sh's SITE=DIR
        and for the accessibility gate (tests/test_writing_gate.py)
    python3 bench/technical_post.py bytes [--photos 10] [--rounds 3] [--before SRC]
        serves such a site with `masthead serve` and loads the post in headless Chromium as a
        390 px phone (device pixel ratio 3), scrolled to the end so that every lazy image loads;
        sums the bytes that came over the network (Chromium's Network.loadingFinished
        encodedDataLength: headers and compressed bodies), by resource type. With --before SRC
        (a checkout's `src` folder, e.g. one made by `git archive main | tar -x -C DIR`), the same
        site is served by that code too, in alternating rounds, and the ratio is printed.

The site is tests/support/technical.py's: its photos are made by Pillow (seeded gradients,
shapes and noise, 3000×2000 JPEGs at quality 90, about 0.9 MB each); no image is downloaded.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from support.technical import write  # noqa: E402  (tests/support: the gate uses the same site)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _serve(site: Path, src: Path | None) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    cmd = [sys.executable, "-m", "masthead", "serve", str(site), "--port", str(port)]
    proc = subprocess.Popen(
        [*cmd, "--no-watch", "--workers", "1"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    import httpx

    for _ in range(600):
        try:
            if httpx.get(base + "/healthz").status_code == 200:
                return proc, base
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not start")


def _bytes(browser, url: str) -> dict[str, int]:  # type: ignore[no-untyped-def]
    """Bytes over the network, by resource type, for `url` on a 390 px phone, scrolled through."""
    context = browser.new_context(
        viewport={"width": 390, "height": 844},
        device_scale_factor=3,
        is_mobile=True,
        has_touch=True,
    )
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    types: dict[str, str] = {}
    sizes: dict[str, int] = {}
    cdp.on("Network.responseReceived", lambda e: types.__setitem__(e["requestId"], e["type"]))
    cdp.on(
        "Network.loadingFinished",
        lambda e: sizes.__setitem__(e["requestId"], int(e["encodedDataLength"])),
    )
    page.goto(url, wait_until="load")
    height = page.evaluate("document.documentElement.scrollHeight")
    for y in range(0, height + 844, 400):
        page.evaluate(f"window.scrollTo(0, {y})")
        page.wait_for_timeout(50)
    page.wait_for_function("[...document.images].every(i => i.complete)", timeout=120_000)
    page.wait_for_load_state("networkidle")
    out: dict[str, int] = {}
    for rid, size in sizes.items():
        kind = types.get(rid, "Other")
        out[kind] = out.get(kind, 0) + size
    out["total"] = sum(sizes.values())
    context.close()
    return out


def measure(photos: int, rounds: int, before: Path | None) -> None:
    from playwright.sync_api import sync_playwright

    from support.browser import chromium_path

    work = Path(tempfile.mkdtemp(prefix="mh-technical-"))
    try:
        sides = {"after": None} if before is None else {"before": before, "after": None}
        made = write(work / "made", photos)
        sites = {}
        for name in sides:  # a copy each: their thumbnail folders (beside the database) apart
            sites[name] = Path(shutil.copytree(made, work / name))
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
            results: dict[str, list[dict[str, int]]] = {name: [] for name in sides}
            for round_ in range(rounds):
                for name, src in sides.items():
                    proc, base = _serve(sites[name], src)
                    try:
                        _bytes(browser, base + "/posts/survey/")  # warm: renditions made
                        got = _bytes(browser, base + "/posts/survey/")
                    finally:
                        proc.terminate()
                        proc.wait()
                    results[name].append(got)
                    load = os.getloadavg()[0]
                    print(f"round {round_ + 1} {name}: {got} (load {load:.2f})")
            browser.close()
        for name, runs in results.items():
            totals = sorted(r["total"] for r in runs)
            images = sorted(r.get("Image", 0) for r in runs)
            print(
                f"{name}: total {totals[len(totals) // 2]:,} bytes,"
                f" images {images[len(images) // 2]:,} (medians)"
            )
        if before is not None:
            ratios = [
                a["total"] / b["total"]
                for a, b in zip(results["after"], results["before"], strict=True)
            ]
            print("after/before per round:", ", ".join(f"{r:.3f}" for r in ratios))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write")
    w.add_argument("dir", type=Path)
    w.add_argument("--photos", type=int, default=6)
    b = sub.add_parser("bytes")
    b.add_argument("--photos", type=int, default=10)
    b.add_argument("--rounds", type=int, default=3)
    b.add_argument("--before", type=Path)
    args = parser.parse_args()
    if args.command == "write":
        print(write(args.dir, args.photos))
    else:
        measure(args.photos, args.rounds, args.before)


if __name__ == "__main__":
    main()
