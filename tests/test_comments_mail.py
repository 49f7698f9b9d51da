"""Notification mails (issue 11, item 8) through a real SMTP server in the test process
(aiosmtpd): held comments to editors with one-click links that act only on POST (C46 case 6),
reply mails with RFC 8058 one-click unsubscribe, no header injection (C51's kind), retries with
backoff while the SMTP server is down, and emoji carried whole (C36)."""

from __future__ import annotations

import json
import re
import socket
import time
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult
from itsdangerous import TimestampSigner, URLSafeSerializer, URLSafeTimedSerializer
from starlette.testclient import TestClient
from typer.testing import CliRunner

from masthead.cli import app as cli
from masthead.config import Site
from masthead.notify import sender, tokens
from masthead.notify.collect import collect
from masthead.store import audit_log, outbox, site_secrets
from masthead.store import comments as cs
from masthead.store.db import Database

from support.mail import (
    EDITORS,
    POSTS,
    Inbox,
    add,
    free_port,
    indexed,
    mail_toml,
    smtp_server,
    thread_of,
)
from support.servers import uvicorn_server
from support.sites import post
from support.wait import until

DATA = Path(__file__).parent / "data" / "cases"
BASE = "https://example.com"


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    with smtp_server() as server:
        yield server


@pytest.fixture
def site(make_site, smtp) -> Site:
    return make_site(POSTS, mail_toml(smtp[1]))


def links_in(msg: EmailMessage) -> dict[str, str]:
    """The one-click links of a held mail, by label, as paths."""
    found = {}
    for line in msg.get_content().splitlines():
        for label in ("Approve", "Mark as spam"):
            if line.startswith(label + ": "):
                found[label] = urlsplit(line.split(": ", 1)[1]).path
    return found


def status(db: Database, cid: int) -> str:
    c = cs.get(db.read(), cid)
    assert c is not None
    return c.status


def passes(*clients: TestClient) -> None:
    """Wait until the working mail runner among `clients`' apps has finished two more passes,
    the second begun after every write made so far: what those writes would send is sent by
    then, so "nothing else is sent" can be asserted without waiting for a fixed time."""
    runners = [c.app.state.mailer for c in clients]  # type: ignore[attr-defined]
    until(lambda: any(r.working for r in runners), what="a mail runner working")
    runner = next(r for r in runners if r.working)
    start = runner.cycles

    def two_more() -> bool:
        runner.wake()  # the pass after a finished one starts now, not after IDLE seconds
        return bool(runner.cycles >= start + 2)

    until(two_more, what="two more passes of the mail runner")


def connected_to(port: int) -> bool:
    """Whether a TCP connection to 127.0.0.1:`port` is established (the kernel's table: a
    connection waiting in a listening socket's backlog, never accepted, is established too)."""
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[2].rsplit(":", 1)[1], 16) == port and fields[3] == "01":
            return True
    return False


# --- held comments -------------------------------------------------------------------------


def test_a_held_comment_mails_each_editor_with_links_and_no_commenter_address(site, smtp, serve):
    inbox, _ = smtp
    client = serve(site)
    db = client.app.state.masthead.db
    cid = add(db)
    add(db, status="approved", name="Published", email_="p@example.org")  # no mail
    msgs = inbox.wait(2)
    passes(client)  # nothing else is sent
    assert len(inbox.received) == 2
    assert sorted(rcpt for _, (rcpt,), _ in inbox.received) == sorted(EDITORS)
    assert {frm for frm, _, _ in inbox.received} == {"blog@example.com"}
    for msg in msgs:
        assert msg["Subject"] == "[Test site] A comment on “Hello world” awaits moderation"
        assert msg["From"] == "Test site <blog@example.com>"
        assert msg["Auto-Submitted"] == "auto-generated"
        text = msg.get_content()
        assert "A comment." in text and "Mallory" in text and f"{BASE}/posts/hello/" in text
        assert "mallory@example.org" not in msg.as_string()  # the address stays in the dashboard
        links = links_in(msg)
        assert set(links) == {"Approve", "Mark as spam"}
        assert all(p.startswith("/guanli/mail/") for p in links.values())
        assert f"{BASE}/guanli/mail/" in text
        assert f"All pending comments: {BASE}/guanli/comments?status=pending" in text
    rows = outbox.all_mail(db.read())
    assert [(r.kind, r.comment_id, r.status) for r in rows] == [("held", cid, "sent")] * 2


