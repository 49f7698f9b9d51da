"""Site folders for tests: a bilingual settings file, posts with front matter, a folder written
from a dict, a comment to store, an old database's columns."""

from __future__ import annotations

import atexit
import html
import re
import shutil
import sqlite3
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from masthead.config import Site, load_site
from masthead.indexing.indexer import index_site
from masthead.store.comments import NewComment
from masthead.store.db import Database

DATA = Path(__file__).parents[1] / "data"
DEMO = Path(__file__).parents[2] / "src" / "masthead" / "demo"
K8S_CORPUS = DATA / "k8s-blog"  # the Kubernetes blog corpus (CC BY 4.0), in both languages
# the tests reading conftest's `k8s_client` (one app on the corpus a test process): one worker
K8S_GROUP = pytest.mark.xdist_group("k8s-corpus")

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


_INDEXED_DEMO: list[Path] = []  # this process's indexed copy of the demo, made on first use


def demo_copy(root: Path) -> Site:
    """A copy of the bundled demo at `root`, indexed, its share cards drawn: the demo is indexed
    once a test process (0.4 s of CPU, more under coverage) into a folder of its own and copied
    with its database and cards (times kept), so the copy's first index finds every file
    unchanged (0.01 s). For tests that read the demo as it is shipped, or change it after."""
    if not _INDEXED_DEMO:
        folder = Path(tempfile.mkdtemp(prefix="masthead-test-demo-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        template = shutil.copytree(
            DEMO, folder / "demo", ignore=shutil.ignore_patterns(".masthead")
        )
        index_closed(template)
        _INDEXED_DEMO.append(template)
    return copy_site(_INDEXED_DEMO[0], root)


def index_closed(root: Path) -> Path:
    """Index the site folder `root` and close its database (no connection or thread left
    open), so it can be copied with `copy_site`; `root`."""
    site = load_site(root)
    db = Database(site.database_path)
    try:
        index_site(site, db)
    finally:
        db.close()
    return root


def copy_site(template: Path, root: Path) -> Site:
    """A copy of the site folder `template` at `root`, its database included: a site made once
    a module (indexed, users added: argon2 hashing costs tenths of a second) and copied for each
    test that writes to it. The database must be closed (no connection open on it)."""
    shutil.copytree(template, root)
    return load_site(root)


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
