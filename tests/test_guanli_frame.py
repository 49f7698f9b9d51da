"""The dashboard's frame over real HTTP (uvicorn, httpx): the interface-language switch is its
own parameter and keeps the screen and its filters; every moderation reason and audit detail is
said in the interface language, escaped; an unknown /guanli/ address is the dashboard's 404 for
an editor and, for anyone else, what any dashboard page is without a session."""

from __future__ import annotations

import ast
import html
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest

from masthead.accounts import service as accounts
from masthead.comments import rules
from masthead.config import Settings, load_site
from masthead.i18n import CATALOGS
from masthead.indexing.indexer import index_site
from masthead.store import audit_log
from masthead.store import comments as cs
from masthead.store.db import Database
from masthead.web.app import create_app
from masthead.web.routes import guanli_text

from support.servers import uvicorn_server
from support.sites import copy_site, new_comment, post, write_site
from support.wait import CEILING

PASSWORD = "a long password"  # pragma: allowlist secret
SRC = Path(__file__).resolve().parents[1] / "src" / "masthead"
TOML = """title = "Harbour"
[languages.en]
name = "English"
[languages.zh]
name = "中文"
prefix = "zh"
folder = "zh"
"""


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """The site, indexed, with its admin and comments: made once a module (argon2 hashing and
    indexing cost tenths of a second), copied for each test (`made`)."""
    site = write_site(
        tmp_path_factory.mktemp("template") / "site",
        {"posts/a.md": post("Harbour lights"), "zh/posts/a.md": post("港口灯火")},
        TOML,
    )
    db = Database(site.database_path)
    index_site(site, db)
    accounts.add_user(db, "mei", PASSWORD, "admin")
    thread = db.read().execute("SELECT translation_key FROM posts WHERE url = '/posts/a/'")
    key = thread.fetchone()[0]
    reasons = ["first comment from this browser", "passed every rule"]
    for i in range(6):
        cs.add(
            db,
            new_comment(
                key,
                f"Comment {i}",
                post_url="/posts/a/",
                lang="zh" if i == 0 else "en",
                status="approved" if i % 2 else "pending",
                reason=reasons[i % 2],
                author_name=f"Reader {i}",
                created=1_700_000_000.0 + i,
            ),
            "reader",
        )
    db.close()
    return site


@pytest.fixture
def made(template, tmp_path):
    """A copy of the template site, database included, for one test."""
    return copy_site(template.root, tmp_path / "site")


@pytest.fixture
def base(made) -> Iterator[str]:
    with uvicorn_server(create_app(load_site(made.root))) as url:
        yield url


def sign_in(base: str, headers: dict[str, str] | None = None) -> httpx.Client:
    client = httpx.Client(
        base_url=base, headers={"Origin": base, **(headers or {})}, timeout=CEILING
    )
    form = client.get("/guanli/login")
    token = re.search(r'name="csrf" value="([^"]+)"', form.text)[1]  # type: ignore[index]
    done = client.post(
        "/guanli/login", data={"username": "mei", "password": PASSWORD, "csrf": token}
    )
    assert done.status_code == 303
    return client


def switch_of(page: str) -> str:
    """The header's language link, as the browser follows it."""
    found = re.search(r'<nav class="guanli-header__lang"[^>]*>\s*<a href="([^"]*)"', page)
    assert found, "no language switch"
    return html.unescape(found[1])


def shown(page: str) -> int:
    return page.count('class="g-row ')


def test_the_switch_keeps_the_screen_and_its_filters(base):
    client = sign_in(base)
    page = client.get("/guanli/comments?status=approved")
    assert shown(page.text) == 3 and "Signed in as" in page.text
    to_zh = switch_of(page.text)
    parts = urlsplit(to_zh)
    assert parts.path == "/guanli/comments" and not parts.netloc
    assert dict(parse_qsl(parts.query)) == {"status": "approved", "ui": "zh"}
    chinese = client.get(to_zh)
    assert 'lang="zh-Hans"' in chinese.text and "已登录" in chinese.text
    assert shown(chinese.text) == 3  # the same listing: no language filter appeared
    assert client.cookies.get("masthead_guanli_lang") == "zh"
    # the comment-language filter is `lang`, and only that: it never changes the interface
    filtered = client.get("/guanli/comments?status=pending&lang=zh")
    assert 'lang="zh-Hans"' in filtered.text and shown(filtered.text) == 1
    to_en = switch_of(filtered.text)
    assert dict(parse_qsl(urlsplit(to_en).query)) == {"status": "pending", "lang": "zh", "ui": "en"}
    english = client.get(to_en)
    assert 'lang="en"' in english.text and shown(english.text) == 1
    again = client.get("/guanli/comments")  # the pick is remembered; no filter is
    assert 'lang="en"' in again.text and shown(again.text) == 6
    assert 'lang="en"' in client.get("/guanli/comments?lang=zh").text
    # the listing's own links carry the filters, never the interface language
    main = english.text.split('<main id="mh-main"')[1]
    links = re.findall(r'href="(/guanli/comments\?[^"]*)"', main)
    assert links and not any("ui=" in html.unescape(u) for u in links)


