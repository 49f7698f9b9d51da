"""The /guanli comments screen's site, signed-in clients and comment helpers, and its fixtures
(`site`, `m1`), for the modules that test that screen: they import the fixtures by name."""

from __future__ import annotations

import re

import pytest
from starlette.testclient import TestClient

from masthead.accounts import service as accounts
from masthead.store import comments as cs
from masthead.store.db import Database
from masthead.web.app import create_app

from support.sites import new_comment, post

PASSWORD = "a long password"  # pragma: allowlist secret


@pytest.fixture
def site(make_site):
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


@pytest.fixture
def m1(site):
    client = signed_client(site)
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
