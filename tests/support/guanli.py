"""The /guanli comments screen's site, signed-in clients and comment helpers, for the modules
that test that screen (their `site` and `m1` fixtures are thin ones over these)."""

from __future__ import annotations

import re

from starlette.testclient import TestClient

from masthead.accounts import service as accounts
from masthead.store import comments as cs
from masthead.store.db import Database
from masthead.web.app import create_app

from support.sites import new_comment, post

PASSWORD = "a long password"  # pragma: allowlist secret


def moderated_site(make_site):  # type: ignore[no-untyped-def]
    """A site with two posts and two moderators, m1 and m2 (the modules' `site` fixture)."""
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


def signed_in(site, name="m1"):  # type: ignore[no-untyped-def]
    """A client signed in as `name` for as long as the test (the modules' `m1` fixture)."""
    client = signed_client(site, name)
    yield client
    client.__exit__(None, None, None)


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
