"""/guanli sign-in, sessions and CSRF (issue 12, item 1; C46 cases 1, 3, 5) over real HTTP."""

from __future__ import annotations

import re

import pytest
from starlette.testclient import TestClient

from masthead.accounts import service as accounts
from masthead.store import comments as cs
from masthead.store.db import Database
from masthead.web.app import create_app

from support.sites import copy_site, post, write_site

PASSWORD = "a long password"  # pragma: allowlist secret


@pytest.fixture
def serve():
    """The real app over HTTPS (the test sites' base_url is https: cookies are Secure)."""
    yield from _clients("https://testserver")


@pytest.fixture
def plain():
    yield from _clients("http://testserver")


def _clients(base):
    clients = []

    def start(site):
        client = TestClient(create_app(site), base_url=base, follow_redirects=False)
        client.__enter__()
        clients.append(client)
        return client

    yield start
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """The site with its two users, made once a module (argon2 hashing costs tenths of a
    second a user); each test writes to a copy (`site`)."""
    s = write_site(tmp_path_factory.mktemp("template") / "site", {"posts/a.md": post("A")})
    db = Database(s.database_path)
    accounts.add_user(db, "mei", PASSWORD, "editor", "mei@example.com")
    accounts.add_user(db, "root", PASSWORD, "admin")
    db.close()
    return s


@pytest.fixture
def site(template, tmp_path):
    return copy_site(template.root, tmp_path / "site")


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def sign_in(client, name="mei", password=PASSWORD, next_=""):
    form = client.get("/guanli/login")
    assert form.status_code == 200
    return client.post(
        "/guanli/login",
        data={"username": name, "password": password, "csrf": csrf_of(form.text), "next": next_},
    )


def test_every_dashboard_page_needs_a_session_and_is_private(site, serve):
    client = serve(site)
    page = client.get("/guanli/")
    assert page.status_code == 303
    assert page.headers["location"] == "/guanli/login?next=/guanli/"
    login = client.get("/guanli/login")
    assert login.headers["cache-control"] == "no-store"
    assert "noindex" in login.headers["x-robots-tag"]
    assert '<meta name="robots" content="noindex, nofollow">' in login.text
    assert "/guanli" not in client.get("/sitemap.xml").text


def test_sign_in_sets_a_strict_session_cookie_and_signs_out(site, serve):
    client = serve(site)
    done = sign_in(client, next_="/guanli/?view=pending")
    assert done.status_code == 303 and done.headers["location"] == "/guanli/?view=pending"
    cookie = done.headers["set-cookie"]
    assert "masthead_session=" in cookie
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Path=/" in cookie
    overview = client.get("/guanli/")
    assert overview.status_code == 200 and "Signed in as mei" in overview.text
    assert "this one" in overview.text
    out = client.post("/guanli/logout", data={"csrf": csrf_of(overview.text)})
    assert out.status_code == 303
    assert client.get("/guanli/").status_code == 303


def test_the_cookie_is_secure_only_when_the_site_is_https(make_site, plain):
    s = make_site({"posts/a.md": post("A")}, 'title = "T"\n')  # no base_url: http://127.0.0.1
    db = Database(s.database_path)
    accounts.add_user(db, "mei", PASSWORD)
    db.close()
    done = sign_in(plain(s))
    assert done.status_code == 303
    assert "Secure" not in done.headers["set-cookie"]


@pytest.mark.parametrize(
    "target",
    ["https://evil.example/guanli/", "//evil.example/guanli/", "/posts/a/", "/\\evil.example"],
)
def test_next_stays_under_guanli_on_this_origin(site, serve, target):
    done = sign_in(serve(site), next_=target)
    assert done.headers["location"] == "/guanli/"


@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_wrong_password_and_lockout_say_so(site, serve):
    client = serve(site)
    for _ in range(5):
        wrong = sign_in(client, password="not the one!")
        assert wrong.status_code == 401 and "Wrong user name or password." in wrong.text
    locked = sign_in(client)
    assert locked.status_code == 429 and "Too many failed sign-ins" in locked.text
    assert int(locked.headers["retry-after"]) > 60
    db = Database(site.database_path)
    actions = [r[0] for r in db.read().execute("SELECT action FROM audit_log")]
    db.close()
    assert actions.count("login-failed") == 5 and "login-locked" in actions


