"""The /guanli comments screen's site, signed-in clients and comment helpers, for the modules
that test that screen (their `site` and `m1` fixtures are thin ones over these)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from http.cookiejar import Cookie
from pathlib import Path

from starlette.testclient import TestClient

from masthead.accounts import service as accounts
from masthead.config import Site
from masthead.store import comments as cs
from masthead.store.db import Database
from masthead.web.app import create_app

from support.sites import copy_site, new_comment, post, write_site

PASSWORD = "a long password"  # pragma: allowlist secret


def moderated_site(make_site):  # type: ignore[no-untyped-def]
    """A site with two posts and two moderators, m1 and m2 (`Moderated` copies one)."""
    s = make_site({"posts/a.md": post("Harbour lights"), "posts/b.md": post("B")})
    db = Database(s.database_path)
    accounts.add_user(db, "m1", PASSWORD)
    accounts.add_user(db, "m2", PASSWORD)
    db.close()
    return s


def signed_client(site, name="m1"):
    client = TestClient(create_app(site), base_url="https://testserver", follow_redirects=False)
    client.__enter__()
    form = client.get("/guanli/login")
    csrf = re.search(r'name="csrf" value="([^"]+)"', form.text).group(1)
    done = client.post("/guanli/login", data={"username": name, "password": PASSWORD, "csrf": csrf})
    assert done.status_code == 303
    return client


class Moderated:
    """`moderated_site` made once a module, indexed and with m1 signed in (its argon2 hashes
    and sign-in cost a few tenths of a second each): each test gets a copy of its folder,
    database included, and a client carrying m1's session cookie (the modules' `site` and
    `m1` fixtures). A test that signs in itself still does, on its copy."""

    def __init__(self, root: Path) -> None:
        self.root = root
        site = moderated_site(lambda files: write_site(root, files))
        client = signed_client(site)  # indexes the site, as the app's start does
        self.cookies: list[Cookie] = list(client.cookies.jar)
        client.__exit__(None, None, None)

    def copy(self, root: Path) -> Site:
        """A copy of the site folder at `root`, as it was after m1 signed in."""
        return copy_site(self.root, root)

    def signed_in(self, site: Site) -> Iterator[TestClient]:
        """A client of `site` (a copy) with m1's session, for as long as the test."""
        client = TestClient(create_app(site), base_url="https://testserver", follow_redirects=False)
        for cookie in self.cookies:
            client.cookies.jar.set_cookie(cookie)
        with client:
            assert client.get("/guanli/").status_code == 200  # signed in: no redirect to sign in
            yield client


def add(site, n, status="pending", body="wave {i} https://evil.example/{i}", name="Spammer {i}"):
    db = Database(site.database_path)
    thread = db.read().execute("SELECT translation_key FROM posts WHERE url = '/posts/a/'")
    key = thread.fetchone()[0]
    ids = []
    for i in range(n):
        ids.append(
            cs.add(
                db,
                new_comment(
                    key,
                    body.format(i=i),
                    status=status,
                    author_name=name.format(i=i),
                    author_email=f"s{i}@example.org",
                    created=1_700_000_000.0 + len(ids) + i,
                ),
                "reader",
            )
        )
    db.close()
    return ids


def statuses(site, ids):
    db = Database(site.database_path)
    try:
        return [cs.get(db.read(), i).status for i in ids]
    finally:
        db.close()


def csrf(page):
    return re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
