"""Gate: the Nu HTML Checker reports no error on any dashboard screen (issue 29, item 4: the
public gate, test_html_valid.py, covers only public pages), nor on the readers' privacy-request
pages. Nu reads markup only, so one width and theme cover them all; axe-core checks the screens
at 390 and 1280 px in both themes (test_guanli_browser.py)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import httpx
import pytest

from masthead.accounts import service as accounts
from masthead.indexing.indexer import index_site
from masthead.store import comments as cs
from masthead.store.db import Database
from masthead.web.app import create_app

from support import nu
from support.guanli import PASSWORD
from support.servers import uvicorn_server
from support.sites import new_comment, post, write_site
from support.wait import CEILING

pytestmark = pytest.mark.gate

SCREENS = {
    "overview": "/guanli/",
    "comments": "/guanli/comments",
    "comments-pending": "/guanli/comments?status=pending",
    "comments-spam": "/guanli/comments?status=spam",
    "comments-trash": "/guanli/comments?status=trash",
    "search-log": "/guanli/search-log",
    "content": "/guanli/content",
    "settings": "/guanli/settings",
    "users": "/guanli/users",
    "audit": "/guanli/audit",
    "privacy": "/guanli/privacy",
}
MAIL = 'smtp_host = "127.0.0.1"\nsmtp_port = 9\nmail_from = "blog@example.com"\n'


def site_with_everything(root: Path):
    s = write_site(root, {"posts/harbour.md": post("Harbour lights")}, 'title = "Harbour"\n' + MAIL)
    db = Database(s.database_path)
    index_site(s, db)
    accounts.add_user(db, "mei", PASSWORD, "admin")
    thread = db.read().execute("SELECT translation_key FROM posts").fetchone()[0]
    for i, status in enumerate(["pending", "approved", "spam", "trash", "approved"]):
        cs.add(
            db,
            new_comment(
                thread,
                f"Comment {i} with a [link](https://example.org/{i}).",
                post_url="/posts/harbour/",
                status=status,
                author_name=f"Reader {i}",
                author_email=f"r{i}@example.org",
                created=time.time() - 100 + i,
            ),
            "reader",
        )
    db.close()
    return s


def test_nu_checker_finds_no_error_on_any_dashboard_screen(tmp_path):
    site = site_with_everything(tmp_path / "site")
    files = []

    def keep(name: str, response: httpx.Response, status: int = 200) -> None:
        assert response.status_code == status, (name, response.status_code)
        file = tmp_path / f"{name}.html"
        file.write_text(response.text, encoding="utf-8")
        files.append(file)

    with (
        uvicorn_server(create_app(site)) as base,
        httpx.Client(base_url=base, timeout=CEILING) as client,
    ):
        # a reader's request first, so the Privacy screen has a row with its buttons
        keep("privacy-form", client.get("/comments/privacy"))
        asked = {"email": "r1@example.org", "kind": "erase", "lang": "en"}
        keep("privacy-asked", client.post("/comments/privacy", data=asked))
        keep("privacy-link-invalid", client.get("/comments/privacy/nope"), 400)
        login = client.get("/guanli/login")
        keep("login", login)
        csrf = re.search(r'name="csrf" value="([^"]+)"', login.text).group(1)  # type: ignore[union-attr]
        signed = client.post(
            "/guanli/login", data={"username": "mei", "password": PASSWORD, "csrf": csrf}
        )
        assert signed.status_code == 303
        for name, path in SCREENS.items():
            keep(name, client.get(path))
        keep("not-found", client.get("/guanli/no-such-screen"), 404)
    errors = nu.errors(nu.check(files))
    assert len(files) == len(SCREENS) + 5
    assert not errors, f"{len(errors)} Nu errors:\n" + "\n".join(errors)