def test_a_scanner_get_changes_nothing_and_the_post_approves_once(site, smtp, serve):
    inbox, _ = smtp
    client = serve(site)
    db = client.app.state.masthead.db
    cid = add(db)
    links = links_in(inbox.wait(2)[0])
    for path in (links["Approve"], links["Mark as spam"]):  # C46 case 6: a mail scanner
        for method in ("GET", "HEAD"):
            r = client.request(method, path)
            assert r.status_code == 200
            assert r.headers["cache-control"] == "no-store"
            assert "noindex" in r.headers["x-robots-tag"]
            assert r.headers["referrer-policy"] == "same-origin"
    page = client.get(links["Approve"]).text
    assert '<meta name="robots" content="noindex' in page
    assert "Approve this comment?" in page and "A comment." in page and "Hello world" in page
    assert f'<form class="mail-page__form" method="post" action="{links["Approve"]}">' in page
    assert status(db, cid) == "pending"
    assert db.read().execute("SELECT count(*) FROM used_tokens").fetchone()[0] == 0

    r = client.post(links["Approve"], headers={"Origin": "http://testserver",
                                               "Sec-Fetch-Site": "same-origin"})  # fmt: skip
    assert r.status_code == 200, r.text
    assert "approved and published" in r.text
    assert status(db, cid) == "approved"
    last = audit_log.history(db.read(), cid)[-1]
    assert (last["actor"], last["action"]) == ("mail", "approved")
    # single use; and the other link died with the status change
    assert client.post(links["Approve"]).status_code == 410
    assert client.get(links["Mark as spam"]).status_code == 409
    assert client.post(links["Mark as spam"]).status_code == 409
    assert status(db, cid) == "approved"


def test_a_cross_site_post_is_refused(site, smtp, serve):
    inbox, _ = smtp
    client = serve(site)
    db = client.app.state.masthead.db
    cid = add(db)
    links = links_in(inbox.wait(2)[0])
    for headers in (
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
        {"Origin": "https://evil.example"},
        {"Origin": "null"},
    ):
        r = client.post(links["Approve"], headers=headers)
        assert r.status_code == 403 and "another site" in r.text, headers
    assert status(db, cid) == "pending"
    assert client.post(links["Approve"]).status_code == 200  # the link still works


