"""The moderation API (issue 12, item 7; C46 case 2, C53) over real HTTP on a real database."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from masthead.accounts import service as accounts
from masthead.store import comment_moderation as moderation
from masthead.store import comments as cs
from masthead.store.db import Database
from masthead.web.app import create_app

from support.sites import copy_site, new_comment, post, write_site

PASSWORD = "a long password"  # pragma: allowlist secret


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """Two posts and the editor mei (password PASSWORD), made once a module: each test copies
    it (`site`) instead of hashing her password with argon2 again."""
    s = write_site(
        tmp_path_factory.mktemp("admin") / "site",
        {"posts/a.md": post("A"), "posts/b.md": post("B")},
    )
    db = Database(s.database_path)
    accounts.add_user(db, "mei", PASSWORD)
    db.close()
    return s


@pytest.fixture
def site(template, tmp_path):
    return copy_site(template.root, tmp_path / "site")


@pytest.fixture
def client(site):
    with TestClient(create_app(site), base_url="https://testserver", follow_redirects=False) as c:
        yield c


def add_comments(site, n, status="pending", thread=None, body="hello {i}"):
    db = Database(site.database_path)
    thread = (
        thread
        or db.read()
        .execute("SELECT translation_key FROM posts WHERE url = '/posts/a/'")
        .fetchone()[0]
    )
    ids = [
        cs.add(
            db,
            new_comment(
                thread,
                body.format(i=i),
                status=status,
                author_name=f"N{i}",
                author_email=f"n{i}@example.org",
                created=1_700_000_000.0 + i,
            ),
            "reader",
        )
        for i in range(n)
    ]
    db.close()
    return ids


@pytest.fixture
def token(site):
    db = Database(site.database_path)
    secret = accounts.new_token(db, "mei")
    db.close()
    return {"Authorization": f"Bearer {secret}"}


def test_list_with_filters_and_shape(site, client, token):
    ids = add_comments(site, 25)
    assert client.get("/api/admin/comments").status_code == 401
    page = client.get("/api/admin/comments?status=pending&per_page=10&page=2", headers=token)
    assert page.status_code == 200 and page.headers["cache-control"] == "no-store"
    data = page.json()
    assert (data["total"], data["page"], data["per_page"]) == (25, 2, 10)
    assert [c["id"] for c in data["comments"]] == ids[::-1][10:20]
    first = data["comments"][0]
    assert set(first) == {
        "id",
        "post",
        "parent",
        "name",
        "email",
        "url",
        "ip_hash",
        "lang",
        "status",
        "date",
        "body",
    }
    assert first["email"].endswith("@example.org") and first["date"].endswith("+00:00")
    found = client.get("/api/admin/comments?q=hello 7&post=/posts/a/", headers=token).json()
    assert [c["body"] for c in found["comments"]] == ["hello 7"]
    for bad in ("per_page=0", "per_page=201", "status=nope", "page=x", "post=/nowhere/"):
        answer = client.get(f"/api/admin/comments?{bad}", headers=token)
        assert answer.status_code == 400, bad
        assert answer.json()["error"]["status"] == 400


def test_actions_one_and_bulk_with_expect_c53(site, client, token):
    ids = add_comments(site, 6)
    one = client.post(f"/api/admin/comments/{ids[0]}", json={"action": "approve"}, headers=token)
    assert one.json() == {"changed": 1, "skipped": []}
    again = client.post(f"/api/admin/comments/{ids[0]}", json={"action": "approve"}, headers=token)
    assert again.json() == {"changed": 0, "skipped": [{"id": ids[0], "reason": "already-approved"}]}
    assert (
        client.post("/api/admin/comments/9999", json={"action": "spam"}, headers=token).status_code
        == 404
    )
    picked = client.post(
        "/api/admin/comments/bulk", json={"action": "trash", "ids": ids[:3]}, headers=token
    ).json()
    assert picked == {"changed": 3, "skipped": []}
    restored = client.post(
        "/api/admin/comments/bulk", json={"action": "restore", "ids": ids[:3]}, headers=token
    ).json()
    assert restored["changed"] == 3
    db = Database(site.database_path)
    assert [cs.get(db.read(), i).status for i in ids[:3]] == ["approved", "pending", "pending"]
    # "all 5 pending matching": two newcomers arrive after the page was loaded
    seen = client.get("/api/admin/comments?status=pending", headers=token).json()
    snapshot = max(c["id"] for c in seen["comments"])
    add_comments(site, 2, body="newcomer {i}")
    stale = {"status": "pending"}
    answer = client.post(
        "/api/admin/comments/bulk",
        json={"action": "spam", "filter": stale, "expect": seen["total"]},
        headers=token,
    )
    assert answer.status_code == 409 and "matches 7 comments now, not 5" in answer.text
    bound = {"status": "pending", "max_id": snapshot}
    done = client.post(
        "/api/admin/comments/bulk",
        json={"action": "spam", "filter": bound, "expect": seen["total"]},
        headers=token,
    ).json()
    assert done == {"changed": 5, "skipped": []}
    assert moderation.status_counts(db.read())["pending"] == 2  # the newcomers
    logged = (
        db.read()
        .execute("SELECT actor, detail FROM audit_log WHERE action = 'bulk-spam'")
        .fetchone()
    )
    assert logged[0] == "editor:mei" and str(ids[1]) in logged[1]
    db.close()


def test_bad_bodies_and_unknown_actions(site, client, token):
    ids = add_comments(site, 1)
    url = f"/api/admin/comments/{ids[0]}"
    assert client.post(url, json={"action": "nuke"}, headers=token).status_code == 400
    assert (
        client.post(
            url, content=b"{", headers={**token, "Content-Type": "application/json"}
        ).status_code
        == 400
    )
    bulk = "/api/admin/comments/bulk"
    assert (
        client.post(bulk, json={"action": "spam", "ids": "1,2"}, headers=token).status_code == 400
    )
    assert client.post(bulk, json={"action": "spam"}, headers=token).status_code == 400
    revoked = {"Authorization": "Bearer " + "x" * 43}
    assert client.post(url, json={"action": "spam"}, headers=revoked).status_code == 401


def test_a_body_over_the_limit_is_refused_unread_and_changes_nothing(site, client, token):
    ids = add_comments(site, 1)
    url = f"/api/admin/comments/{ids[0]}"
    headers = {**token, "Content-Type": "application/json"}
    filler = b" " * (1024 * 1024)  # valid JSON around it: only the size can refuse it
    declared = client.post(url, content=b'{"action": "spam"' + filler + b"}", headers=headers)
    assert declared.status_code == 413, declared.text
    assert "not read" in declared.json()["error"]["message"]

    def chunks():  # no Content-Length: counted as it arrives
        yield b'{"action": "spam"'
        for _ in range(20):
            yield b" " * 65536
        yield b"}"

    streamed = client.post(url, content=chunks(), headers=headers)
    assert streamed.status_code == 413, streamed.text
    db = Database(site.database_path)
    status = db.read().execute("SELECT status FROM comments WHERE id = ?", (ids[0],)).fetchone()[0]
    db.close()
    assert status == "pending"
    assert client.post(url, json={"action": "spam"}, headers=token).status_code == 200


def test_session_callers_need_the_csrf_header_and_json_c46(site, client):
    ids = add_comments(site, 1)
    form = client.get("/guanli/login")
    csrf = re.search(r'name="csrf" value="([^"]+)"', form.text).group(1)
    client.post("/guanli/login", data={"username": "mei", "password": PASSWORD, "csrf": csrf})
    session_csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/guanli/").text).group(1)
    url = f"/api/admin/comments/{ids[0]}"
    assert client.get("/api/admin/comments").status_code == 200  # reading needs the session only
    # case 2: a text/plain form whose one field name is a JSON document
    plain = client.post(
        url,
        content=b'{"action":"trash","ids":[17],"x":"="}',
        headers={"Content-Type": "text/plain", "X-CSRF-Token": session_csrf},
    )
    assert plain.status_code == 415
    no_token = client.post(url, json={"action": "trash"})
    assert no_token.status_code == 403
    foreign = client.post(
        url,
        json={"action": "trash"},
        headers={"X-CSRF-Token": session_csrf, "Origin": "https://evil.example"},
    )
    assert foreign.status_code == 403
    good = client.post(url, json={"action": "trash"}, headers={"X-CSRF-Token": session_csrf})
    assert good.json()["changed"] == 1


def test_the_token_command_prints_it_alone_on_the_last_line(site):
    done = subprocess.run(
        [sys.executable, "-m", "masthead", "admin", "token", str(site.root), "mei"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    last = done.stdout.rstrip("\n").splitlines()[-1]
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", last)
    with TestClient(create_app(site), base_url="https://testserver") as client:
        auth = {"Authorization": f"Bearer {last}"}
        assert client.get("/api/admin/comments", headers=auth).status_code == 200


# --- issue 29, D5: every field validated, a 4xx for any value --------------------------------

HUGE = 10**30
BAD_BODIES = [
    ("/api/admin/comments/bulk", {"action": "spam", "ids": [HUGE]}),
    ("/api/admin/comments/bulk", {"action": "spam", "ids": [-1]}),
    ("/api/admin/comments/bulk", {"action": "spam", "ids": ["1"]}),
    ("/api/admin/comments/bulk", {"action": "spam", "ids": [True]}),
    ("/api/admin/comments/bulk", {"action": "spam", "ids": [1.5]}),
    ("/api/admin/comments/bulk", {"action": "spam", "ids": {"1": 1}}),
    ("/api/admin/comments/bulk", {"action": ["spam"], "ids": [1]}),
    ("/api/admin/comments/bulk", {"action": {"spam": 1}, "ids": [1]}),
    ("/api/admin/comments/bulk", {"action": "spam", "filter": {"max_id": HUGE}, "expect": 0}),
    ("/api/admin/comments/bulk", {"action": "spam", "filter": {"status": ["x"]}, "expect": 0}),
    ("/api/admin/comments/bulk", {"action": "spam", "filter": {"lang": {}}, "expect": 0}),
    ("/api/admin/comments/bulk", {"action": "spam", "filter": {"post": 12}, "expect": 0}),
    ("/api/admin/comments/bulk", {"action": "spam", "filter": {"q": "x" * 5000}, "expect": 0}),
    ("/api/admin/comments/bulk", {"action": "spam", "filter": {}, "expect": HUGE * HUGE}),
    ("/api/admin/comments/bulk", {"action": "spam", "filter": {}, "expect": "0"}),
    ("/api/admin/comments/bulk", {"action": "spam", "filter": [], "expect": 0}),
    ("/api/admin/comments/bulk", {"action": "spam", "ids": [1], "surprise": 1}),
    ("/api/admin/comments/1", {"action": ["spam"]}),
    ("/api/admin/comments/1", {"action": None}),
    ("/api/admin/comments/1", {"action": "spam", "ids": [HUGE]}),
]


def test_every_field_is_validated_d5(site, client, token):
    add_comments(site, 2)
    for path, body in BAD_BODIES:
        response = client.post(path, json=body, headers=token)
        assert response.status_code == 400, (path, body, response.text[:300])
        message = response.json()["error"]["message"]
        assert ": " in message, message  # names the field
    for digits in ("9" * 19, "1" + "0" * 19, "9" * 40):
        response = client.post(
            f"/api/admin/comments/{digits}", json={"action": "spam"}, headers=token
        )
        # no route has such an id (1 to 18 digits): a 404, or a 405 from the page routes
        assert response.status_code in (404, 405), (digits, response.text[:200])
    for query in (f"max_id={HUGE}", "max_id=x", "status=nope", "lang=" + "x" * 100, f"page={HUGE}"):
        response = client.get(f"/api/admin/comments?{query}", headers=token)
        assert response.status_code == 400, (query, response.text[:200])
    listed = client.get("/api/admin/comments?max_id=1", headers=token)
    assert listed.status_code == 200 and [c["id"] for c in listed.json()["comments"]] == [1]


def test_the_api_actions_are_the_stores():
    from typing import get_args

    from masthead.web.routes.admin_api import Action

    assert set(get_args(Action)) == set(moderation.ACTIONS)


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
FIELDS = ["action", "ids", "filter", "expect", "status", "q", "post", "lang", "max_id"]


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(
    body=st.dictionaries(st.sampled_from(FIELDS), JSON_VALUES, max_size=4),
    filtered=st.dictionaries(st.sampled_from(FIELDS[4:]), JSON_VALUES, max_size=3),
)
@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_no_body_gets_a_5xx(client_and_token, body, filtered):
    client, token = client_and_token
    if filtered:
        body = {**body, "filter": filtered}
    for path in ("/api/admin/comments/bulk", "/api/admin/comments/1"):
        response = client.post(path, json=body, headers=token)
        assert response.status_code < 500, (path, body, response.text[:300])


@pytest.fixture(scope="module")
def client_and_token(tmp_path_factory):
    root = tmp_path_factory.mktemp("d5")
    s = write_site(root / "site", {"posts/a.md": post("A")})
    db = Database(s.database_path)
    accounts.add_user(db, "mei", PASSWORD)
    secret = accounts.new_token(db, "mei")
    db.close()
    with TestClient(create_app(s), base_url="https://testserver") as c:
        add_comments(s, 3)
        yield c, {"Authorization": f"Bearer {secret}"}


def test_skipped_ids_say_why_each_was_skipped(site, client, token):
    """Issue 29, item 4: not "changed since you loaded the page" when the action is simply not
    one for that comment's status."""
    ids = add_comments(site, 4)
    bulk = "/api/admin/comments/bulk"
    client.post(bulk, json={"action": "spam", "ids": [ids[0]]}, headers=token)
    client.post(bulk, json={"action": "approve", "ids": [ids[1]]}, headers=token)
    client.post(bulk, json={"action": "delete", "ids": [ids[2]]}, headers=token)
    done = client.post(bulk, json={"action": "approve", "ids": ids}, headers=token).json()
    assert done == {
        "changed": 1,
        "skipped": [
            {"id": ids[0], "reason": "in-spam"},
            {"id": ids[1], "reason": "already-approved"},
            {"id": ids[2], "reason": "gone"},
        ],
    }