def test_cross_site_posts_change_nothing_c46(site, serve):
    client = serve(site)
    sign_in(client)
    csrf = csrf_of(client.get("/guanli/").text)
    # case 1 and 4: a page on evil.example posts with the editor's cookie
    evil = client.post(
        "/guanli/logout", data={"csrf": csrf}, headers={"Origin": "https://evil.example"}
    )
    assert evil.status_code == 403 and "not from a page of this site" in evil.text
    fetched = client.post(
        "/guanli/logout", data={"csrf": csrf}, headers={"Sec-Fetch-Site": "cross-site"}
    )
    assert fetched.status_code == 403
    # a same-origin form without the session's token
    assert client.post("/guanli/logout", data={}).status_code == 403
    assert client.get("/guanli/").status_code == 200  # still signed in
    # case 3: GET never changes state
    assert client.get("/guanli/logout").status_code in (301, 404, 405)
    assert client.get("/guanli/").status_code == 200  # a GET signed nobody out
    # case 5: login CSRF: the attacker's page posts its own name and password
    other = serve(site)
    forged = other.post(
        "/guanli/login",
        data={"username": "root", "password": PASSWORD, "csrf": "guess"},
        headers={"Origin": "https://evil.example"},
    )
    assert forged.status_code == 403 and "masthead_session" not in forged.headers.get(
        "set-cookie", ""
    )
    db = Database(site.database_path)
    refused = db.read().execute("SELECT count(*) FROM audit_log WHERE action = 'refused'")
    assert refused.fetchone()[0] == 4
    db.close()


def test_sessions_are_listed_and_revocable(site, serve):
    first, second = serve(site), serve(site)
    sign_in(first)
    sign_in(second)
    page = first.get("/guanli/").text
    hashes = re.findall(r'name="session" value="([0-9a-f]{64})"', page)
    assert len(hashes) == 2
    db = Database(site.database_path)
    theirs = [h for h in hashes if h != cs_session_hash(first)]
    db.close()
    done = first.post("/guanli/sessions/revoke", data={"csrf": csrf_of(page), "session": theirs[0]})
    assert done.status_code == 303
    assert second.get("/guanli/").status_code == 303  # signed out elsewhere
    assert first.get("/guanli/").status_code == 200


def cs_session_hash(client) -> str:
    return accounts.digest(client.cookies.get("masthead_session"))


def test_the_dashboard_speaks_chinese_when_asked(site, serve):
    client = serve(site)
    page = client.get("/guanli/login", headers={"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.5"})
    assert "登录" in page.text and 'lang="zh-Hans"' in page.text
    picked = client.get("/guanli/login?ui=en", headers={"Accept-Language": "zh-CN"})
    assert "Sign in" in picked.text
    assert "Sign in" in client.get("/guanli/login", headers={"Accept-Language": "zh"}).text
    assert cs  # the store module the dashboard acts through


def test_signed_in_editors_preview_drafts_and_scheduled_posts(make_site, serve):
    s = make_site(
        {
            "posts/a.md": post("A"),
            "posts/draft.md": post("Work in progress", draft="true"),
            "posts/later.md": post("From the future", "2999-01-01"),
        }
    )
    db = Database(s.database_path)
    accounts.add_user(db, "mei", PASSWORD)
    db.close()
    editor, reader = serve(s), serve(s)
    for path in ("/posts/draft/", "/posts/later/"):
        assert reader.get(path).status_code == 404
    sign_in(editor)
    draft = editor.get("/posts/draft/")
    assert draft.status_code == 200 and "Work in progress" in draft.text
    assert draft.headers["cache-control"] == "no-store"
    assert "noindex" in draft.headers["x-robots-tag"]
    assert 'content="noindex' in draft.text and "This is a draft" in draft.text
    later = editor.get("/posts/later/")
    assert later.status_code == 200 and "Scheduled for January 1, 2999" in later.text
    for path in ("/posts/draft/", "/posts/later/"):  # nothing was cached for readers
        assert reader.get(path).status_code == 404
    assert editor.get("/posts/a/").headers["cache-control"] != "no-store"  # public pages as ever