@pytest.mark.parametrize(
    "screen",
    [
        "/guanli/",
        "/guanli/comments?status=spam&q=%3Cb%3E&order=oldest&per_page=50",
        "/guanli/comments?post=%2Fposts%2Fa%2F&lang=en&day=2023-11-14",
        "/guanli/search-log",
        "/guanli/content",
        "/guanli/settings",
        "/guanli/users",
        "/guanli/audit?actor=reader&action=add&page=1",
    ],
)
def test_every_screen_switches_in_place(base, screen):
    client = sign_in(base)
    page = client.get(screen)
    assert page.status_code == 200
    target = switch_of(page.text)
    want = urlsplit(screen)
    got = urlsplit(target)
    assert got.path == want.path and not got.scheme and not got.netloc
    assert parse_qsl(got.query) == [*parse_qsl(want.query), ("ui", "zh")]
    assert 'lang="zh-Hans"' in client.get(target).text


def test_the_sign_in_page_switches_and_keeps_where_it_leads(base):
    client = httpx.Client(base_url=base, headers={"Origin": base}, timeout=CEILING)
    sent = client.get("/guanli/comments?status=approved&ui=zh")
    assert sent.status_code == 303
    login = client.get(sent.headers["location"])
    assert 'lang="zh-Hans"' in login.text  # the pick was kept on the way to sign in
    to_en = switch_of(login.text)
    assert dict(parse_qsl(urlsplit(to_en).query)) == {
        "next": "/guanli/comments?status=approved&ui=zh",
        "ui": "en",
    }
    assert "Sign in" in client.get(to_en).text


def test_a_failed_sign_in_switches_to_its_form_again(base):
    client = httpx.Client(base_url=base, headers={"Origin": base}, timeout=CEILING)
    form = client.get("/guanli/login?next=/guanli/audit")
    token = re.search(r'name="csrf" value="([^"]+)"', form.text)[1]  # type: ignore[index]
    wrong_password = "not it at all"  # pragma: allowlist secret
    wrong = {"username": "mei", "password": wrong_password, "csrf": token, "next": "/guanli/audit"}
    failed = client.post("/guanli/login", data=wrong)
    assert failed.status_code == 401
    target = switch_of(failed.text)
    assert urlsplit(target).path == "/guanli/login"
    assert dict(parse_qsl(urlsplit(target).query)) == {"next": "/guanli/audit", "ui": "zh"}


# --- reasons ------------------------------------------------------------------------------


def test_every_reason_in_the_chinese_dashboard_is_chinese(base):
    client = sign_in(base, {"Accept-Language": "zh-CN"})
    page = client.get("/guanli/comments").text
    said = [html.unescape(r) for r in re.findall(r'<span class="guanli-reason">([^<]*)<', page)]
    assert sorted(set(said)) == ["此浏览器的第一条评论", "通过了所有规则"]
    assert "first comment from this browser" not in page


