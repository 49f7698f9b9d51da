"""Readers' privacy requests (issue 29, item 5; GDPR articles 15 and 17): a reader asks from a
link under the comment form, masthead mails a signed, expiring, single-use link to that address
(a real SMTP server, aiosmtpd), and its page's POST exports or erases. Nothing tells anyone else
whether an address has comments; the form is rate-limited; the dashboard's Privacy screen lists
the requests and runs both actions; every export and erasure writes an audit row."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from email.message import EmailMessage

import pytest
from itsdangerous import TimestampSigner, URLSafeTimedSerializer
from typer.testing import CliRunner

from masthead.accounts import service as accounts
from masthead.cli import app as cli
from masthead.notify import privacy, tokens
from masthead.store import comments as cs
from masthead.store import outbox, site_secrets
from masthead.store import privacy_requests as requests_store
from masthead.store.db import Database
from masthead.web.app import create_app

from support.guanli import PASSWORD, signed_client
from support.mail import POSTS, Inbox, add, mail_toml, smtp_server
from support.servers import uvicorn_server
from support.sites import BILINGUAL_TOML
from support.wait import until

ALICE = "alice@example.org"
HOST = "https://example.com"


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    with smtp_server() as server:
        yield server


@pytest.fixture
def site(make_site, smtp):
    return make_site(POSTS, mail_toml(smtp[1]))


def link_in(msg: EmailMessage) -> str:
    """The path of the confirmation link of a privacy mail."""
    found = re.search(r"https://example\.com(/comments/privacy/[A-Za-z0-9_.-]+)", msg.get_content())
    assert found, msg.get_content()
    return found.group(1)


def privacy_mails(inbox, n: int) -> list[EmailMessage]:
    """The privacy mails, once `n` of them are in. Waiting for `n` mails of any kind raced: a
    pending comment also mails the editors (the `held` mail), and that one may come first."""

    def arrived() -> list[EmailMessage] | None:
        mails = [m for m in inbox.messages() if "/comments/privacy/" in m.get_content()]
        return mails if len(mails) >= n else None

    return until(arrived, what=f"{n} privacy mails")


def audit_rows(db: Database, action: str) -> list:
    return [r for r in db.read().execute("SELECT * FROM audit_log WHERE action = ?", (action,))]


def ask(client, email: str, kind: str = "erase", **headers: str):
    return client.post(
        "/comments/privacy", data={"email": email, "kind": kind, "lang": "en"}, headers=headers
    )


@pytest.mark.browser
def test_a_readers_erasure_request_works_end_to_end_in_chromium(site, smtp, browser):
    """From the post's page: the link under the form, the request, the mail through a real SMTP
    server, the link (a GET: nothing changes), the confirmation's POST, the comments erased (a
    placeholder where a reply hangs), one audit row, the request done."""
    inbox, _ = smtp
    app = create_app(site)
    with uvicorn_server(app) as served:
        db = app.state.masthead.db
        mine = add(db, status="approved", name="Alice", email_=ALICE, body="Alice was here")
        add(db, status="approved", name="Bob", email_="bob@example.org", body="Bob replies",
            parent=mine)  # fmt: skip
        second = add(db, status="approved", name="Alice", email_=ALICE, body="Alice again")
        page = browser.new_page()
        page.add_init_script(
            "window.__v = []; document.addEventListener('securitypolicyviolation',"
            " e => window.__v.push(e.violatedDirective));"
        )
        page.goto(served + "/posts/hello/")
        page.click("p.comments__privacy a")
        page.fill("#privacy-email", "Alice@Example.org")
        page.check("#privacy-erase")
        page.click("form.privacy-page__form button")
        page.wait_for_selector(".mail-page__message")
        assert "mailed" in page.inner_text(".mail-page__message")
        [msg] = privacy_mails(inbox, 1)
        assert msg["To"] == "Alice@Example.org"
        assert msg["Subject"].startswith("Erasing your comments")
        path = link_in(msg)
        page.goto(served + path)
        assert "Erase for good the 2 comments" in page.inner_text("form.mail-page__form")
        assert cs.get(db.read(), second) is not None  # the GET changed nothing
        page.click("form.mail-page__form button")
        page.wait_for_selector(".mail-page__message")
        assert "2 comments erased" in page.inner_text(".mail-page__message")
        assert page.evaluate("window.__v") == []
        assert cs.by_email(db.read(), ALICE) == []
        assert cs.get(db.read(), second) is None
        assert cs.get(db.read(), mine).status == cs.PLACEHOLDER  # Bob's reply keeps its place
        [row] = audit_rows(db, "erase-person")
        assert row["actor"] == "reader"
        assert json.loads(row["detail"]) == {"request": 1, "comments": 2}
        assert "alice" not in row["detail"].lower()
        done = requests_store.get(db.read(), 1)
        assert done.state == "done" and done.email == "A***@Example.org"
        page.goto(served + path)  # once only
        assert "used already" in page.inner_text(".mail-page__message")


def test_nothing_tells_whether_an_address_has_comments(site, smtp, serve):
    """The same status and words, and a mail either way, for an address with comments and
    one without."""
    inbox, _ = smtp
    client = serve(site)
    db = client.app.state.masthead.db
    add(db, status="approved", name="Alice", email_=ALICE)
    answers = [ask(client, ALICE), ask(client, "nobody@example.org")]
    assert [a.status_code for a in answers] == [200, 200]
    strip = [a.text.replace(ALICE, "X").replace("nobody@example.org", "X") for a in answers]
    assert strip[0] == strip[1]
    mails = privacy_mails(inbox, 2)
    assert sorted(m["To"] for m in mails) == sorted([ALICE, "nobody@example.org"])
    bodies = {re.sub(r"https://\S+", "LINK", m.get_content()) for m in mails}
    assert len(bodies) == 1  # the same words: the count is only on the link's page


def test_requests_are_limited_per_address_and_per_client(site, smtp, serve):
    inbox, _ = smtp
    client = serve(site)
    for _ in range(privacy.PER_ADDRESS):
        assert ask(client, ALICE).status_code == 200
    limited = ask(client, ALICE.upper())  # the same address, folded
    assert limited.status_code == 429 and limited.headers["Retry-After"] == "3600"
    for i in range(privacy.PER_CLIENT - privacy.PER_ADDRESS):
        assert ask(client, f"other{i}@example.org").status_code == 200
    assert ask(client, "one.more@example.org").status_code == 429  # the same client
    privacy_mails(inbox, privacy.PER_CLIENT)
    db = client.app.state.masthead.db
    assert len([m for m in outbox.all_mail(db.read()) if m.kind == privacy.KIND]) == (
        privacy.PER_CLIENT
    )


def test_bad_input_gets_a_4xx_and_no_mail(site, smtp, serve):
    client = serve(site)
    assert ask(client, "not an address").status_code == 400
    assert ask(client, "a@example.org\r\nBcc: x@example.org").status_code == 400
    assert ask(client, ALICE, kind="delete-all").status_code == 400
    assert ask(client, ALICE, Origin="https://evil.example").status_code == 403
    assert outbox.all_mail(client.app.state.masthead.db.read()) == []


def test_the_link_works_once_expires_and_refuses_cross_site_posts(site, smtp, serve):
    inbox, _ = smtp
    client = serve(site)
    db = client.app.state.masthead.db
    add(db, status="approved", name="Alice", email_=ALICE)
    ask(client, ALICE)
    path = link_in(privacy_mails(inbox, 1)[0])
    assert client.post(path, headers={"Origin": "https://evil.example"}).status_code == 403
    assert client.post(path, headers={"Sec-Fetch-Site": "cross-site"}).status_code == 403
    assert len(cs.by_email(db.read(), ALICE)) == 1
    assert client.get(path[:-3] + "xyz").status_code == 400  # damaged
    # a token signed for another request's key is not this request's
    secret = site_secrets.site_secret(db)
    forged = tokens.privacy_token(secret, 1, "erase", "another-key")
    assert client.post(f"/comments/privacy/{forged}").status_code == 400
    # an export token is no erase token
    wrong_kind = tokens.privacy_token(secret, 1, "export", "k")
    assert client.post(f"/comments/privacy/{wrong_kind}").status_code == 400

    class Past(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(time.time()) - tokens.PRIVACY_MAX_AGE - 10

    row = requests_store.get(db.read(), 1)
    old = URLSafeTimedSerializer(secret, "masthead.mail.privacy", signer=Past).dumps(
        [1, "erase", row.key]
    )
    expired = client.get(f"/comments/privacy/{old}")
    assert expired.status_code == 410 and "expired" in expired.text
    assert client.post(path).status_code == 200
    assert client.post(path).status_code == 410
    assert cs.by_email(db.read(), ALICE) == []


def test_an_export_link_downloads_the_comments_and_writes_an_audit_row(site, smtp, serve):
    inbox, _ = smtp
    client = serve(site)
    db = client.app.state.masthead.db
    add(db, status="approved", name="Alice", email_=ALICE, body="my words")
    add(db, status="pending", name="Alice", email_=ALICE, body="held words")
    ask(client, ALICE, kind="export")
    path = link_in(privacy_mails(inbox, 1)[0])
    page = client.get(path)
    assert "Download a copy of the 2 comments" in page.text
    got = client.post(path)
    assert got.status_code == 200
    assert got.headers["content-disposition"].startswith("attachment")
    assert got.headers["cache-control"] == "no-store"
    person = got.json()
    assert person["email"] == ALICE
    assert [c["body"] for c in person["comments"]] == ["my words", "held words"]
    [row] = audit_rows(db, "export-person")
    assert row["actor"] == "reader" and json.loads(row["detail"])["comments"] == 2
    assert len(cs.by_email(db.read(), ALICE)) == 2  # a copy changes nothing
    assert client.post(path).status_code == 410


def test_the_cli_erase_and_export_person_write_audit_rows(site):
    db = Database(site.database_path)
    from masthead.indexing.indexer import index_site

    index_site(site, db)
    add(db, status="approved", name="Alice", email_=ALICE)
    db.close()
    runner = CliRunner()
    out = runner.invoke(cli, ["comments", "export-person", str(site.root), ALICE])
    assert out.exit_code == 0, out.output
    done = runner.invoke(cli, ["comments", "erase", str(site.root), ALICE, "--yes"])
    assert done.exit_code == 0, done.output
    nobody = runner.invoke(
        cli, ["comments", "erase", str(site.root), "nobody@example.org", "--yes"]
    )
    assert nobody.exit_code == 0, nobody.output
    db = Database(site.database_path)
    [export] = audit_rows(db, "export-person")
    assert export["actor"] == "cli" and json.loads(export["detail"])["comments"] == 1
    erased = audit_rows(db, "erase-person")
    assert [json.loads(r["detail"])["comments"] for r in erased] == [1, 0]
    assert {r["actor"] for r in erased} == {"cli"}
    db.close()


def test_the_privacy_screen_lists_requests_and_editors_run_both_actions(site, smtp, serve):
    inbox, _ = smtp
    db = Database(site.database_path)
    accounts.add_user(db, "m1", PASSWORD)
    db.close()
    reader = serve(site)
    db = reader.app.state.masthead.db
    add(db, status="approved", name="Alice", email_=ALICE)
    add(db, status="approved", name="Carol", email_="carol@example.org")
    ask(reader, ALICE, kind="erase")
    privacy_mails(inbox, 1)
    editor = signed_client(site)
    try:
        screen = editor.get("/guanli/privacy")
        assert screen.status_code == 200
        assert ALICE in screen.text and "link mailed" in screen.text
        csrf = re.search(r'name="csrf" value="([^"]+)"', screen.text).group(1)
        # export for an address typed in
        got = editor.post("/guanli/privacy", data={"csrf": csrf, "email": "carol@example.org",
                                                   "action": "export"})  # fmt: skip
        assert got.status_code == 200 and got.json()["comments"][0]["author"]["name"] == "Carol"
        # an erasure without the confirmation box erases nothing
        unconfirmed = editor.post(
            "/guanli/privacy", data={"csrf": csrf, "email": ALICE, "action": "erase"}
        )
        assert unconfirmed.status_code == 400 and len(cs.by_email(db.read(), ALICE)) == 1
        # the reader's request, answered from its row
        by_row = {"csrf": csrf, "request": "1", "action": "erase", "confirm": "yes"}
        done = editor.post("/guanli/privacy", data=by_row)
        assert done.status_code == 200 and "1 comment" in done.text
        assert cs.by_email(db.read(), ALICE) == []
        assert editor.post("/guanli/privacy", data=by_row).status_code == 409
        forged = {
            "csrf": "wrong",
            "email": "carol@example.org",
            "action": "erase",
            "confirm": "yes",
        }
        assert editor.post("/guanli/privacy", data=forged).status_code == 403
        assert len(cs.by_email(db.read(), "carol@example.org")) == 1
        rows = db.read().execute(
            "SELECT actor, action FROM audit_log WHERE action LIKE '%-person' ORDER BY id"
        )
        actions = [(r["actor"], r["action"]) for r in rows]
        assert actions == [("editor:m1", "export-person"), ("editor:m1", "erase-person")]
        listed = editor.get("/guanli/privacy").text
        assert ALICE not in listed and "a***@example.org" in listed and "done" in listed
        # the reader's link for that request is dead now
        path = link_in(privacy_mails(inbox, 1)[0])
        assert reader.post(path).status_code == 410
    finally:
        editor.__exit__(None, None, None)


def test_the_link_under_the_form_is_offered_when_mail_can_be_sent(site, serve):
    page = serve(site).get("/posts/hello/")
    assert 'href="/comments/privacy?lang=en"' in page.text


def test_without_mail_no_link_is_offered_and_a_request_says_why(make_site, serve):
    client = serve(make_site(POSTS, BILINGUAL_TOML))
    assert "/comments/privacy" not in client.get("/posts/hello/").text
    answer = ask(client, ALICE)
    assert answer.status_code == 503 and "cannot send mail" in answer.text


def test_the_request_form_page_is_valid_and_changes_nothing(site, serve):
    client = serve(site)
    page = client.get("/comments/privacy?lang=zh")
    assert page.status_code == 200 and "noindex" in page.text
    assert 'name="kind" value="erase"' in page.text
    assert outbox.all_mail(client.app.state.masthead.db.read()) == []