def test_the_token_is_bound_to_its_comment_and_action_and_expires(site, smtp, serve):
    inbox, _ = smtp
    client = serve(site)
    db = client.app.state.masthead.db
    cid = add(db)
    links = links_in(inbox.wait(2)[0])
    secret = site_secrets.site_secret(db)
    token = links["Mark as spam"].rsplit("/", 1)[1]
    key = cs.get(db.read(), cid).token_key
    read = tokens.read_action(secret, token)
    assert read == tokens.Action(cid, "spam", read.version, key)
    # a changed letter, another site's secret, an unsubscribe token: invalid
    forged = token[:-2] + ("AA" if token[-2:] != "AA" else "BB")
    other = tokens.action_token(b"x" * 32, cid, "approve", 0, key)
    unsub = tokens.unsubscribe_token(secret, cid, key)
    # made before the comment's key was in it (three items): no longer taken
    keyless = URLSafeTimedSerializer(secret, "masthead.mail.action").dumps([cid, "approve", 0])
    for bad in (forged, other, unsub, keyless, "nonsense"):
        assert client.get(f"/guanli/mail/{bad}").status_code == 400
        assert client.post(f"/guanli/mail/{bad}").status_code == 400
    # an honest token for another comment moves only that one
    other_cid = add(db, body="Another")
    inbox.wait(4)
    # signed 8 days ago: expired, though signed with the right key
    version = outbox.comment_version(db.read(), cid)

    class Past(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(time.time()) - 8 * 86400

    old = URLSafeTimedSerializer(secret, "masthead.mail.action", signer=Past).dumps(
        [cid, "approve", version, key]
    )
    assert tokens.read_action(secret, str(old), max_age=9 * 86400).comment_id == cid
    r = client.post(f"/guanli/mail/{old}")
    assert r.status_code == 410 and "expired" in r.text
    assert status(db, cid) == "pending"
    assert client.post(links["Mark as spam"]).status_code == 200
    assert (status(db, cid), status(db, other_cid)) == ("spam", "pending")


def test_a_link_is_dead_once_the_status_changed_even_back_to_pending(site, smtp, serve):
    inbox, _ = smtp
    client = serve(site)
    db = client.app.state.masthead.db
    cid = add(db)
    links = links_in(inbox.wait(2)[0])
    cs.set_status(db, [cid], "spam", "editor:e")
    cs.set_status(db, [cid], "pending", "editor:e")
    assert client.get(links["Approve"]).status_code == 409
    assert client.post(links["Approve"]).status_code == 409
    assert status(db, cid) == "pending"
    passes(client)
    assert len(inbox.received) == 2  # the same event: not mailed again


# --- replies and unsubscribing ----------------------------------------------------------


def test_an_approved_reply_mails_the_opted_in_parent_author_only(site, smtp, serve):
    inbox, _ = smtp
    client = serve(site)
    db = client.app.state.masthead.db
    alice = add(db, status="approved", name="Alice", email_="Alice@Example.org", notify=True,
                lang="zh", url="/zh/posts/hello/")  # fmt: skip
    bob = add(db, status="approved", name="Bob", email_="bob@example.org", notify=False)
    add(db, status="approved", name="Carol", email_="carol@example.org", parent=bob)
    add(db, status="approved", name="Alice", email_="alice@example.org ", parent=alice)  # herself
    held = add(db, status="pending", name="Dave", email_="dave@example.org", parent=alice,
               body="Reply 🌊 from Dave")  # fmt: skip
    inbox.wait(2)  # the editors hear of Dave's held reply; Alice does not, yet
    passes(client)
    assert len(inbox.received) == 2
    cs.set_status(db, [held], "approved", "editor:e")
    msgs = inbox.wait(3)
    _, rcpt, _ = inbox.received[2]
    assert rcpt == ["Alice@Example.org"]
    msg = msgs[2]
    assert msg["To"] == "Alice@Example.org"
    assert msg["Subject"] == "Dave 回复了你在《你好，世界》下的评论"  # her comment's language
    text = msg.get_content()
    assert "Reply 🌊 from Dave" in text
    assert f"{BASE}/zh/posts/hello/#c-{held}" in text
    assert "dave@example.org" not in msg.as_string()
    unsub = msg["List-Unsubscribe"].strip()  # folded after the colon: long URL
    assert unsub.startswith(f"<{BASE}/comments/unsubscribe/") and unsub.endswith(">")
    assert msg["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    passes(client)
    assert len(inbox.received) == 3


def test_one_click_unsubscribe_by_post_per_rfc_8058(site, smtp, serve):
    inbox, _ = smtp
    client = serve(site)
    db = client.app.state.masthead.db
    alice = add(db, status="approved", name="Alice", email_="alice@example.org", notify=True)
    other = add(db, status="approved", name="Alice", email_="ALICE@example.org", notify=True,
                url="/posts/evil/")  # fmt: skip
    add(db, status="approved", name="Carol", email_="c@example.org", parent=alice)
    msg = inbox.wait(1)[0]
    path = urlsplit(msg["List-Unsubscribe"].strip().strip("<>")).path
    page = client.get(path)  # a scanner, or the reader opening the link: nothing changes
    assert page.status_code == 200 and page.headers["cache-control"] == "no-store"
    assert 'name="List-Unsubscribe" value="One-Click"' in page.text
    assert cs.get(db.read(), alice).notify
    refused = client.post(path, headers={"Origin": "https://evil.example"},
                          data={"List-Unsubscribe": "One-Click"})  # fmt: skip
    assert refused.status_code == 403 and cs.get(db.read(), alice).notify
    # the mail provider's POST: no browser headers, the RFC 8058 body
    r = client.post(
        path,
        content=b"List-Unsubscribe=One-Click",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert r.status_code == 200 and "no more reply notifications" in r.text
    assert not cs.get(db.read(), alice).notify and not cs.get(db.read(), other).notify
    assert client.post(path).status_code == 200  # twice: harmless
    add(db, status="approved", name="Carol", email_="c@example.org", parent=other, body="Again",
        url="/posts/evil/")  # fmt: skip
    passes(client)
    assert len(inbox.received) == 1
    assert client.get("/comments/unsubscribe/forged").status_code == 400
    assert client.post("/comments/unsubscribe/forged").status_code == 400
    # a link in a mail sent before tokens carried the comment's key (the bare id) still works
    secret = site_secrets.site_secret(db)
    legacy = URLSafeSerializer(secret, "masthead.mail.unsubscribe").dumps(alice)
    assert client.get(f"/comments/unsubscribe/{legacy}").status_code == 200


def test_mail_links_from_before_a_restore_do_not_act_on_comments_that_reuse_the_ids(
    site, smtp, serve, tmp_path
):
    inbox, _ = smtp
    client = serve(site)
    db = client.app.state.masthead.db
    site_secrets.site_secret(db)  # made before the backup, as on any site that has had comments
    backup = tmp_path / "backup.db"
    assert CliRunner().invoke(cli, ["backup", str(site.root), str(backup)]).exit_code == 0
    alice = add(db, status="approved", name="Alice", email_="alice@example.org", notify=True)
    add(db, status="approved", name="Carol", email_="c@example.org", parent=alice)
    held = add(db, body="Held, by Mallory")
    mails = inbox.wait(3)
    (reply,) = [m for m in mails if m["List-Unsubscribe"]]
    unsubscribe = urlsplit(reply["List-Unsubscribe"].strip().strip("<>")).path
    links = links_in(next(m for m in mails if not m["List-Unsubscribe"]))
    restored = CliRunner().invoke(cli, ["restore", str(site.root), str(backup), "--yes"])
    assert restored.exit_code == 0, restored.output
    again = Database(site.database_path)
    try:  # the same ids, now other people's comments
        victim = add(again, status="approved", name="Vic", email_="vic@example.org", notify=True)
        add(again, status="approved", name="Dan", email_="d@example.org")
        other = add(again, body="Held, by Vic")
        assert (victim, other) == (alice, held)
        inbox.wait(5)
        for answer in (client.post(links["Approve"]), client.post(unsubscribe)):
            assert answer.status_code == 410, answer.text
        assert status(again, other) == "pending"
        found = cs.get(again.read(), victim)
        assert found is not None and found.notify
    finally:
        again.close()


# --- what no input may do ----------------------------------------------------------------


def test_cr_lf_in_a_name_a_title_or_an_address_injects_no_header(site, smtp, serve):
    inbox, _ = smtp
    client = serve(site)
    db = client.app.state.masthead.db
    evil = "Eve\r\nBcc: victim@evil.example\r\nX-Injected: 1"
    add(db, url="/posts/evil/", name=evil)  # the post's title has CR LF too
    parent = add(db, status="approved", name="P", email_="p@example.org\r\nBcc: v@evil.example",
                 notify=True)  # fmt: skip
    add(db, status="approved", name=evil, email_="e@example.org", parent=parent)
    msgs = inbox.wait(2)
    until(lambda: len(outbox.all_mail(db.read())) >= 3, what="3 mails queued")
    passes(client)
    assert len(inbox.received) == 2  # the reply to a broken address is not sent
    for (_, rcpt, raw), msg in zip(inbox.received, msgs, strict=True):
        assert rcpt[0] in EDITORS and len(rcpt) == 1
        assert b"\r\nBcc:" not in raw and b"\r\nX-Injected:" not in raw
        assert "Bcc" not in msg and "X-Injected" not in msg
        assert msg["Subject"] == "[Test site] A comment on “Hi X-Injected: yes” awaits moderation"
        assert "Eve Bcc: victim@evil.example X-Injected: 1" not in msg["Subject"]
        assert sorted(msg.keys()) == sorted(
            ["From", "To", "Subject", "Date", "Message-ID", "Auto-Submitted",
             "Content-Type", "Content-Transfer-Encoding", "MIME-Version"]
        )  # fmt: skip
    skipped = [m for m in outbox.all_mail(db.read()) if m.kind == "reply"]
    assert [(m.status, m.recipient) for m in skipped] == [("failed", "")]
    assert "cannot be mailed: not a mail address" in skipped[0].last_error


def test_emoji_and_astral_text_survive_whole(site, smtp, serve):
    inbox, _ = smtp
    case = json.loads((DATA / "C36-comment-emoji.json").read_text(encoding="utf-8"))
    client = serve(site)
    db = client.app.state.masthead.db
    parent = add(db, status="approved", name="P", email_="p@example.org", notify=True)
    for sub in case["submissions"]:
        add(db, name=sub["author"], body=sub["body"])
        add(db, status="approved", name=sub["author"], body=sub["body"], parent=parent)
    msgs = inbox.wait(2 * len(EDITORS) + 2)
    held = [m for m in msgs if m["To"] in EDITORS]
    replies = [m for m in msgs if m["To"] == "p@example.org"]
    for sub in case["submissions"]:
        assert any(sub["body"] in m.get_content() for m in held)
        assert any(sub["author"] in m.get_content() for m in held)
        assert any(sub["body"] in m.get_content() for m in replies)
    zoe = next(m for m in replies if "Zoë" in m["Subject"])
    assert zoe["Subject"] == "Zoë 👩🏽‍💻 replied to your comment on “Hello world”"
    assert "\ufffd" not in "".join(m.get_content() for m in msgs)
    assert all(m.get_content_charset() == "utf-8" for m in msgs)


# --- SMTP trouble -------------------------------------------------------------------------


def test_smtp_down_is_retried_with_backoff_and_shown_in_mail_status(make_site, tmp_path):
    port = free_port()  # nobody listens there yet
    site = make_site(POSTS, mail_toml(port))
    db = indexed(site)
    started = time.monotonic()
    cid = add(db, body="Stored while mail is down")
    # the comment never waits for mail: waiting would cost at least the SMTP timeout
    assert time.monotonic() - started < sender.TIMEOUT / 2
    assert cs.get(db.read(), cid).body == "Stored while mail is down"
    now = time.time()
    assert collect(db, site, BASE, now) == 2
    assert collect(db, site, BASE, now) == 0  # an event is queued once
    report = sender.drain(db, site.settings, now=now)
    assert (report.sent, report.retried, report.failed) == (0, 2, 0)
    rows = outbox.all_mail(db.read())
    assert [(r.status, r.attempts) for r in rows] == [("queued", 1)] * 2
    assert all(r.next_attempt == pytest.approx(now + sender.BACKOFF_FIRST) for r in rows)
    assert all("Connection refused" in r.last_error for r in rows)
    shown = CliRunner().invoke(cli, ["mail", "status", str(site.root)])
    assert shown.exit_code == 0, shown.output
    assert "outbox: 2 queued, 0 sent, 0 failed" in shown.output
    assert shown.output.count("Connection refused") == 2 and "retry at" in shown.output
    # not due yet: nothing tried; then a second failure doubles the wait
    assert sender.drain(db, site.settings, now=now + 30).retried == 0
    assert sender.drain(db, site.settings, now=now + 61).retried == 2
    rows = outbox.all_mail(db.read())
    assert all(r.next_attempt == pytest.approx(now + 61 + 2 * sender.BACKOFF_FIRST) for r in rows)
    # the server comes back
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        assert sender.drain(db, site.settings, now=now + 200).sent == 2
        assert len(inbox.received) == 2
        assert "Stored while mail is down" in inbox.messages()[0].get_content()
    finally:
        controller.stop()
    shown = CliRunner().invoke(cli, ["mail", "status", str(site.root)])
    assert "outbox: 0 queued, 2 sent, 0 failed" in shown.output
    db.close()


def test_after_the_last_attempt_a_mail_fails_visibly_and_can_be_retried(make_site, smtp):
    inbox, port = smtp
    dead = free_port()
    site = make_site(POSTS, mail_toml(dead, editors=["ed@example.com"]))
    db = indexed(site)
    add(db)
    now = time.time()
    collect(db, site, BASE, now)
    when = now
    for attempt in range(1, sender.MAX_ATTEMPTS + 1):
        report = sender.drain(db, site.settings, now=when)
        assert report.retried + report.failed == 1
        when += sender.backoff(attempt)
    (row,) = outbox.all_mail(db.read())
    assert (row.status, row.attempts) == ("failed", sender.MAX_ATTEMPTS)
    assert sender.backoff(sender.MAX_ATTEMPTS) == sender.BACKOFF_MAX
    shown = CliRunner().invoke(cli, ["mail", "status", str(site.root)])
    assert "0 queued, 0 sent, 1 failed" in shown.output and "failed after 10" in shown.output
    db.close()
    # fixed: the setting points at a live server; `mail send --retry-failed` sends it now
    (site.root / "masthead.toml").write_text(mail_toml(port, editors=["ed@example.com"]))
    sent = CliRunner().invoke(cli, ["mail", "send", str(site.root), "--retry-failed"])
    assert sent.exit_code == 0, sent.output
    assert "0 queued, 1 sent, 0 to retry, 0 failed" in sent.output
    assert len(inbox.received) == 1


def test_a_permanent_refusal_fails_at_once_and_the_others_still_go(make_site, smtp):
    inbox, port = smtp
    inbox.refuse.add(EDITORS[0])
    site = make_site(POSTS, mail_toml(port))
    db = indexed(site)
    add(db)
    now = time.time()
    collect(db, site, BASE, now)
    report = sender.drain(db, site.settings, now=now)
    assert (report.sent, report.retried, report.failed) == (1, 0, 1)
    failed = [r for r in outbox.all_mail(db.read()) if r.status == "failed"]
    assert [r.recipient for r in failed] == [EDITORS[0]] and "550" in failed[0].last_error
    assert [rcpt for _, rcpt, _ in inbox.received] == [[EDITORS[1]]]
    db.close()


def test_old_and_imported_comments_are_not_mailed(make_site, smtp):
    _, port = smtp
    site = make_site(POSTS, mail_toml(port))
    db = indexed(site)
    now = time.time()
    add(db, created=now - 8 * 86400)  # older than a one-click link lives
    cs.add(
        db,
        cs.NewComment(
            thread=thread_of(db, "/posts/hello/"), post_url="/posts/hello/", parent_id=None,
            lang="en", status="pending", author_name="W", author_email="w@example.org",
            author_url="", body="imported", body_html="<p>imported</p>", created=now,
            source="wxr", source_id="12",
        ),
        "import",
    )  # fmt: skip
    assert collect(db, site, BASE, now) == 0
    db.close()


def test_mail_off_queues_nothing_and_says_why(make_site):
    site = make_site(POSTS)
    db = indexed(site)
    add(db)
    assert collect(db, site, BASE, time.time()) == 0
    assert outbox.all_mail(db.read()) == []
    db.close()
    shown = CliRunner().invoke(cli, ["mail", "status", str(site.root)])
    assert "mail: off (smtp_host is not set)" in shown.output
    sent = CliRunner().invoke(cli, ["mail", "send", str(site.root)])
    assert sent.exit_code == 2 and "mail is off" in sent.output


def test_one_runner_per_site_among_workers(site, smtp, serve):
    inbox, _ = smtp
    first, second = (
        serve(site),
        serve(site),
    )  # two apps on one database: two "workers"
    runners = [first.app.state.mailer, second.app.state.mailer]
    until(lambda: sum(r.working for r in runners) >= 1, what="a runner working")
    assert sum(r.working for r in runners) == 1
    add(second.app.state.masthead.db)
    inbox.wait(2)
    passes(first, second)
    assert len(inbox.received) == 2


def test_a_static_build_sends_no_mail(site, smtp, tmp_path):
    from masthead.export.build import build

    inbox, _ = smtp
    db = indexed(site)
    add(db)
    db.close()
    build(site, tmp_path / "out")
    assert inbox.received == []
    db = Database(site.database_path)
    assert outbox.all_mail(db.read()) == []
    db.close()


def test_the_confirmation_button_approves_in_a_real_browser(site, smtp, browser):
    """Chromium opens the mailed link (a GET: nothing changes), then clicks the button: the
    form's POST, with the browser's own Origin and Sec-Fetch-Site, under the site's CSP."""
    from masthead.web.app import create_app

    inbox, _ = smtp
    app = create_app(site)
    with uvicorn_server(app) as served:
        db = app.state.masthead.db
        cid = add(db, body="Approve me in Chromium")
        path = links_in(inbox.wait(2)[0])["Approve"]
        page = browser.new_page()
        page.add_init_script(
            "window.__v = []; document.addEventListener('securitypolicyviolation',"
            " e => window.__v.push(e.violatedDirective));"
        )
        page.goto(served + path)
        assert "Approve me in Chromium" in page.content()
        assert status(db, cid) == "pending"
        page.click("form.mail-page__form button")
        page.wait_for_selector(".mail-page__message")
        assert "approved and published" in page.inner_text(".mail-page__message")
        assert page.evaluate("window.__v") == []
        assert status(db, cid) == "approved"


def test_an_erasure_request_forgets_the_mails_to_and_about_the_person(make_site, smtp):
    _, port = smtp
    site = make_site(POSTS, mail_toml(port))
    db = indexed(site)
    alice = add(db, status="approved", name="Alice", email_="alice@example.org", notify=True)
    held = add(db, name="Alice", email_="alice@example.org", body="held text")
    add(db, status="approved", name="Bob", email_="bob@example.org", parent=alice)
    other = add(db, name="Carol", email_="carol@example.org")
    now = time.time()
    assert collect(db, site, BASE, now) == 2 * len(EDITORS) + 1
    ids = [c.id for c in cs.by_email(db.read(), "ALICE@example.org ")]
    assert ids == [alice, held]
    with db.write() as conn:
        gone = outbox.erase_person(conn, " Alice@Example.org", ids)
    assert gone == len(EDITORS) + 1  # the held mails about her comment, the reply mail to her
    assert {m.comment_id for m in outbox.all_mail(db.read())} == {other}
    db.close()


def test_a_hung_smtp_server_holds_up_no_comment_and_no_request(make_site, serve):
    """The SMTP server accepts the connection and never greets: while the runner waits on it
    (up to sender.TIMEOUT), comments are stored and pages answered at once."""
    hung = socket.socket()
    hung.bind(("127.0.0.1", 0))
    hung.listen(8)  # never accept()ed: connections wait in the backlog, unanswered
    try:
        port = hung.getsockname()[1]
        site = make_site(POSTS, mail_toml(port))
        client = serve(site)
        db = client.app.state.masthead.db
        add(db)
        until(lambda: any(m.attempts for m in outbox.all_mail(db.read())), what="the mails taken")
        until(lambda: connected_to(port), what="the runner connected, waiting for the greeting")
        cid = add(db, body="Stored while SMTP hangs")
        assert client.get("/posts/hello/").status_code == 200
        assert client.get("/healthz").status_code == 200
        assert cs.get(db.read(), cid).body == "Stored while SMTP hangs"
        # and the runner is still waiting: had the comment or a request waited for it, its
        # `sender.TIMEOUT` would have run out first and recorded an error (no clock needed)
        assert all(m.status == "queued" and not m.last_error for m in outbox.all_mail(db.read()))
    finally:
        hung.close()  # the waiting connection is reset: the runner records a retry
    until(
        lambda: all(m.last_error for m in outbox.all_mail(db.read())),
        what="the failure recorded",
    )
    assert {m.status for m in outbox.all_mail(db.read())} == {"queued"}


@pytest.mark.parametrize("tls", ["starttls", "tls"])
def test_a_tls_mode_never_falls_back_to_plain_text(make_site, smtp, tls):
    """The server offers no STARTTLS (and speaks no TLS at all): nothing is sent in clear."""
    inbox, port = smtp
    site = make_site(POSTS, mail_toml(port, ["ed@example.com"], tls=tls))
    db = indexed(site)
    add(db)
    now = time.time()
    collect(db, site, BASE, now)
    report = sender.drain(db, site.settings, now=now)
    assert (report.sent, report.retried) == (0, 1)
    assert inbox.received == []
    (row,) = outbox.all_mail(db.read())
    expected = "STARTTLS" if tls == "starttls" else "SSL"
    assert expected in row.last_error, row.last_error
    db.close()


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
def test_the_login_uses_smtp_user_and_the_password_from_the_environment(make_site, monkeypatch):
    seen: list[tuple[str, bytes]] = []

    def authenticator(server, session, envelope, mechanism, auth_data):
        seen.append((auth_data.login.decode(), auth_data.password))
        return AuthResult(success=auth_data.password == b"s3cret pass", handled=False)

    inbox = Inbox()
    controller = Controller(
        inbox, hostname="127.0.0.1", port=free_port(), authenticator=authenticator,
        auth_required=True, auth_require_tls=False,  # a test server without a certificate
        auth_exclude_mechanism=["LOGIN"],  # PLAIN alone: smtplib tries each on a failure
    )  # fmt: skip
    controller.start()
    try:
        site = make_site(POSTS, mail_toml(controller.port, ["ed@example.com"], user="blog"))
        db = indexed(site)
        add(db)
        now = time.time()
        collect(db, site, BASE, now)
        monkeypatch.setenv("MASTHEAD_SMTP_PASSWORD", "wrong")
        assert sender.drain(db, site.settings, now=now).retried == 1
        monkeypatch.setenv("MASTHEAD_SMTP_PASSWORD", "s3cret pass")
        assert sender.drain(db, site.settings, now=now + 60).sent == 1
        assert seen == [("blog", b"wrong"), ("blog", b"s3cret pass")]
        assert len(inbox.received) == 1
        db.close()
    finally:
        controller.stop()


def test_an_idn_domain_is_mailed_and_an_unsendable_row_poisons_nothing(make_site, smtp):
    inbox, port = smtp
    # an editor address with a non-ASCII local part stops `check` now (see below); a row no
    # SMTP command can carry may still be in an outbox from before
    site = make_site(POSTS, mail_toml(port, ["ed@例子.example"]))
    db = indexed(site)
    add(db)
    now = time.time()
    assert collect(db, site, BASE, now) == 1
    with db.write() as conn:  # a row no SMTP command can carry, queued before the good one
        outbox.enqueue(conn, "held", "zoë@example.com", b"Subject: x\r\n\r\nx\r\n",
                       comment_id=None, now=now - 1)  # fmt: skip
    report = sender.drain(db, site.settings, now=now)
    assert (report.sent, report.failed, report.retried) == (1, 1, 0)
    assert [rcpt for _, rcpt, _ in inbox.received] == [["ed@xn--fsqu00a.example"]]
    assert sender.drain(db, site.settings, now=now + 3600).failed == 0  # failed once, for good
    rows = {m.recipient: m for m in outbox.all_mail(db.read())}
    assert rows["zoë@example.com"].status == "failed"
    db.close()


# --- a fresh user's trial (session 6): mail_from with a name, the reply mail's header and link


def test_a_mail_from_with_a_display_name_is_sent_from_that_name(make_site, smtp):
    inbox, port = smtp
    toml = mail_toml(port, editors=["ed@example.com"])
    site = make_site(POSTS, toml.replace('"blog@example.com"', '"Blog <blog@example.com>"'))
    db = indexed(site)
    add(db)
    now = time.time()
    assert collect(db, site, BASE, now) == 1
    assert sender.drain(db, site.settings, now=now).sent == 1
    (frm, rcpt, _), msg = inbox.received[0], inbox.messages()[0]
    assert (frm, rcpt) == ("blog@example.com", ["ed@example.com"])  # the envelope: addr-spec
    assert msg["From"] == "Blog <blog@example.com>"
    shown = CliRunner().invoke(cli, ["mail", "status", str(site.root)])
    assert "mail: on" in shown.output and "1 sent, 0 failed" in shown.output
    db.close()


@pytest.mark.parametrize("bad", ["blog at example.com", "a@example.com, b@example.com", "Blog <>"])
def test_a_mail_from_that_is_no_address_stops_check_naming_it(make_site, smtp, bad):
    site = make_site(POSTS, mail_toml(smtp[1]))
    toml = mail_toml(smtp[1]).replace('"blog@example.com"', json.dumps(bad))
    (site.root / "masthead.toml").write_text(toml)
    shown = CliRunner().invoke(cli, ["check", str(site.root)])
    assert shown.exit_code == 2 and "mail_from: " in shown.output, shown.output
    assert "must be one address" in shown.output


@pytest.mark.parametrize(
    ("setting", "value"),
    [("mail_from", '"Blog <blög@example.com>"'), ("editor_emails", '["zoë@example.com"]')],
)
def test_an_address_no_mail_can_carry_stops_check_and_start_up_naming_the_setting(
    make_site, smtp, setting, value
):
    """A non-ASCII local part: plain SMTP cannot carry it and SMTPUTF8 is not offered by every
    server on the way, so `check` refuses it at once instead of the first mail failing."""
    inbox, port = smtp
    good = mail_toml(port, editors=["ed@example.com"])
    site = make_site(POSTS, good)
    line = next(x for x in good.splitlines() if x.startswith(setting + " ="))
    (site.root / "masthead.toml").write_text(good.replace(line, f"{setting} = {value}"))
    for command in (["check"], ["mail", "send"], ["mail", "status"]):
        shown = CliRunner().invoke(cli, [*command, str(site.root)])
        assert shown.exit_code == 2, (command, shown.output)
        assert f"{setting}: " in shown.output, shown.output
        assert "the part before @ must be ASCII" in shown.output, shown.output
    (site.root / "masthead.toml").write_text(good)
    variable = "MASTHEAD_" + setting.upper()
    env = {variable: value.strip('"[]')}
    shown = CliRunner().invoke(cli, ["check", str(site.root)], env=env)
    assert shown.exit_code == 2 and f"{variable} (environment): " in shown.output, shown.output
    assert inbox.received == []


def test_a_mail_from_whose_name_is_not_ascii_is_sent_and_arrives_with_that_name(make_site, smtp):
    """What `check` advises instead of a non-ASCII address: a name in any script, carried as
    RFC 2047 encoded words by a plain SMTP server."""
    inbox, port = smtp
    toml = mail_toml(port, editors=["ed@example.com"])
    site = make_site(POSTS, toml.replace('"blog@example.com"', '"博客 Zoë <blog@example.com>"'))
    db = indexed(site)
    add(db)
    now = time.time()
    assert collect(db, site, BASE, now) == 1
    assert sender.drain(db, site.settings, now=now).sent == 1
    (frm, rcpt, _), msg = inbox.received[0], inbox.messages()[0]
    assert (frm, rcpt) == ("blog@example.com", ["ed@example.com"])
    assert str(msg["From"]) == "博客 Zoë <blog@example.com>"
    db.close()


def raw_header(raw: bytes, name: str) -> str:
    """Header `name` of a message as it went over the wire, unfolded (RFC 5322 §2.2.3)."""
    head = raw.split(b"\r\n\r\n", 1)[0].decode("ascii")
    unfolded = re.sub(r"\r\n(?=[ \t])", "", head)
    (value,) = [
        line.split(":", 1)[1].strip()
        for line in unfolded.split("\r\n")
        if line.lower().startswith(name.lower() + ":")
    ]
    return value


def test_the_reply_mail_list_unsubscribe_arrives_as_a_url_and_the_link_finds_the_comment(
    site, smtp, serve
):
    inbox, _ = smtp
    client = serve(site)
    db = client.app.state.masthead.db
    alice = add(db, status="approved", name="Alice", email_="alice@example.org", notify=True)
    reply = add(db, status="approved", name="Carol", email_="c@example.org", parent=alice)
    inbox.wait(1)
    raw = inbox.received[0][2]
    unsub = raw_header(raw, "List-Unsubscribe")
    assert "=?" not in unsub  # no RFC 2047 encoded words: mail providers read the URL as is
    assert re.fullmatch(rf"<{re.escape(BASE)}/comments/unsubscribe/[A-Za-z0-9._~-]+>", unsub), unsub
    assert raw_header(raw, "List-Unsubscribe-Post") == "List-Unsubscribe=One-Click"
    path = urlsplit(unsub.strip("<>")).path
    r = client.post(
        path,
        content=b"List-Unsubscribe=One-Click",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert r.status_code == 200 and not cs.get(db.read(), alice).notify
    # "view the reply" points at the element the post's page draws for that comment
    (link,) = [w for w in inbox.messages()[0].get_content().split() if "#" in w]
    assert link == f"{BASE}/posts/hello/#c-{reply}"
    page = client.get("/posts/hello/")
    assert f'id="c-{reply}"' in page.text


ENCODED_WORDS = ["=?utf-8?b?QWRtaW4=?=", "=?UTF-8?Q?Admin?=", "x =?iso-8859-1?q?Adm=E9n?= y"]


@pytest.mark.parametrize("name", ENCODED_WORDS, ids=["b", "q", "inside"])
def test_a_name_written_as_an_encoded_word_arrives_as_typed(make_site, smtp, serve, name):
    """Issue 29, item 7: a reader named `=?utf-8?b?QWRtaW4=?=` is not "Admin" in the reply mail's
    subject, nor anywhere in the held mail: every header and body shows the characters typed,
    as a mail program reads them (the standard library's parser, which decodes RFC 2047)."""
    inbox, port = smtp
    client = serve(make_site({**POSTS, "posts/titled.md": post(f"About {name}")}, mail_toml(port)))
    db = client.app.state.masthead.db
    alice = add(db, status="approved", name="Alice", email_="alice@example.org", notify=True,
                url="/posts/titled/")  # fmt: skip
    held = add(db, status="pending", name=name, email_="e@example.org", parent=alice,
               body=f"Signed {name}", url="/posts/titled/")  # fmt: skip
    held_mails = inbox.wait(len(EDITORS))
    cs.set_status(db, [held], "approved", "editor:e")
    mails = inbox.wait(len(EDITORS) + 1)
    reply_mail = mails[-1]
    assert reply_mail["Subject"].startswith(f"{name} replied"), reply_mail["Subject"]
    assert f"{name} replied" in reply_mail.get_content()
    assert f"Signed {name}" in reply_mail.get_content()
    for msg in held_mails:
        assert f"About {name}" in msg["Subject"], msg["Subject"]
        assert f"Author: {name}" in msg.get_content().splitlines()
    for msg in mails:
        for header, value in msg.items():
            assert "Admin" not in str(value).replace(name, ""), (header, value)
