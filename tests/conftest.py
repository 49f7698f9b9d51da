"""Fixtures: real site folders in tmp_path, real SQLite files, the real app over HTTP."""

from __future__ import annotations

import html
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from starlette.testclient import TestClient

from masthead.config import Site, load_site
from masthead.store.comments import NewComment
from masthead.web.app import create_app

DATA = Path(__file__).parent / "data"
DEMO = Path(__file__).parent.parent / "src" / "masthead" / "demo"

BILINGUAL_TOML = """
title = "Test site"
base_url = "https://example.com"
default_language = "en"
timezone = "Asia/Shanghai"
posts_per_page = 3

[languages.en]
name = "English"

[languages.zh]
name = "中文"
prefix = "zh"
hreflang = "zh-Hans"
"""

# Hugo's layout: one content folder per language (content/en/…, content/zh/…)
HUGO_TOML = """
title = "Hugo site"
base_url = "https://example.com"
default_language = "en"
timezone = "Asia/Shanghai"

[languages.en]
name = "English"
folder = "en"

[languages.zh]
name = "中文"
prefix = "zh"
folder = "zh"
"""


def post(title: str, date: str = "2024-03-01", body: str = "Body text.", **meta: str) -> str:
    """A Markdown post with YAML front matter."""
    lines = [f"title: {title!r}".replace("'", '"'), f"date: {date}"]
    lines += [f"{k}: {v}" for k, v in meta.items()]
    return "---\n" + "\n".join(lines) + "\n---\n\n" + textwrap.dedent(body)


@pytest.fixture
def make_site(tmp_path: Path) -> Callable[..., Site]:
    """Write `files` (content-relative path → text or bytes) into a new site folder."""

    def make(files: dict[str, str | bytes], toml: str = BILINGUAL_TOML) -> Site:
        return write_site(tmp_path / "site", files, toml)

    return make


def write_site(root: Path, files: dict[str, str | bytes], toml: str = BILINGUAL_TOML) -> Site:
    """A site folder at `root`: `masthead.toml` and `files` (content-relative path → text or
    bytes) under `content/`; the loaded settings."""
    (root / "content").mkdir(parents=True, exist_ok=True)
    (root / "masthead.toml").write_text(toml, encoding="utf-8")
    for rel, text in files.items():
        path = root / "content" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
    return load_site(root)


@pytest.fixture
def serve() -> Iterator[Callable[..., TestClient]]:
    """Start the real app for a site (lifespan run) and return an HTTP client for it."""
    clients: list[TestClient] = []

    def start(site: Site, **options: object) -> TestClient:
        client = TestClient(create_app(site, **options), follow_redirects=False)  # type: ignore[arg-type]
        client.__enter__()
        clients.append(client)
        return client

    yield start
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def demo_site(tmp_path: Path) -> Site:
    """A copy of the bundled demo site with its database in tmp_path."""
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root, ignore=shutil.ignore_patterns(".masthead"))
    return load_site(root)


@contextmanager
def uvicorn_server(app: Any, *, timeout: float = 60, **config: Any) -> Iterator[str]:
    """Serve the ASGI `app` with a real uvicorn on a free 127.0.0.1 port in a thread; yields
    `http://127.0.0.1:PORT` once it accepts connections, and stops it afterwards."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", **config))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(10)


@contextmanager
def cli_server(*args: str, timeout: float = 20) -> Iterator[str]:
    """Run `masthead serve ARGS --port 0` as a real process; yields the URL it printed
    (`http://127.0.0.1:PORT/`) once `/healthz` answers, and stops the process afterwards."""
    cmd = [sys.executable, "-m", "masthead", "serve", *args, "--port", "0"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        m = re.search(r"at (http://127\.0\.0\.1:\d+/)", line)
        assert m, f"serve printed no URL: {line!r}"
        deadline = time.monotonic() + timeout
        while True:
            try:
                httpx.get(m.group(1) + "healthz")
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "server never answered"
                time.sleep(0.1)
        yield m.group(1)
    finally:
        proc.terminate()
        proc.wait(10)


def new_comment(thread: str, body: str = "Hello.", **fields: Any) -> NewComment:
    """A comment for `store.comments.add` in a test: `thread` and `body`, the rest defaults
    (an approved English comment by Ann on /posts/a/, now) that `fields` override."""
    values: dict[str, Any] = {
        "post_url": "/posts/a/",
        "parent_id": None,
        "lang": "en",
        "status": "approved",
        "author_name": "Ann",
        "author_email": "ann@example.org",
        "author_url": "",
        "body": body,
        "body_html": f"<p>{html.escape(body)}</p>",
        "created": time.time(),
    }
    values.update(fields)
    return NewComment(thread=thread, **values)


def drop_later_columns(conn: sqlite3.Connection, version: int) -> None:
    """Make a current database look like one `version` left in one respect: without the
    columns that later migrations add (`ALTER TABLE t ADD COLUMN c`), so that migrating it
    again adds them as it would on a real old database."""
    from masthead.store.migrations import MIGRATIONS

    for statements in MIGRATIONS[version:]:
        for sql in statements:
            found = re.match(r"\s*ALTER TABLE (\w+) ADD COLUMN (\w+)", sql)
            if found:
                conn.execute(f"ALTER TABLE {found[1]} DROP COLUMN {found[2]}")