def _sample(node: ast.expr) -> list[str]:
    """The texts a string expression can be, with each `{value}` as 1 (`{value!r}` as '1')."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        out = ""
        for part in node.values:
            if isinstance(part, ast.Constant):
                out += str(part.value)
            else:
                assert isinstance(part, ast.FormattedValue)
                out += "'1'" if part.conversion == ord("r") else "1"
        return [out]
    if isinstance(node, ast.IfExp):
        return _sample(node.body) + _sample(node.orelse)
    return []


def written_reasons() -> list[tuple[str, str]]:
    """Every reason text the code stores with a comment: what the rules append or decide
    (comments/rules.py), and every `reason=` / `"reason":` literal given to a comment."""
    found: list[tuple[str, str]] = []
    tree = ast.parse((SRC / "comments" / "rules.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "append"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in ("spam", "held")
        ):
            found += [("rules.py", s) for s in _sample(node.args[0])]
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "why" for t in node.targets
        ):
            found += [("rules.py", s) for s in _sample(node.value)]
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Decision":
            first = node.args[0]
            if isinstance(first, ast.Constant) and first.value in ("duplicate", "approved"):
                found += [("rules.py", s) for s in _sample(node.args[1])]
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.keyword) and node.arg == "reason":
                found += [(path.name, s) for s in _sample(node.value)]
            if isinstance(node, ast.Dict):
                for k, v in zip(node.keys, node.values, strict=True):
                    if isinstance(k, ast.Constant) and k.value == "reason" and v is not None:
                        found += [(path.name, s) for s in _sample(v)]
    return found


def test_every_reason_the_code_writes_has_chinese_text():
    written = written_reasons()
    # the walk finds what it must (a rule, the dashboard's reply, a reader's delete, an import)
    texts = {text for _, text in written}
    for sure in (
        "first comment from this browser",
        "a reply by a signed-in editor",
        "deleted by its author",
        "imported from 1 with status 1",
        "edited: contains the disallowed word '1'",
    ):
        assert sure in texts
    zh, en = CATALOGS["zh"], CATALOGS["en"]
    for where, text in written:
        parts = guanli_text.reason_parts(text)
        assert all(not isinstance(p, str) for p in parts), f"{where}: {text!r} has no key"
        for key, _ in parts:  # type: ignore[misc]
            assert key in zh and zh[key] != en[key], f"{where}: {key} is not in Chinese"
    for key, _ in guanli_text.REASONS:
        assert key in en and key in zh and zh[key] != en[key], key


def test_the_rules_reasons_read_back_as_their_keys():
    settings = Settings(
        comments_moderation=True,
        comments_previously_approved=True,
        comments_max_links=1,
        comments_min_seconds=5,
        moderation_keys=["wave"],
        disallowed_keys=["evil; x"],
    )
    sent = rules.Submission(
        "/posts/a/", None, "Ann", "ann@example.org", "", "wave evil; x https://a.example"
    )
    decision = rules.evaluate(
        rules.Submission(**{**sent.__dict__, "honeypot": "filled"}),
        rules.Facts(now=1000.0, scripted_elapsed=1.25),
        settings,
    )
    assert len(decision.reasons) == 7
    keys = [p[0] for p in guanli_text.reason_parts(decision.reason)]  # type: ignore[index]
    assert keys == [
        "g_reason_honeypot",
        "g_reason_disallowed_word",  # its word holds "; ", the joiner
        "g_reason_too_fast",  # spam reasons first: too fast only holds (issue 29)
        "g_reason_all_held",
        "g_reason_first",
        "g_reason_links",
        "g_reason_moderation_word",
    ]
    zh = guanli_text.reason_text(lambda k, **v: CATALOGS["zh"][k].format(**v), decision.reason)
    assert "“evil; x”" in zh and "“wave”" in zh
    for kept in ("evil; x", "wave", "comments_moderation"):  # the settings' own words
        zh = zh.replace(kept, "")
    assert not re.search(r"[a-z]{3,}", zh), zh


# --- the audit log ------------------------------------------------------------------------


def detail_keys_written() -> set[str]:
    """Every key of an audit `detail` the code writes: the literal dicts given as `detail=`
    or assigned to a `detail` variable."""
    keys: set[str] = set()
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            value = None
            if isinstance(node, ast.keyword):
                value = node.value if node.arg == "detail" else None
            elif isinstance(node, ast.Assign):
                named = any(isinstance(t, ast.Name) and t.id == "detail" for t in node.targets)
                value = node.value if named else None
            if isinstance(value, ast.IfExp):
                value = value.body
            if isinstance(value, ast.Dict):
                keys |= {k.value for k in value.keys if isinstance(k, ast.Constant)}
    return keys


def test_every_detail_key_written_is_said_in_words():
    written = detail_keys_written()
    assert {"ids", "moves", "reason", "previous", "user", "client", "why"} <= written
    assert written <= set(guanli_text.DETAIL_KEYS), written - set(guanli_text.DETAIL_KEYS)
    zh, en = CATALOGS["zh"], CATALOGS["en"]
    for key in guanli_text.DETAIL_KEYS:
        if f"g_d_{key}" in en:
            assert zh.get(f"g_d_{key}") not in (None, en[f"g_d_{key}"]), key


def cells(page: str) -> list[str]:
    """The audit table's detail cells, as text."""
    found = re.findall(r'<td class="guanli-ua">(.*?)</td>', page, re.S)
    return [html.unescape(c) for c in found]


