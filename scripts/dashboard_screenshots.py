"""Screenshots of the dashboard's Comments screen and Overview at 1280 and 390 px, light and
dark, for docs/screenshots/ (issue 29, item 4): a sample site with comments in every status,
served by uvicorn, signed in in headless Chromium.

    .venv/bin/python scripts/dashboard_screenshots.py docs/screenshots/issue-29 after

The last argument is the file names' prefix (`before` with an older checkout's masthead, say).
Chromium is the one the tests use (`MASTHEAD_CHROMIUM`, else /usr/bin/chromium).
"""

from __future__ import annotations

import os
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

import uvicorn
from playwright.sync_api import sync_playwright

from masthead.accounts import service as accounts
from masthead.config import load_site
from masthead.indexing.indexer import index_site
from masthead.store import comments as cs
from masthead.store.db import Database
from masthead.web.app import create_app

PASSWORD = "a long sample password"  # pragma: allowlist secret
POST = "---\ntitle: Harbour lights\ndate: 2024-03-01\n---\n\nThe harbour at night.\n"
SHORT = "Lovely photos of the harbour at night: which lens did you use?"
BODY = (
    "Thanks for this: I tried the sourdough schedule over the weekend and the crumb came out "
    "far more open than with my old recipe. Would a longer cold proof change the crust? I left "
    "the second loaf in the fridge for eighteen hours and it spread a little on the stone, so I "
    "wonder whether my starter was past its peak or the dough simply needed a tighter shape "
    "before it went in. Any advice on hydration for a weaker flour would be welcome too."
)
LONG = "\n\n".join([BODY, BODY.replace("Thanks for this: ", "And: ")])
BODIES = [SHORT, BODY, LONG, BODY, SHORT, BODY]


def html(body: str) -> str:
    return "".join(f"<p>{p}</p>" for p in body.split("\n\n"))


def sample_site(root: Path) -> Path:
    (root / "content" / "posts").mkdir(parents=True)
    (root / "masthead.toml").write_text('title = "Harbour"\n', encoding="utf-8")
    (root / "content" / "posts" / "harbour.md").write_text(POST, encoding="utf-8")
    site = load_site(root)
    db = Database(site.database_path)
    index_site(site, db)
    accounts.add_user(db, "mei", PASSWORD, "admin")
    thread = db.read().execute("SELECT translation_key FROM posts").fetchone()[0]
    for i, status in enumerate(["pending", "approved", "pending", "spam", "approved", "trash"]):
        cs.add(
            db,
            cs.NewComment(
                thread=thread, post_url="/posts/harbour/", parent_id=None, lang="en",
                status=status, author_name=f"Reader {i}", author_email=f"r{i}@example.org",
                author_url="", body=BODIES[i], body_html=html(BODIES[i]),
                created=time.time() - 3600 * i, reason="held: first comment",
                ip_hash=f"{i:032x}",
            ),
            "reader",
        )  # fmt: skip
    db.close()
    return root


def main(out: Path, prefix: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    root = sample_site(Path(tempfile.mkdtemp()) / "site")
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(create_app(load_site(root)), log_level="warning"))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    chromium = os.environ.get("MASTHEAD_CHROMIUM", "/usr/bin/chromium")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        for width, height in ((1280, 900), (390, 844)):
            for scheme in ("light", "dark"):
                page = browser.new_page(
                    viewport={"width": width, "height": height}, color_scheme=scheme
                )
                page.goto(f"{base}/guanli/login")
                page.fill("#g-user", "mei")
                page.fill("#g-pass", PASSWORD)
                page.click("form[action='/guanli/login'] button[type=submit]")
                page.wait_for_url("**/guanli/")
                for name, path in (("comments", "/guanli/comments"), ("overview", "/guanli/")):
                    page.goto(base + path)
                    page.mouse.move(1, 1)
                    page.screenshot(path=str(out / f"{prefix}-{name}-{width}-{scheme}.png"))
                    if name == "comments":
                        rows = page.evaluate(
                            "() => [...document.querySelectorAll('tr.g-row')]"
                            ".map(r => Math.round(r.getBoundingClientRect().height))"
                        )
                        print(f"{prefix} {width} {scheme}: row heights {rows}")
                page.close()
        browser.close()
    server.should_exit = True


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "after")