def test_the_audit_log_says_its_details_in_words(made, base):
    client = sign_in(base)
    listing = client.get("/guanli/comments?status=pending")
    csrf = re.search(r'name="csrf" value="([^"]+)"', listing.text)[1]  # type: ignore[index]
    ids = [int(i) for i in re.findall(r'name="ids" value="(\d+)"', listing.text)][:2]
    act = {
        "csrf": csrf,
        "action": "approve",
        "ids": [str(i) for i in ids],
        "back": "/guanli/comments",
    }
    done = client.post("/guanli/comments/act", data=act)
    assert done.status_code == 303
    notice = dict(parse_qsl(urlsplit(done.headers["location"]).query))["notice"]
    undone = client.post("/guanli/comments/undo", data={"csrf": csrf, "notice": notice})
    assert undone.status_code == 303
    edit = {"csrf": csrf, "id": str(ids[0]), "body": "Better", "name": "Reader <b>0</b>"}
    assert client.post("/guanli/comments/edit", data=edit).status_code == 303
    evil = {"Origin": "https://evil.example"}
    assert client.post("/guanli/logout", data={"csrf": csrf}, headers=evil).status_code == 403
    db = Database(made.database_path)
    accounts.new_token(db, "mei")
    accounts.revoke_tokens(db, "mei")
    with db.write() as conn:
        audit_log.log_event(
            conn, "import", "odd", detail={"<script>": "<img src=x onerror=1>", "n": [1]}
        )
        audit_log.log_event(
            conn,
            "reader",
            "throttle",
            detail={"rule": "flood", "thread": "t", "ip_hash": "abcdef0123456789"},
        )
    db.close()
    english = client.get("/guanli/audit")
    assert english.status_code == 200
    said = cells(english.text)
    assert not any(c.lstrip().startswith("{") for c in said), said
    joined = "\n".join(said)
    low, high = sorted(ids)
    assert f"comments {low}, {high}" in joined
    assert (
        f"pending → approved: {low}, {high}" in joined
        or f"pending → approved: {high}, {low}" in joined
    )
    assert f"undoes event {notice}" in joined
    assert "reason: first comment from this browser" in joined
    assert "before: " in joined and "Comment “Comment " in joined
    assert "user mei; role admin" in joined and "user mei; 1 token" in joined
    assert "address /guanli/logout; why: refused: " in joined
    assert "rule: flood; thread t; IP hash abcdef012345" in joined
    assert "<script>: <img src=x onerror=1>; n: [1]" in joined  # unknown keys, still words
    assert "<img src=x" not in english.text and "&lt;img src=x onerror=1&gt;" in english.text
    chinese = client.get("/guanli/audit?ui=zh")
    zh = "\n".join(cells(chinese.text))
    assert f"评论 {low}, {high}" in zh or f"评论 {high}, {low}" in zh
    assert "原因：此浏览器的第一条评论" in zh and f"撤销事件 {notice}" in zh
    assert "待审核" in chinese.text or CATALOGS["zh"]["guanli_status_pending"] in zh
    assert "first comment from this browser" not in zh


# --- errors under /guanli/ ------------------------------------------------------------------


def test_an_unknown_dashboard_address_stays_in_the_dashboard(base):
    client = sign_in(base)
    missing = client.get("/guanli/nonexistent")
    assert missing.status_code == 404
    assert 'class="guanli-header"' in missing.text and 'class="guanli-nav"' in missing.text
    assert "There is no dashboard page at this address." in missing.text
    assert CATALOGS["en"]["not_found_text"] not in missing.text  # not the public 404
    assert missing.headers["cache-control"] == "no-store"
    assert "noindex" in missing.headers["x-robots-tag"]
    deeper = client.get("/guanli/comments/nothing/here?ui=zh")
    assert deeper.status_code == 404 and "管理后台没有这个地址的页面。" in deeper.text
    post_only = client.get("/guanli/logout")  # no page to GET there either
    assert post_only.status_code == 404 and 'class="guanli-nav"' in post_only.text
    wrong = client.put("/guanli/comments/act")  # a method no dashboard address takes
    assert wrong.status_code == 405 and 'class="guanli-nav"' in wrong.text
    assert "不接受 PUT 请求" in wrong.text  # in the language picked before


def test_signed_out_an_unknown_address_is_any_dashboard_page(base):
    client = httpx.Client(base_url=base, headers={"Origin": base}, timeout=CEILING)
    real = client.get("/guanli/audit")
    fake = client.get("/guanli/nonexistent")
    assert (real.status_code, fake.status_code) == (303, 303)
    assert real.headers["location"] == "/guanli/login?next=/guanli/audit"
    assert fake.headers["location"] == "/guanli/login?next=/guanli/nonexistent"
    assert fake.text == real.text == ""
    assert client.get("/guanli/logout").status_code == 303  # a GET-less address too
    posted_real = client.post("/guanli/logout", data={})
    posted_fake = client.post("/guanli/nonexistent", data={})
    assert posted_real.status_code == posted_fake.status_code == 403
    strip = re.compile(r'name="csrf" value="[^"]*"')
    assert strip.sub("", posted_real.text) == strip.sub("", posted_fake.text)
    assert "guanli-nav" not in posted_fake.text
